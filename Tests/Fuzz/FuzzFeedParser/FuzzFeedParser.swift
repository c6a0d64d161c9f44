// libFuzzer entry: a fetched feed's bytes (RSS, RDF, Atom, JSON Feed), read as a subscription would post it.
import Foundation
import ParlorFeeds

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let feed = try? FeedParser.parse(bytes, url: URL(string: "https://feeds.example/feed.xml")) else { return 0 }
    precondition(!feed.title.isEmpty)
    for link in [feed.link] + feed.items.map(\.link) {
        guard let link else { continue }
        precondition(link.hasPrefix("http://") || link.hasPrefix("https://"), "only web links leave the parser: \(link)")
    }
    for item in feed.items {
        precondition(!item.key.isEmpty)
        precondition(item.text.count <= 10_001)
        precondition(!(item.title ?? "").contains("\n"))
    }
    return 0
}
