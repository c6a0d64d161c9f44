import Foundation
import GRDB
import HTTPTestSupport
import Logging
import ParlorDomain
@testable import ParlorPostgres
@testable import ParlorStorage
import Testing

/// The move from counters to positions ("23-unread-positions" on SQLite, "16-unread-positions" on PostgreSQL)
/// carries every membership's unread and mention counts over exactly, and the counts go on from there: on the
/// committed release database, and on a room whose counts are as large and as uneven as a busy team's.
@Suite struct UnreadPositionMigrationTests {
    /// A room of four, as the schema before the move held it: 160 messages (a line about the room among them),
    /// and counts that a busy day leaves (150 unread, 12 mentions, none at all).
    static let counts: [(unread: Int64, mentions: Int64)] = [(0, 0), (3, 1), (150, 12), (160, 0)]

    @Test func theReleaseDatabaseKeepsEveryMembersCounts() async throws {
        let folder = try TemporaryFolder()
        let release = ReleaseDatabaseTests.releases.appendingPathComponent("one-to-one/parlor.sqlite")
        try FileManager.default.copyItem(at: release, to: folder.url.appendingPathComponent("parlor.sqlite"))
        let before: [[Int64]] = try {
            let pool = try DatabasePool(path: folder.path("parlor.sqlite"))
            try Migrations.migrator.migrate(pool, upTo: "22-account-log")
            return try pool.read { db in
                try Row.fetchAll(db, sql: "SELECT chatID, userID, unreadCount, mentionCount FROM member ORDER BY chatID, userID").map {
                    [$0[0], $0[1], $0[2], $0[3]]
                }
            }
        }()
        #expect(before.count >= 6 && before.contains { $0[2] > 0 }, "the release's memberships, some with unread messages")
        let store = try SQLiteChatStore(path: folder.path("parlor.sqlite"))
        for row in before {
            let summary = try #require(try await store.chatSummary(ChatID(row[0]), for: UserID(row[1])))
            #expect(Int64(summary.unreadCount) == row[2] && Int64(summary.mentionCount) == row[3], "chat \(row[0]), person \(row[1])")
        }
    }

    @Test func sqliteCarriesABusyRoomsCountsOverAndGoesOnFromThem() async throws {
        let folder = try TemporaryFolder()
        let pool = try DatabasePool(path: folder.path("parlor.sqlite"))
        try Migrations.migrator.migrate(pool, upTo: "22-account-log")
        try await pool.write { db in
            for (index, handle) in ["ana", "ben", "chloe", "dmitri"].enumerated() {
                try db.execute(
                    sql: "INSERT INTO user (id, handle, displayName, timeZone, locale, createdAt) VALUES (?, ?, ?, 'UTC', 'en_US', 0)",
                    arguments: [index + 1, handle, handle.capitalized]
                )
            }
            try db.execute(sql: """
                INSERT INTO chat (id, pairKey, createdAt, lastActivity, kind, name, memberCount) VALUES (1, '#1', 1, 200, 'closed', 'Launch', 4);
                INSERT INTO message (chatID, senderID, body, createdAt, token, noticeKind, noticeSubject)
                    VALUES (1, 1, '', 1, 'notice', 'added', 2);
                """)
            for index in 0..<160 {
                try db.execute(
                    sql: "INSERT INTO message (chatID, senderID, body, createdAt, token) VALUES (1, ?, ?, ?, ?)",
                    arguments: [1 + index % 2, "Message \(index)", 2 + index, "t\(index)"]
                )
            }
            try db.execute(sql: "UPDATE chat SET lastMessageID = (SELECT MAX(id) FROM message)")
            for (index, count) in Self.counts.enumerated() {
                try db.execute(
                    sql: "INSERT INTO member (chatID, userID, lastReadMessageID, unreadCount, mentionCount, involvement, joinedAt) VALUES (1, ?, ?, ?, ?, 'everything', 1)",
                    arguments: [index + 1, 161 - count.unread, count.unread, count.mentions]
                )
            }
        }
        try pool.close()
        try await Self.expectCountsCarriedOverAndGoingOn(try SQLiteChatStore(path: folder.path("parlor.sqlite")))
    }

    @Test func postgresCarriesABusyRoomsCountsOverAndGoesOnFromThem() async throws {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let database = try PostgresDatabase.runningOnItsOwn(url: try await TestPostgres.shared().newDatabase(), maximumConnections: 2, logger: logger)
        try await PostgresMigrations.migrate(database, through: "15-seen-since-joining")
        try await database.write { connection in
            try await connection.run("""
                INSERT INTO account (handle, displayName, timeZone, locale, createdAt) VALUES
                    ('ana', 'Ana', 'UTC', 'en_US', 0), ('ben', 'Ben', 'UTC', 'en_US', 0), ('chloe', 'Chloe', 'UTC', 'en_US', 0),
                    ('dmitri', 'Dmitri', 'UTC', 'en_US', 0)
                """, logger: logger)
            try await connection.run(
                "INSERT INTO chat (pairKey, createdAt, lastActivity, kind, name, memberCount) VALUES ('#1', 1, 200, 'closed', 'Launch', 4)", logger: logger
            )
            try await connection.run("""
                INSERT INTO message (chatID, senderID, body, createdAt, token, noticeKind, noticeSubject) VALUES (1, 1, '', 1, 'notice', 'added', 2)
                """, logger: logger)
            try await connection.run("""
                INSERT INTO message (chatID, senderID, body, createdAt, token)
                SELECT 1, 1 + n % 2, 'Message ' || n, 2 + n, 't' || n FROM generate_series(0, 159) n
                """, logger: logger)
            try await connection.run("UPDATE chat SET lastMessageID = (SELECT max(id) FROM message)", logger: logger)
            for (index, count) in Self.counts.enumerated() {
                try await connection.run("""
                    INSERT INTO member (chatID, userID, lastReadMessageID, unreadCount, mentionCount, involvement, joinedAt)
                    VALUES (1, \(Int64(index + 1)), \(161 - count.unread), \(count.unread), \(count.mentions), 'everything', 1)
                    """, logger: logger)
            }
        }
        try await Self.expectCountsCarriedOverAndGoingOn(try await PostgresChatStore(database: database))
    }

    /// The counts as they were; then Ana's message counts once for each of the others and not for her, and a read
    /// to the end clears the reader's.
    static func expectCountsCarriedOverAndGoingOn(_ store: any ChatStore) async throws {
        let chat = ChatID(1)
        for (index, count) in counts.enumerated() {
            let summary = try #require(try await store.chatSummary(chat, for: UserID(Int64(index + 1))))
            #expect(Int64(summary.unreadCount) == count.unread && Int64(summary.mentionCount) == count.mentions, "person \(index + 1)")
        }
        _ = try await store.send(OutgoingMessage(chatID: chat, senderID: UserID(1), body: "After the move, @dmitri", token: "after", createdAt: .at(300)))
        for (index, count) in counts.enumerated() {
            let summary = try #require(try await store.chatSummary(chat, for: UserID(Int64(index + 1))))
            let more: Int64 = index == 0 ? 0 : 1
            #expect(Int64(summary.unreadCount) == count.unread + more, "person \(index + 1), after a send")
            #expect(Int64(summary.mentionCount) == count.mentions + (index == 3 ? 1 : 0), "person \(index + 1), after a send")
        }
        _ = try await store.markRead(ReadReport(chatID: chat, readerID: UserID(3), upTo: nil))
        let reader = try #require(try await store.chatSummary(chat, for: UserID(3)))
        #expect(reader.unreadCount == 0 && reader.mentionCount == 0)
        #expect(try await store.chatSummary(chat, for: UserID(4))?.unreadCount == 161, "the others' counts stay")
    }
}
