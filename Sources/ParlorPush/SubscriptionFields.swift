import Foundation

/// What a browser posts to subscribe (its `PushSubscription.toJSON()`: the endpoint and the two keys), checked
/// before anything is stored: an address Parlor can POST to, a P-256 public key and a 16-byte secret. Whether the
/// address is one Parlor may reach (public, https) is the sender's check, which resolves its host.
public struct SubscriptionFields: Sendable, Hashable {
    public let endpoint: String
    public let p256dh: String
    public let auth: String

    /// The longest endpoint taken (push services' are a few hundred bytes).
    public static let endpointLimit = 2_048

    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        case missing
        case endpointTooLong
        case notAnAddress
        case malformedKeys

        public var description: String {
            switch self {
            case .missing: "The browser sent no subscription."
            case .endpointTooLong: "The push service's address is longer than \(SubscriptionFields.endpointLimit) characters."
            case .notAnAddress: "The push service's address is not a web address."
            case .malformedKeys: "The browser's keys for notifications are not valid."
            }
        }
    }

    public init(endpoint: String, p256dh: String, auth: String) throws(Refusal) {
        guard !endpoint.isEmpty, !p256dh.isEmpty, !auth.isEmpty else { throw .missing }
        guard endpoint.utf8.count <= Self.endpointLimit else { throw .endpointTooLong }
        // Printable ASCII only: an endpoint is a URL the browser's vendor made, never text a person typed.
        guard endpoint.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), let url = URL(string: endpoint),
              let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty,
              url.user == nil, url.password == nil
        else { throw .notAnAddress }
        do {
            _ = try WebPushEncryption.Subscriber(p256dh: p256dh, auth: auth)
        } catch {
            throw .malformedKeys
        }
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}
