import Foundation

/// The rules for what a message, a handle and a display name may be. The event router applies them before
/// anything reaches the store.
public enum MessageText {
    /// The longest message, in characters (grapheme clusters: what a person counts).
    public static let maximumLength = 4_000

    /// The body as it will be stored: surrounding blank lines and spaces trimmed, inner line breaks kept.
    /// Empty text is refused unless `allowingEmpty` (a photo with no words).
    public static func validated(_ body: String, allowingEmpty: Bool = false) throws(Refusal) -> String {
        try StoredText.refuseControlCharacters(body)
        let trimmed = body.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty || allowingEmpty else { throw .emptyMessage }
        guard trimmed.count <= maximumLength else { throw .messageTooLong(limit: maximumLength) }
        return trimmed
    }

    /// The same, for text that arrives as bytes (a form field): invalid UTF-8 is refused, never repaired.
    public static func validated(bytes: some Collection<UInt8>) throws(Refusal) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidText }
        return try validated(text)
    }
}

/// The rules for handles: what others type to find a person.
public enum Handle {
    /// What `@everyone` and `@here` mention in a room: no person may have them (``Mentions``).
    public static let reserved: Set<String> = ["everyone", "here"]

    /// Lowercased, 3 to 20 of `a-z`, `0-9`, `_`; a leading "@" is dropped.
    public static func normalized(_ text: String) throws(Refusal) -> String {
        var handle = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if handle.hasPrefix("@") { handle.removeFirst() }
        guard (3...20).contains(handle.utf8.count),
              handle.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F })
        else { throw .invalidHandle }
        return handle
    }
}

/// The rules for display names.
public enum DisplayName {
    public static func validated(_ text: String) throws(Refusal) -> String {
        try StoredText.refuseControlCharacters(text)
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 50, !name.contains(where: \.isNewline) else { throw .invalidDisplayName }
        return name
    }
}

/// The rule every stored text field follows, whatever else it must be. A NUL would end the text early in
/// C code and in some stores, so what people read and what was stored could differ; other C0 controls
/// have no business in chat text and confuse terminals and logs. Tab, line feed and carriage return stay.
public enum StoredText {
    public static func refuseControlCharacters(_ text: String) throws(Refusal) {
        for byte in text.utf8 where byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
            throw .controlCharacter
        }
    }

    /// An identifier chosen from a list (a time zone, a locale): printable ASCII, at most 64 bytes, or nil.
    public static func identifier(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return text
    }
}
