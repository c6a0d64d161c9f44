// Search on a corpus of a million messages, through the SQLite store itself: query latency by kind, the indexes'
// size beside the messages', and sends with the indexes against sends without them (the same store with its
// search triggers dropped), alternating on two databases in the same run.
//
//   parlor-search-bench fill <database> [messages] [people] [rooms] [seed]
//   parlor-search-bench query <database> [queries] [seed]        through the store
//   parlor-search-bench queries <database> [queries] [seed] [people]   print them ("kind<TAB>viewer<TAB>text"), for HTTP
//   parlor-search-bench sessions <database> <people>             one session each for the first people (hashes on stdin)
//   parlor-search-bench send <folder> [sends] [rounds]

import Foundation
import GRDB
import ParlorDomain
import ParlorStorage

/// SplitMix64: the same corpus and queries for the same seed.
struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Words drawn with Zipf's law (rank r with weight 1/r): a few very common, most rare, like a team's chat.
struct Vocabulary {
    let words: [String]
    private let cumulative: [Double]

    init(_ words: [String]) {
        self.words = words
        var total = 0.0
        cumulative = words.indices.map { rank in
            total += 1 / Double(rank + 1)
            return total
        }
    }

    func draw(_ random: inout Seeded) -> String {
        let target = Double.random(in: 0..<cumulative.last!, using: &random)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return words[low]
    }

    /// English function words first, then made-up technical words from syllables (ranks spread over the list).
    static func team(_ random: inout Seeded) -> Vocabulary {
        let common = ["the", "to", "and", "a", "of", "is", "in", "it", "for", "we", "on", "that", "this", "with", "be", "can", "you", "i", "at",
                      "will", "not", "are", "have", "so", "do", "if", "but", "from", "about", "just", "please", "thanks", "today", "tomorrow",
                      "meeting", "review", "deploy", "release", "build", "test", "fix", "issue", "plan", "team", "customer", "design", "update"]
        let syllables = ["de", "ploy", "ku", "be", "let", "sta", "ging", "con", "fig", "mi", "gra", "tion", "ro", "ta", "ser", "vice", "pro", "xy",
                         "da", "ta", "base", "cach", "ing", "lo", "gin", "ren", "der", "in", "dex", "que", "ry", "buf", "fer", "sche", "ma"]
        var made = Set<String>()
        while made.count < 20_000 {
            let count = Int.random(in: 2...4, using: &random)
            made.insert((0..<count).map { _ in syllables.randomElement(using: &random)! }.joined())
        }
        return Vocabulary(common + made.sorted().shuffled(using: &random))
    }
}

enum Corpus {
    static let cjk = ["東京", "会議", "資料", "確認", "お願い", "します", "明日", "予定", "開発", "環境", "서울", "회의", "합니다", "北京", "项目",
                      "进度", "测试", "部署", "完成", "了", "の", "を", "は", "で", "に"]

    static func message(_ vocabulary: Vocabulary, _ random: inout Seeded) -> String {
        if Int.random(in: 0..<100, using: &random) < 5 {
            return (0..<Int.random(in: 3...12, using: &random)).map { _ in cjk.randomElement(using: &random)! }.joined()
        }
        var words = (0..<Int.random(in: 3...30, using: &random)).map { _ in vocabulary.draw(&random) }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<10:
            words.append("https://docs.example.com/\(vocabulary.draw(&random))-guide/\(vocabulary.draw(&random))?lang=en")
        case 10..<18:
            words.append("src/\(vocabulary.draw(&random))-\(vocabulary.draw(&random))/\(vocabulary.draw(&random)).swift")
        case 18..<24:
            words.append("`\(vocabulary.draw(&random))_\(vocabulary.draw(&random))()`")
        default:
            break
        }
        return words.joined(separator: " ")
    }
}

@main
enum SearchBench {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        func number(_ index: Int, _ otherwise: Int) -> Int { arguments.count > index ? Int(arguments[index]) ?? otherwise : otherwise }
        switch arguments.first {
        case "fill" where arguments.count >= 2:
            try await fill(arguments[1], messages: number(2, 1_000_000), people: number(3, 5_000), rooms: number(4, 2_000), seed: UInt64(number(5, 1)))
        case "query" where arguments.count >= 2:
            try await query(arguments[1], queries: number(2, 300), seed: UInt64(number(3, 7)), printOnly: nil)
        case "queries" where arguments.count >= 2:
            try await query(arguments[1], queries: number(2, 300), seed: UInt64(number(3, 7)), printOnly: number(4, 200))
        case "sessions" where arguments.count >= 3:
            try await sessions(arguments[1], people: number(2, 200))
        case "send" where arguments.count >= 2:
            try await send(arguments[1], sends: number(2, 40_000), rounds: number(3, 3))
        default:
            FileHandle.standardError.write(Data("usage: parlor-search-bench fill|query|send ...\n".utf8))
            exit(2)
        }
    }

    // MARK: Fill

    static func fill(_ path: String, messages: Int, people count: Int, rooms roomCount: Int, seed: UInt64) async throws {
        var random = Seeded(state: seed)
        let vocabulary = Vocabulary.team(&random)
        let store = try SQLiteChatStore(path: path)
        let began = Date()
        let start = Date().addingTimeInterval(-365 * 86_400)
        var people: [UserID] = []
        for index in 0..<count {
            let user = try await store.createUser(NewUser(handle: "p\(index)", displayName: "Person \(index)"), at: start)
            people.append(user.id)
            if index == 0 {
                _ = try await store.createFirstRoom(NewRoom(creator: user.id, kind: .open, name: "General", topic: nil, createdAt: start))
            }
        }
        let general = try await store.chatList(for: people[0]).first { $0.heading.kind == .open }!.chatID
        // Closed rooms of 10 to 100 members: about 22 rooms a person.
        var rooms: [(ChatID, [UserID])] = [(general, people)]
        for index in 1..<roomCount {
            let members = Array(Set((0..<Int.random(in: 10...100, using: &random)).map { _ in people.randomElement(using: &random)! })).sorted()
            let room = try await store.createRoom(NewRoom(
                creator: members[0], kind: .closed, name: "Room \(index)", topic: nil, members: Array(members.dropFirst()), createdAt: start
            ))
            rooms.append((room.id, members))
        }
        print("people \(count), rooms \(roomCount) in \(Int(Date().timeIntervalSince(began))) s")
        let lanes = 64
        let perLane = messages / lanes
        let texts = (0..<lanes).map { lane in
            var lanesRandom = Seeded(state: seed &+ UInt64(lane) &* 7919)
            return (0..<perLane).map { _ -> (ChatID, UserID, String) in
                // One message in twenty in the room of everyone, the others in the closed rooms.
                let room = Int.random(in: 0..<20, using: &lanesRandom) == 0 ? rooms[0] : rooms[Int.random(in: 1..<rooms.count, using: &lanesRandom)]
                return (room.0, room.1.randomElement(using: &lanesRandom)!, Corpus.message(vocabulary, &lanesRandom))
            }
        }
        let sent = Date()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<lanes {
                let mine = texts[lane]
                group.addTask {
                    for (index, (chat, sender, body)) in mine.enumerated() {
                        _ = try await store.send(OutgoingMessage(
                            chatID: chat, senderID: sender, body: body, token: "fill-\(lane)-\(index)",
                            createdAt: start.addingTimeInterval(Double(index) * 30 + Double(lane))
                        ))
                        if lane == 0, index % 2_000 == 0, index > 0 { print("  \(index * lanes) messages, \(Int(Date().timeIntervalSince(sent))) s") }
                    }
                }
            }
            try await group.waitForAll()
        }
        print("messages \(perLane * lanes) in \(Int(Date().timeIntervalSince(sent))) s")
    }

    // MARK: Query

    struct Kind {
        let name: String
        let order: SearchOrder
        let make: (inout Seeded, UserID) -> String
    }

    /// Sessions for the first `people` people, their id hashes read from standard input (BLAKE2b-256, as Parlor
    /// keeps them), so a client can search as them over HTTP.
    static func sessions(_ path: String, people: Int) async throws {
        let store = try SQLiteChatStore(path: path)
        for index in 0..<people {
            guard let hash = readLine() else { break }
            try await store.createSession(StoredSession(
                idHash: hash, userID: UserID(Int64(index + 1)), csrfToken: "searchcsrf\(index)", createdAt: Date(),
                expiresAt: Date().addingTimeInterval(86_400)
            ))
        }
    }

    /// Times each kind of query through the store, or (`printOnly`: viewers among the first that many people) prints them.
    static func query(_ path: String, queries: Int, seed: UInt64, printOnly: Int?) async throws {
        var random = Seeded(state: 1)
        let vocabulary = Vocabulary.team(&random)
        random = Seeded(state: seed)
        let store = try SQLiteChatStore(path: path)
        let pool = try DatabasePool(path: path)
        let (people, newest) = try await pool.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user")!, try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM message")!)
        }
        // Text taken from stored messages: two words in a row, and Chinese or Japanese from a message that has some.
        func storedBody(_ random: inout Seeded, where condition: String) throws -> String {
            try pool.read { db in
                try String.fetchOne(db, sql: "SELECT body FROM message WHERE id >= ? AND \(condition) ORDER BY id LIMIT 1", arguments: [Int64.random(in: 1...newest, using: &random)])
            } ?? ""
        }
        let content = Array(vocabulary.words.dropFirst(47))
        let contentWords = Vocabulary(content)
        let kinds = [
            Kind(name: "1 word", order: .newest) { random, _ in contentWords.draw(&random) },
            Kind(name: "1 word, best match", order: .best) { random, _ in contentWords.draw(&random) },
            Kind(name: "2 words, the 2nd a prefix", order: .newest) { random, _ in
                contentWords.draw(&random) + " " + String(contentWords.draw(&random).prefix(4))
            },
            Kind(name: "phrase", order: .newest) { random, _ in
                let words = ((try? storedBody(&random, where: "body NOT GLOB '*[東会資確お明予開서회北项进测部完]*' AND length(body) > 20")) ?? "").split(separator: " ")
                guard words.count >= 3 else { return "\"deploy review\"" }
                let at = Int.random(in: 0..<(words.count - 1), using: &random)
                return "\"\(words[at]) \(words[at + 1])\""
            },
            // Someone the viewer shares a chat with: the author of a message in one of their chats.
            Kind(name: "from: + word", order: .newest) { random, viewer in
                let sender = (try? pool.read { db in
                    try Int64.fetchOne(db, sql: """
                        SELECT senderID FROM message WHERE chatID = (SELECT chatID FROM member WHERE userID = ? ORDER BY random() LIMIT 1)
                        ORDER BY id DESC LIMIT 1
                        """, arguments: [viewer.rawValue])
                }) ?? 1
                return "from:@p\((sender ?? 1) - 1) " + contentWords.draw(&random)
            },
            Kind(name: "CJK substring", order: .newest) { random, _ in
                let body = (try? storedBody(&random, where: "id IN (SELECT id FROM message_ideographs)")) ?? "東京会議"
                let scalars = Array(body.unicodeScalars)
                let length = Int.random(in: 2...3, using: &random)
                guard scalars.count > length else { return body }
                let at = Int.random(in: 0...(scalars.count - length), using: &random)
                var text = String.UnicodeScalarView()
                text.append(contentsOf: scalars[at..<(at + length)])
                return String(text)
            },
        ]
        func padded(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        if let people = printOnly {
            for kind in kinds {
                for _ in 0..<(queries + 20) {
                    let viewer = Int.random(in: 0..<people, using: &random)
                    let text = kind.make(&random, UserID(Int64(viewer + 1)))
                    print("\(kind.name)\t\(viewer)\t\(kind.order.rawValue)\t\(text)")
                }
            }
            return
        }
        print(padded("query (\(queries) each)", 28) + "   p50 ms   p99 ms   max ms  results")
        for kind in kinds {
            var timings: [Double] = []
            var found = 0
            for index in 0..<(queries + 20) {
                let viewer = UserID(Int64.random(in: 1...Int64(people), using: &random))
                let text = kind.make(&random, viewer)
                let search = MessageSearch(viewer: viewer, query: SearchQuery.parse(text), dayStart: { _ in nil }, order: kind.order, limit: 20)
                let began = ContinuousClock.now
                let results = try await store.search(search)
                let took = ContinuousClock.now - began
                guard index >= 20 else { continue }
                timings.append(Double(took.components.attoseconds) / 1e15 + Double(took.components.seconds) * 1_000)
                found += results.messages.count
            }
            timings.sort()
            func at(_ share: Double) -> Double { timings[min(timings.count - 1, Int(Double(timings.count) * share))] }
            print(padded(kind.name, 28) + String(format: " %8.2f %8.2f %8.2f %8.1f", at(0.5), at(0.99), timings.last!, Double(found) / Double(queries)))
        }
        // Sizes: the indexes beside the messages (dbstat, when SQLite has it).
        try await pool.read { db in
            guard let rows = try? Row.fetchAll(db, sql: "SELECT name, SUM(pgsize) AS size FROM dbstat GROUP BY name") else {
                print("sizes: SQLite here has no dbstat")
                return
            }
            var sizes: [String: Int64] = [:]
            for row in rows { sizes[row["name"]] = row["size"] }
            let message = (sizes["message"] ?? 0) + sizes.filter { $0.key.hasPrefix("message_by") || $0.key.hasPrefix("message_photos") || $0.key.hasPrefix("sqlite_autoindex_message") }.values.reduce(0, +)
            let words = sizes.filter { $0.key.hasPrefix("message_words") }.values.reduce(0, +)
            let trigrams = sizes.filter { $0.key.hasPrefix("message_trigrams") }.values.reduce(0, +) + (sizes["message_ideographs"] ?? 0)
            func mb(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
            print("sizes: messages with their indexes \(mb(message)); word index \(mb(words)) (\(String(format: "%.2f", Double(words) / Double(message)))x); "
                + "trigram index of Chinese/Japanese/Korean messages \(mb(trigrams)) (\(String(format: "%.2f", Double(trigrams) / Double(message)))x)")
        }
    }

    // MARK: Send

    /// Sends to 200 chats of two at 64 at a time, as `parlor-store-bench` does, into a store with its search
    /// indexes and one without (no batches, no triggers), alternating.
    static func send(_ folder: String, sends: Int, rounds: Int) async throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var stores: [(name: String, store: SQLiteChatStore, chats: [(ChatID, UserID)])] = []
        for name in ["with search indexes", "without"] {
            let path = folder + "/send-\(name.hasPrefix("with ") ? "indexed" : "plain").sqlite"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            let store = try SQLiteChatStore(path: path)
            if name == "without" {
                let pool = try DatabasePool(path: path)
                // No batches (the mark is past any message) and no triggers.
                try await pool.write { db in
                    for trigger in ["message_search_update", "message_search_delete"] { try db.execute(sql: "DROP TRIGGER \(trigger)") }
                    try db.execute(sql: "UPDATE searchIndex SET doneThrough = 9223372036854775807")
                }
            }
            var chats: [(ChatID, UserID)] = []
            for index in 0..<200 {
                let first = try await store.createUser(NewUser(handle: "a\(index)", displayName: "A \(index)"), at: Date())
                let second = try await store.createUser(NewUser(handle: "b\(index)", displayName: "B \(index)"), at: Date())
                chats.append((try await store.createChat(between: first.id, and: second.id, at: Date()).id, first.id))
            }
            stores.append((name, store, chats))
        }
        var random = Seeded(state: 3)
        let vocabulary = Vocabulary.team(&random)
        let bodies = (0..<4_096).map { _ in Corpus.message(vocabulary, &random) }
        var rates: [String: [Double]] = [:]
        for round in 0..<rounds {
            for (name, store, chats) in stores {
                let began = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for lane in 0..<64 {
                        group.addTask {
                            for index in stride(from: lane, to: sends, by: 64) {
                                let (chat, sender) = chats[index % chats.count]
                                _ = try await store.send(OutgoingMessage(
                                    chatID: chat, senderID: sender, body: bodies[index % bodies.count], token: "r\(round)-\(index)", createdAt: Date()
                                ))
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let took = ContinuousClock.now - began
                let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
                rates[name, default: []].append(Double(sends) / seconds)
                print(String(format: "round %d, %@: %.0f sends/s", round + 1, name as NSString, Double(sends) / seconds))
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let with = median(rates["with search indexes"]!), without = median(rates["without"]!)
        print(String(format: "store alone: %.0f sends/s with the search indexes, %.0f/s without: %.3fx (the target is judged on sends through Parlor: bash Benchmarks/fanout --lanes 2 --search-index on,off,on,off)", with, without, with / without))
    }
}
