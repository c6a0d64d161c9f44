import ParlorDomain
import ParlorViews

/// A chat's feeds screen: its list of subscriptions, drawn again once per viewer when one is added, removed,
/// retried or checked; members only, as they are at the event.
struct FeedsUpdater: LiveUpdater {
    let live: LiveContext

    /// The list a feeds page of `chat` shows `viewer`; nil where no feeds are served or the viewer may not see them.
    func list(of chat: ChatID, for viewer: User) async throws -> ScreenUpdate? {
        guard let feeds = live.feeds, let subscriptions = try await feeds.feedSubscriptions(in: chat, viewer: viewer.id) else { return nil }
        let list = FeedListBuilder(context: context(for: viewer)).list(chat: chat, subscriptions: subscriptions)
        return renderer.update(.replace, list.domID, .feedList(list))
    }

    /// A chat's feeds changed: its feeds screens get the list again, rendered once per viewer.
    func feedsChanged(_ chat: ChatID) async throws {
        let pages = live.registry.withLock { $0.feedPages(of: chat) }
        guard !pages.isEmpty, live.feeds != nil, let members = try await known.chat(chat, in: store).map({ Set($0.members) }) else { return }
        // Members at this event only: a page of someone taken out of the room was told to leave, and gets nothing more.
        for (viewerID, viewerPages) in Dictionary(grouping: pages, by: \.page.viewer) where members.contains(viewerID) {
            guard let viewer = try await known.user(viewerID, in: store), let update = try await list(of: chat, for: viewer) else { continue }
            deliver([update], to: viewerPages)
        }
    }
}
