import BoundedWork
import Clocks
import Foundation
import Logging
import OutboundHTTP
import ParlorDomain
import ParlorFeeds
import ParlorViews
import Synchronization

/// Fetches a linked page for its card. The real one goes through the feeds' outbound rules and fetcher.
public protocol PageFetching: Sendable {
    /// The page's bytes, final address and `Content-Type`; nil when it could not be fetched.
    func page(_ url: String) async -> FetchedFeed?
    /// The bytes of the picture a page names; nil when it could not be fetched.
    func picture(_ url: String) async -> [UInt8]?
}

/// Pages fetched through the outbound rules (``OutboundClient``): a public address Parlor resolved and pinned
/// (loopback only when the policy allows it), redirects followed by hand and checked again, at most five; 5 seconds
/// and 1 MB for everything, 3 MB for a page's picture.
public struct HTTPPageFetcher: PageFetching {
    let pages: OutboundClient
    let pictures: OutboundClient
    static let userAgent = "Parlor link preview"

    public init(policy: AddressPolicy, timeout: Duration = .seconds(5), byteLimit: Int = 1_000_000, pictureByteLimit: Int = 3_000_000) {
        pages = OutboundClient(policy: policy, timeout: timeout, byteLimit: byteLimit, redirectLimit: 5, inflates: true)
        pictures = OutboundClient(policy: policy, timeout: timeout, byteLimit: pictureByteLimit, redirectLimit: 5, inflates: true)
    }

    public func page(_ url: String) async -> FetchedFeed? {
        let headers = [(name: "User-Agent", value: Self.userAgent), (name: "Accept", value: "text/html, application/xhtml+xml;q=0.9, */*;q=0.1")]
        guard let response = try? await pages.send(OutboundRequest(.get, url, headers: headers)), response.isSuccess else { return nil }
        return FetchedFeed(body: response.body, url: response.url, contentType: response.header("Content-Type"))
    }

    public func picture(_ url: String) async -> [UInt8]? {
        let headers = [(name: "User-Agent", value: Self.userAgent), (name: "Accept", value: "image/*")]
        guard let response = try? await pictures.send(OutboundRequest(.get, url, headers: headers)), response.isSuccess else { return nil }
        return response.body
    }
}

/// Makes a fetched picture into an image Parlor serves (``OutsideImages``; a stand-in in tests).
public protocol PictureMaking: Sendable {
    /// The versions `purpose` needs, written to the media folder; nil when the bytes are no image Parlor reads.
    func versions(of bytes: [UInt8], for purpose: ImagePurpose) async -> [StoredImageVersion]?
    /// Whether versions made earlier are all still in the media folder, kept there for a while longer.
    func keep(_ versions: [StoredImageVersion]) -> Bool
}

extension OutsideImages: PictureMaking {}

/// Makes the card of the page a message links to: the first http or https link of a new or edited message, fetched
/// off the request (the send never waits), read for its metadata (``PagePreview``) and stored through the router,
/// which draws the message's cell again on every page. The page's picture (`og:image`, `twitter:image`) is fetched
/// the same way and made into a thumbnail by the image service; the chat's members see it as they see the message.
/// What a link gave is kept for an hour unless told otherwise (by link, up to a thousand), so a link many people post is fetched once,
/// even when they post it while its page is still being fetched.
public final class LinkPreviewer: EventObserver {
    let fetcher: any PageFetching
    let pictures: (any PictureMaking)?
    let logger: Logger
    /// Each message with the link found in it as it was observed, ``fetchLimit`` fetched at once.
    let messages: WorkerQueue<Link>
    struct Link: Sendable {
        let message: Message
        let url: String
    }
    /// What a link gave: the page's card and its picture's versions (written to the media folder by hash, so one
    /// picture serves every message that links the page).
    private struct Card: Sendable {
        let page: PagePreview
        let picture: [StoredImageVersion]
    }
    /// What links gave, and the fetches under way: a link posted again while its page is still being fetched waits
    /// for that fetch instead of starting another. One lock for both, so a link is never between the two.
    private struct Links {
        var known: [String: (card: Card?, at: AnyClock<Duration>.Instant)] = [:]
        var fetching: [String: Task<Card?, Never>] = [:]
    }
    private let links = Mutex(Links())
    /// Ages what was kept.
    let timer: AnyClock<Duration>
    static let fetchLimit = 8
    static let cacheLimit = 1_000
    /// How long what a link gave is kept (an hour unless told).
    let cacheLifetime: Duration
    /// How each message's card ended (for tests): "previewed", "no-card", "not-stored".
    public let outcomes = Mutex<[String: Int]>([:])
    /// Links whose card (or lack of one) came from what was kept, not from a fetch.
    public let cacheHits = Atomic(0)

    /// Without `pictures`, cards have no picture. `refused` is told how many links were turned away so far, each
    /// time one is (the queue was full).
    public init(
        fetcher: any PageFetching, pictures: (any PictureMaking)?, cacheLifetime: Duration = .seconds(3_600),
        timer: AnyClock<Duration> = AnyClock(ContinuousClock()), logger: Logger,
        refused: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.fetcher = fetcher
        self.cacheLifetime = cacheLifetime
        self.timer = timer
        self.pictures = pictures
        self.logger = logger
        messages = WorkerQueue(high: 10_000, concurrency: Self.fetchLimit, refused: refused)
    }

    public func observe(_ event: DomainEvent, router: any EventSink) {
        switch event {
        case .message(.sent(let message, _)), .message(.edited(let message)):
            guard message.notice == nil, message.feed == nil, !message.isDeleted, message.preview == nil, let url = Self.link(in: message.body) else { return }
            messages.submit(Link(message: message, url: url))
        default:
            break
        }
    }

    /// The first http or https link of a message's text, when short enough to fetch.
    static func link(in text: String) -> String? {
        guard text.contains("http") else { return nil }
        return Linkifier.segments(text).lazy.compactMap(\.url).first { $0.utf8.count <= LinkPreview.urlLimit }
    }

    /// Makes each message's card, several at once, until cancelled; `router` stores them.
    public func run(router: any EventSink) async {
        await messages.run { [self] link in await preview(link.message, url: link.url, router: router) }
    }

    /// Returns once every link observed so far has its card, or none.
    public func settled() async { await messages.settled() }

    func preview(_ message: Message, url: String, router: any EventSink) async {
        guard let card = await card(for: url) else {
            count("no-card")
            return
        }
        let page = card.page
        let preview = LinkPreview(url: url, title: page.title, description: page.description, siteName: page.siteName)
        if case .previewed = await router.send(.previewing(PreviewResult(messageID: message.id, preview: preview, image: card.picture)), requestID: nil) {
            count("previewed")
        } else {
            count("not-stored")
        }
    }

    /// The page's card and its picture, when the page is HTML with a title; a picture that cannot be fetched or read
    /// leaves the card without one.
    private func fetch(_ url: String) async -> Card? {
        guard let fetched = await fetcher.page(url), let body = fetched.body, FeedDiscovery.looksLikeHTML(body, contentType: fetched.contentType),
              let page = PagePreview.parse(body, url: fetched.url, contentType: fetched.contentType)
        else { return nil }
        var picture: [StoredImageVersion] = []
        if let pictures, let address = page.imageURL, let bytes = await fetcher.picture(address) {
            picture = await pictures.versions(of: bytes, for: .linkPreview) ?? []
        }
        return Card(page: page, picture: picture)
    }

    /// What `url` gave: kept, being fetched for another message, or fetched now.
    private func card(for url: String) async -> Card? {
        enum Found {
            case kept(Card?)
            case fetching(Task<Card?, Never>)
            case fetch(Task<Card?, Never>)
        }
        let (now, lifetime) = (timer.now, cacheLifetime)
        let found = links.withLock { links -> Found in
            if let entry = links.known[url], entry.at.duration(to: now) < lifetime { return .kept(entry.card) }
            if let fetch = links.fetching[url] { return .fetching(fetch) }
            let fetch = Task { [self] in await self.fetch(url) }
            links.fetching[url] = fetch
            return .fetch(fetch)
        }
        switch found {
        case .kept(let card):
            cacheHits.add(1, ordering: .relaxed)
            // The media folder's sweep takes a picture no message names any more: a kept card whose picture went is
            // shown without it.
            if let card, !card.picture.isEmpty, pictures?.keep(card.picture) != true {
                return Card(page: card.page, picture: [])
            }
            return card
        case .fetching(let fetch):
            cacheHits.add(1, ordering: .relaxed)
            return await fetch.value
        case .fetch(let fetch):
            let card = await withTaskCancellationHandler { await fetch.value } onCancel: { fetch.cancel() }
            let (at, cut) = (timer.now, Task.isCancelled)
            links.withLock { links in
                links.fetching[url] = nil
                // A fetch cut short by shutting down tells nothing about the page.
                guard !cut else { return }
                if links.known.count >= Self.cacheLimit { links.known.removeAll(keepingCapacity: true) }
                links.known[url] = (card, at)
            }
            return card
        }
    }

    private func count(_ outcome: String) {
        outcomes.withLock { $0[outcome, default: 0] += 1 }
    }
}
