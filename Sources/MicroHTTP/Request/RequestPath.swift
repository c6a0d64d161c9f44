/// Checks on a decoded request path before it is routed.
enum RequestPath {
    /// Why `path` is refused, or nil when it is acceptable. Scans bytes without allocating.
    static func problem(_ path: String) -> String? {
        var utf8 = path.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "/") else { return "The address must start with /." }
        var dotsInSegment = 0  // dots seen since the last "/", or -1 once the segment has anything else
        for byte in path.utf8.dropFirst() {
            if byte == UInt8(ascii: "/") {
                if dotsInSegment == 1 || dotsInSegment == 2 { return dotSegments }
                dotsInSegment = 0
            } else if byte == UInt8(ascii: "."), dotsInSegment >= 0 {
                dotsInSegment += 1
            } else {
                dotsInSegment = -1
            }
        }
        return dotsInSegment == 1 || dotsInSegment == 2 ? dotSegments : nil
    }

    /// Whether `path` has an empty segment ("//"): one address would have many spellings, and a proxy in
    /// front may read them differently. A single slash at the end is not one (`/chat/` is the root under a
    /// base path).
    static func hasEmptySegment(_ path: String) -> Bool {
        var previousWasSlash = false
        for byte in path.utf8 {
            let isSlash = byte == UInt8(ascii: "/")
            if isSlash && previousWasSlash { return true }
            previousWasSlash = isSlash
        }
        return false
    }

    private static let dotSegments = "The address may not contain . or .. segments."
}
