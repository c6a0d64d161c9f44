import GRDB
import Synchronization

/// A few read-only connections, each used by one reader at a time, taken without waiting: none free, the
/// caller reads another way. They let a request read its screen on its own thread, and the live pages read
/// beside the requests' pool.
final class ScreenReaders: Sendable {
    private let connections: [DatabaseQueue]
    private let free: Mutex<[Int]>

    init(path: String, configuration: Configuration, count: Int) throws {
        connections = try (0..<count).map { _ in try DatabaseQueue(path: path, configuration: configuration) }
        free = Mutex(Array(connections.indices))
    }

    /// A free connection, or nil at once when all are in use.
    func take() -> Reader? {
        free.withLock { $0.popLast() }.map { Reader(index: $0, connection: connections[$0]) }
    }

    func give(_ reader: Reader) {
        free.withLock { $0.append(reader.index) }
    }

    struct Reader {
        let index: Int
        let connection: DatabaseQueue

        /// A read transaction on the calling thread; one statement alone needs none (SQLite reads it from one
        /// snapshot), so `statements: .one` saves its BEGIN and COMMIT.
        func read<Value>(_ statements: Statements = .several, _ body: (Database) throws -> Value) throws -> Value {
            switch statements {
            case .one: try connection.unsafeRead(body)
            case .several: try connection.read(body)
            }
        }

        enum Statements {
            case one, several
        }
    }
}
