import ServerSentEvents
import CMicroHTTPD
import Synchronization

/// A Server-Sent Events response that stays open. Create one in a handler, keep it where
/// publishers can reach it, and return ``Response/eventStream(_:)``.
///
/// `send` may be called from any thread and never waits for the client: bytes are queued
/// and the connection, suspended while idle, is resumed. A client that lets more than the
/// queue limit pile up is cut off; it reconnects and resumes from its `Last-Event-ID`.
public final class EventStream: Sendable {
    struct Inner {
        var machine: EventStreamState
        var connection: ConnectionHandle?
        var closeHandlers: [@Sendable () -> Void] = []
        var limitChosen: Bool
        /// The server's batcher of resumes; nil: resumed at once.
        var resumer: ConnectionResumer?
    }

    private let inner: Mutex<Inner>
    /// The `Last-Event-ID` the client sent when it (re)connected.
    public let lastEventID: String?

    /// Creates a stream. `queueLimit` overrides the server's ``ServerConfiguration/eventStreamQueueLimit``.
    public init(lastEventID: String? = nil, queueLimit: Int? = nil) {
        self.lastEventID = lastEventID
        let provisional = queueLimit ?? ServerConfiguration().eventStreamQueueLimit
        inner = Mutex(Inner(machine: EventStreamState(queueLimit: provisional), limitChosen: queueLimit != nil))
    }

    /// Queues an event. Returns false when the stream has ended or just overflowed.
    @discardableResult
    public func send(_ event: EncodedEvent) -> Bool {
        inner.withLock { inner in
            apply(inner.machine.enqueue(event), &inner)
            return inner.machine.phase == .open
        }
    }

    /// Queues several events at once: the connection is woken once, and they go out in as few writes as fit.
    @discardableResult
    public func send(_ events: [EncodedEvent]) -> Bool {
        inner.withLock { inner in
            var wake = EventStreamState.Wake.none
            for event in events where inner.machine.enqueue(event) == .resume { wake = .resume }
            apply(wake, &inner)
            return inner.machine.phase == .open
        }
    }

    /// Encodes and queues an event.
    @discardableResult
    public func send(_ event: ServerSentEvent) -> Bool { send(event.encoded) }

    /// Queues one event on many streams; returns how many still accept events.
    ///
    /// Unless it is shared already, the event is shared in the ring of the first stream attached to a
    /// server (``EventRing/share(_:)``): that server holds its bytes once, and its idle streams queue
    /// only a ticket to them.
    ///
    /// Each connection is resumed as soon as its event is queued, so the polling threads
    /// start writing while the rest are still being queued. (Queuing everywhere first and
    /// resuming in one loop afterwards was measured: it lost that overlap and the last
    /// stream got the event later.)
    @inlinable
    @discardableResult
    public static func broadcast<Streams: Sequence<EventStream>>(_ event: EncodedEvent, to streams: Streams) -> Int {
        // Inlinable so that the caller's sequence is iterated specialised, without a witness
        // call and a retain per stream.
        var event = event
        var open = 0
        for stream in streams {
            if !event.isShared, let ring = stream.ring { event = ring.share(event) }
            if stream.send(event) { open += 1 }
        }
        return open
    }

    /// Ends the stream once what is queued has been sent.
    public func close() {
        inner.withLock { apply($0.machine.close(), &$0) }
    }

    /// The ring of the server the stream is attached to; nil before its response is queued.
    public var ring: EventRing? { inner.withLock { $0.machine.ring } }

    /// Whether events sent now can still reach the client.
    public var isOpen: Bool { inner.withLock { $0.machine.phase == .open } }

    /// Runs `handler` once the connection is gone (at once if it already is). Handlers run on
    /// a server thread: keep them short (unregister a listener, nothing more).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = inner.withLock { inner -> Bool in
            if inner.machine.phase == .finished { return true }
            inner.closeHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    // MARK: - Server side

    /// Binds the stream to its connection as the response is queued.
    func attach(_ connection: ConnectionHandle, queueLimit: Int, preamble: [UInt8], ring: EventRing, resumer: ConnectionResumer? = nil) {
        inner.withLock { inner in
            inner.connection = connection
            inner.resumer = resumer
            inner.machine.ring = ring
            if !inner.limitChosen { inner.machine.queueLimit = queueLimit }
            inner.machine.start(preamble: preamble)
        }
    }

    /// A heartbeat tick from the server.
    func heartbeat() {
        inner.withLock { apply($0.machine.heartbeat(), &$0) }
    }

    /// libmicrohttpd's content reader, on the connection's thread.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        inner.withLock { inner in
            switch inner.machine.fill(buffer) {
            case .wrote(let count):
                return count
            case .suspend:
                // Under the lock, so a concurrent send cannot resume before this suspends.
                if let connection = inner.connection { MHD_suspend_connection(connection.raw) }
                return 0
            case .endOfStream:
                return Int(parlor_mhd_reader_end_of_stream)
            case .endWithError:
                return Int(parlor_mhd_reader_end_with_error)
            }
        }
    }

    /// The connection is gone (libmicrohttpd released the response).
    func finished() {
        let handlers = inner.withLock { inner -> [@Sendable () -> Void] in
            inner.machine.finish()
            inner.connection = nil
            defer { inner.closeHandlers = [] }
            return inner.closeHandlers
        }
        for handler in handlers { handler() }
    }

    private func apply(_ wake: EventStreamState.Wake, _ inner: inout Inner) {
        guard wake == .resume, let connection = inner.connection else { return }
        // Suspended until then: libmicrohttpd neither reads from it nor closes it meanwhile.
        if let resumer = inner.resumer, resumer.request(connection) { return }
        MHD_resume_connection(connection.raw)
    }
}
