import Foundation
import HTTPTestSupport
import Logging
import ParlorDomain
import ParlorEvents
@testable import ParlorPostgres
import PostgresNIO
import Synchronization
import Testing

/// The event log read by several instances of one database: each applies every stored event once, in log
/// order, its own included, also when a transaction commits late, the listener's connection drops, or an
/// instance falls behind the log's retention.
@Suite(.serialized) struct PostgresEventBusTests {
    /// One Parlor instance: its own pool on the shared database, its store and its bus, and what its pages got.
    final class Instance: Sendable {
        let store: PostgresChatStore
        let bus: PostgresEventBus
        /// What this instance's pages were handed, and how often they were told to reload.
        final class Inbox: Sendable {
            let events = Mutex<[DomainEvent]>([])
            let missed = Atomic<Int>(0)
        }

        let inbox = Inbox()
        private let reader: Task<Void, Never>?

        init(url: String, reading: Bool = true, retention: Duration = .seconds(3_600)) async throws {
            var logger = Logger(label: "parlor.test")
            logger.logLevel = .critical
            store = try await PostgresChatStore(database: PostgresDatabase.runningOnItsOwn(url: url, maximumConnections: 4, logger: logger))
            bus = PostgresEventBus(store: store, changes: nil, poll: .milliseconds(200), retention: retention, logger: logger)
            bus.subscribe { [inbox] published in inbox.events.withLock { $0.append(published.event) } }
            bus.onMissedEvents { [inbox] in inbox.missed.add(1, ordering: .relaxed) }
            reader = reading ? Task { [bus] in await bus.run() } : nil
            // Started as an instance starts: its cursor is set before anything happens.
            if reading { try await PostgresEventBusTests.eventually("listening") { bus.isHealthy } }
        }

        var events: [DomainEvent] { inbox.events.withLock { $0 } }
        var missedCount: Int { inbox.missed.load(ordering: .relaxed) }

        var sent: [Message] {
            inbox.events.withLock { events in events.compactMap { if case .message(.sent(let message, _)) = $0 { message } else { nil } } }
        }

        func stop() {
            reader?.cancel()
            store.database.close()
        }
    }

    static func eventually(_ what: Comment, within seconds: Double = 20, _ condition: () -> Bool) async throws {
        if await HTTPTestSupport.eventually(within: seconds, every: .milliseconds(20), condition) { return }
        Issue.record("not within \(seconds) s: \(what)")
    }

    /// An event's kind and the id of what it is about.
    static func id(_ event: DomainEvent) -> String {
        switch event {
        case .message(.sent(let message, _)), .message(.edited(let message)): "\(event.kind) \(message.id)"
        case .message(.userRead(let chat, let reader, _, let upTo)): "\(event.kind) \(chat) \(reader) \(upTo)"
        case .chat(.created(let chat)): "\(event.kind) \(chat.id)"
        case .user(.signedUp(let user)): "\(event.kind) \(user.id)"
        default: event.kind
        }
    }

    static func people(_ store: PostgresChatStore) async throws -> (User, User, Chat) {
        let ana = try await store.createUser(NewUser(handle: "ana", displayName: "Ana"), at: .at(0))
        let ben = try await store.createUser(NewUser(handle: "ben", displayName: "Ben"), at: .at(0))
        return (ana, ben, try await store.createChat(between: ana.id, and: ben.id, at: .at(0)))
    }

    /// Someone typing, and who is around, are stored nowhere, but every instance's pages show them: the bus writes
    /// them to the log itself.
    @Test func typingAndPresenceOnOneInstanceReachEveryInstanceOnce() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let first = try await Instance(url: url), second = try await Instance(url: url)
        defer { first.stop(); second.stop() }
        let (ana, _, chat) = try await Self.people(first.store)
        let started = TypingReport(chatID: chat.id, userID: ana.id, isTyping: true)
        let stopped = TypingReport(chatID: chat.id, userID: ana.id, isTyping: false)
        let here = PresenceReport(userID: ana.id, instance: 42, state: .away, appearsOffline: true)
        let again = [PresenceReport(userID: ana.id, instance: 42, state: .active), PresenceReport(userID: UserID(999), instance: 42, state: .away)]
        first.bus.publish(PublishedEvent(.presence(.typing(started))))
        first.bus.publish(PublishedEvent(.presence(.typing(stopped))))
        first.bus.publish(PublishedEvent(.presence(.presenceChanged(here))))
        first.bus.publish(PublishedEvent(.presence(.presenceRefreshed(again))))
        // "Sending" (not shared) stays on its instance.
        first.bus.publish(PublishedEvent(.message(.sending(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "x", token: "t", createdAt: .at(1))))))
        func typing(_ instance: Instance) -> [DomainEvent] {
            instance.events.filter { if case .presence = $0 { true } else { false } }
        }
        for instance in [first, second] {
            try await Self.eventually("every report on each instance") { typing(instance).count >= 4 }
            let reads = instance.bus.completedReads
            try await Self.eventually("two more reads") { instance.bus.completedReads >= reads + 2 }
            #expect(typing(instance) == [
                .presence(.typing(started)), .presence(.typing(stopped)), .presence(.presenceChanged(here)), .presence(.presenceRefreshed(again)),
            ], "once each, in order, with every value")
        }
        #expect(first.events.contains { $0.kind == "message.sending" })
        #expect(!second.events.contains { $0.kind == "message.sending" })
    }

    /// A reaction given on one instance reaches every instance's pages with the message's reactions as they are when
    /// the entry is read; one refused writes nothing to the log.
    @Test func aReactionOnOneInstanceReachesEveryInstance() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let first = try await Instance(url: url), second = try await Instance(url: url)
        defer { first.stop(); second.stop() }
        let (ana, ben, chat) = try await Self.people(first.store)
        let message = try await first.store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "Lunch?", token: "t", createdAt: .at(1)))
        _ = try await second.store.toggleReaction(ReactionToggle(messageID: message.id, userID: ben.id, text: "👍", at: .at(2)))
        let stranger = try await first.store.createUser(NewUser(handle: "chloe", displayName: "Chloé"), at: .at(0))
        await #expect(throws: Refusal.notFound) {
            try await first.store.toggleReaction(ReactionToggle(messageID: message.id, userID: stranger.id, text: "👎", at: .at(3)))
        }
        func reacted(_ instance: Instance) -> [MessageReactions] {
            instance.events.compactMap { if case .message(.reacted(let reactions)) = $0 { reactions } else { nil } }
        }
        for instance in [first, second] {
            try await Self.eventually("the reaction on each instance") { !reacted(instance).isEmpty }
            let reads = instance.bus.completedReads
            try await Self.eventually("two more reads") { instance.bus.completedReads >= reads + 2 }
            #expect(reacted(instance) == [MessageReactions(
                messageID: message.id, chatID: chat.id, counts: [ReactionCount(text: "👍", people: [ben.id], names: ["Ben"])]
            )], "once, with who gave it")
        }
    }

    /// Deactivating someone on one instance reaches every instance (which closes that person's pages there), with the
    /// rooms they left; reactivating, with the rooms they joined again. A refused one writes nothing to the log.
    @Test func aDeactivationOnOneInstanceReachesEveryInstance() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let first = try await Instance(url: url), second = try await Instance(url: url)
        defer { first.stop(); second.stop() }
        let (ana, ben, _) = try await Self.people(first.store)
        let room = try await first.store.createRoom(NewRoom(creator: ana.id, kind: .closed, name: "Launch", topic: nil, members: [ben.id], createdAt: .at(1)))
        await #expect(throws: Refusal.lastAdministrator) { try await second.store.deactivate(ana.id, at: .at(2)) }
        _ = try await second.store.deactivate(ben.id, at: .at(3))
        _ = try await first.store.reactivate(ben.id, at: .at(4))
        func changes(_ instance: Instance) -> [AccountState] {
            instance.events.compactMap { if case .user(.accountChanged(let state)) = $0 { state } else { nil } }
        }
        for instance in [first, second] {
            try await Self.eventually("both changes on each instance") { changes(instance).count >= 2 }
            let reads = instance.bus.completedReads
            try await Self.eventually("two more reads") { instance.bus.completedReads >= reads + 2 }
            #expect(changes(instance).map(\.isActive) == [false, true] && changes(instance).map(\.user.id) == [ben.id, ben.id])
            #expect(changes(instance).first?.rooms == [room.id], "the rooms he left")
        }
    }

    /// A link's card stored on one instance, and its removal, reach every instance with the message as it is then.
    @Test func aLinkCardOnOneInstanceReachesEveryInstance() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let first = try await Instance(url: url), second = try await Instance(url: url)
        defer { first.stop(); second.stop() }
        let (ana, _, chat) = try await Self.people(first.store)
        let message = try await first.store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "https://example.org/a", token: "t", createdAt: .at(1)))
        let card = LinkPreview(url: "https://example.org/a", title: "A page")
        _ = try #require(try await second.store.recordPreview(PreviewResult(messageID: message.id, preview: card)))
        _ = try await first.store.removePreview(PreviewRemoval(messageID: message.id, requesterID: ana.id))
        func cards(_ instance: Instance) -> [LinkPreview?] {
            instance.events.compactMap { if case .message(.previewed(let message)) = $0 { message.preview } else { nil } }
        }
        for instance in [first, second] {
            try await Self.eventually("both on each instance") { cards(instance).count >= 2 }
            #expect(cards(instance).count == 2, "once each")
        }
    }

    @Test func everyInstanceGetsEveryStoredEventOnceInTheSameOrderItsOwnIncluded() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let first = try await Instance(url: url), second = try await Instance(url: url)
        defer { first.stop(); second.stop() }
        let (ana, ben, chat) = try await Self.people(first.store)
        // Sends through both instances at once, and an edit and a read mark through each.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let (store, sender) = index.isMultiple(of: 2) ? (first.store, ana) : (second.store, ben)
                group.addTask {
                    _ = try await store.send(OutgoingMessage(chatID: chat.id, senderID: sender.id, body: "m\(index)", token: "t\(index)", createdAt: .at(Double(index))))
                }
            }
            try await group.waitForAll()
        }
        let some = try await first.store.messages(in: chat.id, before: nil, limit: 1).messages[0]
        _ = try await second.store.edit(MessageEdit(messageID: some.id, editorID: some.senderID, body: "edited", editedAt: .at(50)))
        _ = try await first.store.markRead(ReadReport(chatID: chat.id, readerID: ana.id))

        for instance in [first, second] {
            try await Self.eventually("40 sends, an edit and a read on each instance") {
                instance.events.count >= 45 && instance.events.contains { if case .message(.userRead) = $0 { true } else { false } }
            }
            let sent = instance.sent
            #expect(sent.count == 40, "each send once")
            #expect(Set(sent.map(\.body)).count == 40)
        }
        // A few more reads of the log on each: nothing may come twice.
        for instance in [first, second] {
            let reads = instance.bus.completedReads
            try await Self.eventually("three more reads") { instance.bus.completedReads >= reads + 3 }
        }
        // The same events in the same order; their values are read when each instance applies them (an edit
        // may come between), so they are compared by kind and id.
        #expect(first.events.map(Self.id) == second.events.map(Self.id), "the same events in the same order")
        if first.events.map(Self.id) != second.events.map(Self.id) {
            let name = String(url.split(separator: "/").last!)
            Issue.record(Comment(rawValue: try await TestPostgres.shared().sql("SELECT xid, id, kind, ids FROM eventLog ORDER BY xid, id", database: name)))
            Issue.record(Comment(rawValue: "first: \(first.events.map(Self.id))\nsecond: \(second.events.map(Self.id))"))
        }
        #expect(first.events.count == 45, "2 people, 1 chat, 40 sends, 1 edit, 1 read: nothing twice")
    }

    /// A page appends a chat's messages after the last one it has: in every chat, the log must hand them on
    /// in the order of their ids, also when the batches of two instances share some chats and not others.
    @Test func eachChatsMessagesArriveInTheirOrderWhenBatchesOfTwoInstancesOverlap() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let first = try await Instance(url: url), second = try await Instance(url: url)
        defer { first.stop(); second.stop() }
        var people: [User] = []
        for handle in ["ana", "ben", "chloe", "dan"] {
            people.append(try await first.store.createUser(NewUser(handle: handle, displayName: handle), at: .at(0)))
        }
        var chats: [(Chat, User, User)] = []
        for (a, b) in [(0, 1), (0, 2), (1, 2), (2, 3), (0, 3)] {
            chats.append((try await first.store.createChat(between: people[a].id, and: people[b].id, at: .at(0)), people[a], people[b]))
        }
        let rounds = 30, perRound = 40
        for round in 0..<rounds {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<perRound {
                    // The first instance's batches take chats 0 and 2, the second's 1 and 2: each may hold its
                    // first chat while the other writes the shared one.
                    let store = index.isMultiple(of: 2) ? first.store : second.store
                    let (chat, a, b) = chats[index.isMultiple(of: 4) ? 2 : index.isMultiple(of: 2) ? 0 : 1]
                    let sender = (index / 4 + round).isMultiple(of: 2) ? a : b
                    let token = "r\(round)-\(index)"
                    group.addTask {
                        _ = try await store.send(OutgoingMessage(chatID: chat.id, senderID: sender.id, body: token, token: token, createdAt: .at(1)))
                    }
                }
                try await group.waitForAll()
            }
        }
        for (name, instance) in [("first", first), ("second", second)] {
            try await Self.eventually("every send on the \(name) instance") { instance.sent.count >= rounds * perRound }
            var last: [ChatID: MessageID] = [:]
            var backwards: [String] = []
            for message in instance.sent {
                if let before = last[message.chatID], before >= message.id { backwards.append("\(message.chatID): \(message.id) after \(before)") }
                last[message.chatID] = message.id
            }
            #expect(backwards.isEmpty, "the \(name) instance handed on a chat's message after a later one: \(backwards.prefix(5))")
            #expect(instance.sent.count == rounds * perRound)
        }
    }

    @Test func aTransactionThatCommitsLateIsStillDeliveredOnce() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let instance = try await Instance(url: url)
        defer { instance.stop() }
        let (ana, _, chat) = try await Self.people(instance.store)
        let early = try await instance.store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "early", token: "early", createdAt: .at(1)))
        try await Self.eventually("the first message") { instance.sent.count == 1 }

        // A transaction takes its log id now and commits after later ones did.
        let database = instance.store.database
        let logger = Logger(label: "late")
        let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration, id: 9, logger: logger)
        try await connection.query("BEGIN", logger: logger)
        try await connection.query("UPDATE message SET body = 'late edit', editedAt = 2 WHERE id = \(early.id.rawValue)", logger: logger)
        try await connection.query("INSERT INTO eventLog (kind, ids) VALUES ('message.edited', ARRAY[\(early.id.rawValue)]::BIGINT[])", logger: logger)
        _ = try await instance.store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "after", token: "after", createdAt: .at(3)))
        let ids = try await connection.query("SELECT id FROM eventLog ORDER BY id", logger: logger).collect().map { try $0.decode(Int64.self) }
        #expect(ids.count == 6, "users, chat, early, the late edit (uncommitted, seen by its own transaction), after")
        // "after" is visible and its id is larger than the open transaction's: a cursor on ids alone would
        // pass the late one by.
        let readsBefore = instance.bus.completedReads
        try await Self.eventually("three more reads") { instance.bus.completedReads >= readsBefore + 3 }
        #expect(instance.sent.count == 1, "held back behind the open transaction")
        try await connection.query("COMMIT", logger: logger)
        await database.notify()
        try await connection.close()

        try await Self.eventually("the late edit and the later send") { instance.events.count == 6 }
        let kinds = instance.events.map(\.kind)
        #expect(kinds.suffix(2) == ["message.edited", "message.sent"], "in transaction order")
        let readsAfter = instance.bus.completedReads
        try await Self.eventually("three more reads") { instance.bus.completedReads >= readsAfter + 3 }
        #expect(instance.events.count == 6, "nothing twice")
    }

    @Test func aDroppedListenerReconnectsAndNothingIsMissed() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let instance = try await Instance(url: url)
        defer { instance.stop() }
        let (ana, _, chat) = try await Self.people(instance.store)
        try await Self.eventually("listening") { instance.bus.isHealthy }
        let database = url.split(separator: "/").last.map(String.init)!
        // Ends the listener's connection from the server's side, as a restart or a network cut would.
        let ended = try await TestPostgres.shared().sql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '\(database)' AND query LIKE 'LISTEN%'"
        )
        #expect(ended == "1")
        for index in 0..<5 {
            _ = try await instance.store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "m\(index)", token: "t\(index)", createdAt: .at(Double(index))))
        }
        try await Self.eventually("every message after the drop") { instance.sent.count == 5 }
        try await Self.eventually("listening again") { instance.bus.isHealthy }
        let listeners = try await TestPostgres.shared().sql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND query LIKE 'LISTEN%'")
        #expect(listeners == "1", "a new LISTEN connection")
    }

    @Test func anInstanceBehindTheLogsRetentionReloadsItsPages() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let writer = try await Instance(url: url, reading: false, retention: .zero)
        let late = try await Instance(url: url, reading: false)
        defer { writer.stop(); late.stop() }
        await late.bus.catchUp()  // its cursor: the log's start
        let (ana, _, chat) = try await Self.people(writer.store)
        _ = try await writer.store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "gone", token: "gone", createdAt: .at(1)))
        // Trimmed once the horizon passed those entries: other tests' transactions on this server hold it
        // back a moment (it is the whole cluster's).
        let name = String(url.split(separator: "/").last!)
        let deadline = ContinuousClock.now + .seconds(20)
        repeat {
            await writer.bus.trim()
        } while try await TestPostgres.shared().sql("SELECT count(*) FROM eventLog", database: name) != "0" && ContinuousClock.now < deadline
        #expect(try await TestPostgres.shared().sql("SELECT count(*) FROM eventLog", database: name) == "0")
        await late.bus.catchUp()
        #expect(late.missedCount == 1, "its pages are told to reload")
        #expect(late.events.isEmpty)
        // From there on it reads as usual.
        _ = try await writer.store.send(OutgoingMessage(chatID: chat.id, senderID: ana.id, body: "kept", token: "kept", createdAt: .at(2)))
        let until = ContinuousClock.now + .seconds(20)
        repeat {
            await late.bus.catchUp()
        } while late.sent.isEmpty && ContinuousClock.now < until
        #expect(late.sent.map(\.body) == ["kept"])
        #expect(late.missedCount == 1)
    }

    @Test func aDueFeedIsLeasedToOneInstanceUntilItsCheckIsRecorded() async throws {
        let url = try await TestPostgres.shared().newDatabase()
        let first = try await Instance(url: url, reading: false), second = try await Instance(url: url, reading: false)
        defer { first.stop(); second.stop() }
        let (ana, _, chat) = try await Self.people(first.store)
        let feeds = try await first.store.createUser(NewUser(handle: "parlor_feeds", displayName: "Feeds", isBot: true), at: .at(0))
        let subscription = try await first.store.subscribe(
            NewSubscription(chatID: chat.id, subscriberID: ana.id, url: "https://news.example.org/feed.xml", createdAt: .at(10)), limit: 20
        )
        #expect(try await first.store.dueFeedSubscriptions(at: .at(11), limit: 10).map(\.id) == [subscription.id])
        #expect(try await second.store.dueFeedSubscriptions(at: .at(12), limit: 10).isEmpty, "leased to the first instance")
        #expect(try await first.store.dueFeedSubscriptions(at: .at(13), limit: 10).isEmpty, "once per lease, for its holder too")
        // An instance that stopped mid-check holds it only until the lease ends.
        let late = 11 + PostgresChatStore.feedLease
        #expect(try await second.store.dueFeedSubscriptions(at: .at(late), limit: 10).map(\.id) == [subscription.id])
        // Its check ends the lease; the next is due when the check says.
        _ = try await second.store.recordCheck(FeedCheck(
            subscriptionID: subscription.id, checkedAt: .at(late), outcome: .failed(reason: "the server answered 503"), nextCheck: .at(late + 300),
            authorID: feeds.id, postLimit: 3
        ))
        #expect(try await first.store.dueFeedSubscriptions(at: .at(late + 299), limit: 10).isEmpty)
        #expect(try await first.store.dueFeedSubscriptions(at: .at(late + 300), limit: 10).map(\.id) == [subscription.id])
    }
}
