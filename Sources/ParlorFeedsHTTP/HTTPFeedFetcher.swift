import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import ParlorDomain
import ParlorFeeds

/// Fetches feeds with AsyncHTTPClient, refusing what a feed address must not reach (``OutboundAddress``);
/// redirects followed by hand, each hop checked the same way, at most five; a time limit for the whole
/// answer, a size limit for the body (decompressed).
public struct HTTPFeedFetcher: FeedFetcher {
    public let policy: AddressPolicy
    public let timeout: Duration
    public let byteLimit: Int
    public static let redirectLimit = 5
    let resolver = HostResolver.shared

    public init(policy: AddressPolicy = AddressPolicy(), timeout: Duration = .seconds(20), byteLimit: Int = FeedParser.byteLimit) {
        self.policy = policy
        self.timeout = timeout
        self.byteLimit = byteLimit
    }

    static let userAgent = "Parlor feed reader"
    static let accept = """
        application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, application/json;q=0.8, \
        application/xml;q=0.8, text/xml;q=0.8, text/html;q=0.5, */*;q=0.1
        """

    public func fetch(_ url: String, validators: FeedValidators) async throws(FeedFetchError) -> FetchedFeed {
        let deadline = ContinuousClock.now + timeout
        var current = url
        for _ in 0...Self.redirectLimit {
            let target = try await pinned(current)
            switch try await get(target, validators: validators, deadline: deadline) {
            case .redirect(let location):
                guard let next = URL(string: location, relativeTo: URL(string: current))?.absoluteString else { throw .invalidAddress }
                current = next
            case .answer(let fetched):
                return fetched
            }
        }
        throw .tooManyRedirects
    }

    /// Checks `url` against the policy and picks the address to connect to.
    func pinned(_ url: String) async throws(FeedFetchError) -> OutboundAddress {
        try await OutboundAddress.pinned(url, policy: policy, resolver: resolver)
    }

    enum Step {
        case redirect(String)
        case answer(FetchedFeed)
    }

    private func get(_ target: OutboundAddress, validators: FeedValidators, deadline: ContinuousClock.Instant) async throws(FeedFetchError) -> Step {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let seconds = Int64(timeout.components.seconds)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(seconds), read: .seconds(seconds))
        configuration.decompression = .enabled(limit: .size(byteLimit))
        configuration.dnsOverride = [target.host: target.address]
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            let step = try await exchange(client, target, validators, deadline)
            try? await client.shutdown()
            return step
        } catch {
            try? await client.shutdown()
            throw Self.reason(error, byteLimit: byteLimit)
        }
    }

    private func exchange(_ client: HTTPClient, _ target: OutboundAddress, _ validators: FeedValidators, _ deadline: ContinuousClock.Instant) async throws -> Step {
        var request = HTTPClientRequest(url: target.url)
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Accept", value: Self.accept)
        request.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        if let etag = validators.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw FeedFetchError.timedOut }
        let response = try await client.execute(request, deadline: .now() + .nanoseconds(Self.nanoseconds(left)))
        let status = Int(response.status.code)
        switch status {
        case 301, 302, 303, 307, 308:
            guard let location = response.headers.first(name: "Location"), !location.isEmpty else { throw FeedFetchError.status(status, retryAfter: nil) }
            return .redirect(location)
        case 304:
            return .answer(FetchedFeed(body: nil, url: target.url, validators: validators, maxAge: Self.maxAge(response.headers)))
        case 200...299:
            var body: [UInt8] = []
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= byteLimit else { throw FeedFetchError.tooLarge(bytes: byteLimit) }
                guard ContinuousClock.now < deadline else { throw FeedFetchError.timedOut }
                body += chunk.readableBytesView
            }
            return .answer(FetchedFeed(
                body: body, url: target.url, contentType: response.headers.first(name: "Content-Type"),
                validators: FeedValidators(etag: Self.header(response.headers, "ETag"), lastModified: Self.header(response.headers, "Last-Modified")),
                maxAge: Self.maxAge(response.headers)
            ))
        default:
            throw FeedFetchError.status(status, retryAfter: Self.retryAfter(response.headers))
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// A header's value when it is short enough to store and send back.
    static func header(_ headers: HTTPHeaders, _ name: String) -> String? {
        guard let value = headers.first(name: name), !value.isEmpty, value.utf8.count <= 512,
              value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
        else { return nil }
        return value
    }

    /// `Cache-Control: max-age=N`, in seconds, at most a week.
    static func maxAge(_ headers: HTTPHeaders) -> Int? {
        headers["Cache-Control"].lazy.compactMap(CacheHeaders.maxAge).first
    }

    /// `Retry-After`: seconds, or an HTTP date from now; at most a week.
    static func retryAfter(_ headers: HTTPHeaders) -> Int? {
        headers.first(name: "Retry-After").flatMap { CacheHeaders.retryAfter($0, now: Date()) }
    }

    /// An error from the client in words for a person; `byteLimit` is the most a body may hold, compressed
    /// or inflated.
    static func reason(_ error: any Error, byteLimit: Int) -> FeedFetchError {
        if let known = error as? FeedFetchError { return known }
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
