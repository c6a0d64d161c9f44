import Foundation
import ParlorDomain
import Testing
@testable import ParlorStorage

/// A screen is read on the request's thread when a screen connection is free, and through the pool when
/// none is: the same answer either way, and never a wait for a connection.
@Suite struct ScreenReadersTests {
    @Test func aScreenReadsTheSameWhetherAConnectionIsFreeOrAllAreTaken() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteChatStore(path: folder.url.appendingPathComponent("parlor.sqlite").path)
        let ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana"), at: .at(0))
        let ben = try await store.createUser(NewUser(handle: "ben", displayName: "Ben"), at: .at(0))
        let chat = try await store.createChat(between: ana.id, and: ben.id, at: .at(0))
        for index in 0..<5 {
            _ = try await store.send(OutgoingMessage(chatID: chat.id, senderID: ben.id, body: "Message \(index)", token: "t\(index)", createdAt: .at(Double(index))))
        }
        let here = try await store.chatsScreen(for: ana.id, open: chat.id, before: nil, limit: 50)
        // Every screen connection busy (as under load): the pool answers instead, at once.
        let readers = store.screenReaders
        var taken: [ScreenReaders.Reader] = []
        while let reader = readers.take() { taken.append(reader) }
        #expect(taken.count >= 2)
        let pooled = try await store.chatsScreen(for: ana.id, open: chat.id, before: nil, limit: 50)
        // On the calling thread there is no pool to fall back to: no answer, so the page is read later.
        #expect(try store.chatsScreenNow(for: ana.id, open: chat.id, before: nil, limit: 50) == nil)
        for reader in taken { readers.give(reader) }
        #expect(try store.chatsScreenNow(for: ana.id, open: chat.id, before: nil, limit: 50) == here)
        #expect(pooled.conversation?.messages.map(\.body) == here.conversation?.messages.map(\.body))
        #expect(pooled.summaries.map(\.chatID) == here.summaries.map(\.chatID) && here.conversation?.messages.count == 5)
        #expect(readers.take() != nil, "given back")
    }
}
