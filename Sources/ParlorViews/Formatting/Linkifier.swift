/// Splits message text into plain runs and links. Only http and https URLs become links, so a
/// `javascript:` or `data:` URL stays inert text; the template escapes every run.
public enum Linkifier {
    /// A run of text; `url` is set when the run is a link.
    public struct Segment: Hashable, Sendable {
        public let text: String
        public let url: String?
    }

    public static func segments(_ text: String) -> [Segment] {
        var segments: [Segment] = []
        var plain = Substring()
        var rest = Substring(text)
        while let start = nextLinkStart(in: rest) {
            plain += rest[rest.startIndex..<start]
            let candidate = rest[start...]
            var end = candidate.firstIndex(where: { $0.isWhitespace || "<>\"".contains($0) }) ?? candidate.endIndex
            // Leave trailing punctuation to the sentence: "see https://parlor.chat/a." links without the dot.
            while end > start, let last = candidate[start..<end].last, ".,;:!?'".contains(last) || (last == ")" && !candidate[start..<end].dropLast().contains("(")) {
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
}
