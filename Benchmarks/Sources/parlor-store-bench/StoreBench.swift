// The SQLite store under load: acknowledged sends per second from 64 concurrent senders (durability on,
// group commits), the chat-list query for a viewer with 200 chats in a store of 1,000,000 messages,
// and the time to open that store. Run with `bash Benchmarks/store`.

import Foundation
import GRDB
import ParlorDomain
import ParlorStorage

@main
enum StoreBench {
    static func main() async throws {
        // PARLOR_STORE_BENCH_DIR keeps the files, and the million-message store is built only once there:
        // handy when trying a change to the chat-list query again and again.
        let kept = ProcessInfo.processInfo.environment["PARLOR_STORE_BENCH_DIR"]
        let folder = kept.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("parlor-store-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if kept == nil { try? FileManager.default.removeItem(at: folder) } }
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("sends.sqlite"))

        // `--sends` or `--chat-list` runs one half only.
        let only = CommandLine.arguments.dropFirst().first
        if only != "--chat-list" {
            try await sendsPerSecond(path: folder.appendingPathComponent("sends.sqlite").path)
            try? FileManager.default.removeItem(at: folder.appendingPathComponent("rooms.sqlite"))
            try await roomSizes(path: folder.appendingPathComponent("rooms.sqlite").path)
        }
        if only != "--sends" { try await chatListAndStartUp(path: folder.appendingPathComponent("million.sqlite").path) }
    }

    /// 64 senders, each sending as soon as its previous message is acknowledged, for 5 s, 3 rounds.
    static func sendsPerSecond(path: String) async throws {
        let store = try SQLiteChatStore(path: path)
        var senders: [(UserID, ChatID)] = []
        let hub = try await store.createUser(NewUser(handle: "hub", displayName: "Hub"), at: Date())
        for index in 0..<64 {
            let user = try await store.createUser(NewUser(handle: "sender\(index)", displayName: "Sender \(index)"), at: Date())
            senders.append((user.id, try await store.createChat(between: hub.id, and: user.id, at: Date()).id))
        }
        print("64 concurrent senders, synchronous=FULL, WAL; 3 rounds of 5 s")
        for round in 1...3 {
            let start = ContinuousClock.now
            let deadline = start + .seconds(5)
            let counts = await withTaskGroup(of: Int.self) { group in
                for (index, sender) in senders.enumerated() {
                    group.addTask {
                        var sent = 0
                        while ContinuousClock.now < deadline {
                            _ = try? await store.send(OutgoingMessage(
                                chatID: sender.1, senderID: sender.0, body: "Message \(sent) from sender \(index)",
                                token: "r\(round)-s\(index)-\(sent)", createdAt: Date()
                            ))
                            sent += 1
                        }
                        return sent
                    }
                }
                return await group.reduce(0, +)
            }
            let seconds = (ContinuousClock.now - start).seconds
            print(String(format: "  round %d: %d acknowledged in %.2f s = %.0f messages/s (target >= 5,000)", round, counts, seconds, Double(counts) / seconds))
        }
    }

    /// The store's work per send into the room of everyone (10,000 members) against a direct chat of 2: one sender,
    /// one message at a time, alternating rounds of each, CPU time of the whole process (the writer's thread
    /// included) per acknowledged send. Unread is a position, so the two should cost the same.
    static func roomSizes(path: String) async throws {
        do { _ = try SQLiteChatStore(path: path) }
        let people = 10_000
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            let user = try db.makeStatement(sql: "INSERT INTO user (id, handle, displayName, timeZone, locale, createdAt) VALUES (?, ?, ?, 'UTC', 'en_US', 0)")
            for id in 1...people { try user.execute(arguments: [id, "person\(id)", "Person \(id)"]) }
            try db.execute(sql: """
                INSERT INTO chat (id, pairKey, createdAt, lastActivity, kind, name, memberCount) VALUES (1, '#1', 0, 0, 'open', 'Everyone', ?);
                INSERT INTO chat (id, pairKey, createdAt, lastActivity, kind, memberCount) VALUES (2, '1:2', 0, 0, 'direct', 2);
                INSERT INTO member (chatID, userID, involvement, joinedAt) VALUES (2, 1, 'everything', 0), (2, 2, 'everything', 0);
                """, arguments: [people])
            let member = try db.makeStatement(sql: "INSERT INTO member (chatID, userID, involvement, joinedAt) VALUES (1, ?, 'mentions', 0)")
            for id in 1...people { try member.execute(arguments: [id]) }
        }
        try queue.close()
        let store = try SQLiteChatStore(path: path)
        let sends = 1_500
        func round(_ chat: ChatID, _ label: String) async throws -> Double {
            let cpu = cpuSeconds()
            for index in 0..<sends {
                _ = try await store.send(OutgoingMessage(
                    chatID: chat, senderID: UserID(1), body: "Message \(index) to \(label)", token: "\(label)-\(UUID().uuidString)", createdAt: Date()
                ))
            }
            return (cpuSeconds() - cpu) / Double(sends) * 1_000_000
        }
        print("\nstore work per send by room size: one sender, \(sends) sends a round, synchronous=FULL; CPU µs per send (whole process)")
        var small: [Double] = [], large: [Double] = []
        for _ in 1...3 {
            small.append(try await round(ChatID(2), "two"))
            large.append(try await round(ChatID(1), "everyone"))
        }
        let two = small.sorted()[1], everyone = large.sorted()[1]
        print(String(format: "  a direct chat of 2:              median %7.1f µs per send  (rounds %@)", two, small.map { String(format: "%.1f", $0) }.joined(separator: ", ")))
        print(String(format: "  the room of everyone, %d:   median %7.1f µs per send  (rounds %@)", people, everyone, large.map { String(format: "%.1f", $0) }.joined(separator: ", ")))
        print(String(format: "  ratio everyone / 2: %.2f (target <= 1.20)", everyone / two))
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }

    /// The chat list and start-up, on the store `buildMillion` makes.
    static func chatListAndStartUp(path: String) async throws {
        if FileManager.default.fileExists(atPath: path) {
            print("\nreusing the store of 1,000,000 messages at \(path)")
        } else {
            try await buildMillion(path: path)
        }

        var opens: [Double] = []
        var store: SQLiteChatStore?
        for _ in 0..<5 {
            let start = ContinuousClock.now
            store = try SQLiteChatStore(path: path)
            _ = try await store!.chatList(for: UserID(1))  // ready: the first page could be drawn
            opens.append((ContinuousClock.now - start).seconds * 1000)
        }
        print(String(format: "open the store and answer a first chat list: best %.1f ms, worst %.1f ms (target: ready in < 1 s)", opens.min()!, opens.max()!))

        let list = try await store!.chatList(for: UserID(1))
        precondition(list.count == 200, "the viewer should have 200 chats, has \(list.count)")
        var times: [Double] = []
        for _ in 0..<200 {
            let start = ContinuousClock.now
            _ = try await store!.chatList(for: UserID(1))
            times.append((ContinuousClock.now - start).seconds * 1000)
        }
        times.sort()
        print(String(format: "chat list, 200 chats with last message and unread count, 200 queries: p50 %.2f ms, p99 %.2f ms (target < 2 ms)", times[100], times[198]))
    }

    /// 10,000 chats, 1,000,000 messages; one viewer is in 200 of them.
    static func buildMillion(path: String) async throws {
        let build = ContinuousClock.now
        do {
            let store = try SQLiteChatStore(path: path)
            _ = store
        }
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            let viewerChats = 200, chats = 10_000, messages = 1_000_000
            // People: 1 is the viewer; 2...10_001 are the contacts, one per chat.
            for id in 1...(chats + 1) {
                try db.execute(sql: "INSERT INTO user (id, handle, displayName, timeZone, locale, createdAt) VALUES (?, ?, ?, 'UTC', 'en_US', 0)",
                               arguments: [id, "user\(id)", "User \(id)"])
            }
            for chat in 1...chats {
                let first = chat <= viewerChats ? 1 : chat + 1 - viewerChats  // the viewer, or another contact
                let second = chat + 1
                try db.execute(sql: "INSERT INTO chat (id, pairKey, createdAt, lastActivity) VALUES (?, ?, 0, 0)", arguments: [chat, "\(first):\(second)"])
                try db.execute(sql: "INSERT INTO member (chatID, userID, lastReadMessageID) VALUES (?, ?, ?), (?, ?, NULL)",
                               arguments: [chat, first, chat * 37 % 1000, chat, second])
            }
            let statement = try db.makeStatement(sql: "INSERT INTO message (id, chatID, senderID, body, createdAt, token) VALUES (?, ?, ?, ?, ?, ?)")
            for id in 1...messages {
                let chat = (id % chats) + 1
                let sender = id % 3 == 0 ? (chat <= viewerChats ? 1 : chat + 1 - viewerChats) : chat + 1
                try statement.execute(arguments: [id, chat, sender, "Message number \(id) in chat \(chat), with a little text.", Double(id), "t\(id)"])
            }
            // Unread as positions: the chat's count, each member's place in it.
            try db.execute(sql: "UPDATE chat SET messageSeq = (SELECT COUNT(*) FROM message WHERE chatID = chat.id)")
            try db.execute(sql: """
                UPDATE member SET readSeq = (SELECT messageSeq FROM chat WHERE chat.id = member.chatID) - (SELECT COUNT(*) FROM message
                    WHERE message.chatID = member.chatID AND message.id > IFNULL(member.lastReadMessageID, 0) AND message.senderID <> member.userID)
                """)
            try db.execute(sql: "UPDATE chat SET lastMessageID = (SELECT MAX(id) FROM message WHERE chatID = chat.id), lastActivity = (SELECT MAX(createdAt) FROM message WHERE chatID = chat.id)")
        }
        try queue.close()
        print(String(format: "\nbuilt a store of 1,000,000 messages in 10,000 chats in %.1f s", (ContinuousClock.now - build).seconds))
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
