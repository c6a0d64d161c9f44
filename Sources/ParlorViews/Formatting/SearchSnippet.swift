import Foundation
import ParlorDomain

/// A result's text as the results list shows it: the message as plain text on one line, cut around the first
/// match, in runs marked matched or not. The template escapes every run and wraps the matched ones in `<mark>`:
/// the highlight is never HTML made from the message.
public enum SearchSnippet {
    public struct Run: Hashable, Sendable {
        public let text: String
        public let isMatch: Bool
    }

    /// At most this many characters of text are shown, an ellipsis at a cut end.
    public static let length = 180
    /// How much text comes before the first match when the text is cut.
    static let lead = 50

    public static func runs(_ body: String, terms: [SearchTerm]) -> [Run] {
        // On one line: every run of white space one space (no limit: the cut comes below, around the match).
        let text = TextPreview.excerpt(MessageFormat.plainText(body), limit: .max)
        let matches = ranges(in: text, terms: terms)
        let count = text.count
        guard count > length else { return split(text, text.startIndex..<text.endIndex, matches) }
        // Cut around the first match, at spaces when there are some near.
        var start = text.startIndex
        if let first = matches.first?.lowerBound, text.distance(from: text.startIndex, to: first) > lead {
            start = text.index(first, offsetBy: -lead)
            if let space = text[start..<first].firstIndex(of: " ") { start = text.index(after: space) }
        }
        var end = text.index(start, offsetBy: length, limitedBy: text.endIndex) ?? text.endIndex
        if end < text.endIndex, let space = text[start..<end].lastIndex(of: " "), text.distance(from: start, to: space) > length / 2 { end = space }
        var runs = split(text, start..<end, matches)
        if start > text.startIndex { runs.insert(Run(text: "…", isMatch: false), at: 0) }
        if end < text.endIndex { runs.append(Run(text: "…", isMatch: false)) }
        return runs
    }

    /// Where the terms match, in order, overlapping ones joined: each word a prefix or a phrase's word is (folded
    /// as search folds it), and each substring.
    static func ranges(in text: String, terms: [SearchTerm]) -> [Range<String.Index>] {
        var wholes: Set<String> = []
        var prefixes: [String] = []
        var substrings: [String] = []
        for term in terms {
            switch term {
            case .prefix(let parts):
                wholes.formUnion(parts.dropLast())
                if let last = parts.last { prefixes.append(last) }
            case .phrase(let parts): wholes.formUnion(parts)
            case .substring(let part): substrings.append(part)
            }
        }
        var found: [Range<String.Index>] = []
        if !wholes.isEmpty || !prefixes.isEmpty {
            var index = text.startIndex
            while index < text.endIndex {
                guard text[index].isLetter || text[index].isNumber else {
                    index = text.index(after: index)
                    continue
                }
                let start = index
                while index < text.endIndex, text[index].isLetter || text[index].isNumber { index = text.index(after: index) }
                let word = String(SearchText.fold(String(text[start..<index])).prefix(SearchText.wordLength))
                if wholes.contains(word) || prefixes.contains(where: { word.hasPrefix($0) }) { found.append(start..<index) }
            }
        }
        for part in substrings where !part.isEmpty {
            var from = text.startIndex
            while from < text.endIndex, let range = text.range(of: part, options: [.caseInsensitive], range: from..<text.endIndex) {
                found.append(range)
                from = range.upperBound
            }
        }
        found.sort { $0.lowerBound < $1.lowerBound }
        var joined: [Range<String.Index>] = []
        for range in found {
            if let last = joined.last, range.lowerBound <= last.upperBound {
                joined[joined.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                joined.append(range)
            }
        }
        return joined
    }

    /// The part of `text` in `shown`, in runs: the matches in it, and the text between them.
    private static func split(_ text: String, _ shown: Range<String.Index>, _ matches: [Range<String.Index>]) -> [Run] {
        var runs: [Run] = []
        var at = shown.lowerBound
        for match in matches where match.upperBound > shown.lowerBound && match.lowerBound < shown.upperBound {
            let lower = max(match.lowerBound, shown.lowerBound)
            let upper = min(match.upperBound, shown.upperBound)
            if at < lower { runs.append(Run(text: String(text[at..<lower]), isMatch: false)) }
            runs.append(Run(text: String(text[lower..<upper]), isMatch: true))
            at = upper
        }
        if at < shown.upperBound { runs.append(Run(text: String(text[at..<shown.upperBound]), isMatch: false)) }
        return runs
    }
}
