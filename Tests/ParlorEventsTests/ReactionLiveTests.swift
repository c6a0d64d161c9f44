import ParlorDomain
import ParlorEvents
import ParlorLive
import ParlorViews
import Testing

/// Reactions reach every open page of the chat at once: one drawing for those who gave none, one for each giver.
@Suite struct ReactionLiveTests {
    static func lists(_ page: RecordingListener) -> [ReactionsViewModel] {
        page.fragments.compactMap { if case .reactions(let list) = $0 { list } else { nil } }
    }

    @Test(arguments: Backend.allCases)
    func aReactionIsRedrawnOnEveryPageOfTheChatPressedForItsGiver(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend)
        let created = await world.router.send(.creatingRoom(RoomRequest(creator: world.ana.id, kind: .closed, name: "Launch", memberHandles: ["ben", "chloe"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }
        let message = try await world.send(room, world.ana, "Shipped!")
        let (anas, _) = try await world.page(world.ana, open: room)
        let (bens, _) = try await world.page(world.ben, open: room)
        let (chloes, _) = try await world.page(world.chloe, open: room)
        let (chloesList, _) = try await world.page(world.chloe)
        for page in [anas, bens, chloes, chloesList] { page.clear() }

        let before = world.handler.renderCount
        let reacted = await world.router.send(.reacting(ReactionToggle(messageID: message.id, userID: world.ben.id, text: " 🎉 ", at: world.clock.now)))
        guard case .reacted(let reactions) = reacted else { Issue.record("not reacted: \(reacted)"); return }
        #expect(reactions.counts.map(\.text) == ["🎉"], "trimmed by the router")
        #expect(world.handler.renderCount - before == 2, "one for Ben, one shared by Ana and Chloé")
        let bensList = try #require(Self.lists(bens).last)
        #expect(bensList.domID == "reactions-\(message.id)")
        #expect(bensList.items.map(\.isMine) == [true] && bensList.items.first?.label == "You reacted with 🎉")
        let anasList = try #require(Self.lists(anas).last)
        #expect(anasList.items.map(\.isMine) == [false] && anasList.items.first?.label == "Ben Okafor reacted with 🎉" && anasList.items.first?.count == "1")
        #expect(Self.lists(chloes) == [anasList])
        #expect(chloesList.updates.isEmpty, "a page without the chat open is not told")

        // Taken back: the list is empty everywhere (and a page drawn now has none). Refused: nothing is sent.
        await world.router.send(.reacting(ReactionToggle(messageID: message.id, userID: world.ben.id, text: "🎉", at: world.clock.now)))
        #expect(Self.lists(anas).last?.items.isEmpty == true && Self.lists(bens).last?.items.isEmpty == true)
        for page in [anas, bens, chloes] { page.clear() }
        let refused = await world.router.send(.reacting(ReactionToggle(messageID: message.id, userID: world.ben.id, text: "far too long a reaction", at: world.clock.now)))
        #expect(refused == .failedReacting(ReactionToggle(messageID: message.id, userID: world.ben.id, text: "far too long a reaction", at: world.clock.now), reason: .invalidReaction))
        #expect(anas.updates.isEmpty && bens.updates.isEmpty)

        // Chloé is taken out: her page hears nothing more of the room's reactions.
        _ = await world.router.send(.changingMembers(MemberChange(chatID: room.id, by: world.ana.id, removing: world.chloe.id)))
        chloes.clear()
        await world.router.send(.reacting(ReactionToggle(messageID: message.id, userID: world.ana.id, text: "👍", at: world.clock.now)))
        #expect(Self.lists(bens).last?.items.map(\.text) == ["👍"] && Self.lists(chloes).isEmpty)

        // An edit keeps the reactions under the new text.
        bens.clear()
        _ = await world.router.send(.editing(MessageEdit(messageID: message.id, editorID: world.ana.id, body: "Shipped, really", editedAt: world.clock.now)))
        let cell = try #require(bens.fragments.compactMap(\.messageCell).last)
        #expect(cell.reactions?.items.map(\.text) == ["👍"])
    }
}
