import ParlorDomain
import ParlorEvents
import ParlorLive
import Testing

/// Whose dots a page is told of: the people its viewer shares a chat with, as the page opens and at each change.
@Suite struct PresenceLiveTests {
    static func dots(_ page: RecordingListener, of user: User) -> [String] {
        page.fragments.compactMap { if case .presence(let dot) = $0, dot.userID == "\(user.id)" { dot.state } else { nil } }
    }

    @Test(arguments: Backend.allCases)
    func aPageIsToldOnlyOfPeopleItsViewerSharesAChatWith(_ backend: Backend) async throws {
        let world = try await ChatWorld(backend, openRoom: false)
        let (ana, ben, chloe) = (world.ana, world.ben, world.chloe)
        _ = try await world.chat(ana, ben)
        let created = await world.router.send(.creatingRoom(RoomRequest(creator: chloe.id, kind: .closed, name: "Design", memberHandles: ["ben"])))
        guard case .created(let room) = created else { Issue.record("no room: \(created)"); return }

        // Ana shares a direct chat with Ben, Chloé a room; Ana and Chloé share nothing, and each asks for the other.
        let anas = RecordingListener()
        _ = try await world.handler.register(anas, for: PageSubscription(viewer: ana.id, watching: [ben.id, chloe.id]))
        let chloes = RecordingListener()
        _ = try await world.handler.register(chloes, for: PageSubscription(viewer: chloe.id, watching: [ana.id, ben.id]))
        for person in [ana, ben, chloe] {
            await world.router.send(.reportingPresence(PresenceReport(userID: person.id, instance: 1, state: .active)))
        }
        #expect(Self.dots(anas, of: ben) == ["active"] && Self.dots(chloes, of: ben) == ["active"])
        #expect(Self.dots(anas, of: chloe).isEmpty && Self.dots(chloes, of: ana).isEmpty, "strangers learn nothing of each other")

        // A page that opens now is told of whom it may see only.
        let later = RecordingListener()
        _ = try await world.handler.register(later, for: PageSubscription(viewer: chloe.id, watching: [ana.id, ben.id]))
        #expect(Self.dots(later, of: ben) == ["active"] && Self.dots(later, of: ana).isEmpty)

        // Ben leaves the room: Chloé shares no chat with him now, and her pages hear nothing more of him; Ana's do.
        let left = await world.router.send(.changingMembers(MemberChange(chatID: room.id, by: ben.id, removing: ben.id)))
        guard case .membersChanged = left else { Issue.record("not left: \(left)"); return }
        for page in [anas, chloes, later] { page.clear() }
        await world.router.send(.reportingPresence(PresenceReport(userID: ben.id, instance: 1, state: .away)))
        #expect(Self.dots(anas, of: ben) == ["away"])
        #expect(Self.dots(chloes, of: ben).isEmpty && Self.dots(later, of: ben).isEmpty)
        await world.router.send(.reportingPresence(PresenceReport(userID: ben.id, instance: 1, state: .active)))
        #expect(Self.dots(anas, of: ben) == ["away", "active"] && Self.dots(chloes, of: ben).isEmpty)

        // Sharing a chat again counts from the next page she opens.
        _ = try await world.chat(chloe, ben)
        let again = RecordingListener()
        _ = try await world.handler.register(again, for: PageSubscription(viewer: chloe.id, watching: [ben.id]))
        #expect(Self.dots(again, of: ben) == ["active"])
    }
}
