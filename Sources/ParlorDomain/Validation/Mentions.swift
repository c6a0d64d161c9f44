/// Who a message names: `@handle`, `@everyone` or `@here`, each at the start of a word, as a person types them
/// (with or without the composer's suggestions). `ana@example.org` and `example.org/@ana` name nobody.
public struct Mention: Hashable, Sendable {
    public enum Target: Hashable, Sendable {
        /// A person by handle, lowercased (whether anyone has it is for the room to say).
        case person(handle: String)
        /// Every member of the room.
        case everyone
        /// Every member of the room who is there now.
        case here
    }

    public let target: Target
    /// Where it stands in the text, in UTF-8 bytes, the "@" included.
    public let range: Range<Int>

    public init(target: Target, range: Range<Int>) {
        self.target = target
        self.range = range
    }
}

/// Whom one message names, as the stores keep it beside the message: " ana ben " (handles, lowercased, between
/// spaces), with "*" for `@everyone` and `@here`. What counts a member's mentions reads it.
public struct NamedPeople: Hashable, Sendable {
    public let handles: Set<String>
    /// `@everyone` or `@here`: every member.
    public let everyone: Bool

    public init(handles: Set<String>, everyone: Bool) {
        self.handles = handles
        self.everyone = everyone
    }

    /// Whom `text` names.
    public init(in text: String) {
        var handles = Set<String>()
        var everyone = false
        for mention in Mentions.find(in: text) {
            switch mention.target {
            case .person(let handle): handles.insert(handle)
            case .everyone, .here: everyone = true
            }
        }
        self.init(handles: handles, everyone: everyone)
    }

    public var isEmpty: Bool { handles.isEmpty && !everyone }

    /// Whether a member with `handle` is named.
    public func names(_ handle: String) -> Bool { everyone || handles.contains(handle.lowercased()) }

    /// As stored: nil when nobody is named.
    public var stored: String? {
        guard !isEmpty else { return nil }
        return " " + ((everyone ? ["*"] : []) + handles.sorted()).joined(separator: " ") + " "
    }
}

public enum Mentions {
    /// Every mention in `text`, in order, read byte by byte (handles are ASCII; anything else ends one).
    public static func find(in text: String) -> [Mention] {
        var text = text
        return text.withUTF8 { find(in: $0) }
    }

    /// The handles `text` names, each once.
    public static func handles(in text: String) -> Set<String> {
        Set(find(in: text).compactMap { if case .person(let handle) = $0.target { handle } else { nil } })
    }

    static func find(in bytes: UnsafeBufferPointer<UInt8>) -> [Mention] {
        var mentions: [Mention] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "@"), index == 0 || startsWord(after: bytes[index - 1]) else {
                index += 1
                continue
            }
            var end = index + 1
            while end < bytes.count, isHandleByte(bytes[end]) { end += 1 }
            let length = end - index - 1
            // A handle has 3 to 20 characters (``Handle``); "everyone" and "here" name the room.
            if (3...20).contains(length) {
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<end]), as: UTF8.self).lowercased()
                let target: Mention.Target = switch name {
                case "everyone": .everyone
                case "here": .here
                default: .person(handle: name)
                }
                mentions.append(Mention(target: target, range: index..<end))
            }
            index = max(end, index + 1)
        }
        return mentions
    }

    /// Letters, digits and `_`, either case: what a handle is made of.
    static func isHandleByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A) || byte == 0x5F
    }

    /// A mention begins a word: after white space, an opening bracket or quote, or a bold or strike marker
    /// (`*@ana*`, `~@ana~`), never inside a word, an address or a path. ("_" is part of handles, so `_@ana_`
    /// would name "ana_".)
    private static func startsWord(after byte: UInt8) -> Bool {
        switch byte {
        case 0x09...0x0D, 0x20, UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
