import Foundation
import HTTPTestSupport
import Logging
import ParlorDomain
@testable import ParlorPostgres
import Synchronization
import Testing

/// PostgreSQL's later migrations on rows its first schema held, as the release before them wrote them.
@Suite struct PostgresMigrationTests {
    @Test func chatsMadeBeforeRoomsBecomeDirectRoomsFollowedFullySinceTheyWereMade() async throws {
        let database = try PostgresDatabase.runningOnItsOwn(
            url: try await TestPostgres.shared().newDatabase(), maximumConnections: 2, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        )
        #expect(try await PostgresMigrations.migrate(database, through: "1-parlor") == ["1-parlor"])
        // What the release of 2026-11-26 wrote for Ana, Ben and their chat, Ben having read its first message.
        try await database.write { connection in
            let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
            try await connection.run("""
                INSERT INTO account (handle, displayName, timeZone, locale, createdAt) VALUES
                    ('ana', 'Ana Lima', 'Europe/Paris', 'fr_FR', 1), ('ben', 'Ben Okafor', 'UTC', 'en_US', 2)
                """, logger: logger)
            let made = Date.at(100).timeIntervalSince1970
            try await connection.run("INSERT INTO chat (pairKey, createdAt, lastActivity) VALUES ('1:2', \(made), \(made))", logger: logger)
            try await connection.run("INSERT INTO member (chatID, userID, lastReadMessageID) VALUES (1, 1, NULL), (1, 2, 7)", logger: logger)
        }
        let store = try await PostgresChatStore(database: database)
        let chat = try #require(try await store.chat(ChatID(1)))
        #expect(chat.kind == .direct && chat.name == nil && chat.members == [UserID(1), UserID(2)] && chat.createdAt == .at(100))
        let ana = try #require(try await store.membership(chat.id, UserID(1)))
        let ben = try #require(try await store.membership(chat.id, UserID(2)))
        #expect(ana.involvement == .everything && ana.joinedAt == .at(100) && ana.lastRead == nil)
        #expect(ben.involvement == .everything && ben.joinedAt == .at(100) && ben.lastRead == MessageID(7))
    }

    @Test func messagesStoredBeforeSearchAreIndexedAtStartInBatches() async throws {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let database = try PostgresDatabase.runningOnItsOwn(url: try await TestPostgres.shared().newDatabase(), maximumConnections: 2, logger: logger)
        try await PostgresMigrations.migrate(database, through: "6-photos-by-chat")
        try await database.write { connection in
            try await connection.run("""
                INSERT INTO account (handle, displayName, timeZone, locale, createdAt) VALUES
                    ('ana', 'Ana Lima', 'Europe/Paris', 'fr_FR', 1), ('ben', 'Ben Okafor', 'UTC', 'en_US', 2)
                """, logger: logger)
            try await connection.run("INSERT INTO chat (pairKey, createdAt, lastActivity) VALUES ('1:2', 1, 1)", logger: logger)
            try await connection.run("INSERT INTO member (chatID, userID) VALUES (1, 1), (1, 2)", logger: logger)
            try await connection.run("""
                INSERT INTO message (chatID, senderID, body, createdAt, token)
                SELECT 1, 1, 'Message number ' || n || CASE WHEN n = 2500 THEN ' about the Café' ELSE '' END, n, 't' || n FROM generate_series(1, 4500) n
                """, logger: logger)
        }
        let progress = Mutex<[[Int]]>([])
        let store = try await PostgresChatStore(database: database, searchProgress: { done, total in progress.withLock { $0.append([done, total]) } })
        let expected: [[Int]] = [[2_000, 4_500], [4_000, 4_500], [4_500, 4_500]]
        #expect(progress.withLock { $0 } == expected, "batches of 2,000, with the total")
        let found = try await store.search(MessageSearch(viewer: UserID(2), query: .parse("cafe"), dayStart: { _ in nil }))
        #expect(found.messages.map(\.body) == ["Message number 2500 about the Café"])
        let numbered = try await store.search(MessageSearch(viewer: UserID(2), query: .parse("number"), dayStart: { _ in nil }, limit: 5))
        #expect(numbered.messages.count == 5 && numbered.hasMore && numbered.messages.first?.body == "Message number 4500")
    }
}
