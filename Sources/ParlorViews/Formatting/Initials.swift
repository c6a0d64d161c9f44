/// Initials and a stable colour for people without a picture.
public enum Initials {
    /// Up to two letters: the first letters of the first and last words of the name, else of the handle.
    public static func of(displayName: String, handle: String) -> String {
        let words = displayName.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).filter { $0.first?.isLetter ?? false }
        var letters: [Character] = []
        if let first = words.first?.first { letters.append(first) }
        if words.count > 1, let last = words.last?.first { letters.append(last) }
        if letters.isEmpty, let first = handle.first(where: { $0.isLetter || $0.isNumber }) { letters.append(first) }
        if letters.isEmpty { return "?" }
        return String(letters).uppercased()
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
