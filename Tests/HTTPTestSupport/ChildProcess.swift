// Starts a child process (`parlor`, the store writer) with posix_spawn. Foundation's Process.run enumerates the parent's open
// descriptors to close them in the child, which races with the thousands of sockets other
// tests open and close in parallel (it crashed CI with a bad memcpy). Here the child closes
// everything above stderr itself, and the parent enumerates nothing.
#if canImport(Glibc)
import Glibc
#endif

public final class ChildProcess {
    public let pid: pid_t
    /// Read end of the child's stderr, non-blocking.
    public let errors: Int32
    public private(set) var exitStatus: Int32?

    /// `output`: a file the child's standard output is written to (none: /dev/null).
    public init(executable: String, arguments: [String], output: String? = nil) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw ClientError(description: "pipe: \(errno)") }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", output == nil ? O_WRONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        Self.closeEverythingAboveStderr(&actions)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(pipeEnds[1])
        guard result == 0 else {
            close(pipeEnds[0])
            throw ClientError(description: "posix_spawn \(executable): \(result)")
        }
        pid = child
        errors = pipeEnds[0]
        _ = fcntl(errors, F_SETFL, fcntl(errors, F_GETFL) | O_NONBLOCK)
    }

    /// glibc 2.34+ has posix_spawn_file_actions_addclosefrom_np; Swift's Glibc module does not
    /// import it, so it is looked up by name.
    private static func closeEverythingAboveStderr(_ actions: inout posix_spawn_file_actions_t) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, 3)
    }

    /// Whatever the child has written to stderr since the last call.
    public func readErrors() -> String {
        var text = ""
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let count = read(errors, &chunk, chunk.count), count > 0 {
            text += String(decoding: chunk[0..<count], as: UTF8.self)
        }
        return text
    }

    public func send(_ signal: Int32) { kill(pid, signal) }

    /// Blocks until the child exits; returns its exit status. For short commands only.
    public func waitUntilExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let result = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        exitStatus = result
        return result
    }

    /// Waits at most `seconds` for the child to exit; returns its exit status, or nil.
    public func waitForExit(within seconds: Double) async -> Int32? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while exitStatus == nil && ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                // WIFEXITED / WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
                exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            } else {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        return exitStatus
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        close(errors)
    }
}
