/// The life of one event stream as a value: what is queued, whether the connection is
/// suspended, and what to do next. ``EventStream`` holds it under a mutex and carries out
/// the actions it returns; tests drive it without a socket.
struct EventStreamState {
    enum Phase: Equatable {
        /// Sending as events come.
        case open
        /// Asked to end: flush what is queued, then end the body.
        case closing
        /// The client fell too far behind: end with an error so the connection drops.
        case overflowed
        /// The connection is gone.
        case finished
    }

    /// What the caller must do after a change from outside the connection's thread.
    enum Wake: Equatable {
        case none
        /// Resume the suspended connection so the reader runs.
        case resume
    }

    /// What the content reader returns to libmicrohttpd.
    enum Fill: Equatable {
        /// Bytes were written into the buffer.
        case wrote(Int)
        /// Nothing to send: suspend the connection (and return 0).
        case suspend
        /// End the body cleanly.
        case endOfStream
        /// End with an error (the connection is closed).
        case endWithError
    }

    private(set) var phase: Phase = .open
    private(set) var isSuspended = false
    private(set) var queuedBytes = 0
    private var queue: [[UInt8]] = []
    private var head = 0
    private var sentOfHead = 0
    private var heartbeatDue = false
    var queueLimit: Int

    init(queueLimit: Int) { self.queueLimit = queueLimit }

    /// Puts the stream's opening bytes (`retry:`, a comment) before anything queued so far.
    mutating func start(preamble: [UInt8]) {
        guard phase == .open, head == 0, sentOfHead == 0 else { return }
        queue.insert(preamble, at: 0)
        queuedBytes += preamble.count
    }

    /// Queues bytes; past the limit the stream is marked overflowed and the queue dropped.
    mutating func enqueue(_ bytes: [UInt8]) -> Wake {
        guard phase == .open else { return .none }
        if queuedBytes + bytes.count > queueLimit {
            phase = .overflowed
            queue = []
            head = 0
            sentOfHead = 0
            queuedBytes = 0
            return wake()
        }
        queue.append(bytes)
        queuedBytes += bytes.count
        return wake()
    }

    /// A heartbeat tick: send a comment next time if nothing else is queued.
    mutating func heartbeat() -> Wake {
        guard phase == .open else { return .none }
        heartbeatDue = true
        return wake()
    }

    /// Ends the stream after what is queued.
    mutating func close() -> Wake {
        guard phase == .open else { return .none }
        phase = .closing
        return wake()
    }

    /// The connection is gone; nothing more will be sent.
    mutating func finish() {
        phase = .finished
        queue = []
        queuedBytes = 0
        isSuspended = false
    }

    /// The content reader: copy as much as fits into `buffer`.
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Fill {
        switch phase {
        case .finished, .overflowed: return .endWithError
        case .open, .closing: break
        }
        var written = 0
        while head < queue.count, written < buffer.count {
            let chunk = queue[head]
            let take = min(chunk.count - sentOfHead, buffer.count - written)
            chunk.withUnsafeBytes { source in
                buffer.baseAddress!.advanced(by: written)
                    .copyMemory(from: source.baseAddress!.advanced(by: sentOfHead), byteCount: take)
            }
            written += take
            sentOfHead += take
            if sentOfHead == chunk.count {
                queuedBytes -= chunk.count
                head += 1
                sentOfHead = 0
            }
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: queue.count <= 64)
            head = 0
        }
        if written > 0 {
            heartbeatDue = false
            return .wrote(written)
        }
        if phase == .closing { return .endOfStream }
        if heartbeatDue {
            let ping: StaticString = ": ping\n\n"
            if buffer.count >= ping.utf8CodeUnitCount {
                buffer.baseAddress!.copyMemory(from: ping.utf8Start, byteCount: ping.utf8CodeUnitCount)
                heartbeatDue = false
                return .wrote(ping.utf8CodeUnitCount)
            }
        }
        isSuspended = true
        return .suspend
    }

    private mutating func wake() -> Wake {
        guard isSuspended else { return .none }
        isSuspended = false
        return .resume
    }
}
