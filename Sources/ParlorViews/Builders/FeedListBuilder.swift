import Foundation
import ParlorDomain

/// Builds a chat's feeds screen: each subscription's state in words, times in the viewer's zone.
public struct FeedListBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    static let emptyText = "This chat follows no feed yet. Paste the address of a feed, or of a page that has one, above."
    static let errorText = "The feeds of this chat could not be read just now. Reload the page to try again."
    static let actionForm = "feed-actions"

    public func page(
        chat: ChatID, heading chatHeading: ChatHeading, subscriptions: [FeedSubscription]?, unreadTotal: Int, url: String = "", errorMessage: String? = nil
    ) -> FeedsPageViewModel {
        let paths = context.paths
        return FeedsPageViewModel(
            layout: PageBuilder(context: context).layout(title: "Feeds", unreadTotal: unreadTotal, liveFeeds: chat),
            heading: chatHeading.contact.map { "Feeds of your chat with \($0.displayName)" } ?? "Feeds of \(Headings.title(chatHeading))",
            chatURL: paths.chat(chat),
            form: SubscribeFeedViewModel(actionURL: paths.feeds(chat), csrfToken: context.csrfToken, url: url, errorMessage: errorMessage),
            list: list(chat: chat, subscriptions: subscriptions)
        )
    }

    /// The list; nil `subscriptions` is the error state (they could not be read).
    public func list(chat: ChatID, subscriptions: [FeedSubscription]?) -> FeedListViewModel {
        guard let subscriptions else {
            return FeedListViewModel(domID: Self.domID(chat), items: [], emptyText: nil, errorMessage: Self.errorText)
        }
        return FeedListViewModel(
            domID: Self.domID(chat), items: subscriptions.map(item), emptyText: subscriptions.isEmpty ? Self.emptyText : nil, errorMessage: nil
        )
    }

    public static func domID(_ chat: ChatID) -> String { "feed-list-\(chat)" }

    public func item(_ subscription: FeedSubscription) -> FeedItemViewModel {
        let paths = context.paths
        let time = { (date: Date) in context.dates.listDate(date, now: context.now) }
        let line: String, stateClass: String
        switch subscription.status {
        case .loading:
            line = "Loading…"
            stateClass = "feed-loading"
        case .loaded(let newItems, let checkedAt):
            line = "Loaded · \(newItems == 0 ? "nothing new" : "\(newItems) new") · checked \(time(checkedAt))"
            stateClass = "feed-loaded"
        case .failed(let reason, _):
            line = "\(reason) · next try \(time(subscription.nextCheck))"
            stateClass = "feed-failed"
        case .paused(let reason, _):
            line = "Paused after \(FeedSubscription.failuresBeforePause) failed checks in a row. \(reason)"
            stateClass = "feed-paused"
        }
        let isFailed: Bool
        switch subscription.status {
        case .failed, .paused: isFailed = true
        case .loading, .loaded: isFailed = false
        }
        return FeedItemViewModel(
            domID: "feed-\(subscription.id)",
            title: subscription.title ?? subscription.url,
            url: subscription.url,
            stateLine: line,
            stateClass: stateClass,
            isLoading: subscription.status == .loading,
            isFailed: isFailed,
            retryURL: isFailed ? paths.retryFeed(subscription.chatID, subscription.id) : nil,
            unsubscribeURL: paths.unsubscribeFeed(subscription.chatID, subscription.id),
            actionForm: Self.actionForm
        )
    }
}
