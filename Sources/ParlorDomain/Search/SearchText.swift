import Foundation

/// How search reads a message's text: case and accents folded away ("Café" is "cafe"), each run of letters and
/// numbers a word, so the parts of `foo-bar/baz` and of a link are words of their own. Chinese, Japanese and
/// Korean text has no spaces between words: it is found by substring instead (``hasIdeographs(_:)``).
/// The in-memory store and PostgreSQL read text this way; SQLite's word index does the same with FTS5's
/// `unicode61` tokenizer, diacritics removed.
public enum SearchText {
    /// A longer word is cut to this many characters: a stored word stays within PostgreSQL's limit, and a word
    /// typed that long (``SearchQuery/termLength``) still finds it.
    public static let wordLength = SearchQuery.termLength

    /// Lowercased, accents removed.
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// The folded words of `text`, in order.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = ""
        var length = 0
        for character in fold(text) {
            if character.isLetter || character.isNumber {
                if length < wordLength { word.append(character) }
                length += 1
            } else if !word.isEmpty {
                words.append(word)
                word = ""
                length = 0
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// The words of `text` joined by one space: what PostgreSQL keeps beside a message to search.
    public static func searchable(_ text: String) -> String { words(text).joined(separator: " ") }

    /// Whether `text` has a Han, kana or Hangul character: such a term is searched for by substring.
    public static func hasIdeographs(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isIdeographic)
    }

    /// Han (with its extensions and compatibility forms), Hiragana, Katakana (half-width too), Bopomofo and Hangul.
    public static func isIdeographic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3040...0x30FF, 0x3100...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA960...0xA97F, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0xFF66...0xFF9F, 0x20000...0x3134F:
            true
        default:
            false
        }
    }
}

/// One word or phrase of a query, as the stores search for it.
public enum SearchTerm: Hashable, Sendable {
    /// Words in a row, the last one a prefix (`deplo` finds "deployment"; `foo-bar` finds "foo-bar/baz").
    case prefix([String])
    /// Words in a row, each whole (`"exact phrase"`).
    case phrase([String])
    /// Text found anywhere, case folded (Chinese, Japanese and Korean).
    case substring(String)

    /// The terms of a query: each word and phrase, folded; one with nothing to search for (only punctuation) is left out.
    public static func terms(of query: SearchQuery) -> [SearchTerm] {
        func term(_ text: String, phrase: Bool) -> SearchTerm? {
            if SearchText.hasIdeographs(text) { return .substring(text.lowercased()) }
            let words = SearchText.words(text)
            guard !words.isEmpty else { return nil }
            return phrase ? .phrase(words) : .prefix(words)
        }
        return query.words.compactMap { term($0, phrase: false) } + query.phrases.compactMap { term($0, phrase: true) }
    }

    /// Whether a message whose folded words are `words` and lowercased text `text` has this term.
    public func matches(words: [String], text: String) -> Bool {
        switch self {
        case .substring(let part):
            return text.contains(part)
        case .prefix(let wanted), .phrase(let wanted):
            guard !wanted.isEmpty, words.count >= wanted.count else { return false }
            let isPrefix = if case .prefix = self { true } else { false }
            for start in 0...(words.count - wanted.count) {
                var all = true
                for (offset, word) in wanted.enumerated() {
                    let candidate = words[start + offset]
                    let last = offset == wanted.count - 1
                    if !(candidate == word || (last && isPrefix && candidate.hasPrefix(word))) {
                        all = false
                        break
                    }
                }
                if all { return true }
            }
            return false
        }
    }
}
