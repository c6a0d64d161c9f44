import Foundation
import Logging
import ParlorDomain
import ParlorTemplates
import ParlorViews
import Synchronization

/// The live pages of this instance: knows the open pages and what each shows, and takes the events the bus
/// delivers one after another, in the order they were published. For each it builds fresh view models for
/// the pages that show what changed, renders each distinct variant once (per viewer, and per "is this chat
/// open here"), and hands the same bytes to every page of that variant.
///
/// Pages register through the same queue, so a page's first state is read between two events, never in
/// the middle of one, and each page with a conversation open keeps a cursor (the newest message it has):
/// a message reaches it exactly once and in order, however the events that announce them were ordered.
/// Run ``run()`` for as long as pages are served.
public final class EventHandler: Sendable {
    let store: any ChatStore
    /// Where the feeds screens read their subscriptions; nil where no feeds are served (their pages are 404).
    let feeds: (any FeedStore)?
    let clock: any WallClock
    let paths: Paths
    let renderer: FragmentRenderer
    let logger: Logger
    /// Date labels per (locale, time zone), shared with the pages the app renders.
    let dateLabels: DateLabels.Cache
    private let registry = Mutex(ListenerRegistry())
    private let work = LiveWorkQueue()
    private let fanOutTimers = Mutex<[@Sendable (Duration, Int) -> Void]>([])
    /// Chats and people read for earlier events; also who is in the chats that events touched, for telling
    /// pages to reload after a failed update.
    let known = KnownValues()
    /// Whether the bus hands on each chat's messages in id order: then a chat's newest message handed on
    /// and the new ones are all a page needs.
    let messagesInOrder: Bool

    /// How many messages a conversation shows at first.
    public static let historyPageSize = 50

    public init(
        store: any ChatStore, feeds: (any FeedStore)? = nil, clock: any WallClock, basePath: String = "", logger: Logger = Logger(label: "parlor.events"),
        dateLabels: DateLabels.Cache = DateLabels.Cache(), bus: any EventBus, templates: @escaping @Sendable () -> TemplateSet,
        encoding: (any UpdateEncoding)? = nil
    ) {
        self.store = store
        self.feeds = feeds
        self.dateLabels = dateLabels
        self.logger = logger
        self.clock = clock
        self.paths = Paths(basePath: basePath)
        self.renderer = FragmentRenderer(templates: templates, encoding: encoding)
        messagesInOrder = bus.deliversEachChatsMessagesInOrder
        bus.subscribe { [work] event in work.push(.event(event)) }
        bus.onMissedEvents { [work] in work.push(.refreshAll) }
    }

    /// Applies published events and registers pages, in order, until cancelled. Events published meanwhile
    /// wait in the queue and are taken in batches: stored messages of one chat that wait together are
    /// delivered together.
    public func run() async {
        while let batch = await work.takeAll() {
            let started = ContinuousClock.now
            await process(batch)
            let events = batch.reduce(0) { count, item in if case .event = item { count + 1 } else { count } }
            work.applied(events)
            if events > 0 {
                let elapsed = ContinuousClock.now - started
                for timer in fanOutTimers.withLock({ $0 }) { timer(elapsed, events) }
            }
        }
    }

    /// Adds a function told, after each batch of published events reached the open pages, how long that
    /// took and how many events it held.
    public func addFanOutTimer(_ timer: @escaping @Sendable (Duration, Int) -> Void) {
        fanOutTimers.withLock { $0.append(timer) }
    }

    /// Returns when the live pages are not far behind the published events: where a source of many
    /// events (a POST, a bot) waits, so that under a flood the pages stay exact and memory bounded instead
    /// of the queue growing until pages must reload.
    public func room() async {
        await work.room()
    }

    /// Returns once everything queued before this call has been applied.
    public func settled() async {
        await withCheckedContinuation { continuation in
            if !work.push(.settle(continuation)) { continuation.resume() }
        }
    }

    private func process(_ batch: [LiveWork]) async {
        // Stored messages of one chat in this batch go out together, where the first of them was queued.
        var sends: [ChatID: [(message: Message, token: String)]] = [:]
        var stored = Set<String>()
        for case .event(let published) in batch {
            if case .message(.sent(let message, let token)) = published.event {
                sends[message.chatID, default: []].append((message, token))
                stored.insert(token)
            }
        }
        var delivered = Set<ChatID>()
        for item in batch {
            switch item {
            case .event(let published):
                switch published.event {
                case .message(.sent(let message, _)):
                    guard delivered.insert(message.chatID).inserted, let group = sends[message.chatID] else { continue }
                    await apply(published) { try await self.showSent(group) }
                case .message(.sending(let outgoing)) where stored.contains(outgoing.token):
                    continue  // stored in the same batch: "Sending" would be replaced at once
                default:
                    await apply(published) { try await self.handle(published.event) }
                }
            case .register(let listener, let page, let continuation):
                do {
                    continuation.resume(returning: try await registerNow(listener, for: page))
                } catch {
                    continuation.resume(throwing: error)
                }
            case .settle(let continuation):
                continuation.resume()
            case .refreshAll:
                known.forgetWhatEventsChange()
                let refresh = renderer.update(.refresh, "page", nil)
                let pages = registry.withLock { registry in
                    (registry.byViewer.values.flatMap(\.values) + registry.byFeeds.values.flatMap(\.values)).reduce(into: [ObjectIdentifier: any Listener]()) {
                        $0[ObjectIdentifier($1.listener)] = $1.listener
                    }
                }
                for listener in pages.values { listener.receive(refresh) }
                logger.warning("events were missed; every open page was told to reload", metadata: ["pages": "\(pages.count)"])
            }
        }
    }

    /// Fragments rendered since start: with many pages on one chat this grows per variant, not per page.
    public var renderCount: Int { renderer.renders.load(ordering: .relaxed) }

    /// Pages listening now.
    public var listenerCount: Int { registry.withLock { $0.count } }

    /// Whether no page is registered, and no index entry is left behind.
    public var hasNoListeners: Bool { registry.withLock { $0.isEmpty } }

    /// Registers an open page and sends it what it shows now: the chat list, the unread badge, and the
    /// open conversation's messages; from then on every change it shows. A page may only open a chat its
    /// viewer is a member of.
    public func register(_ listener: any Listener, for page: PageSubscription) async throws -> ListenerRegistration {
        try await withCheckedThrowingContinuation { continuation in
            if !work.push(.register(listener, page, continuation)) { continuation.resume(throwing: Refusal.unavailable) }
        }
    }

    private func registerNow(_ listener: any Listener, for page: PageSubscription) async throws -> ListenerRegistration {
        guard let viewer = try await known.user(page.viewer, in: store) else { throw Refusal.notFound }
        let context = context(for: viewer)
        if let chat = page.feedsOf {
            guard let feeds, let subscriptions = try await feeds.feedSubscriptions(in: chat, viewer: viewer.id) else {
                throw Refusal.notFound
            }
            listener.receive(badgeUpdate(total: try await store.unreadTotal(for: viewer.id), context: context))
            let list = FeedListBuilder(context: context).list(chat: chat, subscriptions: subscriptions)
            listener.receive(renderer.update(.replace, list.domID, .feedList(list)))
            registry.withLock { $0.insert(listener, for: page) }
            return ListenerRegistration(handler: self, listener: listener, page: page)
        }
        // One read for all the page shows; no event is applied until the page is registered.
        let screen = try await store.chatsScreen(for: viewer.id, open: page.openChat, before: nil, limit: Self.historyPageSize)
        if page.openChat != nil, screen.conversation == nil { throw Refusal.notFound }
        let list = ChatListBuilder(context: context).loaded(screen.summaries, current: page.openChat)
        listener.receive(renderer.update(.replace, "chat-list", .chatList(list)))
        listener.receive(badgeUpdate(total: screen.unreadTotal, context: context))
        if let snapshot = screen.conversation {
            let messages = ConversationBuilder(context: context).messages(snapshot)
            listener.receive(renderer.update(.replace, messages.domID, .messages(messages)))
        }
        let cursor = screen.conversation.map { $0.messages.last?.id ?? MessageID(0) }
        registry.withLock { $0.insert(listener, for: page, cursor: cursor) }
        return ListenerRegistration(handler: self, listener: listener, page: page)
    }

    func remove(_ listener: any Listener, for page: PageSubscription) {
        registry.withLock { $0.remove(listener, for: page) }
    }

    func pages(of viewer: UserID) -> [ListenerRegistry.Entry] {
        registry.withLock { $0.pages(of: viewer) }
    }

    func pages(of viewer: UserID, showing chat: ChatID) -> [ListenerRegistry.Entry] {
        registry.withLock { $0.pages(of: viewer, showing: chat) }
    }

    /// Records that a page now has every message of its open chat up to `cursor`.
    func advance(_ page: ListenerRegistry.Entry, to cursor: MessageID) {
        registry.withLock { $0.advance(page.listener, for: page.page, to: cursor) }
    }

    /// The builders' context for a viewer, in their time zone and locale, at the clock's now.
    func context(for viewer: User) -> ViewerContext {
        ViewerContext(viewer: viewer, now: clock.now, basePath: paths.basePath, cache: dateLabels)
    }

    /// Updates every page that shows what `event` changed.
    func handle(_ event: DomainEvent) async throws {
        switch event {
        case .message(let event): try await handle(event)
        case .chat(.created(let chat)): try await chatCreated(chat)
        case .user(.profileUpdated(let user)):
            known.forget(user.id)
            try await profileUpdated(user)
        case .feed(.subscribed(let subscription)), .feed(.unsubscribed(let subscription)), .feed(.retried(let subscription)),
             .feed(.checked(let subscription)):
            try await feedsChanged(subscription.chatID)
        case .chat, .user, .feed: break
        }
    }

    /// Runs `body` for `published`; when it fails, the pages that missed the update are told to reload.
    private func apply(_ published: PublishedEvent, _ body: () async throws -> Void) async {
        do {
            try await body()
        } catch is CancellationError {
            // Shutting down: the pages are closing with the server.
        } catch {
            // The change itself is stored, but pages that show it missed the update: they are told to reload,
            // which brings them the whole state. The event's kind and the cause only: never a message body.
            let event = published.event
            let refreshed = refreshPages(affectedBy: event)
            logger.error("open pages were not updated; they were told to reload", metadata: [
                "event": "\(event.kind)", "request": "\(published.requestID ?? "-")", "error": "\(String(describing: error))",
                "pages": "\(refreshed)",
            ])
        }
    }

    /// Sends `refresh` once to every open page of the people `event` concerns; returns how many.
    private func refreshPages(affectedBy event: DomainEvent) -> Int {
        var people = Set<UserID>()
        var chat: ChatID?
        switch event {
        case .message(.sending(let outgoing)), .message(.failedSending(let outgoing, _)):
            people.insert(outgoing.senderID)
            chat = outgoing.chatID
        case .message(.sent(let message, _)), .message(.edited(let message)), .message(.deleted(let message)),
             .message(.photoProcessed(let message)):
            people.insert(message.senderID)
            chat = message.chatID
        case .message(.userRead(let id, let reader, _, _)):
            people.insert(reader)
            chat = id
        case .chat(.created(let created)):
            people.formUnion(created.members)
        case .user(.profileUpdated(let user)):
            people.insert(user.id)
            people.formUnion(known.contacts(of: user.id))
        default:
            break
        }
        if let chat { people.formUnion(known.members(of: chat) ?? []) }
        let refresh = renderer.update(.refresh, "page", nil)
        var told = Set<ObjectIdentifier>()
        for person in people {
            for page in pages(of: person) where told.insert(ObjectIdentifier(page.listener)).inserted {
                page.listener.receive(refresh)
            }
        }
        return told.count
    }

    func badgeUpdate(for viewer: User, context: ViewerContext) async throws -> ScreenUpdate {
        badgeUpdate(total: try await store.unreadTotal(for: viewer.id), context: context)
    }

    func badgeUpdate(total: Int, context: ViewerContext) -> ScreenUpdate {
        renderer.update(.badge, "unread-badge", .badge(PageBuilder(context: context).unreadBadge(total)))
    }

    /// A new name, time zone or locale: the person's own pages and their contacts' pages get their chat
    /// list again (names, and dates in the new time zone), rendered once per open chat. Where the
    /// conversation open is with that person (or is the person's own, whose dates moved), its header and
    /// messages follow.
    private func profileUpdated(_ user: User) async throws {
        let own = try await store.chatList(for: user.id)
        for person in [user] + own.map(\.contact) {
            let pages = pages(of: person.id)
            guard !pages.isEmpty else { continue }
            let context = context(for: person)
            let builder = ChatListBuilder(context: context)
            let summaries = person.id == user.id ? own : try await store.chatList(for: person.id)
            var variants: [ChatID?: ScreenUpdate] = [:]
            for page in pages {
                let update = variants[page.page.openChat]
                    ?? renderer.update(.replace, "chat-list", .chatList(builder.loaded(summaries, current: page.page.openChat)))
                variants[page.page.openChat] = update
                page.listener.receive(update)
            }
            let affected = Set(summaries.filter { person.id == user.id || $0.contact.id == user.id }.map(\.chatID))
            for (chat, open) in Dictionary(grouping: pages.filter { $0.page.openChat.map(affected.contains) == true }, by: { $0.page.openChat! }) {
                try await redrawConversation(chat, for: person, context: context, pages: open)
            }
        }
    }

    /// The header and the newest messages of an open conversation, drawn again for `pages`; each page's
    /// cursor moves to the newest message drawn, so none is appended twice.
    private func redrawConversation(_ chat: ChatID, for viewer: User, context: ViewerContext, pages: [ListenerRegistry.Entry]) async throws {
        guard let snapshot = try await store.conversation(chat, viewer: viewer.id, before: nil, limit: Self.historyPageSize) else { return }
        let builder = ConversationBuilder(context: context)
        let header = builder.header(chat, contact: snapshot.contact)
        let messages = builder.messages(snapshot)
        deliver([
            renderer.update(.replace, header.domID, .conversationHeader(header)),
            renderer.update(.replace, messages.domID, .messages(messages)),
        ], to: pages)
        if let newest = snapshot.messages.last {
            for page in pages { advance(page, to: newest.id) }
        }
    }

    /// A chat's feeds changed: its feeds screens get the list again, rendered once per viewer.
    private func feedsChanged(_ chat: ChatID) async throws {
        let pages = registry.withLock { $0.feedPages(of: chat) }
        guard !pages.isEmpty, let feeds else { return }
        for (viewerID, viewerPages) in Dictionary(grouping: pages, by: \.page.viewer) {
            guard let viewer = try await known.user(viewerID, in: store) else { continue }
            let subscriptions = try await feeds.feedSubscriptions(in: chat, viewer: viewerID)
            let list = FeedListBuilder(context: context(for: viewer)).list(chat: chat, subscriptions: subscriptions)
            deliver([renderer.update(.replace, list.domID, .feedList(list))], to: viewerPages)
        }
    }

    private func chatCreated(_ chat: Chat) async throws {
        known.remember(chat)
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = try await known.user(member, in: store),
                  let summary = try await store.chatSummary(chat.id, for: member)
            else { continue }
            let item = ChatListBuilder(context: context(for: viewer)).item(summary, isCurrent: false)
            let update = renderer.update(.prepend, "chat-list-items", .chatListItem(item))
            for page in pages { page.listener.receive(update) }
        }
    }
}

/// A page's place in the handler; cancel it when the page's connection closes. Cancelling twice is harmless.
public final class ListenerRegistration: Sendable {
    private let handler: EventHandler
    private let listener: any Listener
    private let page: PageSubscription
    private let cancelled = Atomic(false)

    init(handler: EventHandler, listener: any Listener, page: PageSubscription) {
        self.handler = handler
        self.listener = listener
        self.page = page
    }

    public func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        handler.remove(listener, for: page)
    }
}
