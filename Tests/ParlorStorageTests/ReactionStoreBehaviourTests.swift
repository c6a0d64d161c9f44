import Foundation
import ParlorDomain
import Testing

/// Reactions in every store: given and taken back, in order, by members only, to words only, within the limit.
@Suite struct ReactionStoreBehaviourTests {
    typealias World = ChatStoreBehaviourTests.World

    func toggle(_ world: World, _ message: Message, by person: User, _ text: String, at seconds: Double = 10) async throws -> MessageReactions {
        try await world.store.toggleReaction(ReactionToggle(messageID: message.id, userID: person.id, text: text, at: .at(seconds)))
    }

    @Test(arguments: StoreKind.allCases)
    func aReactionIsGivenThenTakenBackAndCountsInTheOrderGiven(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let room = try await world.store.createRoom(NewRoom(
            creator: world.ana.id, kind: .closed, name: "Launch", topic: nil, members: [world.ben.id, world.chloe.id], createdAt: .at(1)
        ))
        let message = try await world.send(room.id, from: world.ana, "Shipped!", at: 2)
        let other = try await world.send(room.id, from: world.ben, "Nice", at: 3)

        var reactions = try await toggle(world, message, by: world.ben, "🎉")
        #expect(reactions.messageID == message.id && reactions.chatID == room.id)
        #expect(reactions.counts == [ReactionCount(text: "🎉", people: [world.ben.id], names: ["Ben Okafor"])])
        _ = try await toggle(world, message, by: world.chloe, "👍")
        reactions = try await toggle(world, message, by: world.ana, "🎉")
        #expect(reactions.counts == [
            ReactionCount(text: "🎉", people: [world.ben.id, world.ana.id], names: ["Ben Okafor", "Ana Lima"]),
            ReactionCount(text: "👍", people: [world.chloe.id], names: ["Chloé Martin"]),
        ], "kinds in the order first given, people in the order they gave")
        #expect(reactions.given(by: world.ana.id) == ["🎉"])

        // The same again takes it back (the kinds keep the order of the first of each still given); the last one
        // gone, the kind is gone.
        reactions = try await toggle(world, message, by: world.ben, "🎉")
        #expect(reactions.counts.map(\.text) == ["👍", "🎉"] && reactions.counts.map(\.people) == [[world.chloe.id], [world.ana.id]])
        reactions = try await toggle(world, message, by: world.chloe, "👍")
        #expect(reactions.counts.map(\.text) == ["🎉"])

        // What a page reads: the reactions by message, and the conversation with them.
        _ = try await toggle(world, other, by: world.ana, "+1")
        let read = try await world.store.reactions(to: [message.id, other.id, MessageID(999_999)])
        #expect(read[message.id]?.map(\.text) == ["🎉"] && read[other.id]?.first?.people == [world.ana.id] && read.count == 2)
        #expect(try await world.store.reactions(to: []).isEmpty)
        let conversation = try #require(try await world.store.conversation(room.id, viewer: world.chloe.id, before: nil, limit: 50))
        #expect(conversation.reactions == read.filter { $0.key != MessageID(999_999) })
        let screen = try await world.store.chatsScreen(for: world.chloe.id, open: room.id, before: nil, limit: 50)
        #expect(screen.conversation?.reactions == conversation.reactions, "the chats screen's conversation too")
    }

    @Test(arguments: StoreKind.allCases)
    func onlyMembersReactToWordsStillThereAndKindsAreLimited(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let chat = try await world.store.createChat(between: world.ana.id, and: world.ben.id, at: .at(1))
        let message = try await world.send(chat.id, from: world.ana, "Lunch?", at: 2)
        await #expect(throws: Refusal.notFound, "not Chloé's chat") { try await toggle(world, message, by: world.chloe, "👍") }
        let gone = Message(id: MessageID(999_999), chatID: chat.id, senderID: world.ana.id, body: "", createdAt: .at(2))
        await #expect(throws: Refusal.notFound, "no such message") { try await toggle(world, gone, by: world.ben, "👍") }

        for index in 0..<ReactionText.kindsPerMessage { _ = try await toggle(world, message, by: world.ben, "r\(index)") }
        await #expect(throws: Refusal.tooManyReactions(limit: ReactionText.kindsPerMessage)) { try await toggle(world, message, by: world.ana, "one more") }
        let full = try await toggle(world, message, by: world.ana, "r3")
        #expect(full.counts.count == ReactionText.kindsPerMessage && full.counts[3].people == [world.ben.id, world.ana.id], "a kind given already still can be")
        #expect(try await world.store.reactions(to: [message.id])[message.id]?.count == ReactionText.kindsPerMessage, "nothing half written")

        // Deleted: its reactions go with its text, and it takes no more.
        _ = try await world.store.delete(MessageDeletion(messageID: message.id, requesterID: world.ana.id, deletedAt: .at(3)))
        #expect(try await world.store.reactions(to: [message.id]).isEmpty)
        await #expect(throws: Refusal.notFound) { try await toggle(world, message, by: world.ben, "👍") }

        // A line about a room is no one's words.
        let room = try await world.store.createRoom(NewRoom(creator: world.ana.id, kind: .closed, name: "Design", topic: nil, members: [], createdAt: .at(4)))
        let change = try await world.store.addMembers([world.ben.id], to: room.id, by: world.ana.id, at: .at(5))
        let notice = try #require(change.notices.first)
        await #expect(throws: Refusal.notFound) { try await toggle(world, notice, by: world.ben, "👍") }
    }
}
