/// What happens to a chat's feed subscriptions. The `-ing` cases come from a source (a form, the poller);
/// the router answers with the case that says how it ended. Items a check posts are `MessageEvent.sent`.
public enum FeedEvent: Hashable, Sendable {
    /// A member pastes a feed's (or a page's) address.
    case subscribing(NewSubscription)
    /// Stored, "Loading…" until its first check.
    case subscribed(FeedSubscription)
    case subscribeFailed(NewSubscription, reason: Refusal)
    case unsubscribing(FeedRequest)
    /// Gone from the list; what it posted stays.
    case unsubscribed(FeedSubscription)
    /// "Retry now": checked at once, resumed when paused.
    case retrying(FeedRequest)
    /// The retry is stored; the poller checks it now.
    case retried(FeedSubscription)
    /// An unsubscribe or a retry was refused.
    case requestFailed(FeedRequest, reason: Refusal)
    /// The poller's finding.
    case checking(FeedCheck)
    /// The finding is stored (with the messages it posted): the row shows the new state.
    case checked(FeedSubscription)
}
