import ByteOutput

// Escapes at the byte level: the five characters that matter in HTML text and quoted attributes are all
// ASCII, and UTF-8 never uses ASCII bytes inside a multi-byte character. This is deliberately stricter than
// swift-mustache, which compares whole Characters and so lets "<" through when a combining mark follows it.

extension OutputBuffer {
    /// Appends `text` with `&`, `<`, `>`, `"` and `'` replaced by entities (the same ones swift-mustache uses).
    @inlinable
    public mutating func appendEscapingHTML(_ text: String) {
        var text = text
        text.withUTF8 { appendEscapingHTML($0) }
    }

    /// Appends UTF-8 `bytes` with the same escaping.
    @inlinable
    public mutating func appendEscapingHTML(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        let count = bytes.count
        // The longest entity is 6 bytes ("&quot;"), so 6 bytes per input byte always suffice; reserving once
        // and storing directly beats a capacity check and a memmove call per run of plain text.
        appendWithUnsafeCapacity(upTo: count &* 6) { destination in
            var read = 0
            var written = 0
            // Eight bytes at a time: most text has nothing to escape, and a word-wide test says so at once.
            while read &+ 8 <= count {
                let word = UnsafeRawPointer(source + read).loadUnaligned(as: UInt64.self)
                if Self.mayNeedEscaping(word) {
                    for offset in 0..<8 { written &+= Self.escape(source[read &+ offset], into: destination + written) }
                } else {
                    (destination + written).storeBytes(of: word, as: UInt64.self)
                    written &+= 8
                }
                read &+= 8
            }
            while read < count {
                written &+= Self.escape(source[read], into: destination + written)
                read &+= 1
            }
            return written
        }
    }

    /// Whether any byte of `word` is one of `& < > " '` (exact: no false negatives, no false positives).
    @inlinable @inline(__always)
    static func mayNeedEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let found = hasZeroByte(word ^ (ones &* 0x26)) | hasZeroByte(word ^ (ones &* 0x3C)) | hasZeroByte(word ^ (ones &* 0x3E))
            | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x27))
        return found != 0
    }

    /// Writes `byte`, or its entity, at `destination`; returns the bytes written.
    @inlinable @inline(__always)
    static func escape(_ byte: UInt8, into destination: UnsafeMutableRawPointer) -> Int {
        // Every byte to escape is at most ">" (0x3E); letters and non-ASCII skip the switch.
        if byte > 0x3E {
            destination.storeBytes(of: byte, as: UInt8.self)
            return 1
        }
        switch byte {
        case UInt8(ascii: "&"): return store("&amp;", at: destination)
        case UInt8(ascii: "<"): return store("&lt;", at: destination)
        case UInt8(ascii: ">"): return store("&gt;", at: destination)
        case UInt8(ascii: "\""): return store("&quot;", at: destination)
        case UInt8(ascii: "'"): return store("&#39;", at: destination)
        default:
            destination.storeBytes(of: byte, as: UInt8.self)
            return 1
        }
    }

    @inlinable @inline(__always)
    static func store(_ entity: StaticString, at destination: UnsafeMutableRawPointer) -> Int {
        destination.copyMemory(from: entity.utf8Start, byteCount: entity.utf8CodeUnitCount)
        return entity.utf8CodeUnitCount
    }
}
