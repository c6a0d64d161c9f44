import Foundation
import OutboundHTTP
import ParlorDomain
import ParlorFeeds
import ParlorPush

/// How one push ended.
public enum PushOutcome: Sendable, Hashable {
    /// The push service took it (201).
    case delivered
    /// The subscription is gone (404, 410): the browser unsubscribed or its person cleared its data.
    case gone
    /// Worth trying again (429, 5xx, no connection), after `after` when the service said.
    case retry(after: Duration?)
    /// Refused for good (another 4xx, an address Parlor does not send to, a payload that cannot be encrypted).
    case failed(String)
}

/// Sends one encrypted push to a subscription's push service.
public protocol PushDelivering: Sendable {
    func deliver(_ payload: [UInt8], to subscription: PushSubscription, urgency: String) async -> PushOutcome
}

/// Web Push over HTTP (RFC 8030): the payload encrypted for the browser (RFC 8291), signed for the push service
/// with Parlor's VAPID key (RFC 8292), sent through the outbound rules (``OutboundClient``): https on the policy's
/// ports to a public address it pinned (plain http only to loopback, when the policy allows it for tests), no
/// redirects, `timeout` for all of it.
public struct HTTPPushDelivery: PushDelivering {
    public let vapid: VAPID
    let client: OutboundClient
    /// How long a push service keeps a push for a browser that is offline.
    public static let timeToLive = 24 * 60 * 60

    public init(vapid: VAPID, policy: AddressPolicy, timeout: Duration = .seconds(10)) {
        self.vapid = vapid
        client = OutboundClient(
            policy: policy, schemes: policy.allowsLoopback ? ["https", "http"] : ["https"], timeout: timeout,
            byteLimit: OutboundClient.otherBodyLimit, secureUnlessLoopback: true
        )
    }

    public var policy: AddressPolicy { client.policy }
    public var timeout: Duration { client.timeout }

    /// Whether Parlor would send to `endpoint`: the checks of a delivery, without sending. Nil when it would;
    /// otherwise why not, in words for the person whose browser subscribed.
    public func refusal(of endpoint: String) async -> String? {
        do {
            _ = try await client.pinned(endpoint)
            return nil
        } catch {
            return Self.words(error)
        }
    }

    static func words(_ error: OutboundError) -> String {
        switch error {
        case .invalidAddress: "The push service's address is not an https address."
        case .portNotAllowed(let port): "Parlor does not send notifications to port \(port)."
        case .hostNotFound: "The push service could not be found."
        case .addressNotPublic: "The push service is on a private or reserved network."
        default: "The push service cannot be reached."
        }
    }

    public func deliver(_ payload: [UInt8], to subscription: PushSubscription, urgency: String) async -> PushOutcome {
        let body: [UInt8]
        let authorization: String
        do {
            let subscriber = try WebPushEncryption.Subscriber(p256dh: subscription.p256dh, auth: subscription.auth)
            body = try WebPushEncryption.encrypt(payload, to: subscriber)
            guard let url = URL(string: subscription.endpoint), let audience = VAPID.audience(of: url) else { return .failed("bad endpoint") }
            authorization = try vapid.authorization(audience: audience, expiry: Date().addingTimeInterval(12 * 60 * 60))
        } catch {
            return .failed("could not encrypt: \(error)")
        }
        let request = OutboundRequest(.post, subscription.endpoint, headers: [
            ("TTL", String(Self.timeToLive)), ("Urgency", urgency), ("Content-Encoding", "aes128gcm"),
            ("Content-Type", "application/octet-stream"), ("Authorization", authorization),
        ], body: body)
        do {
            // The answer's body says nothing Parlor uses; a little is read so the connection closes cleanly.
            let response = try await client.send(request)
            return Self.outcome(response.status, retryAfter: response.header("Retry-After"))
        } catch {
            // An address refused is refused for good (nothing was sent); a failed exchange is worth another try.
            return error.isRefusedAddress ? .failed(Self.words(error)) : .retry(after: nil)
        }
    }

    /// What a push service's answer means.
    static func outcome(_ status: Int, retryAfter: String?) -> PushOutcome {
        switch status {
        case 200...299: return .delivered
        case 404, 410: return .gone
        case 429, 500...599:
            let after = retryAfter.flatMap { CacheHeaders.retryAfter($0, now: Date()) }
            return .retry(after: after.map { .seconds(min($0, 600)) })
        default: return .failed("push service answered \(status)")
        }
    }
}
