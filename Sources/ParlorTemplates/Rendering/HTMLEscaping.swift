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
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            // Every byte to escape is at most ">" (0x3E); letters and non-ASCII skip the switch.
            guard byte <= 0x3E else { continue }
            let entity: StaticString
            switch byte {
            case UInt8(ascii: "&"): entity = "&amp;"
            case UInt8(ascii: "<"): entity = "&lt;"
            case UInt8(ascii: ">"): entity = "&gt;"
            case UInt8(ascii: "\""): entity = "&quot;"
            case UInt8(ascii: "'"): entity = "&#39;"
            default: continue
            }
            if index > runStart { append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))) }
            append(entity)
            runStart = index + 1
        }
        if bytes.count > runStart { append(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))) }
    }
}
