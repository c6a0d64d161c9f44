import Foundation
import OutboundHTTP
import ParlorDomain
import ParlorFeeds

/// Fetches feeds through the outbound rules (``OutboundClient``): a public address pinned, redirects followed by
/// hand and each hop checked, at most five; a time limit for the whole answer, a size limit for the body (inflated).
/// A conditional GET: a feed that has not changed answers 304.
public struct HTTPFeedFetcher: FeedFetcher {
    public let client: OutboundClient
    public static let redirectLimit = 5

    public init(policy: AddressPolicy = AddressPolicy(), timeout: Duration = .seconds(20), byteLimit: Int = FeedParser.byteLimit) {
        client = OutboundClient(policy: policy, timeout: timeout, byteLimit: byteLimit, redirectLimit: Self.redirectLimit, inflates: true)
    }

    public var policy: AddressPolicy { client.policy }
    public var timeout: Duration { client.timeout }
    public var byteLimit: Int { client.byteLimit }

    static let userAgent = "Parlor feed reader"
    static let accept = """
        application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, application/json;q=0.8, \
        application/xml;q=0.8, text/xml;q=0.8, text/html;q=0.5, */*;q=0.1
        """

    public func fetch(_ url: String, validators: FeedValidators) async throws(FeedFetchError) -> FetchedFeed {
        var headers = [(name: "User-Agent", value: Self.userAgent), (name: "Accept", value: Self.accept)]
        if let etag = validators.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = validators.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        let response: OutboundResponse
        do {
            response = try await client.send(OutboundRequest(.get, url, headers: headers))
        } catch {
            throw FeedFetchError(error)
        }
        switch response.status {
        case 304:
            return FetchedFeed(body: nil, url: response.url, validators: validators, maxAge: Self.maxAge(response))
        case 200...299:
            return FetchedFeed(
                body: response.body, url: response.url, contentType: response.header("Content-Type"),
                validators: FeedValidators(etag: Self.header(response, "ETag"), lastModified: Self.header(response, "Last-Modified")),
                maxAge: Self.maxAge(response)
            )
        default:
            throw .status(response.status, retryAfter: response.header("Retry-After").flatMap { CacheHeaders.retryAfter($0, now: Date()) })
        }
    }

    /// A header's value when it is short enough to store and send back.
    static func header(_ response: OutboundResponse, _ name: String) -> String? {
        guard let value = response.header(name), !value.isEmpty, value.utf8.count <= 512,
              value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
        else { return nil }
        return value
    }

    /// `Cache-Control: max-age=N`, in seconds, at most a week.
    static func maxAge(_ response: OutboundResponse) -> Int? {
        response.headers(named: "Cache-Control").lazy.compactMap(CacheHeaders.maxAge).first
    }
}

extension FeedFetchError {
    /// Why an outbound request failed, in the feeds list's words.
    public init(_ error: OutboundError) {
        switch error {
        case .invalidAddress: self = .invalidAddress
        case .portNotAllowed(let port): self = .portNotAllowed(port)
        case .hostNotFound(let host): self = .hostNotFound(host)
        case .addressNotPublic(let host): self = .addressNotPublic(host)
        case .tooManyRedirects: self = .tooManyRedirects
        case .timedOut: self = .timedOut
        case .tooLarge(let bytes): self = .tooLarge(bytes: bytes)
        case .connectionFailed: self = .connectionFailed
        case .cancelled: self = .cancelled
        }
    }
}
