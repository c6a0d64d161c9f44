import Foundation
import ParlorDomain
import Synchronization

/// Fetches a feed's bytes over HTTP: the real one checks every address it connects to, tests use
/// ``InMemoryFeedFetcher``.
public protocol FeedFetcher: Sendable {
    /// One GET of `url`, conditional on `validators`, following redirects the fetcher allows.
    func fetch(_ url: String, validators: FeedValidators) async throws(FeedFetchError) -> FetchedFeed
}

/// What a server answered.
public struct FetchedFeed: Sendable, Hashable {
    /// Nil for 304 Not Modified.
    public let body: [UInt8]?
    /// Where the body came from, after redirects: relative links resolve against it.
    public let url: String
    public let contentType: String?
    public let validators: FeedValidators
    /// `Cache-Control: max-age`, in seconds.
    public let maxAge: Int?

    public init(body: [UInt8]?, url: String, contentType: String? = nil, validators: FeedValidators = FeedValidators(), maxAge: Int? = nil) {
        self.body = body
        self.url = url
        self.contentType = contentType
        self.validators = validators
        self.maxAge = maxAge
    }
}

/// Why a fetch failed, in words for the feeds list ("The feed could not be read: …").
public enum FeedFetchError: Error, Hashable, Sendable, CustomStringConvertible {
    case invalidAddress
    case portNotAllowed(Int)
    case hostNotFound(String)
    /// The host resolves to an address Parlor does not fetch from (private, loopback, link-local…).
    case addressNotPublic(String)
    case tooManyRedirects
    case status(Int, retryAfter: Int?)
    case timedOut
    case tooLarge(bytes: Int)
    case connectionFailed
    /// Parlor is stopping.
    case cancelled

    public var description: String {
        switch self {
        case .invalidAddress: "the address is not an http or https address"
        case .portNotAllowed(let port): "port \(port) is not one Parlor fetches feeds from"
        case .hostNotFound(let host): "\(host) could not be found"
        case .addressNotPublic(let host): "\(host) is on a private or reserved network"
        case .tooManyRedirects: "the server redirected too many times"
        case .status(let code, _): "the server answered \(code)"
        case .timedOut: "the server took too long to answer"
        case .tooLarge(let bytes): "the feed is larger than \(FeedError.size(bytes))"
        case .connectionFailed: "the server could not be reached"
        case .cancelled: "the check was interrupted"
        }
    }

    /// What the server asked for with `Retry-After`, in seconds.
    public var retryAfter: Int? {
        if case .status(_, let retryAfter) = self { retryAfter } else { nil }
    }
}

/// Answers from a table, for tests: each address has a list of answers given in turn (the last repeats).
public final class InMemoryFeedFetcher: FeedFetcher {
    public enum Answer: Sendable {
        case feed(String, contentType: String = "application/rss+xml", etag: String? = nil)
        case notModified
        case failure(FeedFetchError)
    }

    private let answers: Mutex<[String: [Answer]]>
    private let requests = Mutex<[(url: String, validators: FeedValidators)]>([])

    public init(_ answers: [String: [Answer]] = [:]) {
        self.answers = Mutex(answers)
    }

    /// Replaces what `url` answers from now on.
    public func set(_ url: String, _ answers: [Answer]) {
        self.answers.withLock { $0[url] = answers }
    }

    /// Every fetch so far, in order.
    public var fetched: [(url: String, validators: FeedValidators)] { requests.withLock { $0 } }

    public func fetch(_ url: String, validators: FeedValidators) async throws(FeedFetchError) -> FetchedFeed {
        requests.withLock { $0.append((url, validators)) }
        let answer: Answer? = answers.withLock { table in
            guard var list = table[url], let first = list.first else { return nil }
            if list.count > 1 {
                list.removeFirst()
                table[url] = list
            }
            return first
        }
        switch answer {
        case .none: throw .status(404, retryAfter: nil)
        case .feed(let text, let contentType, let etag):
            return FetchedFeed(body: Array(text.utf8), url: url, contentType: contentType, validators: FeedValidators(etag: etag))
        case .notModified: return FetchedFeed(body: nil, url: url, validators: validators)
        case .failure(let error): throw error
        }
    }
}
