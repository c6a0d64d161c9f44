import CMicroHTTPD
import Foundation
import Synchronization

/// Resumes suspended connections in batches: idle event streams that have something to send, and requests
/// whose `async` handler has answered.
///
/// libmicrohttpd looks through every suspended connection of a polling thread each time any of them is
/// resumed. With 10,000 open pages (each one a suspended connection), resuming one at a time for each
/// answer and each message took a fifth of the machine in that walk alone. So a resume goes at once when
/// none went out within `window`, and otherwise waits for its end together with every other one asked for
/// by then: at most one walk per window however busy, and nothing added while the server is quiet. The
/// window grows with the open streams (a walk's cost), `perStream` each, up to `window`: at 10,000 the walks
/// then take about a twentieth of the machine, and a server with a few hundred adds a millisecond at most.
final class ConnectionResumer: Sendable {
    let window: Duration
    let perStream: Duration
    /// The open event streams, read at each batch.
    private let streams: @Sendable () -> Int
    private let pending = Mutex<Pending>(Pending())
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the thread has resumed its last batch and ended.
    private let ended = DispatchSemaphore(value: 0)

    private struct Pending {
        var connections: [ConnectionHandle] = []
        var signalled = false
        var stopped = false
        var started = false
    }

    init(window: Duration, perStream: Duration = .microseconds(2), streams: @escaping @Sendable () -> Int) {
        self.window = window
        self.perStream = perStream
        self.streams = streams
    }

    /// Starts the thread that resumes; it sleeps while nothing is waiting.
    func start() {
        pending.withLock { $0.started = true }
        let thread = Thread { [self] in run() }
        thread.name = "event-stream-resumer"
        thread.start()
    }

    /// Asks for `connection`, suspended, to be resumed. Called under an event stream's lock: takes only this
    /// one. False once stopped (the caller resumes it itself). Suspended meanwhile, the connection is neither
    /// read nor closed by libmicrohttpd; the daemon stops only after this does.
    func request(_ connection: ConnectionHandle) -> Bool {
        let (accepted, signal) = pending.withLock { pending -> (Bool, Bool) in
            guard !pending.stopped else { return (false, false) }
            pending.connections.append(connection)
            defer { pending.signalled = true }
            return (true, !pending.signalled)
        }
        if signal { wake.signal() }
        return accepted
    }

    /// Resumes what waits and stops the thread, returning once it has: the daemon must not stop while a
    /// connection waits here suspended. Later requests are refused (their callers resume them).
    func stop() {
        let started = pending.withLock { pending in
            pending.stopped = true
            return pending.started
        }
        guard started else { return }
        wake.signal()
        ended.wait()
    }

    private func run() {
        let clock = ContinuousClock()
        var last = clock.now - window
        while true {
            wake.wait()
            let due = last + min(window, perStream * streams())
            if clock.now < due, !pending.withLock({ $0.stopped }) { Thread.sleep(forTimeInterval: (due - clock.now).seconds) }
            let (batch, stopped) = pending.withLock { pending in
                defer {
                    pending.connections.removeAll(keepingCapacity: true)
                    pending.signalled = false
                }
                return (pending.connections, pending.stopped)
            }
            last = clock.now
            for connection in batch { MHD_resume_connection(connection.raw) }
            if stopped {
                ended.signal()
                return
            }
        }
    }
}
