// A real PostgreSQL server for the tests: Debian's binaries, a cluster made in a temporary folder, listening on
// 127.0.0.1 at a free port, run as the `postgres` user when the tests run as root (PostgreSQL refuses root).
// One server for the whole test process, started by the first test that asks; each test gets a database
// of its own. A test that stops and starts its server makes one of its own. Each is stopped by its PID, and
// its folder removed, when the test process exits. Everything that waits for a process (initdb, psql, the
// server's start) runs on a thread of its own, never on the few threads every async test shares.
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class TestPostgres: @unchecked Sendable {
    /// The server of this test process, started on first use.
    private static let instance: TestPostgres = {
        do {
            return try TestPostgres()
        } catch {
            fatalError("PostgreSQL could not start for the tests: \(error)")
        }
    }()

    /// The server of this test process, started on first use.
    public static func shared() async -> TestPostgres {
        (try? await offPool { instance })!
    }

    /// A server of its own, in a new folder, on a free port.
    public static func make() async throws -> TestPostgres {
        try await offPool { try TestPostgres() }
    }

    /// Runs `body`, which blocks, on a thread outside the cooperative pool.
    static func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Every server started, stopped at exit.
    private static let running = Running()

    private final class Running: @unchecked Sendable {
        let lock = NSLock()
        var servers: [TestPostgres] = []

        func add(_ server: TestPostgres) {
            lock.withLock {
                if servers.isEmpty { atexit { TestPostgres.running.stopAll() } }
                servers.append(server)
            }
        }

        func stopAll() {
            for server in lock.withLock({ servers }) { server.stopForExit() }
        }
    }

    public let port: Int
    public let folder: String
    private let lock = NSLock()
    private var server: ChildProcess?
    private var databases = 0
    private static let binaries = "/usr/lib/postgresql/15/bin"
    private static let asRoot = getuid() == 0

    private init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if Self.asRoot { try Self.run("/bin/chown", ["postgres:postgres", folder]) }
        try Self.run(Self.binaries + "/initdb", ["-D", folder + "/data", "-U", "parlor", "-A", "trust", "-E", "UTF8", "--no-sync"], asPostgres: true)
        port = try Self.freePort()
        Self.running.add(self)
        try startNow()
    }

    /// Starts the server (again, after ``stop(immediately:)``) on the same port and data; waits until it answers.
    public func start() async throws {
        try await Self.offPool { try self.startNow() }
    }

    private func startNow() throws {
        let arguments = [
            "-D", folder + "/data", "-p", "\(port)", "-k", folder, "-c", "listen_addresses=127.0.0.1",
            "-c", "fsync=off", "-c", "max_connections=300", "-c", "shared_buffers=32MB",
            // Its log to a file in the folder: nothing drains the pipe of its standard error, which would fill.
            "-c", "logging_collector=on", "-c", "log_directory=\(folder)/log",
        ]
        let process = Self.asRoot
            ? try ChildProcess(executable: "/usr/bin/setpriv", arguments: ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", Self.binaries + "/postgres"] + arguments)
            : try ChildProcess(executable: Self.binaries + "/postgres", arguments: arguments)
        lock.withLock { server = process }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? Self.run(Self.binaries + "/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "parlor", "-d", "postgres", "-q"])) != nil { return }
            usleep(50_000)
        }
        throw ClientError(description: "PostgreSQL did not answer within 30 s: \(process.readErrors())")
    }

    /// Stops the server: `immediately` is SIGQUIT (no checkpoint, as a crash), otherwise SIGINT (fast shutdown).
    public func stop(immediately: Bool = false) async {
        guard let process = lock.withLock({ server }) else { return }
        process.send(immediately ? SIGQUIT : SIGINT)
        if await process.waitForExit(within: 30) == nil { process.send(SIGKILL) }
        lock.withLock { server = nil }
    }

    /// A new, empty database; answers its address for `--database` and the stores.
    public func newDatabase() async throws -> String {
        let name = lock.withLock { () -> String in
            databases += 1
            return "parlor_test_\(getpid())_\(databases)"
        }
        try await sql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    public func url(database: String) -> String { "postgres://parlor@127.0.0.1:\(port)/\(database)" }

    /// Runs SQL through psql in `database`; answers what psql printed (unaligned, tuples only).
    @discardableResult
    public func sql(_ statement: String, database: String = "postgres") async throws -> String {
        let port = port
        return try await Self.offPool { try Self.run("/usr/bin/psql", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "parlor", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", statement]) }
    }

    private func stopForExit() {
        if let process = lock.withLock({ server }) {
            process.send(SIGQUIT)
            for _ in 0..<100 {
                var status: Int32 = 0
                if waitpid(process.pid, &status, WNOHANG) == process.pid { break }
                usleep(20_000)
            }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    @discardableResult
    private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool = false) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-pg-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = asPostgres && asRoot
            ? try ChildProcess(executable: "/usr/bin/setpriv", arguments: ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", executable] + arguments, output: output)
            : try ChildProcess(executable: executable, arguments: arguments, output: output)
        // Through the process value, which reaps the child and closes its pipe exactly once.
        let status = process.waitUntilExit()
        guard status == 0 else { throw ClientError(description: "\(executable) failed (\(status)): \(process.readErrors())") }
        return (try? String(contentsOfFile: output, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw ClientError(description: "socket: \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw ClientError(description: "bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
