/// One-line excerpts of message text, cut on a character boundary so no emoji or accent is ever split.
public enum TextPreview {
    /// Collapses every run of whitespace (line breaks included) to one space, trims, and cuts to at most
    /// `limit` characters, ending with "…" when something was cut.
    public static func excerpt(_ text: String, limit: Int = 80) -> String {
        // ASCII text, where every byte is a character, read byte by byte (FuzzTextExcerpt checks both agree).
        var text = text
        if let fast = text.withUTF8({ $0.allSatisfy { $0 < 0x80 } ? asciiExcerpt($0, limit: limit) : nil }) { return fast }
        return generalExcerpt(text, limit: limit)
    }

    /// ``excerpt(_:limit:)`` for any text, character by character.
    static func generalExcerpt(_ text: String, limit: Int) -> String {
        var result = ""
        var count = 0
        var pendingSpace = false
        for character in text {
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            let needed = pendingSpace ? 2 : 1
            if count + needed > limit {
                return result + "…"
            }
            if pendingSpace {
                result.append(" ")
                count += 1
                pendingSpace = false
            }
            result.append(character)
            count += 1
        }
        return result
    }

    /// ``excerpt(_:limit:)`` for ASCII text.
    static func asciiExcerpt(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(min(bytes.count, max(0, limit)) + 3)
        var pendingSpace = false
        for byte in bytes {
            if Linkifier.isASCIIWhitespace(byte) {
                pendingSpace = !result.isEmpty
                continue
            }
            if result.count + (pendingSpace ? 2 : 1) > limit {
                return String(decoding: result, as: UTF8.self) + "…"
            }
            if pendingSpace {
                result.append(UInt8(ascii: " "))
                pendingSpace = false
            }
            result.append(byte)
        }
        return String(decoding: result, as: UTF8.self)
    }
}
