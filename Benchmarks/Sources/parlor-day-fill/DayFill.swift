// Fills a SQLite store with the organisation of the `day` benchmark, through the store itself (the same
// statements and counts a Parlor keeps): N people, the open room of everyone, 60 % of people in 3–8 closed
// rooms of 5–50 members, 10 direct chats each, a short history in every chat, and one session per person.
// Signing 10,000 people up over HTTP would spend most of an hour in Argon2; the sessions are made here
// from ids the caller chose and hashed (BLAKE2b-256, as Parlor keeps them).
//
//   parlor-day-fill <database> <people> <seed> <plan-out>   (session id hashes on stdin, one per person)
//
// The plan, for the load client: a line "N <people>", then per person "P <index> <chats...>".

import Foundation
import ParlorDomain
import ParlorStorage

/// SplitMix64: the same organisation for the same seed.
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

@main
enum DayFill {
    static let zones = ["Europe/Berlin", "America/New_York", "UTC", "Asia/Tokyo"]
    static let locales = ["en_US", "de_DE", "en_GB"]

    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 5, let count = Int(arguments[2]), count >= 60, let seed = UInt64(arguments[3]) else {
            FileHandle.standardError.write(Data("usage: parlor-day-fill <database> <people> <seed> <plan-out>\n".utf8))
            exit(2)
        }
        var hashes: [String] = []
        while let line = readLine(), hashes.count < count { hashes.append(line) }
        guard hashes.count == count else { fatalError("need \(count) session hashes on stdin, got \(hashes.count)") }

        var random = Seeded(state: seed)
        let store = try SQLiteChatStore(path: arguments[1])
        let began = Date()
        let start = Date().addingTimeInterval(-86_400)

        // People, the first of whom makes the open room every later one joins.
        var people: [UserID] = []
        for index in 0..<count {
            let user = try await store.createUser(NewUser(
                handle: "p\(index)", displayName: "Person \(index) Lastname",
                timeZoneIdentifier: zones[index % zones.count], localeIdentifier: locales[index % locales.count],
                passwordHash: "$argon2id$v=19$m=65536,t=2,p=1$bm90LWEtcGFzc3dvcmQ$bm90LWEtcGFzc3dvcmQtaGFzaC1hdC1hbGw"
            ), at: start)
            people.append(user.id)
            if index == 0 {
                _ = try await store.createFirstRoom(NewRoom(creator: user.id, kind: .open, name: "General", topic: "Everyone", createdAt: start))
            }
        }
        for (index, hash) in hashes.enumerated() {
            try await store.createSession(StoredSession(
                idHash: hash, userID: people[index], csrfToken: "daycsrf\(index)", createdAt: start,
                expiresAt: start.addingTimeInterval(30 * 86_400)
            ))
        }
        let general = try await store.chatList(for: people[0]).first { $0.heading.kind == .open }!.chatID
        var chats: [[ChatID]] = Array(repeating: [general], count: count)
        print("people: \(count) in \(Int(Date().timeIntervalSince(began))) s")

        // Closed rooms: 60 % of people, each in 3–8 of them; a slot list cut into rooms of 5–50.
        var slots: [Int] = []
        for person in (0..<count).shuffled(using: &random).prefix(count * 6 / 10) {
            slots += Array(repeating: person, count: Int.random(in: 3...8, using: &random))
        }
        slots.shuffle(using: &random)
        var rooms: [(ChatID, [Int])] = []
        var cursor = 0
        while cursor < slots.count {
            let size = Int.random(in: 5...50, using: &random)
            let members = Array(Set(slots[cursor..<min(cursor + size, slots.count)])).sorted()
            cursor += size
            guard members.count >= 2 else { continue }
            let room = try await store.createRoom(NewRoom(
                creator: people[members[0]], kind: .closed, name: "Project \(rooms.count)", topic: "Room \(rooms.count) of the day",
                members: members.dropFirst().map { people[$0] }, createdAt: start
            ))
            rooms.append((room.id, members))
            for member in members { chats[member].append(room.id) }
        }
        print("rooms: \(rooms.count), \(slots.count) memberships, in \(Int(Date().timeIntervalSince(began))) s")

        // Direct chats: everyone starts five with people chosen at random, so each has about ten.
        var pairs = Set<Int>()
        var directs: [(ChatID, Int, Int)] = []
        for person in 0..<count {
            for _ in 0..<5 {
                let other = Int.random(in: 0..<count, using: &random)
                let key = min(person, other) * count + max(person, other)
                guard other != person, pairs.insert(key).inserted else { continue }
                let chat = try await store.createChat(between: people[person], and: people[other], at: start)
                directs.append((chat.id, person, other))
                chats[person].append(chat.id)
                chats[other].append(chat.id)
            }
        }
        print("direct chats: \(directs.count) in \(Int(Date().timeIntervalSince(began))) s")

        // A history: 20 messages in each room and in General, 4 in each direct chat, all of them unread (the
        // morning: every page opens with something new, and the first reads move every count).
        var sends: [(ChatID, UserID, Int)] = []
        for _ in 0..<20 {
            sends.append((general, people[Int.random(in: 0..<count, using: &random)], sends.count))
            for (room, members) in rooms { sends.append((room, people[members.randomElement(using: &random)!], sends.count)) }
        }
        for (chat, first, second) in directs {
            for turn in 0..<4 { sends.append((chat, people[turn % 2 == 0 ? first : second], sends.count)) }
        }
        let words = ["the plan", "a review", "lunch", "the release", "tomorrow's call", "the numbers", "a question", "the draft"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<32 {
                let mine = stride(from: lane, to: sends.count, by: 32).map { sends[$0] }
                group.addTask {
                    for (chat, sender, number) in mine {
                        _ = try await store.send(OutgoingMessage(
                            chatID: chat, senderID: sender, body: "Morning note \(number) about \(words[number % words.count]), see you later",
                            token: "fill-\(number)", createdAt: start.addingTimeInterval(Double(number % 80_000))
                        ))
                    }
                }
            }
            try await group.waitForAll()
        }
        print("messages: \(sends.count) in \(Int(Date().timeIntervalSince(began))) s")

        var plan = "N \(count)\n"
        for (index, list) in chats.enumerated() {
            plan += "P \(index) " + list.map { String($0.rawValue) }.joined(separator: " ") + "\n"
        }
        try plan.write(toFile: arguments[4], atomically: true, encoding: .utf8)
    }
}
