/// Splits message text into plain runs and links. Only http and https URLs become links, so a
/// `javascript:` or `data:` URL stays inert text; the template escapes every run.
public enum Linkifier {
    /// A run of text; `url` is set when the run is a link.
    public struct Segment: Hashable, Sendable {
        public let text: String
        public let url: String?
    }

    public static func segments(_ text: String) -> [Segment] {
        // Most messages are ASCII, where every byte is a character: the same rules, read byte by byte,
        // without asking Unicode about each character (FuzzLinkifier checks both give the same segments).
        var text = text
        if let fast = text.withUTF8({ $0.allSatisfy { $0 < 0x80 } ? asciiSegments($0) : nil }) { return fast }
        return generalSegments(text)
    }

    /// ``segments(_:)`` for any text, character by character.
    static func generalSegments(_ text: String) -> [Segment] {
        var segments: [Segment] = []
        var plain = Substring()
        var rest = Substring(text)
        while let start = nextLinkStart(in: rest) {
            plain += rest[rest.startIndex..<start]
            let candidate = rest[start...]
            var end = candidate.firstIndex(where: { $0.isWhitespace || "<>\"".contains($0) }) ?? candidate.endIndex
            // Leave trailing punctuation to the sentence: "see https://parlor.chat/a." links without the dot.
            while end > start, let last = candidate[start..<end].last, ".,;:!?'*_~".contains(last) || (last == ")" && !candidate[start..<end].dropLast().contains("(")) {
                end = candidate.index(before: end)
            }
            let link = String(candidate[start..<end])
            // Still a web address once the sentence has its punctuation back ("www." alone becomes "www", which
            // would be a relative link), and more than the scheme.
            let lowered = link.lowercased()
            let isWebAddress = ["http://", "https://", "www."].contains { lowered.hasPrefix($0) && lowered.count > $0.count }
            if !isWebAddress {
                plain += candidate[start..<end]
            } else {
                if !plain.isEmpty { segments.append(Segment(text: String(plain), url: nil)) }
                plain = Substring()
                let url = link.lowercased().hasPrefix("www.") ? "https://" + link : link
                segments.append(Segment(text: link, url: url))
            }
            rest = candidate[end...]
        }
        plain += rest
        if !plain.isEmpty { segments.append(Segment(text: String(plain), url: nil)) }
        return segments
    }

    /// The start of the next `http://`, `https://` or `www.` that begins a word.
    private static func nextLinkStart(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        var previous: Character?
        while index < text.endIndex {
            let startsWord = previous.map { $0.isWhitespace || "([{".contains($0) } ?? true
            if startsWord {
                let tail = text[index...].prefix(8).lowercased()
                if tail.hasPrefix("http://") || tail.hasPrefix("https://") || tail.hasPrefix("www.") { return index }
            }
            previous = text[index]
            index = text.index(after: index)
        }
        return nil
    }

    /// ``segments(_:)`` for ASCII text.
    static func asciiSegments(_ bytes: UnsafeBufferPointer<UInt8>) -> [Segment] {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        var segments: [Segment] = []
        var plainStart = 0
        var restStart = 0
        while let start = nextASCIILinkStart(bytes, from: restStart) {
            var end = start
            while end < bytes.count, !isASCIIWhitespace(bytes[end]), !endsLink(bytes[end]) { end += 1 }
            while end > start {
                let last = bytes[end - 1]
                guard isTrailingPunctuation(last) || (last == UInt8(ascii: ")") && !bytes[start..<(end - 1)].contains(UInt8(ascii: "(")))
                else { break }
                end -= 1
            }
            let link = text(start..<end)
            let lowered = link.lowercased()
            let isWebAddress = ["http://", "https://", "www."].contains { lowered.hasPrefix($0) && lowered.utf8.count > $0.utf8.count }
            if isWebAddress {
                if plainStart < start { segments.append(Segment(text: text(plainStart..<start), url: nil)) }
                plainStart = end
                segments.append(Segment(text: link, url: lowered.hasPrefix("www.") ? "https://" + link : link))
            }
            restStart = end
        }
        if plainStart < bytes.count { segments.append(Segment(text: text(plainStart..<bytes.count), url: nil)) }
        return segments
    }

    /// The start of the next web address that begins a word at or after `from` (which counts as a word start).
    private static func nextASCIILinkStart(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var index = from
        while index < bytes.count {
            let startsWord = index == from || isASCIIWhitespace(bytes[index - 1]) || opensBracket(bytes[index - 1])
            if startsWord, hasPrefix(bytes, at: index, "http://") || hasPrefix(bytes, at: index, "https://") || hasPrefix(bytes, at: index, "www.") {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count {
            var byte = bytes[index + offset]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            guard byte == prefix.utf8Start[offset] else { return false }
        }
        return true
    }

    // Byte classes compared directly: `"([{".utf8.contains(byte)` walks a string's UTF-8 view for every byte
    // of every message (2 % of a conversation page).

    /// `<`, `>` and `"`: never part of an address.
    private static func endsLink(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
    }

    /// Punctuation that ends a sentence rather than an address, `.,;:!?'`, and the formatting markers `*_~`
    /// (`*see https://parlor.chat*` is a bold link).
    private static func isTrailingPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "!"), UInt8(ascii: "?"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// `(`, `[` and `{`: an address may start right after one.
    private static func opensBracket(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "(") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{")
    }

    /// ASCII characters that are white space (tab, line feed, vertical tab, form feed, return, space).
    static func isASCIIWhitespace(_ byte: UInt8) -> Bool { (byte >= 0x09 && byte <= 0x0D) || byte == 0x20 }
}
