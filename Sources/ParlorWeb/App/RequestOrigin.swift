import Foundation
import MicroHTTP

/// Where a request came from, as far as Parlor can tell: HTTPS or not, and from which address.
/// `X-Forwarded-*` fields are believed only from a configured proxy; anyone else could write them.
struct RequestOrigin {
    let isHTTPS: Bool
    /// The person's address: the socket peer, or what a trusted proxy says.
    let address: String
    /// The host the person asked for: `Host`, or a trusted proxy's `X-Forwarded-Host`.
    let host: String?

    init(_ request: Request, trustedProxies: Set<String>) {
        let peer = request.peerAddress ?? "unknown"
        if trustedProxies.contains(peer) {
            isHTTPS = request.headers["X-Forwarded-Proto"]?.lowercased() == "https"
            // The proxy appends the address it saw last.
            let forwarded = request.headers["X-Forwarded-For"]?.split(separator: ",").last
            address = forwarded.map { $0.trimmingCharacters(in: .whitespaces) } ?? peer
            host = request.headers["X-Forwarded-Host"] ?? request.headers["Host"]
        } else {
            isHTTPS = false
            address = peer
            host = request.headers["Host"]
        }
    }

    /// Whether a POST's `Origin` (when the browser sent one) is this site. Browsers send it on every
    /// cross-site POST, so a foreign or opaque ("null") origin is refused.
    func allows(_ request: Request) -> Bool {
        guard let origin = request.headers["Origin"] else { return true }
        guard let host else { return false }
        return origin == (isHTTPS ? "https://" : "http://") + host
    }
}
