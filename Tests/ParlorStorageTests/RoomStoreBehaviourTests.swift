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
        #expect(try await store.chatSummary(general.id, for: dmitri.id)?.unreadCount == 1)
        #expect(try await store.unreadTotal(for: dmitri.id) == 0, "a room is followed for mentions: unread, but not counted")
        #expect(try await store.chatSummary(general.id, for: world.chloe.id)?.unreadCount == 2, "Chloé has read neither")

        // Named, Dmitri's count moves; @everyone names Chloé too; reading past them clears them.
        let named = try await world.send(general.id, from: world.ana, "@Dmitri are you settled in?", at: 5)
        #expect(try await store.chatSummary(general.id, for: dmitri.id)?.mentionCount == 1)
        #expect(try await store.unreadTotal(for: dmitri.id) == 1)
        _ = try await world.send(general.id, from: world.ben, "Lunch at noon, @everyone", at: 6)
        #expect(try await store.chatSummary(general.id, for: dmitri.id)?.mentionCount == 2)
        #expect(try await store.chatSummary(general.id, for: world.chloe.id)?.mentionCount == 1)
        #expect(try await store.chatSummary(general.id, for: world.ben.id)?.mentionCount == 0, "not for the one who wrote it")
        _ = try await store.markRead(ReadReport(chatID: general.id, readerID: dmitri.id, upTo: named.id))
        #expect(try await store.chatSummary(general.id, for: dmitri.id)?.mentionCount == 1, "the read counts again: @everyone is left")
        _ = try await store.delete(MessageDeletion(messageID: named.id, requesterID: world.ana.id, deletedAt: .at(7)))
        #expect(try await store.chatSummary(general.id, for: dmitri.id)?.mentionCount == 1, "a deletion behind the mark changes nothing")

        // Followed for everything, every message counts; for nothing, none; hidden, gone from nobody's store list.
        _ = try await store.setInvolvement(.everything, in: general.id, for: dmitri.id)
        #expect(try await store.unreadTotal(for: dmitri.id) == 1)
        #expect(try await store.membership(general.id, dmitri.id)?.involvement == .everything)
        _ = try await store.setInvolvement(.nothing, in: general.id, for: dmitri.id)
        #expect(try await store.unreadTotal(for: dmitri.id) == 0)
        _ = try await store.setInvolvement(.hidden, in: general.id, for: dmitri.id)
        #expect(try await store.chatSummary(general.id, for: dmitri.id)?.involvement == .hidden)
        await #expect(throws: Refusal.notFound) { try await store.setInvolvement(.nothing, in: ChatID(999), for: dmitri.id) }
    }

    @Test(arguments: StoreKind.allCases)
    func membersComeAndGoWithALineEachAndNothingUnreadFromBefore(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let room = try await store.createRoom(NewRoom(creator: world.ana.id, kind: .closed, name: "Launch", topic: nil, members: [world.ben.id], createdAt: .at(1)))
        let before = try await world.send(room.id, from: world.ben, "Before Chloé", at: 2)

        let added = try await store.addMembers([world.chloe.id, world.ben.id], to: room.id, by: world.ana.id, at: .at(3))
        #expect(added.added == [world.chloe.id] && added.chat.members == [world.ana.id, world.ben.id, world.chloe.id].sorted(), "Ben was in already")
        let line = try #require(added.notices.first)
        #expect(added.notices.count == 1 && line.notice == RoomNotice(kind: .added, subject: world.chloe.id) && line.senderID == world.ana.id)
        let chloes = try #require(try await store.chatSummary(room.id, for: world.chloe.id))
        #expect(chloes.unreadCount == 0 && chloes.lastRead == before.id && chloes.heading.memberCount == 3, "the history is there, not unread")
        #expect(try await store.chatSummary(room.id, for: world.ben.id)?.unreadCount == 0, "a line about the room is nobody's unread message")
        #expect(try await store.members(of: room.id, viewer: world.chloe.id)?.map(\.handle) == ["ana", "ben", "chloe"])
        let conversation = try #require(try await store.conversation(room.id, viewer: world.chloe.id, before: nil, limit: 50))
        #expect(conversation.messages.last == line && conversation.people[world.chloe.id] == world.chloe, "the line and whom it names")
        #expect(try await store.addMembers([world.chloe.id], to: room.id, by: world.ana.id, at: .at(4)).notices.isEmpty, "nothing new, nothing said")

        // A member reads past the line: the recount leaves it out too.
        _ = try await world.send(room.id, from: world.ana, "Welcome", at: 5)
        _ = try await store.markRead(ReadReport(chatID: room.id, readerID: world.ben.id, upTo: line.id))
        #expect(try await store.chatSummary(room.id, for: world.ben.id)?.unreadCount == 1, "Ana's welcome only")

        let removed = try await store.removeMember(world.ben.id, from: room.id, by: world.ana.id, at: .at(6))
        #expect(removed.removed == [world.ben.id] && removed.notices.first?.notice == RoomNotice(kind: .removed, subject: world.ben.id))
        #expect(try await store.chatList(for: world.ben.id).isEmpty)
        #expect(try await store.membership(room.id, world.ben.id) == nil)
        #expect(try await store.conversation(room.id, viewer: world.ben.id, before: nil, limit: 50) == nil)
        #expect(try await store.members(of: room.id, viewer: world.ben.id) == nil)
        await #expect(throws: Refusal.notFound) { try await world.send(room.id, from: world.ben, "Still here?", at: 7) }
        await #expect(throws: Refusal.notFound) { try await store.addMembers([world.ben.id], to: room.id, by: world.ben.id, at: .at(7)) }
        await #expect(throws: Refusal.notYourMessage) { try await store.edit(MessageEdit(messageID: line.id, editorID: world.ana.id, body: "x", editedAt: .at(7))) }

        let left = try await store.removeMember(world.chloe.id, from: room.id, by: world.chloe.id, at: .at(8))
        #expect(left.notices.first?.notice == RoomNotice(kind: .left) && left.chat.members == [world.ana.id])
        #expect(try await store.chatSummary(room.id, for: world.ana.id)?.heading.memberCount == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aRoomIsRenamedByItsMembersAndADirectChatIsNot(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let room = try await store.createRoom(NewRoom(creator: world.ana.id, kind: .closed, name: "Launch", topic: nil, members: [world.ben.id], createdAt: .at(1)))
        let renamed = try await store.renameRoom(room.id, name: "Release", topic: "Friday", by: world.ben.id, at: .at(2))
        #expect(renamed.notices.map(\.notice) == [RoomNotice(kind: .renamed, text: "Release"), RoomNotice(kind: .topicChanged, text: "Friday")])
        let stored = try await store.chat(room.id)
        #expect(stored?.name == "Release" && stored?.topic == "Friday")
        #expect(try await store.chatSummary(room.id, for: world.ana.id)?.heading.name == "Release")
        #expect(try await store.renameRoom(room.id, name: "Release", topic: nil, by: world.ana.id, at: .at(3)).notices.map(\.notice) == [
            RoomNotice(kind: .topicChanged, text: nil),
        ])
        await #expect(throws: Refusal.notFound) { try await store.renameRoom(room.id, name: "Mine", topic: nil, by: world.chloe.id, at: .at(4)) }
        let direct = try await store.createChat(between: world.ana.id, and: world.chloe.id, at: .at(5))
        await #expect(throws: Refusal.notARoom) { try await store.renameRoom(direct.id, name: "Us", topic: nil, by: world.ana.id, at: .at(6)) }
        await #expect(throws: Refusal.membersFixed) { try await store.addMembers([world.ben.id], to: direct.id, by: world.ana.id, at: .at(6)) }
        await #expect(throws: Refusal.membersFixed) { try await store.removeMember(world.chloe.id, from: direct.id, by: world.ana.id, at: .at(6)) }
    }

    @Test(arguments: StoreKind.allCases)
    func readersAreTheMembersWhoHaveReadWithHowFar(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let room = try await store.createRoom(NewRoom(
            creator: world.ana.id, kind: .closed, name: "Launch", topic: nil, members: [world.ben.id, world.chloe.id], createdAt: .at(1)
        ))
        #expect(try await store.readers(of: room.id).isEmpty)
        let first = try await world.send(room.id, from: world.ana, "One", at: 2)
        let second = try await world.send(room.id, from: world.ana, "Two", at: 3)
        _ = try await store.markRead(ReadReport(chatID: room.id, readerID: world.ben.id, upTo: first.id))
        _ = try await store.markRead(ReadReport(chatID: room.id, readerID: world.chloe.id))
        let readers = try await store.readers(of: room.id).sorted { $0.user.handle < $1.user.handle }
        #expect(readers == [Reader(user: world.ben, lastRead: first.id), Reader(user: world.chloe, lastRead: second.id)])
    }

    @Test(arguments: StoreKind.allCases)
    func whoJoinsLaterHasSeenNothingFromBeforeTheyJoinedHoweverFarTheyRead(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let room = try await store.createRoom(NewRoom(
            creator: world.ana.id, kind: .closed, name: "Launch", topic: nil, members: [world.ben.id], createdAt: .at(1)
        ))
        let before = try await world.send(room.id, from: world.ana, "Before Chloé", at: 2)
        // Added to a closed room: the history is not unread for Chloé, and she has seen none of it.
        _ = try await store.addMembers([world.chloe.id], to: room.id, by: world.ana.id, at: .at(3))
        #expect(try await store.chatSummary(room.id, for: world.chloe.id)?.unreadCount == 0)
        #expect(try await store.readers(of: room.id).isEmpty, "joining is no read")
        let after = try await world.send(room.id, from: world.ana, "After Chloé", at: 4)
        _ = try await store.markRead(ReadReport(chatID: room.id, readerID: world.chloe.id))
        let chloe = try #require(try await store.readers(of: room.id).first { $0.user.id == world.chloe.id })
        #expect(chloe.lastRead == after.id && chloe.joinedAfter >= before.id && chloe.joinedAfter < after.id)
        #expect(!chloe.hasSeen(before.id) && chloe.hasSeen(after.id), "only what came while she was there")

        // Joining the open rooms at sign-up: the same.
        let general = try #require(try await store.createFirstRoom(NewRoom(creator: world.ana.id, kind: .open, name: "General", topic: nil, createdAt: .at(5))))
        let said = try await world.send(general.id, from: world.ben, "Morning all", at: 6)
        let dmitri = try await store.createUser(NewUser(handle: "dmitri", displayName: "Dmitri Volkov"), at: .at(7))
        #expect(try await store.readers(of: general.id).allSatisfy { $0.user.id != dmitri.id }, "a newcomer has read nothing")
        let welcome = try await world.send(general.id, from: world.ana, "Welcome Dmitri", at: 8)
        _ = try await store.markRead(ReadReport(chatID: general.id, readerID: dmitri.id))
        let newcomer = try #require(try await store.readers(of: general.id).first { $0.user.id == dmitri.id })
        #expect(!newcomer.hasSeen(said.id) && newcomer.hasSeen(welcome.id))
        // Members since the start have seen whatever they read.
        _ = try await store.markRead(ReadReport(chatID: general.id, readerID: world.chloe.id))
        let early = try #require(try await store.readers(of: general.id).first { $0.user.id == world.chloe.id })
        #expect(early.joinedAfter == MessageID(0) && early.hasSeen(said.id) && early.hasSeen(welcome.id))
    }

    @Test(arguments: StoreKind.allCases)
    func aDirectChatOfSeveralIsFoundAgainAndCalledByTheOthers(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let chat = try await store.createDirectChat(among: [world.chloe.id, world.ana.id, world.ben.id], at: .at(1))
        #expect(chat.kind == .direct && chat.members == [world.ana.id, world.ben.id, world.chloe.id].sorted())
        await #expect(throws: Refusal.chatExists(chat.id)) {
            try await store.createDirectChat(among: [world.ben.id, world.chloe.id, world.ana.id, world.ana.id], at: .at(2))
        }
        let anas = try #require(try await store.chatSummary(chat.id, for: world.ana.id))
        #expect(anas.heading.name == "Ben Okafor, Chloé Martin" && anas.heading.contact == nil && anas.heading.memberCount == 3)
        #expect(anas.involvement == .everything, "a direct chat counts every message")
        #expect(try await store.chatSummary(chat.id, for: world.ben.id)?.heading.name == "Ana Lima, Chloé Martin")
        _ = try await world.send(chat.id, from: world.ben, "Hi both", at: 3)
        #expect(try await store.unreadTotal(for: world.ana.id) == 1)
        let conversation = try #require(try await store.conversation(chat.id, viewer: world.chloe.id, before: nil, limit: 50))
        #expect(conversation.heading.name == "Ana Lima, Ben Okafor")
        let screen = try await store.chatsScreen(for: world.chloe.id, open: chat.id, before: nil, limit: 50)
        #expect(screen.conversation?.heading == conversation.heading)
        await #expect(throws: Refusal.notFound) { try await store.createDirectChat(among: [world.ana.id, world.ben.id, UserID(999)], at: .at(4)) }
        // Of two, it is the chat of two (and a different one from the three's).
        let pair = try await store.createChat(between: world.ana.id, and: world.ben.id, at: .at(5))
        #expect(pair.id != chat.id)
    }

    /// Whose presence a person may see: those they share a chat with now, whatever kind of chat, and only while
    /// they do.
    @Test(arguments: StoreKind.allCases)
    func peopleShareAChatWhileTheyAreMembersOfOne(_ kind: StoreKind) async throws {
        let world = try await World(kind)
        let store = world.store
        let everyone: Set<UserID> = [world.ana.id, world.ben.id, world.chloe.id]
        #expect(try await store.sharingAChat(with: world.ana.id, among: everyone).isEmpty, "no chat yet, not even with herself")
        _ = try await store.createChat(between: world.ana.id, and: world.ben.id, at: .at(1))
        #expect(try await store.sharingAChat(with: world.ana.id, among: everyone) == [world.ana.id, world.ben.id])
        #expect(try await store.sharingAChat(with: world.chloe.id, among: everyone).isEmpty)
        #expect(try await store.sharingAChat(with: world.ana.id, among: []).isEmpty)

        let room = try await store.createRoom(NewRoom(creator: world.chloe.id, kind: .closed, name: "Design", topic: nil, members: [world.ben.id], createdAt: .at(2)))
        #expect(try await store.sharingAChat(with: world.chloe.id, among: everyone) == [world.ben.id, world.chloe.id])
        #expect(try await store.sharingAChat(with: world.ben.id, among: everyone) == everyone, "Ana by their chat, Chloé by the room")
        _ = try await store.removeMember(world.ben.id, from: room.id, by: world.ben.id, at: .at(3))
        #expect(try await store.sharingAChat(with: world.chloe.id, among: everyone) == [world.chloe.id], "Ben left: only her own room's member")
        #expect(try await store.sharingAChat(with: world.ben.id, among: everyone) == [world.ana.id, world.ben.id])
        let many = Set((1...400).map { UserID(Int64($0) * 1_000) }).union([world.ben.id])
        #expect(try await store.sharingAChat(with: world.ana.id, among: many) == [world.ben.id], "hundreds asked about at once")
    }
}
