import Foundation
import HTTPTestSupport
import Logging
import ParlorDomain
@testable import ParlorPostgres
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
}
