import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// Sends requests to addresses people and bots give Parlor (feeds, linked pages, push services, bots' webhooks)
/// under one set of rules: only the accepted schemes, on the policy's ports, to a public address resolved here and
/// pinned (connected to at exactly the address checked, no second lookup); redirects followed by hand, each hop
/// checked the same way, at most `redirectLimit` (none unless told: a 3xx is then the answer); `timeout` for the
/// whole exchange, every hop and the body included (a server that trickles is cut off); `byteLimit` for a 2xx
/// answer's body, inflated when the client inflates.
public struct OutboundClient: Sendable {
    public let policy: AddressPolicy
    public let schemes: Set<String>
    public let timeout: Duration
    public let byteLimit: Int
    public let redirectLimit: Int
    /// Whether gzip and deflate are asked for and inflated (within ``byteLimit``).
    public let inflates: Bool
    /// Whether plain http is refused except to a loopback address (a push service in a test): https only otherwise.
    public let secureUnlessLoopback: Bool
    let resolver: HostResolver
    /// The most bytes of an answer other than 2xx that are read (what an error page says is not used).
    public static let otherBodyLimit = 4_096

    public init(
        policy: AddressPolicy, schemes: Set<String> = ["http", "https"], timeout: Duration, byteLimit: Int, redirectLimit: Int = 0,
        inflates: Bool = false, secureUnlessLoopback: Bool = false, resolver: HostResolver = .shared
    ) {
        self.secureUnlessLoopback = secureUnlessLoopback
        self.policy = policy
        self.schemes = schemes
        self.timeout = timeout
        self.byteLimit = max(0, byteLimit)
        self.redirectLimit = max(0, redirectLimit)
        self.inflates = inflates
        self.resolver = resolver
    }

    /// Checks `url` against the rules and picks the address a request to it would go to, without sending anything.
    public func pinned(_ url: String) async throws(OutboundError) -> OutboundAddress {
        let target = try await OutboundAddress.pinned(url, policy: policy, schemes: schemes, resolver: resolver)
        if secureUnlessLoopback, target.url.lowercased().hasPrefix("http:"), let bytes = AddressPolicy.bytes(of: target.address),
           AddressPolicy(ports: policy.ports, allowsLoopback: false).allows(bytes) {
            throw .invalidAddress
        }
        return target
    }

    /// Sends `request`, following the redirects allowed (a GET only), and reads the answer.
    public func send(_ request: OutboundRequest) async throws(OutboundError) -> OutboundResponse {
        let deadline = ContinuousClock.now + timeout
        var current = request.url
        let follows = request.method == .get ? redirectLimit : 0
        for hop in 0...follows {
            let target = try await pinned(current)
            let response = try await exchange(request, at: target, deadline: deadline)
            guard follows > 0, Self.redirects.contains(response.status), let location = response.header("Location"), !location.isEmpty else {
                return response
            }
            guard hop < follows else { throw .tooManyRedirects }
            guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteString else { throw .invalidAddress }
            current = next
        }
        throw .tooManyRedirects
    }

    static let redirects: Set<Int> = [301, 302, 303, 307, 308]

    /// One hop, within what is left of the time.
    private func exchange(
        _ request: OutboundRequest, at target: OutboundAddress, deadline: ContinuousClock.Instant
    ) async throws(OutboundError) -> OutboundResponse {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw .timedOut }
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let milliseconds = Self.milliseconds(left)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .milliseconds(milliseconds), read: .milliseconds(milliseconds))
        if inflates { configuration.decompression = .enabled(limit: .size(byteLimit)) }
        configuration.dnsOverride = [target.host: target.address]
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        var outgoing = HTTPClientRequest(url: target.url)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if inflates { outgoing.headers.replaceOrAdd(name: "Accept-Encoding", value: "gzip, deflate") }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let ready = outgoing
        do {
            // The whole hop, the body included, races the time left.
            let response = try await withThrowingTaskGroup(of: OutboundResponse?.self) { group in
                group.addTask {
                    try await self.read(client.execute(ready, deadline: .now() + .milliseconds(milliseconds)), from: target.url, deadline: deadline)
                }
                group.addTask {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            try? await client.shutdown()
            guard let response else { throw OutboundError.timedOut }
            return response
        } catch {
            try? await client.shutdown()
            throw Self.reason(error, byteLimit: byteLimit)
        }
    }

    /// The answer's body, chunk by chunk: each one checked against the limit, the time left and cancellation (a body
    /// that keeps trickling never holds the exchange past its time, however the client's own timeouts see it).
    private func read(_ response: HTTPClientResponse, from url: String, deadline: ContinuousClock.Instant) async throws -> OutboundResponse {
        let status = Int(response.status.code)
        let success = (200...299).contains(status)
        let limit = success ? byteLimit : min(byteLimit, Self.otherBodyLimit)
        var body: [UInt8] = []
        for try await chunk in response.body {
            try Task.checkCancellation()
            guard ContinuousClock.now < deadline else { throw OutboundError.timedOut }
            guard body.count + chunk.readableBytes <= limit else {
                if success { throw OutboundError.tooLarge(bytes: byteLimit) }
                body += chunk.readableBytesView.prefix(limit - body.count)
                break
            }
            body += chunk.readableBytesView
        }
        return OutboundResponse(status: status, headers: response.headers.map { ($0.name, $0.value) }, body: body, url: url)
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000 else { return .max }
        return max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    /// An error from the client as what went wrong; `byteLimit` is the most a body may hold, compressed or inflated.
    static func reason(_ error: any Error, byteLimit: Int) -> OutboundError {
        if let known = error as? OutboundError { return known }
        if error is CancellationError { return .cancelled }
        if error is NIOTooManyBytesError { return .tooLarge(bytes: byteLimit) }
        // A body that inflates past the limit (a small gzip of gigabytes) is too large; one that does not
        // inflate at all is a broken answer.
        if let inflating = error as? NIOHTTPDecompression.DecompressionError {
            return inflating == .limit ? .tooLarge(bytes: byteLimit) : .connectionFailed
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return .timedOut
            case .cancelled: return .cancelled
            default: return .connectionFailed
            }
        }
        return .connectionFailed
    }
}
