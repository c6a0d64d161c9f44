import AsyncHTTPClient
import Foundation
import NIOCore
import ParlorDomain
import ParlorFeeds
import ParlorFeedsHTTP
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
/// with Parlor's VAPID key (RFC 8292), sent with AsyncHTTPClient through the same outbound rules as feeds: https
/// on the policy's ports to a public address it pinned (plain http only to loopback, when the policy allows it
/// for tests).
public struct HTTPPushDelivery: PushDelivering {
    public let vapid: VAPID
    public let policy: AddressPolicy
    public let timeout: Duration
    /// How long a push service keeps a push for a browser that is offline.
    public static let timeToLive = 24 * 60 * 60

    public init(vapid: VAPID, policy: AddressPolicy, timeout: Duration = .seconds(10)) {
        self.vapid = vapid
        self.policy = policy
        self.timeout = timeout
    }

    /// Whether Parlor would send to `endpoint`: the checks of a delivery, without sending. Nil when it would;
    /// otherwise why not, in words for the person whose browser subscribed.
    public func refusal(of endpoint: String) async -> String? {
        do {
            _ = try await Self.pinned(endpoint, policy: policy)
            return nil
        } catch {
            return Self.words(error)
        }
    }

    static func pinned(_ endpoint: String, policy: AddressPolicy) async throws(FeedFetchError) -> OutboundAddress {
        let target = try await OutboundAddress.pinned(endpoint, policy: policy, schemes: policy.allowsLoopback ? ["https", "http"] : ["https"])
        // Plain http is for a test push service on this machine only.
        if target.url.lowercased().hasPrefix("http:"), let bytes = AddressPolicy.bytes(of: target.address),
           AddressPolicy(ports: policy.ports, allowsLoopback: false).allows(bytes) {
            throw .invalidAddress
        }
        return target
    }

    static func words(_ error: FeedFetchError) -> String {
        switch error {
        case .invalidAddress: "The push service's address is not an https address."
        case .portNotAllowed(let port): "Parlor does not send notifications to port \(port)."
        case .hostNotFound: "The push service could not be found."
        case .addressNotPublic: "The push service is on a private or reserved network."
        default: "The push service cannot be reached."
        }
    }

    public func deliver(_ payload: [UInt8], to subscription: PushSubscription, urgency: String) async -> PushOutcome {
        let target: OutboundAddress
        do {
            target = try await Self.pinned(subscription.endpoint, policy: policy)
        } catch {
            return .failed(Self.words(error))
        }
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
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let seconds = Int64(timeout.components.seconds)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(seconds), read: .seconds(seconds))
        configuration.dnsOverride = [target.host: target.address]
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        var request = HTTPClientRequest(url: target.url)
        request.method = .POST
        request.headers.add(name: "TTL", value: String(Self.timeToLive))
        request.headers.add(name: "Urgency", value: urgency)
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "Authorization", value: authorization)
        request.body = .bytes(ByteBuffer(bytes: body))
        let outcome: PushOutcome
        do {
            let response = try await client.execute(request, timeout: .seconds(seconds))
            // The answer's body says nothing Parlor uses; a little is read so the connection closes cleanly.
            _ = try? await response.body.collect(upTo: 4_096)
            outcome = Self.outcome(Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"))
        } catch {
            outcome = .retry(after: nil)
        }
        try? await client.shutdown()
        return outcome
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
