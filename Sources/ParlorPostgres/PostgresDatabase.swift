import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// One PostgreSQL database, through a pool of connections (postgres-nio's `PostgresClient`): transactions
/// that notify the event log's readers once they commit, and reads. Nothing is read or written until the pool
/// runs: `parlor serve` runs ``run()`` as a service of its group (the first started, the last stopped); a tool
/// or a test that holds a database for a while uses ``runningOnItsOwn(url:maximumConnections:logger:)``.
public final class PostgresDatabase: Sendable {
    /// The channel every write's commit is announced on: a hint to read the event log, nothing more.
    static let channel = "parlor_events"

    let client: PostgresClient
    /// For connections of their own outside the pool (the event log's listener).
    let connectionConfiguration: PostgresConnection.Configuration
    let logger: Logger
    /// The pool's task when it runs on its own (``runningOnItsOwn(url:maximumConnections:logger:)``).
    private let runner = Mutex<Task<Void, Never>?>(nil)

    /// `url`: `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`. TLS is
    /// preferred unless the host is a loopback address or `sslmode` says otherwise.
    public init(url: String, maximumConnections: Int = 20, logger: Logger) throws {
        let (configuration, connection) = try Self.configurations(url: url, maximumConnections: maximumConnections)
        connectionConfiguration = connection
        self.logger = logger
        // The pool's own lines (each failed attempt to reconnect, a query queued before its first connection)
        // only from errors up: Parlor says what matters.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        client = PostgresClient(configuration: configuration, backgroundLogger: background)
    }

    /// Runs the pool's connections until cancelled or, in a service group, until it shuts down gracefully.
    /// Once, for the database's whole life.
    public func run() async {
        await client.run()
    }

    /// A database whose pool runs in a task of its own until ``close()`` or until it is released: for a
    /// command that uses it briefly and for tests, never for the server (its group runs ``run()``).
    public static func runningOnItsOwn(url: String, maximumConnections: Int = 20, logger: Logger) throws -> PostgresDatabase {
        let database = try PostgresDatabase(url: url, maximumConnections: maximumConnections, logger: logger)
        database.runner.withLock { $0 = Task { [client = database.client] in await client.run() } }
        return database
    }

    /// Closes the pool's connections when it runs on its own; nothing can be read or written afterwards.
    public func close() {
        runner.withLock { $0?.cancel() }
    }

    deinit { runner.withLock { $0?.cancel() } }

    static func configurations(
        url: String, maximumConnections: Int
    ) throws -> (PostgresClient.Configuration, PostgresConnection.Configuration) {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? ""),
              let host = parts.host, !host.isEmpty, let user = parts.user, !user.isEmpty
        else { throw PostgresAddressError("expected postgres://user[:password]@host[:port]/database") }
        let database = String(parts.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw PostgresAddressError("the address names no database") }
        if let port = parts.port, !(1...65_535).contains(port) { throw PostgresAddressError("the port must be 1 to 65535") }
        let mode = parts.queryItems?.first { $0.name == "sslmode" }?.value
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1"
        let tls: PostgresClient.Configuration.TLS
        let connectionTLS: PostgresConnection.Configuration.TLS
        switch mode ?? (loopback ? "disable" : "prefer") {
        case "disable": (tls, connectionTLS) = (.disable, .disable)
        case "prefer": (tls, connectionTLS) = try (.prefer(.makeClientConfiguration()), .prefer(.init(configuration: .makeClientConfiguration())))
        case "require", "verify-full":
            (tls, connectionTLS) = try (.require(.makeClientConfiguration()), .require(.init(configuration: .makeClientConfiguration())))
        default: throw PostgresAddressError("sslmode must be disable, prefer or require")
        }
        let username = user.removingPercentEncoding ?? user, password = parts.password?.removingPercentEncoding
        var configuration = PostgresClient.Configuration(
            host: host, port: parts.port ?? 5432, username: username, password: password, database: database, tls: tls
        )
        configuration.options.maximumConnections = max(2, maximumConnections)
        configuration.options.connectTimeout = .seconds(5)
        var connection = PostgresConnection.Configuration(
            host: host, port: parts.port ?? 5432, username: username, password: password, database: database, tls: connectionTLS
        )
        connection.options.connectTimeout = .seconds(5)
        return (configuration, connection)
    }

    /// A transaction: committed when `body` returns, rolled back when it throws (its error is rethrown as
    /// is, so a ``Refusal`` stays one). Once committed, the event log's readers are told to look.
    func write<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await writing { [logger] connection in try await Self.transaction(connection, logger: logger, body) }
    }

    /// One statement that writes, as a transaction of its own: no BEGIN and COMMIT round trips. Told and run
    /// again as ``write(_:)``.
    func writeStatement<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        try await writing(body)
    }

    private func writing<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        var attempt = 1
        while true {
            do {
                let result = try await within { [client] in try await client.withConnection { connection in try await body(connection) } }
                await notify()
                return result
            } catch where attempt < 4 && error.mayRetry {
                // A deadlock or a serialization failure rolled everything back: the transaction runs again,
                // after a pause that grows, so the other one finishes first.
                try await Task.sleep(for: .milliseconds(Int64(attempt * attempt) * 5))
                attempt += 1
            } catch {
                throw PostgresStoreError.wrapping(error)
            }
        }
    }

    /// One statement's read on a pooled connection, without BEGIN and COMMIT around it (a statement sees one
    /// snapshot by itself): one round trip instead of three.
    func single<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await within { [client] in try await client.withConnection { connection in try await body(connection) } }
        } catch {
            throw PostgresStoreError.wrapping(error)
        }
    }

    /// Reads in one transaction, so that they see one snapshot.
    func read<Result: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await within { [client, logger] in
                try await client.withConnection { connection in try await Self.transaction(connection, logger: logger, readOnly: true, body) }
            }
        } catch {
            throw PostgresStoreError.wrapping(error)
        }
    }

    /// One statement, outside any explicit transaction.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        do {
            return try await within { [client, logger] in try await client.query(query, logger: logger).collect().map { $0.makeRandomAccess() } }
        } catch {
            throw PostgresStoreError.wrapping(error)
        }
    }

    /// How long one operation may take, waiting for a connection included: a database that stopped answering
    /// fails requests ("try again") and readiness, it never holds them for ever.
    static let deadline = Duration.seconds(15)

    /// `work`, or ``PostgresStoreError/timedOut`` once ``deadline`` passed (`work` is then cancelled).
    private func within<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: Self.deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw PostgresStoreError.timedOut }
            return value
        }
    }

    /// Tells the event log's readers on every instance that something committed. After the commit, never
    /// inside the transaction: a NOTIFY inside one takes a lock every committing writer in the cluster waits for.
    /// A lost hint costs a reader no more than its next poll.
    func notify() async {
        do {
            _ = try await client.query("SELECT pg_notify(\(Self.channel), '')", logger: logger).collect()
        } catch {
            logger.debug("event log hint not sent", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    static func transaction<Result: Sendable>(
        _ connection: PostgresConnection, logger: Logger, readOnly: Bool = false, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        // Each answer read to its end: a statement is done when its CommandComplete arrived, and a send is
        // acknowledged only once COMMIT is.
        try await connection.run(readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN", logger: logger)
        let result: Result
        do {
            result = try await body(connection)
        } catch {
            try? await connection.run("ROLLBACK", logger: logger)
            throw error
        }
        try await connection.run("COMMIT", logger: logger)
        return result
    }
}

extension Error {
    /// Whether PostgreSQL rolled the transaction back to break a deadlock or a serialization conflict:
    /// running it again is the remedy.
    var mayRetry: Bool { ["40P01", "40001"].contains((self as? PSQLError)?.sqlState ?? "") }
}

/// A `--database` address Parlor cannot use; the message says why.
public struct PostgresAddressError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension PostgresConnection {
    /// Every row of one statement.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try await self.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// The first row of one statement, if any.
    func row(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRandomAccessRow? {
        try await rows(query, logger: logger).first
    }

    /// Runs a statement that returns nothing.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        _ = try await self.query(query, logger: logger).collect()
    }
}

extension PostgresRandomAccessRow {
    /// The value of column `index`.
    func at<Value: PostgresDecodable>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
        try self[index].decode(Value.self)
    }
}

/// A failure of the database, told without the statement's values (a message's text, a password hash):
/// the server's SQLSTATE and message, or what happened to the connection.
public struct PostgresStoreError: Error, CustomStringConvertible {
    public let sqlState: String?
    public let description: String

    /// An operation that did not finish within ``PostgresDatabase/deadline``.
    static let timedOut = PostgresStoreError(sqlState: nil, description: "PostgreSQL did not answer within 15 s")

    private init(sqlState: String?, description: String) {
        self.sqlState = sqlState
        self.description = description
    }

    init(_ error: PSQLError) {
        sqlState = error.sqlState
        if let message = error.serverInfo?[.message] {
            description = "PostgreSQL \(error.sqlState ?? "?"): \(message)"
        } else {
            description = "PostgreSQL connection: \(error.code)"
        }
    }

    /// `error` told safely when it is the database's, as it is otherwise.
    static func wrapping(_ error: any Error) -> any Error {
        (error as? PSQLError).map(PostgresStoreError.init) ?? error
    }
}

extension PSQLError {
    /// The server's SQLSTATE ("23505" for a unique violation), when the server answered with an error.
    var sqlState: String? { serverInfo?[.sqlState] }
}

extension Error {
    /// Whether this is the server refusing a duplicate key.
    var isUniqueViolation: Bool { (self as? PSQLError)?.sqlState == "23505" || (self as? PostgresStoreError)?.sqlState == "23505" }
}
