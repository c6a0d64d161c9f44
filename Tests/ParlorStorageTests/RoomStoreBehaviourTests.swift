import Foundation
import ParlorDomain
import Testing

/// Rooms in every store: who is in them, what each member's list and conversation show, and what is refused.
@Suite struct RoomStoreBehaviourTests {
    typealias World = ChatStoreBehaviourTests.World

    @Test(arguments: StoreKind.allCases)
    func aClosedRoomHasItsChosenMembersAndIsOneRowOfEachMembersList(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let room = try await store.createRoom(NewRoom(
            creator: world.ana.id, kind: .closed, name: "Launch", topic: "Friday's release", members: [world.ben.id, world.ana.id], createdAt: .at(1)
        ))
        #expect(room.kind == .closed && room.name == "Launch" && room.topic == "Friday's release")
        #expect(room.members == [world.ana.id, world.ben.id].sorted(), "the creator once, and the one chosen")
        #expect(try await store.chat(room.id) == room)
        #expect(try await store.membership(room.id, world.chloe.id) == nil)
        let membership = try #require(try await store.membership(room.id, world.ben.id))
        #expect(membership.involvement == .mentions && membership.joinedAt == .at(1), "a room is followed for mentions by default")

        _ = try await world.send(room.id, from: world.ana, "Hello room", at: 2)
        _ = try await world.send(room.id, from: world.ben, "Hi Ana", at: 3)
        let anas = try await store.chatList(for: world.ana.id)
        #expect(anas.count == 1, "one row for the room, whatever its number of members")
        let row = try #require(anas.first)
        #expect(row.heading == ChatHeading(kind: .closed, name: "Launch", topic: "Friday's release", memberCount: 2, contact: nil))
        #expect(row.lastMessage?.body == "Hi Ana" && row.lastSenderName == "Ben Okafor" && row.unreadCount == 1)
        #expect(try await store.chatSummary(room.id, for: world.ben.id)?.unreadCount == 1, "Ana's message is unread for Ben")
        #expect(try await store.chatList(for: world.chloe.id).isEmpty, "not Chloé's")

        // The conversation names its room and knows who wrote each message; Chloé cannot open it.
        let conversation = try #require(try await store.conversation(room.id, viewer: world.ben.id, before: nil, limit: 50))
        #expect(conversation.heading == row.heading && conversation.contact == nil && conversation.contactLastRead == nil)
        #expect(conversation.people[world.ana.id] == world.ana && conversation.people[world.ben.id] == world.ben)
        #expect(try await store.conversation(room.id, viewer: world.chloe.id, before: nil, limit: 50) == nil)
        let screen = try await store.chatsScreen(for: world.ben.id, open: room.id, before: nil, limit: 50)
        let bensList = try await store.chatList(for: world.ben.id)
        #expect(screen.conversation == conversation && screen.summaries == bensList)
        #expect(try await store.chatsScreen(for: world.chloe.id, open: room.id, before: nil, limit: 50).conversation == nil)

        // A stranger cannot write in it.
        await #expect(throws: Refusal.notFound) { try await world.send(room.id, from: world.chloe, "Let me in", at: 4) }
    }

    @Test(arguments: StoreKind.allCases)
    func aRoomWithSomeoneWhoDoesNotExistIsNotMade(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        await #expect(throws: Refusal.notFound) {
            try await world.store.createRoom(NewRoom(creator: world.ana.id, kind: .closed, name: "Ghosts", topic: nil, members: [UserID(999)], createdAt: .at(1)))
        }
        #expect(try await world.store.chatList(for: world.ana.id).isEmpty, "nothing half made")
    }

    @Test(arguments: StoreKind.allCases)
    func everyoneIsInAnOpenRoomAndWhoeverSignsUpLaterJoinsItWithNothingUnread(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let first = NewRoom(creator: world.ana.id, kind: .open, name: "General", topic: nil, createdAt: .at(1))
        let general = try #require(try await store.createFirstRoom(first))
        #expect(general.members == [world.ana.id, world.ben.id, world.chloe.id].sorted())
        #expect(try await store.createFirstRoom(first) == nil, "a Parlor starts with one first room")
        let said = try await world.send(general.id, from: world.ben, "Morning all", at: 2)

        let dmitri = try await store.createUser(NewUser(handle: "dmitri", displayName: "Dmitri Volkov"), at: .at(3))
        let row = try #require(try await store.chatList(for: dmitri.id).first)
        #expect(row.chatID == general.id && row.heading.memberCount == 4 && row.unreadCount == 0, "what was said before is not unread")
        #expect(row.lastRead == said.id)
        #expect(try await store.membership(general.id, dmitri.id)?.joinedAt == .at(3))
        #expect(try await store.chat(general.id)?.members.contains(dmitri.id) == true)
        _ = try await world.send(general.id, from: world.ana, "Welcome Dmitri", at: 4)
        #expect(try await store.unreadTotal(for: dmitri.id) == 1)
        #expect(try await store.chatSummary(general.id, for: world.chloe.id)?.unreadCount == 2, "Chloé has read neither")
    }
}
