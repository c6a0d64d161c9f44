import Synchronization

/// The events most recently sent to many streams, each held once. A stream with nothing else
/// queued keeps only a ticket (a sequence number) and its content reader copies the bytes from
/// here: one copy that stays in the cache for the thousands of readers that follow, instead of
/// a copy per stream that each reader then misses in memory (profiled at 10,000 streams: that
/// miss was 85 % of the reader's time).
///
/// The bytes are held in plain memory, not in Swift arrays: reading one from several threads must
/// not touch a shared reference count. A slot is reused after `capacity` newer events; a ticket
/// for a reused slot can no longer be read, and its stream ends as if it had overflowed (the
/// client reconnects with its `Last-Event-ID`).
///
/// A ring belongs to one ``HTTPServer`` (``HTTPServer/eventRing``): its streams read shared events
/// from it, and whoever publishes to them shares events in it (``share(_:)``). An event shared in
/// another server's ring is copied into the stream's own queue instead, so servers in one process
/// never lap each other's slots.
public final class EventRing: Sendable {
    /// Where one event is held, and how long it is.
    package struct Ticket: Sendable, Equatable {
        package let sequence: UInt64
        package let count: Int
    }

    /// Its memory is only read, written and freed under the ring's lock.
    private struct Slot: @unchecked Sendable {
        var sequence: UInt64 = 0
        var bytes: UnsafeMutableRawBufferPointer?
    }

    private struct Storage: ~Copyable, Sendable {
        var slots: [Slot]
        var next: UInt64 = 1

        deinit {
            for slot in slots { slot.bytes?.deallocate() }
        }
    }

    /// How many events a ring holds unless told otherwise. Every update the live pages render is shared
    /// here, one per variant (a row for each kind of viewer, a badge for each count): a day of 10,000 people
    /// shares several thousand a second, and 4,096 slots lapped the pages a busy second left behind. At
    /// 5,000 a second a reader has six seconds; slots hold memory only while their event is recent (about
    /// 1 KB each, 32 MB when all are full).
    public static let defaultCapacity = 32_768

    private let storage: Mutex<Storage>
    package let capacity: Int

    /// A ring of `capacity` slots (at least one).
    public init(capacity: Int = EventRing.defaultCapacity) {
        precondition(capacity > 0, "a ring holds at least one event")
        self.capacity = capacity
        storage = Mutex(Storage(slots: Array(repeating: Slot(), count: capacity)))
    }

    /// The same event, held once in this ring for every stream that sends it. Share an event going
    /// to many streams of this ring's server: a stream with nothing else queued then reads it from
    /// this one copy rather than copying it into a queue of its own. An event already shared here is
    /// returned as it is.
    public func share(_ event: EncodedEvent) -> EncodedEvent {
        if let sharing = event.sharing, sharing.ring === self { return event }
        return EncodedEvent(bytes: event.bytes, sharing: .init(ring: self, ticket: hold(event.bytes)))
    }

    /// Holds a copy of `bytes` and returns its ticket.
    package func hold(_ bytes: [UInt8]) -> Ticket {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        return storage.withLock { storage in
            let sequence = storage.next
            storage.next += 1
            let index = Int(sequence % UInt64(capacity))
            storage.slots[index].bytes?.deallocate()
            storage.slots[index] = Slot(sequence: sequence, bytes: copy)
            return Ticket(sequence: sequence, count: bytes.count)
        }
    }

    /// Copies the ticket's bytes from `offset` into `buffer`, as many as fit; nil once the slot
    /// holds a newer event.
    package func copy(_ ticket: Ticket, from offset: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        storage.withLock { storage in
            let slot = storage.slots[Int(ticket.sequence % UInt64(capacity))]
            guard slot.sequence == ticket.sequence, let bytes = slot.bytes else { return nil }
            let count = min(ticket.count - offset, buffer.count)
            if count > 0 {
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: count)
            }
            return count
        }
    }
}
