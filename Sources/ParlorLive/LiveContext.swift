import Clocks
import Logging
import ParlorDomain
import ParlorTemplates
import ParlorViews
import Synchronization

/// What every screen's updater shares: the stores it reads, the clocks, the renderer, the open pages (the
/// registry), each open person's kept chat list, what is known between events, and who types and is around.
/// One per ``EventHandler``; its updaters (``ChatListUpdater``, ``ConversationUpdater``, ``RoomHeadingUpdater``,
/// ``PresenceUpdater``, ``TypingUpdater``, ``FeedsUpdater``) are values over it.
final class LiveContext: Sendable {
    let store: any ChatReads
    /// Where the feeds screens read their subscriptions; nil where no feeds are served (their pages are 404).
    let feeds: (any FeedReads)?
    /// The pages' "now" (dates shown).
    let clock: any WallClock
    /// Times what passes: typing lines and presence dots that age, and the sweeps that look for them.
    let timer: AnyClock<Duration>
    let paths: Paths
    let renderer: FragmentRenderer
    let logger: Logger
    /// Date labels per (locale, time zone), shared with the pages the app renders.
    let dateLabels: DateLabels.Cache
    let registry = Mutex(ListenerRegistry())
    /// The chat lists of the people with a page open.
    let lists = ViewerLists()
    /// Chats and people read for earlier events; also who is in the chats that events touched, for telling
    /// pages to reload after a failed update.
    let known = KnownValues()
    /// Who is typing in each chat.
    let typing: TypingBoard
    /// Who is around, from every instance's reports.
    let presence: PresenceBoard
    /// Whether the bus hands on each chat's messages in id order: then a chat's newest message handed on
    /// and the new ones are all a page needs.
    let messagesInOrder: Bool
    /// A room with more members than this has a message's fan-out split into one part per lane, side by side.
    let fanOutPartSize: Int
    /// How many lanes apply events side by side.
    let laneCount: Int

    init(
        store: any ChatReads, feeds: (any FeedReads)?, clock: any WallClock, timer: AnyClock<Duration>, paths: Paths, renderer: FragmentRenderer,
        logger: Logger, dateLabels: DateLabels.Cache, offlineAfter: Duration, messagesInOrder: Bool, fanOutPartSize: Int, laneCount: Int
    ) {
        self.store = store
        self.feeds = feeds
        self.clock = clock
        self.timer = timer
        self.paths = paths
        self.renderer = renderer
        self.logger = logger
        self.dateLabels = dateLabels
        typing = TypingBoard(clock: timer)
        presence = PresenceBoard(clock: timer, offlineAfter: offlineAfter)
        self.messagesInOrder = messagesInOrder
        self.fanOutPartSize = max(1, fanOutPartSize)
        self.laneCount = laneCount
    }

    /// The builders' context for a viewer, in their time zone and locale, at the clock's now.
    func context(for viewer: User) -> ViewerContext {
        ViewerContext(viewer: viewer, now: clock.now, basePath: paths.basePath, cache: dateLabels)
    }

    func deliver(_ updates: [ScreenUpdate], to pages: [ListenerRegistry.Entry]) {
        guard !updates.isEmpty else { return }
        for page in pages { page.listener.receive(updates) }
    }

    func badgeUpdate(total: Int, context: ViewerContext) -> ScreenUpdate {
        renderer.update(.badge, "unread-badge", .badge(PageBuilder(context: context).unreadBadge(total)))
    }

    func pages(of viewer: UserID) -> [ListenerRegistry.Entry] {
        registry.withLock { $0.pages(of: viewer) }
    }

    func pages(of viewer: UserID, showing chat: ChatID) -> [ListenerRegistry.Entry] {
        registry.withLock { $0.pages(of: viewer, showing: chat) }
    }

    func pages(showing chat: ChatID) -> [UserID: [ListenerRegistry.Entry]] {
        registry.withLock { $0.pages(showing: chat) }
    }

    /// Records several pages' new cursors at once (each page then has every message of its open chat up to its cursor).
    func advance(_ pages: [(page: ListenerRegistry.Entry, cursor: MessageID)]) {
        guard !pages.isEmpty else { return }
        registry.withLock { registry in
            for (page, cursor) in pages { registry.advance(page.listener, for: page.page, to: cursor) }
        }
    }

    /// The people with these ids (each read for an earlier event unless their profile changed since).
    func people(_ ids: some Sequence<UserID>) async throws -> [UserID: User] {
        var people: [UserID: User] = [:]
        for id in Set(ids) { people[id] = try await known.user(id, in: store) }
        return people
    }

    /// The person a kept list is drawn for; read (once) while it is being read again.
    func viewer(_ member: UserID, _ entry: ViewerLists.Entry) async throws -> User? {
        if let user = entry.withList({ $0?.user }) { return user }
        return try await known.user(member, in: store)
    }
}

/// One screen's share of the live pages: what an event changes on the pages of that screen, over the shared
/// ``LiveContext``.
protocol LiveUpdater: Sendable {
    var live: LiveContext { get }
}

extension LiveUpdater {
    var store: any ChatReads { live.store }
    var known: KnownValues { live.known }
    var lists: ViewerLists { live.lists }
    var renderer: FragmentRenderer { live.renderer }
    var paths: Paths { live.paths }

    func context(for viewer: User) -> ViewerContext { live.context(for: viewer) }
    func deliver(_ updates: [ScreenUpdate], to pages: [ListenerRegistry.Entry]) { live.deliver(updates, to: pages) }
    func badgeUpdate(total: Int, context: ViewerContext) -> ScreenUpdate { live.badgeUpdate(total: total, context: context) }
    func pages(of viewer: UserID) -> [ListenerRegistry.Entry] { live.pages(of: viewer) }
    func pages(of viewer: UserID, showing chat: ChatID) -> [ListenerRegistry.Entry] { live.pages(of: viewer, showing: chat) }
    func people(_ ids: some Sequence<UserID>) async throws -> [UserID: User] { try await live.people(ids) }

    /// The chat lists' updater, for a change that moves a row or the badge too.
    var chatList: ChatListUpdater { ChatListUpdater(live: live) }
}
