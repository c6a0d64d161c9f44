import Dispatch
import Foundation
import HTTPTestSupport
import ParlorDomain
import Synchronization
import Testing
@testable import ParlorStorage

/// The live pages read the file on connections of their own: a crowd of requests holding every reader of the pool
/// does not hold a page's update back, and both stores see one file, written by one writer.
@Suite(.timeLimit(.minutes(1))) struct LivePagesStoreTests {
    @Test func theLivePagesReadWhileEveryReaderOfThePoolIsHeldAndBothStoresShareTheFile() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteChatStore(path: folder.url.appendingPathComponent("parlor.sqlite").path)
        let live = try store.forLivePages()
        let ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana"), at: .at(0))
        let ben = try await store.createUser(NewUser(handle: "ben", displayName: "Ben"), at: .at(0))
        let chat = try await store.createChat(between: ana.id, and: ben.id, at: .at(0))
        _ = try await store.send(OutgoingMessage(chatID: chat.id, senderID: ben.id, body: "Hello", token: "t1", createdAt: .at(1)))

        // Every reader of the pool held, as by requests that take their time.
        let release = DispatchSemaphore(value: 0)
        let holding = Holding()
        let holders = (0..<SQLiteFile.readerCount).map { _ in
            Task { try await store.pool.read { _ in holding.count.withLock { $0 += 1 }; release.wait() } }
        }
        var released = false
        defer { if !released { for _ in holders { release.signal() } } }
        try #require(await eventually { holding.count.withLock { $0 } == SQLiteFile.readerCount }, "every reader of the pool is held")

        let read = Holding()
        let reading = Task {
            let page = try await live.messages(in: chat.id, before: nil, limit: 10)
            let unread = try await live.chatSummary(chat.id, for: ana.id)?.unreadCount
            read.count.withLock { $0 = 1 }
            return (page.messages.map(\.body), unread)
        }
        #expect(await eventually(within: 10) { read.count.withLock { $0 } == 1 }, "read while the pool has no reader free")
        released = true
        for _ in holders { release.signal() }
        for holder in holders { try await holder.value }
        let (bodies, unread) = try await reading.value
        #expect(bodies == ["Hello"] && unread == 1)
        // A write through either store is the file's: the other reads it at once.
        let reply = try await live.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "Hi Ben", token: "t2", createdAt: .at(2)))
        #expect(try await store.message(reply.id)?.body == "Hi Ben")
        #expect(try await live.messages(in: chat.id, before: nil, limit: 10).messages.map(\.body) == ["Hello", "Hi Ben"])
    }

    /// How many reads are under way, or done.
    final class Holding: Sendable {
        let count = Mutex(0)
    }
}
