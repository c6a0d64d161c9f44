import ServerSentEvents
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
    /// A shared event read from the ring, and how much of it is sent; always before `pending`.
    /// An idle stream that is sent a shared event keeps only this ticket.
    private var ringed: (ticket: EventRing.Ticket, sent: Int)?
    /// Bytes waiting, copied in when queued: sharing one buffer between thousands of streams
    /// would make every worker thread and the publisher contend on its reference count.
    private var pending: [UInt8] = []
    private var sent = 0
    /// Whether the preamble is in place (before it, everything is copied so it can go first).
    private var started = false
    /// The ring of the server the stream is attached to: events shared in it are read from it.
    var ring: EventRing?
    private var heartbeatDue = false
    /// A drained buffer up to this size is kept for the next event instead of freed.
    private static let keptCapacity = 4096

    var queuedBytes: Int { pending.count - sent + (ringed.map { $0.ticket.count - $0.sent } ?? 0) }
    /// Bytes held, read ones included (what compaction keeps bounded).
    var heldBytes: Int { pending.count }
    var queueLimit: Int

    init(queueLimit: Int, ring: EventRing? = nil) {
        self.queueLimit = queueLimit
        self.ring = ring
    }

    /// Puts the stream's opening bytes (`retry:`, a comment) before anything queued so far.
    mutating func start(preamble: [UInt8]) {
        guard phase == .open, sent == 0, !started else { return }
        started = true
        pending.insert(contentsOf: preamble, at: 0)
    }

    /// Queues an event: by its ticket when it is shared in this stream's ring and nothing else waits,
    /// else by its bytes.
    mutating func enqueue(_ event: EncodedEvent) -> Wake {
        if let sharing = event.sharing, sharing.ring === ring, sharing.ticket.count > 0, started, phase == .open,
           ringed == nil, queuedBytes == 0, sharing.ticket.count <= queueLimit {
            ringed = (sharing.ticket, 0)
            return wake()
        }
        return enqueue(event.bytes)
    }

    /// Queues bytes; past the limit the stream is marked overflowed and the queue dropped.
    mutating func enqueue(_ bytes: [UInt8]) -> Wake {
        guard phase == .open else { return .none }
        if queuedBytes + bytes.count > queueLimit {
            end(.overflowed)
            return wake()
        }
        pending.append(contentsOf: bytes)
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
        end(.finished)
        isSuspended = false
    }

    /// The content reader: copy as much as fits into `buffer`.
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Fill {
        switch phase {
        case .finished, .overflowed: return .endWithError
        case .open, .closing: break
        }
        if let (ticket, done) = ringed {
            // `ringed` is only set for a ticket of `ring`.
            guard let count = ring?.copy(ticket, from: done, into: buffer) else {
                // Lapped: the ring reused the slot before this reader came. End as on overflow.
                end(.overflowed)
                return .endWithError
            }
            ringed = done + count == ticket.count ? nil : (ticket, done + count)
            heartbeatDue = false
            // What was queued after the ticket goes out in the same write when it fits.
            guard ringed == nil, count < buffer.count, pending.count > sent else { return .wrote(count) }
            return .wrote(count + copyPending(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...])))
        }
        let written = copyPending(into: buffer)
        if written > 0 { return .wrote(written) }
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

    /// Copies as much of the queued bytes as fits into `buffer`; answers how many.
    private mutating func copyPending(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let written = min(pending.count - sent, buffer.count)
        guard written > 0 else { return 0 }
        pending.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress!.advanced(by: sent), byteCount: written)
        }
        sent += written
        if sent == pending.count {
            pending.removeAll(keepingCapacity: pending.capacity <= Self.keptCapacity)
            sent = 0
        } else if sent >= 64 * 1024, sent * 2 >= pending.count {
            // A reader that never quite catches up: drop what it has read.
            pending.removeFirst(sent)
            sent = 0
        }
        heartbeatDue = false
        return written
    }

    /// Moves to a phase that sends nothing more, dropping whatever was queued.
    private mutating func end(_ phase: Phase) {
        self.phase = phase
        ringed = nil
        pending = []
        sent = 0
    }

    private mutating func wake() -> Wake {
        guard isSuspended else { return .none }
        isSuspended = false
        return .resume
    }
}
