import Foundation
import Logging
import ParlorDomain
import ParlorEvents
import ParlorPostgres
import ParlorStorage

/// What `--database` names, opened: the store requests write through, the one the live pages read through
/// (the same data on connections of their own, so a crowd of requests never queues the fan-out), and how
/// events travel between them.
struct Stores {
    typealias Store = any ChatStore & AccountStore & ImageStore & FeedStore

    let store: Store
    let liveStore: any ChatStore & FeedStore
    let bus: any EventBus
    let changes: ChangeCounters
    /// Set for a shared PostgreSQL database: the bus that reads its event log, run as a service.
    let eventLog: PostgresEventBus?
    /// Set for a shared PostgreSQL database: sign-in failures counted by every instance.
    let signInFailures: (any SignInFailureStore)?

    static func isPostgres(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// Opens the SQLite file, or connects to PostgreSQL (`connections` per pool) and brings either's schema up to date.
    static func open(_ database: String, connections: Int, retention: Duration, logger: Logger) async throws -> Stores {
        let changes = ChangeCounters()
        guard isPostgres(database) else {
            return Stores(
                store: try SQLiteChatStore(path: database), liveStore: try SQLiteChatStore(path: database), bus: InProcessEventBus(), changes: changes,
                eventLog: nil, signInFailures: nil
            )
        }
        let store = try await PostgresChatStore(database: PostgresDatabase(url: database, maximumConnections: connections, logger: logger))
        let liveStore = try await PostgresChatStore(
            database: PostgresDatabase(url: database, maximumConnections: max(2, connections / 4), logger: logger)
        )
        let bus = PostgresEventBus(store: liveStore, changes: changes, retention: retention, logger: logger)
        return Stores(store: store, liveStore: liveStore, bus: bus, changes: changes, eventLog: bus, signInFailures: store)
    }
}
