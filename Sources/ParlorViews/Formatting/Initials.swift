/// Initials and a stable colour for people without a picture.
public enum Initials {
    /// Up to two letters: the first letters of the first and last words of the name, else of the handle.
    public static func of(displayName: String, handle: String) -> String {
        // ASCII names, read byte by byte with the same rules (a test checks every ASCII character agrees).
        if let fast = asciiInitials(displayName: displayName, handle: handle) { return fast }
        return generalInitials(displayName: displayName, handle: handle)
    }

    static func generalInitials(displayName: String, handle: String) -> String {
        let words = displayName.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).filter { $0.first?.isLetter ?? false }
        var letters: [Character] = []
        if let first = words.first?.first { letters.append(first) }
        if words.count > 1, let last = words.last?.first { letters.append(last) }
        if letters.isEmpty, let first = handle.first(where: { $0.isLetter || $0.isNumber }) { letters.append(first) }
        if letters.isEmpty { return "?" }
        return String(letters).uppercased()
    }

    /// Initials of ASCII names; nil when either is not ASCII.
    static func asciiInitials(displayName: String, handle: String) -> String? {
        var name = displayName, handle = handle
        guard name.utf8.allSatisfy({ $0 < 0x80 }), handle.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        func upper(_ byte: UInt8) -> UInt8 { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte }
        var first: UInt8?, last: UInt8?, words = 0
        name.withUTF8 { bytes in
            var atWordStart = true
            for byte in bytes {
                if Linkifier.isASCIIWhitespace(byte) || isASCIIPunctuation(byte) {
                    atWordStart = true
                    continue
                }
                // A word counts when it starts with a letter; its first letter is what the initials take.
                if atWordStart, isLetter(byte) {
                    words += 1
                    if first == nil { first = byte }
                    last = byte
                }
                atWordStart = false
            }
        }
        var letters: [UInt8] = []
        if let first { letters.append(upper(first)) }
        if words > 1, let last { letters.append(upper(last)) }
        if letters.isEmpty, let byte = handle.withUTF8({ $0.first { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) } }) {
            letters.append(upper(byte))
        }
        return letters.isEmpty ? "?" : String(decoding: letters, as: UTF8.self)
    }

    /// The ASCII characters Unicode calls punctuation (connector, dash, open, close, other).
    static func isASCIIPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21...0x23, 0x25...0x2A, 0x2C...0x2F, 0x3A, 0x3B, 0x3F, 0x40, 0x5B...0x5D, 0x5F, 0x7B, 0x7D: true
        default: false
        }
    }

    /// Number of colours in the palette (`avatar-hue-0` ... `avatar-hue-11` in parlor.css).
    public static let paletteSize = 12

    /// A palette index derived from the user id alone (FNV-1a), so it never changes with the name.
    public static func paletteIndex(for id: Int64) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        withUnsafeBytes(of: id.littleEndian) { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        return Int(hash % UInt64(paletteSize))
    }
}
