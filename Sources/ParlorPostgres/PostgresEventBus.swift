import Foundation
import Logging
import ParlorDomain
import ParlorEvents
import PostgresNIO
import Synchronization

/// The bus of several instances on one PostgreSQL database: every instance reads the event log, which the
/// store writes in each change's transaction, and hands each entry to its live pages exactly once, in log
/// order, its own changes included (they take the same path as everyone else's).
///
/// The log is read in `(xid, id)` order and only below the oldest transaction still running
/// (`pg_snapshot_xmin`): ids are handed out before commit, so a transaction that commits late has a smaller
/// id than entries already visible, but never a transaction id below that horizon. Whatever the horizon has
/// passed is final; a reader that moved past it skips nothing. The price: a long write transaction anywhere
/// in the cluster holds delivery back until it ends.
///
/// `NOTIFY` after each commit wakes the readers (a dedicated connection LISTENs before its first read); a
/// short poll covers lost hints and a dropped listener, which reconnects and LISTENs again. Events that
/// store nothing ("Sending", a refused send) go straight to this instance's pages.
public final class PostgresEventBus: EventBus {
    private struct Cursor: Sendable {
        var xid: UInt64
        var id: Int64
    }


    private let store: PostgresChatStore
    private let database: PostgresDatabase
    private let changes: ChangeCounters?
    private let logger: Logger
    private let poll: Duration
    private let retention: Duration
    /// This instance's pages, as in a single instance: entries read from the log and local events go there.
    private let local = InProcessEventBus()
    private let missedHandler = Mutex<(@Sendable () -> Void)?>(nil)
    /// Only the reading loop touches it.
    private let cursor = Mutex<Cursor?>(nil)
    private let listening = Atomic<Bool>(false)
    /// Set while ``catchUp()`` runs: one read at a time moves the cursor.
    private let reading = Atomic<Bool>(false)
    /// Whether the last read of the log failed: its error is logged once, not at every poll.
    private let readFailing = Atomic<Bool>(false)
    /// Reads of the log that ended without an error: what a test awaits ("a few more reads, and nothing came
    /// twice") instead of sleeping.
    private let reads = Atomic<Int>(0)
    public var completedReads: Int { reads.load(ordering: .acquiring) }
    /// When the log was last read without an error (seconds of the monotonic clock), for readiness.
    private let lastRead = Mutex<ContinuousClock.Instant?>(nil)
    private let batch = 500
    /// Events every instance shows although nothing is stored (someone typing), waiting to be written to the log.
    private let shared: AsyncStream<EventLogEntry>
    private let sharing: AsyncStream<EventLogEntry>.Continuation

    /// `changes`: counted for every entry read, so pages kept between requests notice other instances'
    /// changes. `poll`: how often the log is read without a hint. `retention`: how long entries are kept.
    public init(
        store: PostgresChatStore, changes: ChangeCounters?, poll: Duration = .milliseconds(500), retention: Duration = .seconds(3_600),
        logger: Logger
    ) {
        self.store = store
        database = store.database
        self.changes = changes
        self.poll = poll
        self.retention = retention
        self.logger = logger
        // Lost past this many waiting: they are shown for seconds, and a flood of them must not hold memory.
        (shared, sharing) = AsyncStream.makeStream(of: EventLogEntry.self, bufferingPolicy: .bufferingNewest(1_000))
    }

    // MARK: EventBus

    public func publish(_ event: PublishedEvent) {
        // Stored events reach the pages through the log, on every instance alike; so do shared ones, which the log
        // is written for here (nothing else stores them).
        guard !event.event.isStoredChange else { return }
        if event.event.isShared, let entry = EventLogEntry(shared: event.event) {
            sharing.yield(entry)
            return
        }
        local.publish(event)
    }

    public func subscribe(_ receiver: @escaping @Sendable (PublishedEvent) -> Void) {
        local.subscribe(receiver)
    }

    public func onMissedEvents(_ handler: @escaping @Sendable () -> Void) {
        missedHandler.withLock { $0 = handler }
    }

    /// The log is read in transaction-id order, and a chat's writers take its lock before they have one
    /// (``ChatLocks``): a chat's messages come in the order of their ids.
    public var deliversEachChatsMessagesInOrder: Bool { true }

    /// Whether the listener is connected and the log was read lately: what `/readyz` reports.
    public var isHealthy: Bool {
        guard listening.load(ordering: .relaxed), let last = lastRead.withLock({ $0 }) else { return false }
        return ContinuousClock.now - last < poll * 4 + .seconds(2)
    }

    // MARK: Reading

    /// Reads the log and hands on its entries until cancelled: woken by notifications, and every `poll`.
    public func run() async {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listen(wake) }
            group.addTask {
                while !Task.isCancelled {
                    wake.yield()
                    try? await Task.sleep(for: self.poll)
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(60))
                    // Not on the way out: a cancelled trim would only log its cancellation.
                    if !Task.isCancelled { await self.trim() }
                }
            }
            group.addTask {
                for await _ in wakeups { await self.catchUp() }
            }
            group.addTask { await self.writeShared() }
            // Cancelling `run` cancels each task: the sleeps and the stream's iteration end, the listener closes.
            await group.waitForAll()
        }
    }

    /// Writes shared events to the log as they come, until cancelled; one that cannot be written is dropped (it
    /// would be stale by the time the database answers again).
    private func writeShared() async {
        for await entry in shared {
            do {
                try await database.writeStatement { [logger] connection in try await entry.append(connection, logger: logger) }
            } catch {
                logger.notice("a shared event was not written to the event log", metadata: ["kind": "\(entry.kind)", "error": "\(error)"])
            }
        }
    }

    /// Keeps a connection LISTENing, reconnecting after it drops (postgres-nio ends the notifications with an
    /// error then, and does not reconnect); each notification, and each new connection, wakes the reader.
    private func listen(_ wake: AsyncStream<Void>.Continuation) async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            var opened: PostgresConnection?
            do {
                let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration, id: 1, logger: logger)
                opened = connection
                try await withTaskCancellationHandler {
                    try await connection.listen(on: PostgresDatabase.channel) { notifications in
                        listening.store(true, ordering: .relaxed)
                        delay = .milliseconds(100)
                        // Entries committed before LISTEN took effect are found by this read.
                        wake.yield()
                        for try await _ in notifications { wake.yield() }
                    }
                } onCancel: {
                    connection.close().whenComplete { _ in }
                }
            } catch {
                if !Task.isCancelled, listening.load(ordering: .relaxed) || delay == .milliseconds(100) {
                    logger.warning("the event log's listener lost its connection; reconnecting", metadata: ["error": "\(PostgresStoreError.wrapping(error))"])
                }
            }
            // Closed whatever happened: a connection is never left to go away open.
            try? await opened?.close()
            listening.store(false, ordering: .relaxed)
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// Reads every final entry past the cursor and hands each on, in order; on a failure, stops and leaves
    /// the cursor where it was (the next wake-up reads again from there).
    func catchUp() async {
        guard !reading.exchange(true, ordering: .acquiring) else {
            assertionFailure("the event log is read by one reader at a time")
            return
        }
        defer { reading.store(false, ordering: .releasing) }
        do {
            var position: Cursor
            if let known = cursor.withLock({ $0 }) {
                position = known
            } else {
                // A new instance has no pages yet: it starts at the horizon.
                let row = try await database.rows("SELECT pg_snapshot_xmin(pg_current_snapshot())::text").first
                position = Cursor(xid: UInt64(try row!.at(0, as: String.self)) ?? 0, id: 0)
            }
            while true {
                // The messages the entries name come in the same rows (a burst of sends is most of the log), one
                // lookup by key each (LIMIT keeps the planner from joining the whole message table).
                let rows = try await database.rows("""
                    SELECT log.xid::text, log.id, log.kind, log.ids, log.token, (SELECT (xid::text || ':' || id) FROM eventLogTrim), m.*
                    FROM eventLog log LEFT JOIN LATERAL (
                        SELECT \(unescaped: Columns.message) FROM message
                        WHERE log.kind = ANY(\(EventLogEntry.messageKinds)) AND message.id = log.ids[1] LIMIT 1
                    ) m ON true
                    WHERE (log.xid, log.id) > (\(String(position.xid))::xid8, \(position.id)) AND log.xid < pg_snapshot_xmin(pg_current_snapshot())
                    ORDER BY log.xid, log.id LIMIT \(batch)
                    """)
                lastRead.withLock { $0 = .now }
                if rows.isEmpty {
                    try await checkTrim(&position)
                    break
                }
                if let trim = try rows.first?.at(5, as: String?.self), let trimmed = Self.cursor(trim),
                   (trimmed.xid, trimmed.id) > (position.xid, position.id) {
                    missed(&position, trimmed)
                    continue
                }
                let entries = try rows.map { row in EventLogEntry(kind: try row.at(2), ids: try row.at(3), token: try row.at(4)) }
                let messages = Dictionary(try rows.compactMap { try Message(row: $0, at: 6) }.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                for (row, entry) in zip(rows, entries) {
                    let xid = UInt64(try row.at(0, as: String.self)) ?? position.xid
                    let id = try row.at(1, as: Int64.self)
                    if let entry, let event = try await self.event(entry, messages: messages) {
                        changes?.note(event)
                        local.publish(PublishedEvent(event))
                    }
                    position = Cursor(xid: xid, id: id)
                    cursor.withLock { $0 = position }
                }
                if rows.count < batch { break }
            }
            cursor.withLock { $0 = position }
            reads.add(1, ordering: .releasing)
            if readFailing.exchange(false, ordering: .relaxed) { logger.notice("the event log is read again") }
        } catch {
            if !readFailing.exchange(true, ordering: .relaxed) {
                logger.error("the event log could not be read; retrying at every poll", metadata: ["error": "\(PostgresStoreError.wrapping(error))"])
            }
        }
    }

    /// Whether the log was trimmed past the cursor while nothing was left to read.
    private func checkTrim(_ position: inout Cursor) async throws {
        guard let row = try await database.rows("SELECT xid::text || ':' || id FROM eventLogTrim").first,
              let trimmed = Self.cursor(try row.at(0, as: String.self)), (trimmed.xid, trimmed.id) > (position.xid, position.id)
        else { return }
        missed(&position, trimmed)
    }

    /// Entries this instance never read were trimmed: its pages reload, and reading goes on after them.
    private func missed(_ position: inout Cursor, _ trimmed: Cursor) {
        position = trimmed
        cursor.withLock { $0 = trimmed }
        logger.error("this instance fell behind the event log's retention; its pages reload")
        missedHandler.withLock { $0 }?()
    }

    private static func cursor(_ text: String) -> Cursor? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let xid = UInt64(parts[0]), let id = Int64(parts[1]) else { return nil }
        return Cursor(xid: xid, id: id)
    }

    /// Removes entries older than the retention and records how far it went, in one transaction. Every
    /// instance runs it; they agree, so which one does the work does not matter.
    func trim() async {
        let seconds = Double(retention.components.seconds)
        do {
            try await database.write { [logger] connection in
                try await connection.run("""
                    WITH gone AS (
                        DELETE FROM eventLog WHERE loggedAt < now() - make_interval(secs => \(seconds))
                            AND xid < pg_snapshot_xmin(pg_current_snapshot())
                        RETURNING xid, id),
                    last AS (SELECT xid, id FROM gone ORDER BY xid DESC, id DESC LIMIT 1)
                    UPDATE eventLogTrim SET xid = last.xid, id = last.id FROM last WHERE (last.xid, last.id) > (eventLogTrim.xid, eventLogTrim.id)
                    """, logger: logger)
            }
        } catch {
            logger.error("the event log could not be trimmed", metadata: ["error": "\(error)"])
        }
    }

    /// The event an entry stands for, with today's values (`messages` read with the entries, the rest from the store);
    /// nil when what it names is gone.
    private func event(_ entry: EventLogEntry, messages: [MessageID: Message]) async throws -> DomainEvent? {
        switch entry {
        case .userSignedUp(let id): return try await store.user(id).map { .user(.signedUp($0)) }
        case .profileUpdated(let id): return try await store.user(id).map { .user(.profileUpdated($0)) }
        case .accountChanged(let id, let isActive, let rooms):
            return try await store.user(id).map { .user(.accountChanged(AccountState(user: $0, isActive: isActive, rooms: rooms))) }
        case .chatCreated(let id): return try await store.chat(id).map { .chat(.created($0)) }
        case .involvementChanged(let chat, let member): return try await store.membership(chat, member).map { .chat(.involvementChanged($0)) }
        case .roomRenamed(let id): return try await store.chat(id).map { .chat(.roomRenamed(RoomChange(chat: $0, notices: []))) }
        case .membersChanged(let id, _, let added, let removed):
            // The lines that say so are entries of their own, which follow.
            return try await store.chat(id).map { .chat(.membersChanged(RoomChange(chat: $0, added: added, removed: removed, notices: []))) }
        case .messageSent(let id, let token): return messages[id].map { .message(.sent($0, token: token)) }
        case .messageEdited(let id): return messages[id].map { .message(.edited($0)) }
        case .messageDeleted(let id): return messages[id].map { .message(.deleted($0)) }
        case .photoProcessed(let id): return messages[id].map { .message(.photoProcessed($0)) }
        case .previewed(let id): return messages[id].map { .message(.previewed($0)) }
        case .messageReacted(let id, let chat):
            return .message(.reacted(MessageReactions(messageID: id, chatID: chat, counts: try await store.reactions(to: [id])[id] ?? [])))
        case .userRead(let chat, let reader, let previous, let upTo): return .message(.userRead(chat: chat, reader: reader, previous: previous, upTo: upTo))
        case .typing(let report): return .presence(.typing(report))
        case .presence(let report): return .presence(.presenceChanged(report))
        case .presenceRefresh(let reports): return .presence(.presenceRefreshed(reports))
        case .account(let entry): return AccountLogEntry.event(kind: entry.kind, ids: entry.ids).map { .account($0) }
        case .feedSubscribed(let id): return try await store.feedSubscription(id).map { .feed(.subscribed($0)) }
        case .feedRetried(let id): return try await store.feedSubscription(id).map { .feed(.retried($0)) }
        case .feedChecked(let id): return try await store.feedSubscription(id).map { .feed(.checked($0)) }
        case .feedUnsubscribed(let id, let chat, let subscriber):
            // Gone from the store: its chat is what the chat's feed pages need to read their list again.
            return .feed(.unsubscribed(FeedSubscription(
                id: id, chatID: chat, subscriberID: subscriber, url: "", title: nil, createdAt: Date(timeIntervalSince1970: 0), status: .loading,
                nextCheck: Date(timeIntervalSince1970: 0)
            )))
        }
    }
}
