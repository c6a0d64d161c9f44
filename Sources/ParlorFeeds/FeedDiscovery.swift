import Foundation

/// Finds the feed a web page advertises: `<link rel="alternate" type="application/rss+xml" href="…">`
/// (or Atom, RDF, JSON Feed) in its HTML, as an absolute http or https address. A page is hostile bytes
/// like a feed: the scan reads at most the first 512 KB, attribute by attribute, and never builds a tree.
public enum FeedDiscovery {
    static let scanLimit = 512 * 1024
    static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/feed+json", "application/json",
    ]

    /// The advertised feeds in the page's order, resolved against `base`.
    public static func feeds(inPage bytes: [UInt8], base: URL?) -> [String] {
        let html = bytes.prefix(scanLimit)
        var found: [String] = []
        var index = html.startIndex
        while let start = nextTag("link", in: html, from: index) {
            let (attributes, end) = readAttributes(html, from: start)
            index = end
            guard let rel = attributes["rel"]?.lowercased(), rel.split(separator: " ").contains("alternate"),
                  let type = attributes["type"]?.lowercased().split(separator: ";").first.map({ $0.trimmingCharacters(in: .whitespaces) }),
                  feedTypes.contains(type), let href = attributes["href"],
                  let link = FeedParser.web(HTMLEntities.decode(href), base: base), !found.contains(link)
            else { continue }
            found.append(link)
            if found.count == 8 { break }
        }
        return found
    }

    /// Whether the bytes look like an HTML page rather than a feed.
    public static func looksLikeHTML(_ bytes: [UInt8], contentType: String?) -> Bool {
        if let type = contentType?.lowercased(), type.hasPrefix("text/html") || type.hasPrefix("application/xhtml") { return true }
        let head = String(decoding: bytes.prefix(1_024), as: UTF8.self).lowercased()
        return head.contains("<!doctype html") || head.contains("<html")
    }

    /// The index just after the next `<` + `tag` (lowercase ASCII; followed by white space, or by `>` when `closed`
    /// allows), from `index`.
    static func nextTag(_ tag: String, in html: ArraySlice<UInt8>, from index: Int, closedAllowed: Bool = false) -> Int? {
        var i = index
        let name: [UInt8] = Array(tag.utf8)
        while i < html.endIndex {
            guard let open = html[i...].firstIndex(of: UInt8(ascii: "<")) else { return nil }
            let after = open + 1
            let end = after + name.count
            if end < html.endIndex, zip(html[after..<end], name).allSatisfy({ $0 | 0x20 == $1 }),
               [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(html[end]) || (closedAllowed && html[end] == UInt8(ascii: ">")) {
                return end
            }
            i = after
        }
        return nil
    }

    /// The attributes of the tag starting at `index` (names lowercased), and where the tag ends.
    static func readAttributes(_ html: ArraySlice<UInt8>, from index: Int) -> ([String: String], Int) {
        var attributes: [String: String] = [:]
        var i = index
        func isSpace(_ byte: UInt8) -> Bool { [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(byte) }
        while i < html.endIndex {
            while i < html.endIndex, isSpace(html[i]) || html[i] == UInt8(ascii: "/") { i += 1 }
            guard i < html.endIndex, html[i] != UInt8(ascii: ">") else { return (attributes, min(i + 1, html.endIndex)) }
            let nameStart = i
            while i < html.endIndex, !isSpace(html[i]), html[i] != UInt8(ascii: "="), html[i] != UInt8(ascii: ">") { i += 1 }
            let name = String(decoding: html[nameStart..<i], as: UTF8.self).lowercased()
            while i < html.endIndex, isSpace(html[i]) { i += 1 }
            var value = ""
            if i < html.endIndex, html[i] == UInt8(ascii: "=") {
                i += 1
                while i < html.endIndex, isSpace(html[i]) { i += 1 }
                if i < html.endIndex, html[i] == UInt8(ascii: "\"") || html[i] == UInt8(ascii: "'") {
                    let quote = html[i]
                    let valueStart = i + 1
                    let valueEnd = html[valueStart...].firstIndex(of: quote) ?? html.endIndex
                    value = String(decoding: html[valueStart..<valueEnd], as: UTF8.self)
                    i = min(valueEnd + 1, html.endIndex)
                } else {
                    let valueStart = i
                    while i < html.endIndex, !isSpace(html[i]), html[i] != UInt8(ascii: ">") { i += 1 }
                    value = String(decoding: html[valueStart..<i], as: UTF8.self)
                }
            }
            if !name.isEmpty, attributes[name] == nil, attributes.count < 32 { attributes[name] = value }
        }
        return (attributes, i)
    }
}
