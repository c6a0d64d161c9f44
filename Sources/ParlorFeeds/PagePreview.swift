import Foundation

/// What a link's page says of itself, for the card under a message: its title, a description, the site's name and
/// an image's address, from OpenGraph (`og:`), Twitter (`twitter:`) and plain `<meta name="description">` and
/// `<title>`. The page is hostile bytes: at most its first 512 KB are read, tag by tag (never a tree); its charset
/// is believed when it is UTF-8, ISO-8859-1 or Windows-1252, and anything else is read as UTF-8, repaired; every
/// value is text (entities decoded, white space collapsed, control characters gone, cut short), escaped by the
/// template like anything else.
public struct PagePreview: Hashable, Sendable {
    public let title: String
    public let description: String?
    public let siteName: String?
    /// An absolute http or https address.
    public let imageURL: String?

    public init(title: String, description: String?, siteName: String?, imageURL: String?) {
        self.title = title
        self.description = description
        self.siteName = siteName
        self.imageURL = imageURL
    }

    public static let scanLimit = 512 * 1024
    public static let titleLimit = 200
    public static let descriptionLimit = 300
    public static let siteNameLimit = 80

    /// The preview of the page `bytes` fetched from `url` (its final address, after redirects), with the answer's
    /// `Content-Type`; nil when the page names no title.
    public static func parse(_ bytes: [UInt8], url: String, contentType: String?) -> PagePreview? {
        let html = decoded(Array(bytes.prefix(scanLimit)), contentType: contentType)
        var meta: [String: String] = [:]
        var index = html.startIndex
        while let start = FeedDiscovery.nextTag("meta", in: html[...], from: index) {
            let (attributes, end) = FeedDiscovery.readAttributes(html[...], from: start)
            index = end
            guard let key = (attributes["property"] ?? attributes["name"])?.lowercased(), let content = attributes["content"],
                  meta[key] == nil, meta.count < 64
            else { continue }
            meta[key] = content
        }
        let base = URL(string: url)
        let title = [meta["og:title"], meta["twitter:title"], titleElement(html[...])].lazy.compactMap { text($0, limit: titleLimit) }.first
        guard let title else { return nil }
        let description = [meta["og:description"], meta["twitter:description"], meta["description"]].lazy.compactMap { text($0, limit: descriptionLimit) }.first
        let site = text(meta["og:site_name"], limit: siteNameLimit) ?? host(of: base)
        let image = [meta["og:image:secure_url"], meta["og:image"], meta["og:image:url"], meta["twitter:image"], meta["twitter:image:src"]]
            .lazy.compactMap { $0.flatMap { FeedParser.web(HTMLEntities.decode($0), base: base) } }.first
        return PagePreview(title: title, description: description, siteName: site, imageURL: image)
    }

    /// The text of the first `<title>`, raw (entities decoded later).
    static func titleElement(_ html: ArraySlice<UInt8>) -> String? {
        guard let start = FeedDiscovery.nextTag("title", in: html, from: html.startIndex, closedAllowed: true),
              let open = html[start...].firstIndex(of: UInt8(ascii: ">"))
        else { return nil }
        let text = html[(open + 1)...]
        let close: [UInt8] = Array("</title".utf8)
        var end = text.startIndex
        while end < text.endIndex {
            if text[end] == UInt8(ascii: "<"), end + close.count <= text.endIndex,
               zip(text[end..<(end + close.count)], close).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) { break }
            end += 1
        }
        return String(decoding: text[text.startIndex..<end].prefix(4_096), as: UTF8.self)
    }

    /// A value as text for the card: entities decoded, white space collapsed, control characters gone, at most
    /// `limit` characters (cut with "…"); nil when nothing is left.
    static func text(_ raw: String?, limit: Int) -> String? {
        guard let raw else { return nil }
        let decoded = HTMLEntities.decode(String(raw.prefix(8 * limit)))
        let visible = decoded.unicodeScalars.map { scalar -> Character in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format ? " " : Character(scalar)
        }
        let words = String(visible).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        return words.count > limit ? String(words.prefix(limit - 1)) + "…" : words
    }

    /// The site's host, without "www.", for a page that names no site.
    static func host(of url: URL?) -> String? {
        guard var host = url?.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("www.") { host.removeFirst(4) }
        return String(host.prefix(siteNameLimit))
    }

    /// The page as UTF-8 bytes: Windows-1252 (and ISO-8859-1, which browsers read as it) transcoded when the answer
    /// or the page's own `<meta>` says so; anything else read as UTF-8, repaired.
    static func decoded(_ bytes: [UInt8], contentType: String?) -> [UInt8] {
        let declared = charset(in: contentType) ?? metaCharset(bytes)
        guard let declared, ["iso-8859-1", "latin1", "windows-1252", "cp1252", "us-ascii", "ascii"].contains(declared),
              let text = String(data: Data(bytes), encoding: .windowsCP1252)
        else { return Array(String(decoding: bytes, as: UTF8.self).utf8) }
        return Array(text.utf8)
    }

    /// `charset=…` of a `Content-Type`, lowercased.
    static func charset(in contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"'")).lowercased()
            return value.isEmpty || value.utf8.count > 40 ? nil : value
        }
        return nil
    }

    /// The charset a page's first `<meta charset>` or `<meta http-equiv="Content-Type">` names, within its first 4 KB.
    static func metaCharset(_ bytes: [UInt8]) -> String? {
        let head = bytes.prefix(4_096)
        var index = head.startIndex
        while let start = FeedDiscovery.nextTag("meta", in: head, from: index) {
            let (attributes, end) = FeedDiscovery.readAttributes(head, from: start)
            index = end
            if let value = attributes["charset"] { return value.trimmingCharacters(in: .whitespaces).lowercased() }
            if attributes["http-equiv"]?.lowercased() == "content-type", let found = charset(in: attributes["content"]) { return found }
        }
        return nil
    }
}
