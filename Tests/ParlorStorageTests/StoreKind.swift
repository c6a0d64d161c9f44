import InMemoryStores
import Foundation
import ParlorDomain
import HTTPTestSupport
import Logging
import ParlorPostgres
import ParlorStorage
import Testing

/// The stores the behaviour suite runs against: one suite, every backend.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A fresh, empty store; the SQLite one in a file of its own, removed by `TemporaryFolder`'s deinit.
    /// The PostgreSQL one in a database of its own on the tests' server.
    func make(in folder: TemporaryFolder) async throws -> any ChatStore {
        switch self {
        case .inMemory: InMemoryChatStore()
        case .sqlite: try SQLiteChatStore(path: folder.path("parlor.sqlite"))
        case .postgres:
            try await PostgresChatStore(database: PostgresDatabase.runningOnItsOwn(url: TestPostgres.shared().newDatabase(), maximumConnections: 4, logger: Logger(label: "test")))
        }
    }
}

/// A folder under the system's temporary folder, deleted with everything in it when released.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

extension Date {
    /// A fixed instant plus `seconds`, so stored dates compare exactly.
    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_795_000_000 + seconds) }
}
