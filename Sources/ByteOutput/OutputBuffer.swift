// A growable byte buffer that a renderer writes into and the HTTP front hands to the
// socket layer without copying. Copy-on-write, so it is a plain Sendable value.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Growable bytes with value semantics and a stable, malloc-backed storage.
///
/// Appends are amortised O(1). Once a buffer is finished, ``OutputBuffer/Storage`` can be
/// retained by a consumer (the HTTP front) that reads its bytes without copying them.
public struct OutputBuffer: Sendable {
    @usableFromInline var storage: Storage

    /// Creates an empty buffer that can hold `capacity` bytes before it grows.
    public init(capacity: Int = 1024) {
        storage = Storage(capacity: Swift.max(capacity, 16))
    }

    /// Creates a buffer holding a copy of `bytes`.
    public init<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(capacity: bytes.underestimatedCount)
        append(contentsOf: bytes)
    }

    /// Number of bytes written.
    @inlinable public var count: Int { storage.count }

    /// Whether nothing has been written.
    @inlinable public var isEmpty: Bool { storage.count == 0 }

    /// The finished storage, for a consumer that keeps it alive while it reads the bytes.
    public var finishedStorage: Storage { storage }

    @inlinable
    mutating func reserveForAppend(_ extra: Int) {
        if !isKnownUniquelyReferenced(&storage) {
            storage = storage.copy(minimumCapacity: storage.count + extra)
        } else if storage.count + extra > storage.capacity {
            storage.grow(toAtLeast: storage.count + extra)
        }
    }

    /// Appends one byte.
    @inlinable
    public mutating func append(_ byte: UInt8) {
        reserveForAppend(1)
        storage.base.storeBytes(of: byte, toByteOffset: storage.count, as: UInt8.self)
        storage.count += 1
    }

    /// Appends raw bytes.
    @inlinable
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserveForAppend(bytes.count)
        (storage.base + storage.count).copyMemory(from: source, byteCount: bytes.count)
        storage.count += bytes.count
    }

    /// Appends a static string's UTF-8 bytes.
    @inlinable
    public mutating func append(_ string: StaticString) {
        append(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }

    /// Appends a string's UTF-8 bytes as they are (no escaping).
    @inlinable
    public mutating func append(_ string: String) {
        var string = string
        string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Lets `body` write up to `maximumCount` bytes at the end directly; `body` returns how many it wrote.
    /// One capacity check for the whole write, for writers that produce many small pieces (an escaper).
    @inlinable
    public mutating func appendWithUnsafeCapacity(upTo maximumCount: Int, _ body: (UnsafeMutableRawPointer) -> Int) {
        reserveForAppend(maximumCount)
        let written = body(storage.base + storage.count)
        precondition(written >= 0 && written <= maximumCount, "wrote past the reserved capacity")
        storage.count += written
    }

    /// Appends a sequence of bytes.
    @inlinable
    public mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil { for byte in bytes { append(byte) } }
    }

    /// Appends another buffer's bytes.
    @inlinable
    public mutating func append(_ other: OutputBuffer) {
        other.withUnsafeBytes { append($0) }
    }

    /// The last byte written, if any.
    @inlinable public var last: UInt8? {
        storage.count == 0 ? nil : storage.base.load(fromByteOffset: storage.count - 1, as: UInt8.self)
    }

    /// Drops the bytes written after the first `count`; used to take back a speculative write.
    @inlinable
    public mutating func truncate(toCount count: Int) {
        precondition(count >= 0 && count <= storage.count, "truncate(toCount:) past the end")
        guard count < storage.count else { return }
        reserveForAppend(0)
        storage.count = count
    }

    /// Removes every byte but keeps the capacity.
    public mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage) {
            storage.count = 0
        } else {
            storage = Storage(capacity: storage.capacity)
        }
    }

    /// Calls `body` with the written bytes; the pointer is valid only inside the call.
    @inlinable
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(storage) {
            try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
        }
    }

    /// The written bytes as an array (a copy).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The written bytes decoded as UTF-8, with invalid sequences repaired.
    public var string: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}

extension OutputBuffer {
    /// The heap storage behind a buffer. Mutated only while uniquely referenced (copy-on-write),
    /// which is what makes the `@unchecked Sendable` sound: a shared storage is never written.
    public final class Storage: @unchecked Sendable {
        // Unchecked: every write happens while the storage is uniquely referenced (see above), so the
        // dynamic exclusivity checks Swift would add to each append cost time and prove nothing.
        @exclusivity(unchecked) @usableFromInline var base: UnsafeMutableRawPointer
        @exclusivity(unchecked) @usableFromInline var count: Int
        @exclusivity(unchecked) @usableFromInline var capacity: Int

        init(capacity: Int) {
            guard let memory = malloc(capacity) else { fatalError("out of memory allocating \(capacity) bytes") }
            base = memory
            count = 0
            self.capacity = capacity
        }

        deinit { free(base) }

        /// The first byte; valid while this storage is alive.
        public var baseAddress: UnsafeRawPointer { UnsafeRawPointer(base) }

        /// Number of bytes written.
        public var byteCount: Int { count }

        @usableFromInline
        func copy(minimumCapacity: Int) -> Storage {
            let copy = Storage(capacity: Swift.max(minimumCapacity, capacity))
            copy.base.copyMemory(from: base, byteCount: count)
            copy.count = count
            return copy
        }

        @usableFromInline
        func grow(toAtLeast needed: Int) {
            var newCapacity = capacity
            while newCapacity < needed { newCapacity *= 2 }
            guard let memory = realloc(base, newCapacity) else { fatalError("out of memory growing to \(newCapacity) bytes") }
            base = memory
            capacity = newCapacity
        }
    }
}

extension OutputBuffer: Equatable {
    public static func == (lhs: OutputBuffer, rhs: OutputBuffer) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in l.elementsEqual(r) } }
    }
}
