import Foundation
import GRDB
import ParlorDomain
@testable import ParlorStorage
import Testing

/// SQLite's search indexes: filled in batches by the sends that find enough waiting and before every search,
/// changed at once by an edit or a deletion of a message they hold, and never different from the messages
/// (FTS5's own integrity check compares them).
@Suite struct SQLiteSearchIndexTests {
    static func doneThrough(_ path: String) throws -> Int64 {
        try DatabaseQueue(path: path).read { db in try Int64.fetchOne(db, sql: "SELECT doneThrough FROM searchIndex") ?? -1 }
    }

    static func integrityChecked(_ path: String) throws {
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "INSERT INTO message_words(message_words, rank) VALUES ('integrity-check', 1)")
            try db.execute(sql: "INSERT INTO message_trigrams(message_trigrams) VALUES ('integrity-check')")
        }
    }

    @Test func sendsIndexInBatchesAndEditsOnEitherSideOfTheMarkKeepTheIndexRight() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("parlor.sqlite")
        let store = try SQLiteChatStore(path: path)
        let ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana"), at: .at(0))
        let ben = try await store.createUser(NewUser(handle: "ben", displayName: "Ben"), at: .at(0))
        let chat = try await store.createChat(between: ana.id, and: ben.id, at: .at(0))
        var sent: [Message] = []
        for index in 0..<300 {
            let body = index % 50 == 0 ? "東京 meeting number \(index)" : "plain note number \(index)"
            sent.append(try await store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: body, token: "t\(index)", createdAt: .at(Double(index)))))
        }
        let mark = try Self.doneThrough(path)
        #expect(mark >= GroupCommit.searchBatch && mark < sent.last!.id.rawValue, "a batch went in with a send; the rest waits")

        // Below the mark the triggers change the index; above it the next batch reads the new text.
        let indexed = try #require(sent.first { $0.id.rawValue <= mark && $0.body.hasPrefix("東京") })
        let waiting = try #require(sent.last { $0.id.rawValue > mark })
        _ = try await store.edit(MessageEdit(messageID: indexed.id, editorID: ana.id, body: "大阪 agenda", editedAt: .at(1_000)))
        _ = try await store.edit(MessageEdit(messageID: waiting.id, editorID: ana.id, body: "zebra crossing", editedAt: .at(1_001)))
        _ = try await store.delete(MessageDeletion(messageID: sent[1].id, requesterID: ana.id, deletedAt: .at(1_002)))
        func found(_ text: String) async throws -> [MessageID] {
            try await store.search(MessageSearch(viewer: ben.id, query: .parse(text), dayStart: { _ in nil }, limit: 100)).messages.map(\.id)
        }
        #expect(try await found("agenda") == [indexed.id])
        #expect(try await found("大阪") == [indexed.id])
        #expect(try await found("zebra") == [waiting.id], "found at once: the search indexed what waited")
        #expect(try await found("東京").count == 5, "six such messages, one now in Osaka")
        #expect(try await found("\"number 1\"").isEmpty, "deleted")
        #expect(try await found("\"number 2\"") == [sent[2].id])
        #expect(try await found("\"number \(sent.count - 1)\"").isEmpty, "edited before it was indexed")
        #expect(try Self.doneThrough(path) == sent.last!.id.rawValue)
        try Self.integrityChecked(path)
    }
}
