import Foundation

/// Where a chat's feed subscriptions are kept, with the keys of the items each has seen: its reads (``FeedReads``)
/// and its writes (``FeedWrites``). Only the event router writes through it; every method is one transaction.
public protocol FeedStore: FeedReads, FeedWrites {}

/// Feed subscriptions, read: what the feeds screens and the poller are given.
public protocol FeedReads: Sendable {
    /// The subscriptions of a chat, oldest first; nil when `viewer` is not a member.
    func feedSubscriptions(in chat: ChatID, viewer: UserID) async throws -> [FeedSubscription]?
    func feedSubscription(_ id: FeedSubscriptionID) async throws -> FeedSubscription?
    /// Subscriptions due at `date`, the most overdue first.
    func dueFeedSubscriptions(at date: Date, limit: Int) async throws -> [FeedSubscription]
}

/// Subscriptions made, removed, retried and checked: the event router's, through ``FeedStore``.
public protocol FeedWrites: Sendable {
    /// Stores a validated subscription, loading and due now. Refuses with `notFound` when the subscriber
    /// is not a member of the chat, `alreadySubscribed` for the same address twice, `tooManyFeeds` past `limit`.
    func subscribe(_ new: NewSubscription, limit: Int) async throws -> FeedSubscription
    /// Removes a subscription of the requester's chat; the messages it posted stay.
    func unsubscribe(_ request: FeedRequest) async throws -> FeedSubscription
    /// Makes a subscription of the requester's chat due at `request.date` and loading, with no failures.
    func retry(_ request: FeedRequest) async throws -> FeedSubscription
    /// Records a check: on `loaded`, posts the items the subscription has not seen (on its first load only
    /// the newest; then up to `postLimit`, oldest first) and remembers their keys, in the same transaction
    /// as the messages. Nil when the subscription is gone.
    func recordCheck(_ check: FeedCheck) async throws -> CheckedFeed?
}
