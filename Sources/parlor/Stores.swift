import Foundation
import Logging
import ParlorDomain
import ParlorEvents
import ParlorPostgres
import ParlorStorage

/// What `--database` names, opened: the store requests write through, the one the live pages read through
/// (connections of their own, so a crowd of requests never queues the fan-out: on PostgreSQL a pool of their own; on
/// SQLite read-only connections beside the one pool of the file, which GRDB asks to be opened once per process), and
/// how events travel between them.
struct Stores {
    typealias Store = any ChatStore & AccountStore & ImageStore & FeedStore & SearchStore & PushStore & AdministrationStore

    let store: Store
    let liveStore: any ChatReads & FeedReads
    /// Set for SQLite: the signed-in pages read on the calling thread when a connection is free.
    let immediate: (any ImmediateReads)?
    let bus: any EventBus
    let changes: ChangeCounters
    /// Set for a shared PostgreSQL database: the bus that reads its event log, run as a service.
    let eventLog: PostgresEventBus?
    /// Set for SQLite: where a running server hears what another process (`parlor admin`) changed of accounts.
    let accountLog: SQLiteChatStore?
    /// Set for a shared PostgreSQL database: sign-in failures counted by every instance.
    let signInFailures: (any SignInFailureStore)?

    static func isPostgres(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// The pools of a PostgreSQL `database` (none for SQLite): one for requests (`connections`), a smaller one
    /// for the live pages. Their connections open once each runs as a service (``PostgresPoolService``).
    static func pools(_ database: String, connections: Int, logger: Logger) throws -> [PostgresDatabase] {
        guard isPostgres(database) else { return [] }
        return [
            try PostgresDatabase(url: database, maximumConnections: connections, logger: logger),
            try PostgresDatabase(url: database, maximumConnections: max(2, connections / 4), logger: logger),
        ]
    }

    /// Opens the SQLite file, or PostgreSQL through the running `pools`, and brings either's schema up to date.
    static func open(_ database: String, pools: [PostgresDatabase], retention: Duration, logger: Logger) async throws -> Stores {
        let changes = ChangeCounters()
        // Messages the search indexes do not hold yet are indexed at start: every message, at the first start after
        // the upgrade that brought search; a few, after a stop.
        let indexing: @Sendable (Int, Int) -> Void = { done, total in
            logger.notice("indexing messages for search", metadata: ["done": "\(done)", "of": "\(total)"])
        }
        guard pools.count == 2 else {
            let store = try SQLiteChatStore(path: database, searchProgress: indexing)
            return Stores(
                store: store, liveStore: try store.forLivePages(), immediate: store, bus: InProcessEventBus(), changes: changes,
                eventLog: nil, accountLog: store, signInFailures: nil
            )
        }
        let store = try await PostgresChatStore(database: pools[0], searchProgress: indexing)
        let liveStore = try await PostgresChatStore(database: pools[1])
        let bus = PostgresEventBus(store: liveStore, changes: changes, retention: retention, logger: logger)
        return Stores(store: store, liveStore: liveStore, immediate: nil, bus: bus, changes: changes, eventLog: bus, accountLog: nil, signInFailures: store)
    }
}
