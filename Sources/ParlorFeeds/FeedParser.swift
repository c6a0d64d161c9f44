import Foundation
import ParlorDomain

/// RSS 2.0, RSS 1.0 (RDF), Atom 1.0 and JSON Feed 1.1, read into a ``Feed``. The XML formats go through
/// libxml2, which reads the declared encoding (ISO-8859-1, windows-1252, UTF-8); HTML entities are made
/// known to it first. Links are resolved against `xml:base`, the feed's own link, or `url`, and kept only
/// when http or https.
public enum FeedParser {
    /// Larger documents are refused (the fetcher stops reading there too).
    public static let byteLimit = 5_000_000

    public static func parse(_ bytes: [UInt8], url: URL? = nil) throws(FeedError) -> Feed {
        guard bytes.count <= byteLimit else { throw .tooLarge(bytes: byteLimit) }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { throw .empty }
        if bytes[start] == UInt8(ascii: "{") { return try JSONFeedReader.read(Array(bytes[start...]), url: url) }
        let root = try XMLTreeBuilder.parse(bytes)
        switch root.localName {
        case "rss": return try RSSReader.read(root, url: url)
        case "rdf": return try RSSReader.readRDF(root, url: url)
        case "feed": return AtomReader.read(root, url: url)
        default: throw .notAFeed
        }
    }

    // MARK: Shared by the readers

    /// `link` made absolute against `base`, when it is (or becomes) http or https.
    static func web(_ link: String?, base: URL?) -> String? {
        guard let raw = link?.trimmingCharacters(in: .whitespacesAndNewlines), !raw.isEmpty, raw.utf8.count <= 2_048 else { return nil }
        guard let resolved = URL(string: raw, relativeTo: base)?.absoluteURL, let scheme = resolved.scheme?.lowercased(),
              scheme == "http" || scheme == "https", resolved.host?.isEmpty == false,
              var components = URLComponents(url: resolved, resolvingAgainstBaseURL: true)
        else { return nil }
        // "HTTPS://" as "https://": what a page links to, and what a check of the scheme expects.
        components.scheme = scheme
        return components.string
    }

    /// Text of an element that may hold HTML ("description", Atom's `type="html"`), as plain text; `isHTML`
    /// false for text that is already plain (JSON Feed's `content_text`, Atom's `type="text"`).
    static func text(_ raw: String?, isHTML: Bool = true, base: URL? = nil) -> String {
        guard let raw else { return "" }
        return isHTML ? HTMLText.plain(raw, base: base) : HTMLText.collapse(raw)
    }

    /// A title: text on one line, nil when empty. Titles are text (entities a feed escaped twice are
    /// decoded); Atom's HTML and XHTML ones have their tags removed first (``AtomReader/title(_:base:)``).
    static func title(_ raw: String?) -> String? {
        oneLine(HTMLText.collapse(HTMLEntities.decode(raw ?? "")))
    }

    static func oneLine(_ text: String) -> String? {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.isEmpty ? nil : line
    }

    /// The key of an item without guid, id or link: FNV-1a (64 bits) of its title and text, stable across runs.
    static func hashKey(title: String?, text: String) -> String {
        "hash:" + String(FeedItem.fnv1a(Array((title ?? "").utf8) + [0] + Array(text.utf8)), radix: 16)
    }

    static func item(
        key: String?, title rawTitle: String?, link: String?, date: String?, text rawText: String?, isHTML: Bool = true, titleIsPlain: Bool = false,
        base: URL? = nil
    ) -> FeedItem {
        let title = titleIsPlain ? rawTitle : title(rawTitle)
        let text = text(rawText, isHTML: isHTML, base: base)
        let trimmedKey = key?.trimmingCharacters(in: .whitespacesAndNewlines)
        let chosen = trimmedKey.flatMap { $0.isEmpty ? nil : String($0.prefix(1_024)) } ?? link ?? hashKey(title: title, text: text)
        return FeedItem(key: chosen, title: title, link: link, date: date.flatMap(FeedDates.parse), text: text)
    }
}

enum RSSReader {
    static func read(_ root: XMLElement, url: URL?) throws(FeedError) -> Feed {
        guard let channel = root.first("channel") else { throw .notAFeed }
        return feed(channel, items: channel.children("item"), url: url)
    }

    /// RSS 1.0: the items are the channel's siblings.
    static func readRDF(_ root: XMLElement, url: URL?) throws(FeedError) -> Feed {
        guard let channel = root.first("channel") else { throw .notAFeed }
        return feed(channel, items: root.children("item"), url: url)
    }

    static func feed(_ channel: XMLElement, items: [XMLElement], url: URL?) -> Feed {
        // The channel's link, among atom:link and the rest: the one without a prefix.
        let siteLink = FeedParser.web(channel.children("link").first { $0.prefix == nil }?.text, base: url)
        let base = siteLink.flatMap(URL.init(string:)) ?? url
        return Feed(
            title: FeedParser.title(channel.first("title")?.text) ?? "Untitled feed",
            link: siteLink,
            items: items.map { item in
                let guidElement = item.first("guid")
                let guid = guidElement?.text ?? item.attribute("rdf:about")
                let link = FeedParser.web(item.children("link").first { $0.prefix == nil }?.text, base: base)
                    ?? permalink(guidElement, base: base)
                let date = item.first("pubdate")?.text ?? item.first("date", prefix: "dc")?.text
                let body = item.first("encoded", prefix: "content")?.text ?? item.first("description")?.text
                return FeedParser.item(key: guid, title: item.first("title")?.text, link: link, date: date, text: body, base: base)
            },
            ttl: channel.first("ttl").flatMap { element in
                let digits = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !digits.isEmpty, digits.utf8.count <= 6, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                return Int(digits).map { min($0, 7 * 24 * 60) }
            },
            icon: FeedParser.web(channel.first("image")?.first("url")?.text, base: url)
        )
    }
}

extension RSSReader {
    /// Without a `link`, a `guid` that is a permalink is the item's address: one marked `isPermaLink="true"`
    /// (resolved like a link), or one without the attribute (the default is true) that is a whole web address;
    /// many feeds leave the attribute out of guids that are no address at all.
    static func permalink(_ guid: XMLElement?, base: URL?) -> String? {
        guard let guid else { return nil }
        switch guid.attribute("isPermaLink")?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil: return FeedParser.web(guid.text, base: nil)
        case "true": return FeedParser.web(guid.text, base: base)
        default: return nil
        }
    }
}

enum AtomReader {
    static func read(_ root: XMLElement, url: URL?) -> Feed {
        let feedBase = base(root, url)
        let siteLink = alternate(root, base: feedBase)
        return Feed(
            title: title(root.first("title"), base: feedBase) ?? "Untitled feed",
            link: siteLink,
            items: root.children("entry").map { entry in
                let entryBase = base(entry, feedBase)
                // Content given by address only (`src`) has nothing to show: the summary stands in.
                let content = entry.first("content").flatMap { $0.attribute("src") == nil ? $0 : nil }
                let body = content ?? entry.first("summary")
                let bodyBase = body.map { base($0, entryBase) } ?? entryBase
                let date = entry.first("published")?.text ?? entry.first("updated")?.text
                let text = body.map { TextConstruct($0) }
                return FeedParser.item(
                    key: entry.first("id")?.text, title: title(entry.first("title"), base: entryBase), link: alternate(entry, base: entryBase),
                    date: date, text: text?.raw, isHTML: text?.isHTML ?? false, titleIsPlain: true, base: bodyBase
                )
            },
            icon: FeedParser.web((root.first("icon") ?? root.first("logo"))?.text, base: feedBase)
        )
    }

    /// One of Atom's text constructs (RFC 4287 §3.1): `type="text"` (the default) is plain text, `"html"`
    /// escaped HTML, `"xhtml"` elements inside a `div`. Content may name a media type instead ("text/html").
    struct TextConstruct {
        /// Plain text, or HTML markup when `isHTML`.
        let raw: String
        let isHTML: Bool

        init(_ element: XMLElement) {
            switch element.attribute("type")?.lowercased() ?? "text" {
            case "html", "text/html":
                raw = element.text
                isHTML = true
            case "xhtml", "application/xhtml+xml":
                // The div is the construct's wrapper, not part of its text.
                let wrapper = element.children.count == 1 && element.children[0].localName == "div" ? element.children[0] : element
                raw = wrapper.innerMarkup
                isHTML = true
            default:
                raw = element.text
                isHTML = false
            }
        }
    }

    /// A title of any text construct type, as one line of plain text; nil when empty.
    static func title(_ element: XMLElement?, base: URL?) -> String? {
        guard let element else { return nil }
        let construct = TextConstruct(element)
        return construct.isHTML ? FeedParser.oneLine(HTMLText.plain(construct.raw, base: base)) : FeedParser.title(construct.raw)
    }

    static func base(_ element: XMLElement, _ parent: URL?) -> URL? {
        guard let value = element.attribute("xml:base"), let resolved = URL(string: value, relativeTo: parent)?.absoluteURL else { return parent }
        return resolved
    }

    /// The `link` with rel "alternate" (or no rel), as an absolute web address.
    static func alternate(_ element: XMLElement, base: URL?) -> String? {
        let links = element.children("link")
        let chosen = links.first { ($0.attribute("rel") ?? "alternate").lowercased() == "alternate" }
        return FeedParser.web(chosen?.attribute("href"), base: base)
    }
}

enum JSONFeedReader {
    static func read(_ bytes: [UInt8], url: URL?) throws(FeedError) -> Feed {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw .malformed("the JSON does not parse")
        }
        guard let feed = object as? [String: Any], (feed["version"] as? String)?.contains("jsonfeed.org") == true else { throw .notAFeed }
        let siteLink = FeedParser.web(feed["home_page_url"] as? String, base: url)
        let base = siteLink.flatMap(URL.init(string:)) ?? url
        let items = (feed["items"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        return Feed(
            title: FeedParser.title(feed["title"] as? String) ?? "Untitled feed",
            link: siteLink,
            items: items.map { item in
                // An id may be a number in feeds that ignore the spec: read as its text.
                let id = (item["id"] as? String) ?? (item["id"] as? NSNumber)?.stringValue
                let link = FeedParser.web(item["url"] as? String, base: base)
                let plain = (item["content_text"] as? String) ?? (item["summary"] as? String)
                let body = plain ?? (item["content_html"] as? String)
                let date = (item["date_published"] as? String) ?? (item["date_modified"] as? String)
                return FeedParser.item(key: id, title: item["title"] as? String, link: link, date: date, text: body, isHTML: plain == nil, base: base)
            },
            icon: FeedParser.web((feed["icon"] as? String) ?? (feed["favicon"] as? String), base: url)
        )
    }
}
