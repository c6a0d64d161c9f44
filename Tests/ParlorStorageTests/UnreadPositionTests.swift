import Foundation
import ParlorDomain
import Testing

/// Unread as positions (a chat's message count, each membership's place in it): after any mix of sends (several
/// in one group commit), @-mentions and @everyone, reads up to any message, deletions and leaving and joining
/// again, every member's unread and mention counts are what the messages themselves say: those after their read
/// mark, not theirs, not deleted, not a line about the room.
@Suite struct UnreadPositionTests {
    /// A small deterministic generator, so a failure names its step and repeats.
    struct Steps {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func everyCountIsWhatTheMessagesAfterTheReadMarkSay(_ kind: StoreKind) async throws {
        let folder = try TemporaryFolder()
        let store = try await kind.make(in: folder)
        var people: [User] = []
        for handle in ["ana", "ben", "chloe", "dmitri", "eve"] {
            people.append(try await store.createUser(NewUser(handle: handle, displayName: handle.capitalized), at: .at(0)))
        }
        let room = try await store.createRoom(NewRoom(
            creator: people[0].id, kind: .closed, name: "Launch", topic: nil, members: people.dropFirst().map(\.id), createdAt: .at(1)
        ))
        var steps = Steps(state: 57)
        var sent: [Message] = []
        var absent: Set<Int> = []
        var clock = 2.0

        func body(_ step: Int) -> String {
            switch steps.next(5) {
            case 0: "Step \(step), @\(people[steps.next(people.count)].handle) look"
            case 1: "Step \(step), @everyone"
            case 2: "Step \(step), @\(people[steps.next(people.count)].handle) and @everyone"
            default: "Step \(step)"
            }
        }

        for step in 0..<160 {
            clock += 1
            let present = people.indices.filter { !absent.contains($0) }
            switch steps.next(10) {
            case 0...4:
                // A burst of sends, in one group commit where the store has one: a sender's own message beside
                // another naming them.
                let burst = (0..<(1 + steps.next(4))).map { _ in (people[present[steps.next(present.count)]], body(step)) }
                let at = clock
                sent += try await withThrowingTaskGroup(of: Message.self) { group in
                    for (sender, text) in burst {
                        group.addTask {
                            try await store.send(OutgoingMessage(chatID: room.id, senderID: sender.id, body: text, token: UUID().uuidString, createdAt: .at(at)))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            case 5, 6:
                let reader = people[present[steps.next(present.count)]]
                let upTo = sent.isEmpty || steps.next(2) == 0 ? nil : sent[steps.next(sent.count)].id
                _ = try await store.markRead(ReadReport(chatID: room.id, readerID: reader.id, upTo: upTo))
            case 7:
                // Only a member deletes their own message.
                let deletable = sent.filter { message in present.contains { people[$0].id == message.senderID } }
                guard !deletable.isEmpty else { continue }
                let message = deletable[steps.next(deletable.count)]
                _ = try await store.delete(MessageDeletion(messageID: message.id, requesterID: message.senderID, deletedAt: .at(clock)))
            case 8:
                // Someone other than Ana (who stays, to add people back) leaves.
                let leaving = present.filter { $0 != 0 }
                guard !leaving.isEmpty else { continue }
                let person = leaving[steps.next(leaving.count)]
                _ = try await store.removeMember(people[person].id, from: room.id, by: people[person].id, at: .at(clock))
                absent.insert(person)
            default:
                guard let person = absent.first else { continue }
                _ = try await store.addMembers([people[person].id], to: room.id, by: people[0].id, at: .at(clock))
                absent.remove(person)
            }
            try await Self.expectCountsMatchTheMessages(store, room.id, people.indices.filter { !absent.contains($0) }.map { people[$0] }, step: step)
        }
        #expect(sent.count > 150, "the steps sent enough to count past a page of messages")
    }

    /// Each member's counts against the messages: the definition the positions must keep.
    static func expectCountsMatchTheMessages(_ store: any ChatStore, _ chat: ChatID, _ members: [User], step: Int) async throws {
        let messages = try await store.messages(in: chat, before: nil, limit: 10_000).messages
        for member in members {
            let mark = try await store.membership(chat, member.id)?.lastRead ?? MessageID(0)
            let unread = messages.filter { $0.id > mark && $0.senderID != member.id && !$0.isDeleted && $0.notice == nil }
            let mentions = unread.filter { $0.named.names(member.handle) }
            let row = try #require(try await store.chatSummary(chat, for: member.id))
            #expect(row.unreadCount == unread.count, "step \(step): \(member.handle)'s unread count")
            #expect(row.mentionCount == mentions.count, "step \(step): \(member.handle)'s mention count")
        }
    }

    /// A send into a room writes the same rows whatever its size: the others' rows are not touched, so their
    /// counts move while what each membership stores does not.
    @Test(arguments: [StoreKind.sqlite, .postgres])
    func aSendMovesTheChatAndTheSenderOnly(_ kind: StoreKind) async throws {
        let folder = try TemporaryFolder()
        let store = try await kind.make(in: folder)
        var people: [User] = []
        for index in 0..<40 { people.append(try await store.createUser(NewUser(handle: "p\(index)", displayName: "Person \(index)"), at: .at(0))) }
        let room = try await store.createRoom(NewRoom(
            creator: people[0].id, kind: .open, name: "Everyone", topic: nil, members: people.dropFirst().map(\.id), createdAt: .at(1)
        ))
        for index in 0..<30 {
            _ = try await store.send(OutgoingMessage(
                chatID: room.id, senderID: people[index % 3].id, body: index % 10 == 0 ? "@everyone \(index)" : "Hello \(index)",
                token: "t\(index)", createdAt: .at(2)
            ))
        }
        let quiet = try #require(try await store.chatSummary(room.id, for: people[39].id))
        #expect(quiet.unreadCount == 30 && quiet.mentionCount == 3)
        let sender = try #require(try await store.chatSummary(room.id, for: people[0].id))
        #expect(sender.unreadCount == 20 && sender.mentionCount == 2, "the others' messages, not their own")
        #expect(try await store.unreadTotal(for: people[39].id) == 3, "an open room counts mentions for the badge")
    }
}
