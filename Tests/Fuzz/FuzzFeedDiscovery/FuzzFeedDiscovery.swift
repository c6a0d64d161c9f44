// libFuzzer entry: what a feed's server sends besides the feed: a page that may name its feed, and the
// Cache-Control and Retry-After values that say when to ask again.
import Foundation
import ParlorFeeds

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedDiscovery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for link in FeedDiscovery.feeds(inPage: bytes, base: URL(string: "https://site.example/blog/")) {
        precondition(link.hasPrefix("http://") || link.hasPrefix("https://"), "only web links are followed: \(link)")
    }
    _ = FeedDiscovery.looksLikeHTML(bytes, contentType: nil)
    let text = String(decoding: bytes.prefix(512), as: UTF8.self)
    for value in [CacheHeaders.maxAge(text), CacheHeaders.retryAfter(text, now: Date(timeIntervalSince1970: 1_800_000_000))] {
        if let value { precondition((0...CacheHeaders.week).contains(value)) }
    }
    return 0
}
