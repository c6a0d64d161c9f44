import Foundation

/// Item HTML as plain text: tags removed (and what `script` and `style` hold), block elements and `br` as
/// line breaks, entities decoded, runs of white space collapsed. A link keeps its address after its text
/// ("the report (https://…)") when it is http or https and the text does not show it already, so the
/// message linkifies it. What comes out is text, to be escaped by the template engine like anything else
/// a person did not write in Parlor.
public enum HTMLText {
    static let limit = 10_000
    static let blocks: Set<String> = ["p", "br", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "tr", "hr"]

    /// An outside answer's bytes (a bot's webhook's reply) as the words of a message: UTF-8 (repaired), HTML made
    /// plain when it is HTML, white space trimmed; nil when nothing is left.
    public static func answer(_ bytes: [UInt8], isHTML: Bool) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let plain = (isHTML ? plain(text) : text).trimmingCharacters(in: .whitespacesAndNewlines)
        return plain.isEmpty ? nil : plain
    }

    public static func plain(_ html: String, base: URL? = nil) -> String {
        var out = ""
        var rest = Substring(html)
        var skipping: String?
        // The open link: its address, and where its text starts in `out`.
        var link: (url: String, start: Int)?
        // Line breaks in HTML source are spaces, except inside `pre`.
        var preformatted = 0
        func text(_ run: Substring) -> String {
            preformatted > 0 ? String(run) : String(run.map { $0 == "\n" || $0 == "\r\n" || $0 == "\r" ? " " : $0 })
        }
        while let open = rest.firstIndex(of: "<") {
            if skipping == nil { out += text(rest[..<open]) }
            let after = rest[rest.index(after: open)...]
            // A comment ends at "-->", anything else at the next ">"; an unclosed tag ends the text.
            if after.hasPrefix("!--") {
                guard let end = after.range(of: "-->") else { rest = ""; break }
                rest = after[end.upperBound...]
                continue
            }
            guard let close = after.firstIndex(of: ">") else { rest = ""; break }
            let tag = after[..<close]
            let closing = tag.hasPrefix("/")
            let name = tag.drop { $0 == "/" }.prefix { $0.isLetter || $0.isNumber }.lowercased()
            if let waiting = skipping {
                if closing && name == waiting { skipping = nil }
            } else if !closing && (name == "script" || name == "style") && !tag.hasSuffix("/") {
                skipping = name
            } else if blocks.contains(name) {
                if name == "pre" { preformatted = max(0, preformatted + (closing ? -1 : 1)) }
                out += "\n"
            } else if name == "a" {
                if closing, let open = link {
                    let text = out.utf8.dropFirst(open.start)
                    if !String(decoding: text, as: UTF8.self).contains(open.url) { out += " (\(open.url))" }
                    link = nil
                } else if !closing {
                    link = href(in: tag).flatMap { FeedParser.web(HTMLEntities.decode($0), base: base) }.map { ($0, out.utf8.count) }
                }
            }
            rest = after[after.index(after: close)...]
        }
        if skipping == nil { out += text(rest) }
        return collapse(HTMLEntities.decode(out))
    }

    /// The value of a tag's `href` attribute (`a href="…"`, `'…'` or bare).
    static func href(in tag: Substring) -> String? {
        var rest = tag.dropFirst()  // the tag's name
        while let range = rest.range(of: "href", options: .caseInsensitive) {
            var value = rest[range.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            let before = rest[..<range.lowerBound].last
            guard before == nil || before == " " || before == "\t" || before == "\n", value.first == "=" else {
                rest = rest[range.upperBound...]
                continue
            }
            value = value.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" }
            if let quote = value.first, quote == "\"" || quote == "'" {
                return String(value.dropFirst().prefix { $0 != quote })
            }
            return String(value.prefix { $0 != " " && $0 != "\t" && $0 != "\n" && $0 != "/" })
        }
        return nil
    }

    /// Spaces and tabs as one space, blank lines as one line break, no white space at either end; at most
    /// ``limit`` characters.
    static func collapse(_ text: String) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\u{A0}" })
            let joined = words.joined(separator: " ")
            if !joined.isEmpty { lines.append(joined) }
        }
        let result = lines.joined(separator: "\n")
        return result.count > limit ? String(result.prefix(limit)) + "…" : result
    }
}
