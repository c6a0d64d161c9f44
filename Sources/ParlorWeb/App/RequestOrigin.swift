import Foundation
import MicroHTTP

/// Where a request came from, as far as Parlor can tell: HTTPS or not, and from which address.
/// `X-Forwarded-*` fields are believed only from a configured proxy; anyone else could write them. The
/// client's address is ``ClientAddress``'s walk of the whole joined `X-Forwarded-For` chain; `Forwarded`
/// (RFC 7239) is not read.
struct RequestOrigin {
    let isHTTPS: Bool
    /// The person's address: the socket peer, or what the trusted proxies say; "unknown" when a trusted
    /// proxy passed on something that is no address.
    let address: String
    /// The host the person asked for: `Host`, or a trusted proxy's `X-Forwarded-Host`.
    let host: String?

    init(_ request: Request, trustedProxies: Set<String>) {
        let peer = request.peerAddress ?? "unknown"
        if trustedProxies.contains(peer) {
            // The nearest proxy's word: the last element of the joined lines.
            isHTTPS = ClientAddress.lastElement(request.headers.values(for: "X-Forwarded-Proto"))?.lowercased() == "https"
            address = ClientAddress.resolve(peer: peer, forwardedFor: request.headers.values(for: "X-Forwarded-For"), trusted: trustedProxies)
                ?? "unknown"
            host = ClientAddress.lastElement(request.headers.values(for: "X-Forwarded-Host")) ?? request.headers["Host"]
        } else {
            isHTTPS = false
            address = peer
            host = request.headers["Host"]
        }
    }

    /// Whether a POST comes from this site as far as the browser says: `Sec-Fetch-Site` (when sent) is
    /// `same-origin`, and `Origin` (when sent) is this site. Browsers send one or both on every cross-site POST,
    /// so another site (a sibling subdomain included) or an opaque ("null") origin is refused.
    func allows(_ request: Request) -> Bool {
        if let site = request.headers["Sec-Fetch-Site"], site.lowercased() != "same-origin" { return false }
        guard let origin = request.headers["Origin"] else { return true }
        guard let host else { return false }
        return origin == (isHTTPS ? "https://" : "http://") + host
    }
}
