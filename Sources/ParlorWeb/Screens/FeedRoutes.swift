import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

// A chat's feeds: the list with each subscription's state, following one, retrying and unsubscribing.
// Every change is an event; the poller does the fetching, never the request.

public struct FeedRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let events: EventRouter
        let store: any ChatReads & FeedReads

        public init(gate: SignInGate, pages: WebPages, events: EventRouter, store: any ChatReads & FeedReads) {
            self.gate = gate
            self.pages = pages
            self.events = events
            self.store = store
        }
    }

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var pages: WebPages { dependencies.pages }
    private var events: EventRouter { dependencies.events }
    private var store: any ChatReads & FeedReads { dependencies.store }
    private var paths: Paths { pages.paths }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.get("/rooms/{id}/feeds", gate.signedIn { [self] request, signedIn in
            try await feedsPage(signedIn, chat: try ChatPages.chatID(request))
        })
        router.post("/rooms/{id}/feeds", bodyLimit: 8 * 1024, gate.signedIn(refused: { [self] request, signedIn in
            try await feedsPage(signedIn, chat: try ChatPages.chatID(request), url: request.form["url"] ?? "", error: SignInGate.forgedFormMessage)
        }) { [self] request, signedIn in
            try await subscribe(request, signedIn)
        })
        router.post("/rooms/{id}/feeds/{feed}/retry", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            try await feedRequest(request, signedIn) { .retrying($0) }
        })
        router.post("/rooms/{id}/feeds/{feed}/delete", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            try await feedRequest(request, signedIn) { .unsubscribing($0) }
        })
    }

    /// The feeds screen; `url` and `error` put a refused address back in its field with the reason.
    func feedsPage(_ signedIn: SignedIn, chat: ChatID, url: String = "", error: String? = nil, status: HTTPStatus = .ok) async throws -> Response {
        let viewer = signedIn.user
        guard let stored = try await store.chat(chat), stored.hasMember(viewer.id) else { throw ChatPages.noSuchChat }
        var contact: User?
        if let contactID = stored.contact(of: viewer.id) {
            contact = try await store.user(contactID)
            if contact == nil { throw ChatPages.noSuchChat }
        }
        // The list alone may fail to read: the page still shows, with the list's error state.
        let subscriptions = try? await store.feedSubscriptions(in: chat, viewer: viewer.id)
        let unread = try await store.unreadTotal(for: viewer.id)
        let page = FeedListBuilder(context: pages.context(signedIn)).page(
            chat: chat, heading: stored.heading(contact: contact, others: try await store.others(in: stored, for: viewer.id)), subscriptions: subscriptions, unreadTotal: unread, url: url, errorMessage: error
        )
        return pages.page(page, status: status)
    }

    private func subscribe(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let chat = try ChatPages.chatID(request)
        let url = request.form["url"] ?? ""
        let new = NewSubscription(chatID: chat, subscriberID: signedIn.user.id, url: url, createdAt: pages.clock.now)
        switch await events.send(.subscribing(new), requestID: request.id.description) {
        case .subscribed(let subscription):
            return .redirect(to: paths.feeds(chat) + "#feed-\(subscription.id)")
        case .subscribeFailed(_, .notFound):
            throw ChatPages.noSuchChat
        case .subscribeFailed(_, let reason):
            let status: HTTPStatus = reason == .unavailable ? .serviceUnavailable : reason == .alreadySubscribed ? .conflict : .unprocessableContent
            // What was pasted goes back in the field, cut to what the field can hold.
            return try await feedsPage(signedIn, chat: chat, url: String(url.prefix(FeedAddress.maximumLength)), error: reason.message, status: status)
        default:
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
    }

    /// Retry now, unsubscribe: the subscription must be one of this chat's; the store checks membership.
    private func feedRequest(_ request: Request, _ signedIn: SignedIn, _ event: (FeedRequest) -> FeedEvent) async throws -> Response {
        let chat = try ChatPages.chatID(request)
        guard let raw = request.parameters["feed"], let id = Int64(raw), id > 0 else { throw Self.noSuchFeed }
        let asked = FeedRequest(subscriptionID: FeedSubscriptionID(id), chatID: chat, requesterID: signedIn.user.id, date: pages.clock.now)
        switch await events.send(event(asked), requestID: request.id.description) {
        case .retried(let subscription):
            return request.isFromScript ? Response(status: .noContent) : .redirect(to: paths.feeds(chat) + "#feed-\(subscription.id)")
        case .unsubscribed:
            return request.isFromScript ? Response(status: .noContent) : .redirect(to: paths.feeds(chat))
        case .requestFailed(_, .unavailable):
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        default:
            throw Self.noSuchFeed
        }
    }

    static let noSuchFeed = HTTPError(.notFound, "This chat does not follow that feed, or the chat is not yours.")
}
