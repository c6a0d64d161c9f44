import InMemoryStores
import Foundation
import ParlorDomain
@testable import ParlorEvents
@testable import ParlorLive
import Testing

/// What the live pages keep between events: read once, changed only by the events that change it.
@Suite struct KnownValuesTests {
    let store = InMemoryChatStore()

    func people() async throws -> (User, User, Chat) {
        let ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana"), at: Date(timeIntervalSince1970: 0))
        let ben = try await store.createUser(NewUser(handle: "ben", displayName: "Ben"), at: Date(timeIntervalSince1970: 0))
        return (ana, ben, try await store.createChat(between: ana.id, and: ben.id, at: Date(timeIntervalSince1970: 0)))
    }

    @Test func aPersonIsReadAgainOnlyAfterTheirProfileChanged() async throws {
        let known = KnownValues()
        let (ana, _, _) = try await people()
        #expect(try await known.user(ana.id, in: store)?.displayName == "Ana")
        _ = try await store.updateProfile(ProfileChange(userID: ana.id, displayName: "Ana Lima"))
        #expect(try await known.user(ana.id, in: store)?.displayName == "Ana", "kept until the event comes")
        known.forget(ana.id)
        #expect(try await known.user(ana.id, in: store)?.displayName == "Ana Lima")
    }

    @Test func aReadMarkOnlyMovesForward() async throws {
        let known = KnownValues()
        let (ana, ben, chat) = try await people()
        #expect(try await known.lastRead(in: chat.id, by: ben.id, in: store) == nil, "nothing read yet")
        let first = try await store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "one", token: "1", createdAt: Date(timeIntervalSince1970: 1)))
        let second = try await store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "two", token: "2", createdAt: Date(timeIntervalSince1970: 2)))
        known.read(in: chat.id, by: ben.id, upTo: second.id)
        known.read(in: chat.id, by: ben.id, upTo: first.id)  // an older event's mark, applied late
        #expect(try await known.lastRead(in: chat.id, by: ben.id, in: store) == second.id)
    }

    @Test func theNewestMessageIsTheLatestHandedOnWithItsChanges() async throws {
        let known = KnownValues()
        let (ana, _, chat) = try await people()
        let first = try await store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "one", token: "1", createdAt: Date(timeIntervalSince1970: 1)))
        let second = try await store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "two", token: "2", createdAt: Date(timeIntervalSince1970: 2)))
        known.handedOn(second)
        known.handedOn(first)
        #expect(known.newest(in: chat.id)?.id == second.id, "an older message does not replace a newer one")
        let edited = try await store.edit(MessageEdit(messageID: second.id, editorID: ana.id, body: "two, edited", editedAt: Date(timeIntervalSince1970: 3)))
        known.changed(edited)
        #expect(known.newest(in: chat.id)?.body == "two, edited")
        known.forgetWhatEventsChange()
        #expect(known.newest(in: chat.id) == nil)
    }

    @Test func eachKindIsBounded() async throws {
        let known = KnownValues(limit: 3, newestLimit: 2)
        for id in 1...3 { known.remember(Chat(id: ChatID(Int64(id)), members: [UserID(1), UserID(2)], createdAt: Date(timeIntervalSince1970: 0))) }
        #expect(known.members(of: ChatID(3)) != nil)
        known.remember(Chat(id: ChatID(4), members: [UserID(1), UserID(2)], createdAt: Date(timeIntervalSince1970: 0)))
        #expect(known.members(of: ChatID(1)) == nil, "emptied when full")
        #expect(known.members(of: ChatID(4)) != nil)
        let message = { (chat: Int64) in Message(id: MessageID(chat), chatID: ChatID(chat), senderID: UserID(1), body: "b", createdAt: Date(timeIntervalSince1970: 0)) }
        known.handedOn(message(1))
        known.handedOn(message(2))
        known.handedOn(message(3))
        #expect(known.newest(in: ChatID(1)) == nil && known.newest(in: ChatID(3)) != nil)
    }
}
