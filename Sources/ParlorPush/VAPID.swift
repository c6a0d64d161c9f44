import Crypto
import Foundation

/// Voluntary Application Server Identification (RFC 8292): a push service learns which server sends, by a JWT
/// (ES256) for the endpoint's origin, signed with Parlor's key, whose public half the browser subscribed with.
public struct VAPID: Sendable {
    public let key: P256.Signing.PrivateKey
    /// Who runs this Parlor, for the push service ("mailto:…" or the site's https address).
    public let subject: String

    public init(key: P256.Signing.PrivateKey, subject: String) {
        self.key = key
        self.subject = subject
    }

    /// A key kept as text (``newStoredKey()``); nil when the text is not one.
    public init?(storedKey: String, subject: String) {
        guard let raw = Base64URL.decode(storedKey), let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else { return nil }
        self.init(key: key, subject: subject)
    }

    /// A new private key, as text to keep in the database (its 32 bytes, base64url).
    public static func newStoredKey() -> String {
        Base64URL.encode(P256.Signing.PrivateKey().rawRepresentation)
    }

    /// The public key as the browser's `applicationServerKey` takes it (65 bytes, base64url).
    public var publicKey: String { Base64URL.encode(key.publicKey.x963Representation) }

    /// The `Authorization` header for a push to an endpoint of `audience` (scheme, host and port only), valid until
    /// `expiry` (at most 24 hours ahead, RFC 8292 §2).
    public func authorization(audience: String, expiry: Date) throws -> String {
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        let claims = try JSONSerialization.data(
            withJSONObject: ["aud": audience, "exp": Int(expiry.timeIntervalSince1970), "sub": subject], options: [.sortedKeys, .withoutEscapingSlashes]
        )
        let signing = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(claims)
        let signature = try key.signature(for: Array(signing.utf8))
        return "vapid t=\(signing).\(Base64URL.encode(signature.rawRepresentation)), k=\(publicKey)"
    }

    /// The origin a push to `endpoint` is for; nil for an address that is not http(s).
    public static func audience(of endpoint: URL) -> String? {
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = endpoint.host, !host.isEmpty else { return nil }
        let port = endpoint.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }
}
