import Clocks
import Foundation
import Logging
import ParlorDomain
import ParlorTemplates
import ParlorViews
import Synchronization

/// The live pages of this instance: knows the open pages and what each shows, and takes the events the bus
/// delivers in lanes: each chat's events in one lane, in the order they were published, different chats'
/// side by side (``LiveLanes``). For each it builds fresh view models for the pages that show what changed,
/// renders each distinct variant once (per viewer, and per "is this chat open here"), and hands the same
/// bytes to every page of that variant. The chat list and unread total of each person with a page open are
/// kept here (``ViewerLists``) and moved on by the events, so a message reads nothing per member.
///
/// Pages register through their open chat's lane, so a page's conversation starts between two of its
/// events, never in the middle of one, and each page with a conversation open keeps a cursor (the newest
/// message it has): a message reaches it exactly once and in order, however the events that announce
/// them were ordered. Run ``run()`` for as long as pages are served.
public final class EventHandler: Sendable {
    let store: any ChatStore
    /// Where the feeds screens read their subscriptions; nil where no feeds are served (their pages are 404).
    let feeds: (any FeedStore)?
    let clock: any WallClock
    /// Times what passes: typing lines and presence dots that age, and the sweeps that look for them.
    let timer: AnyClock<Duration>
    let paths: Paths
    let renderer: FragmentRenderer
    let logger: Logger
    /// Date labels per (locale, time zone), shared with the pages the app renders.
    let dateLabels: DateLabels.Cache
    private let registry = Mutex(ListenerRegistry())
    private let lanes: LiveLanes
    /// The chat lists of the people with a page open.
    let lists = ViewerLists()
    private let fanOutTimers = Mutex<[@Sendable (Duration, Int) -> Void]>([])
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

    /// How many messages a conversation shows at first.
    public static let historyPageSize = 50

    /// The lanes used unless told otherwise: one per core.
    public static var defaultLaneCount: Int { min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 64) }

    /// `lanes`: how many chats' events are applied at once. `laneLimit`: how far one lane may be behind
    /// before the sources of its chats' events wait (``room(for:)``). `clock` is the pages' "now" (dates shown);
    /// `timer` times what ages and the sweeps (a test drives it).
    public init(
        store: any ChatStore, feeds: (any FeedStore)? = nil, clock: any WallClock, timer: AnyClock<Duration> = AnyClock(ContinuousClock()), basePath: String = "", logger: Logger = Logger(label: "parlor.events"),
        dateLabels: DateLabels.Cache = DateLabels.Cache(), bus: any EventBus, templates: @escaping @Sendable () -> TemplateSet,
        encoding: (any UpdateEncoding)? = nil, lanes: Int = EventHandler.defaultLaneCount, laneLimit: Int = 1_000,
        fanOutPartSize: Int = EventHandler.defaultFanOutPartSize, offlineAfter: Duration = Presence.offlineAfter
    ) {
        self.fanOutPartSize = max(1, fanOutPartSize)
        presence = PresenceBoard(clock: timer, offlineAfter: offlineAfter)
        typing = TypingBoard(clock: timer)
        self.timer = timer
        self.store = store
        self.feeds = feeds
        self.dateLabels = dateLabels
        self.logger = logger
        self.clock = clock
        self.paths = Paths(basePath: basePath)
        self.renderer = FragmentRenderer(templates: templates, encoding: encoding)
        self.lanes = LiveLanes(count: lanes, limit: laneLimit)
        messagesInOrder = bus.deliversEachChatsMessagesInOrder
        bus.subscribe { [weak self] event in self?.route(event) }
        bus.onMissedEvents { [weak self] in self?.refreshAll() }
    }

    /// How many lanes apply events side by side.
    public var laneCount: Int { lanes.count }
    /// A room with more members than this has a message's fan-out split into one part per lane, side by side.
    let fanOutPartSize: Int
    public static let defaultFanOutPartSize = 2_000

    /// Each lane applies its events and registers its pages, in order, until cancelled. Events published
    /// meanwhile wait in the lane's queue and are taken in batches: stored messages of one chat that wait
    /// together are delivered together.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            for queue in lanes.queues {
                group.addTask { await self.consume(queue) }
            }
            group.addTask { await self.sweepTyping() }
            group.addTask { await self.sweepPresence() }
        }
    }

    private func consume(_ queue: LiveWorkQueue) async {
        while let batch = await queue.takeAll() {
            let started = ContinuousClock.now
            await process(batch)
            let events = batch.reduce(0) { count, item in item.counts ? count + 1 : count }
            queue.applied(events)
            if events > 0 {
                let elapsed = ContinuousClock.now - started
                for timer in fanOutTimers.withLock({ $0 }) { timer(elapsed, events) }
            }
        }
    }

    /// Hands an event to its lane without taking what it reports (the sweeps' own events).
    func queue(_ published: PublishedEvent) {
        if case .chat(let chat) = published.event.lane { lanes.lane(of: chat).push(.event(published)) }
    }

    /// Hands a published event to the lane of its chat; one that concerns every chat holds all lanes.
    func route(_ published: PublishedEvent) {
        // Presence reports are taken at once (a few dictionary operations); the person's lane tells their watchers.
        switch published.event {
        case .presence(.presenceChanged(let report)): presence.apply(report)
        case .presence(.presenceRefreshed(let reports)): presence.refresh(reports)
        default: break
        }
        switch published.event.lane {
        case .chat(let chat):
            lanes.lane(of: chat).push(.event(published))
        case .everyChat:
            lanes.pushEverywhere(LaneBarrier(lanes: lanes.count) { [self] in
                await apply(published) { try await self.handle(published.event) }
            })
        case .none:
            break
        }
    }

    /// Adds a function told, after each batch of published events reached the open pages, how long that
    /// took and how many events it held.
    public func addFanOutTimer(_ timer: @escaping @Sendable (Duration, Int) -> Void) {
        fanOutTimers.withLock { $0.append(timer) }
    }

    /// Returns when the lane of `chat` is not far behind its events (every lane, for nil): where a source
    /// of many events (a POST, a bot) waits, so that under a flood the pages stay exact and memory bounded
    /// instead of the queue growing until pages must reload. A chat whose lane keeps up never waits for
    /// another's.
    public func room(for chat: ChatID?) async {
        if let chat {
            await lanes.lane(of: chat).room()
        } else {
            for queue in lanes.queues { await queue.room() }
        }
    }

    /// Returns once everything queued before this call, in every lane, has been applied.
    public func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = Atomic(false)
            let resume: @Sendable () -> Void = {
                if !resumed.exchange(true, ordering: .relaxed) { continuation.resume() }
            }
            lanes.pushEverywhere(LaneBarrier(lanes: lanes.count, work: { resume() }, abandoned: resume))
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
                    await apply(published) {
                        try await self.showSent(group)
                        try await self.stoppedTypingBySending(group.map(\.message))
                    }
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
            case .barrier(let barrier):
                await barrier.arrive()
            }
        }
    }

    /// Events were lost on the way here: once every lane is done with what came before, every open page
    /// reloads, and the lists are read again.
    private func refreshAll() {
        lanes.pushEverywhere(LaneBarrier(lanes: lanes.count) { [self] in
            known.forgetWhatEventsChange()
            for (_, entry) in lists.all { entry.forget() }
            let refresh = renderer.update(.refresh, "page", nil)
            let pages = registry.withLock { registry in
                (registry.byViewer.values.flatMap(\.values) + registry.byFeeds.values.flatMap(\.values)).reduce(into: [ObjectIdentifier: any Listener]()) {
                    $0[ObjectIdentifier($1.listener)] = $1.listener
                }
            }
            for listener in pages.values { listener.receive(refresh) }
            logger.warning("events were missed; every open page was told to reload", metadata: ["pages": "\(pages.count)"])
        })
    }

    /// Fragments rendered since start: with many pages on one chat this grows per variant, not per page.
    public var renderCount: Int { renderer.renders.load(ordering: .relaxed) }

    /// Pages listening now.
    public var listenerCount: Int { registry.withLock { $0.count } }

    /// Whether no page is registered, and no index entry is left behind.
    public var hasNoListeners: Bool { registry.withLock { $0.isEmpty } && lists.count == 0 }

    /// Registers an open page and sends it what it shows now: the chat list, the unread badge, and the
    /// open conversation's messages; from then on every change it shows. A page may only open a chat its
    /// viewer is a member of.
    public func register(_ listener: any Listener, for page: PageSubscription) async throws -> ListenerRegistration {
        try await withCheckedThrowingContinuation { continuation in
            if !lanes.lane(of: page).push(.register(listener, page, continuation)) { continuation.resume(throwing: Refusal.unavailable) }
        }
    }

    /// How many times a registration reads the list again when other changes keep coming while it reads;
    /// the last read is kept (the next change sets it right).
    static let listReadAttempts = 4

    private func registerNow(_ listener: any Listener, for page: PageSubscription) async throws -> ListenerRegistration {
        let (entry, joined) = lists.join(page.viewer)
        var handedOver = joined != .mustLoad
        do {
            guard let viewer = try await known.user(page.viewer, in: store) else { throw Refusal.notFound }
            var conversation: ConversationSnapshot?
            switch joined {
            case .mustLoad:
                // One read for all the page shows; this lane applies no event of its chat meanwhile.
                for attempt in 1...Self.listReadAttempts {
                    let screen = try await store.chatsScreen(for: viewer.id, open: page.openChat, before: nil, limit: Self.historyPageSize)
                    conversation = screen.conversation
                    if entry.loaded(ViewerList(user: viewer, summaries: screen.summaries), accept: attempt == Self.listReadAttempts) { break }
                }
                handedOver = true
            case .loading, .ready:
                if joined == .loading, await !entry.ready() { throw Refusal.unavailable }
                if let chat = page.openChat {
                    conversation = try await store.conversation(chat, viewer: viewer.id, before: nil, limit: Self.historyPageSize)
                }
            }
            if page.openChat != nil, conversation == nil { throw Refusal.notFound }
            if let snapshot = conversation, snapshot.showsReaders { conversation = snapshot.with(readers: try await store.readers(of: snapshot.chatID)) }
            var fragments: [ScreenUpdate] = []
            if let chat = page.feedsOf {
                guard let feeds, let subscriptions = try await feeds.feedSubscriptions(in: chat, viewer: viewer.id) else {
                    throw Refusal.notFound
                }
                let list = FeedListBuilder(context: context(for: viewer)).list(chat: chat, subscriptions: subscriptions)
                fragments.append(renderer.update(.replace, list.domID, .feedList(list)))
            }
            if let snapshot = conversation, !page.showsWindow {
                let messages = ConversationBuilder(context: context(for: viewer)).messages(snapshot)
                fragments.append(renderer.update(.replace, messages.domID, .messages(messages)))
            }
            if let chat = page.openChat, let line = try await typingLine(in: chat, for: viewer.id) { fragments.append(line) }
            // Only the presence of people the viewer shares a chat with, now and (checked again at each change) later.
            let watching = try await sharing(with: viewer.id, among: page.watching)
            fragments += try await presenceNow(of: watching)
            let cursor = conversation.map { $0.messages.last?.id ?? MessageID(0) }
            // Under the person's lock: no change to their list falls between what the page is sent and its
            // place among the pages that are told of changes.
            entry.withList { list in
                if let list {
                    let context = context(for: list.user)
                    if page.feedsOf == nil {
                        let items = ChatListBuilder(context: context).loaded(list.summaries, current: page.openChat)
                        listener.receive(renderer.update(.replace, "chat-list", .chatList(items)))
                    }
                    listener.receive(badgeUpdate(total: list.unreadTotal, context: context))
                    for fragment in fragments { listener.receive(fragment) }
                } else {
                    // Events were missed while it registered: the page starts again.
                    listener.receive(renderer.update(.refresh, "page", nil))
                }
                registry.withLock { $0.insert(listener, for: page, cursor: cursor, watching: watching) }
            }
            return ListenerRegistration(handler: self, listener: listener, page: page, list: entry)
        } catch {
            if !handedOver { entry.failedLoading() }
            lists.leave(page.viewer, entry)
            throw error
        }
    }

    func remove(_ listener: any Listener, for page: PageSubscription, list: ViewerLists.Entry) {
        registry.withLock { $0.remove(listener, for: page) }
        lists.leave(page.viewer, list)
    }

    func pages(of viewer: UserID) -> [ListenerRegistry.Entry] {
        registry.withLock { $0.pages(of: viewer) }
    }

    func registry(watchersOf user: UserID) -> [ListenerRegistry.Watcher] {
        registry.withLock { $0.watchers(of: user) }
    }

    func registry(unwatch user: UserID, by viewers: Set<UserID>) {
        registry.withLock { $0.unwatch(user, by: viewers) }
    }

    func registry(pagesShowing chat: ChatID) -> [UserID: [ListenerRegistry.Entry]] {
        registry.withLock { $0.pages(showing: chat) }
    }

    func pages(of viewer: UserID, showing chat: ChatID) -> [ListenerRegistry.Entry] {
        registry.withLock { $0.pages(of: viewer, showing: chat) }
    }

    /// Records that a page now has every message of its open chat up to `cursor`.
    func advance(_ page: ListenerRegistry.Entry, to cursor: MessageID) {
        registry.withLock { $0.advance(page.listener, for: page.page, to: cursor) }
    }

    /// Records several pages' new cursors at once.
    func advance(_ pages: [(page: ListenerRegistry.Entry, cursor: MessageID)]) {
        guard !pages.isEmpty else { return }
        registry.withLock { registry in
            for (page, cursor) in pages { registry.advance(page.listener, for: page.page, to: cursor) }
        }
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
        case .chat(.membersChanged(let change)): try await membersChanged(change)
        case .chat(.roomRenamed(let change)): try await roomRenamed(change)
        case .chat(.involvementChanged(let membership)): involvementChanged(membership)
        case .user(.profileUpdated(let user)):
            known.forget(user.id)
            try await profileUpdated(user)
        case .user(.signedUp(let user)):
            // They joined every open room: its messages reach them from now on, and the rooms' member counts
            // move on the pages that show them (rooms read here before; the others show it when next read).
            for room in known.joinedOpenRooms(user.id) { try await headingChanged(room) }
        case .user(.accountChanged(let state)): try await accountChanged(state)
        case .feed(.subscribed(let subscription)), .feed(.unsubscribed(let subscription)), .feed(.retried(let subscription)),
             .feed(.checked(let subscription)):
            try await feedsChanged(subscription.chatID)
        case .presence(.typing(let report)): try await typingChanged(report)
        case .presence(.presenceChanged(let report)): try await showPresence(of: report.userID)
        case .chat, .user, .feed, .presence, .account: break
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
            lists.entry(person)?.forget()
            for page in pages(of: person) where told.insert(ObjectIdentifier(page.listener)).inserted {
                page.listener.receive(refresh)
            }
        }
        return told.count
    }

    func badgeUpdate(total: Int, context: ViewerContext) -> ScreenUpdate {
        renderer.update(.badge, "unread-badge", .badge(PageBuilder(context: context).unreadBadge(total)))
    }

    /// A new name, time zone or locale: the person's own pages and their contacts' pages get their chat
    /// list again (names, and dates in the new time zone), rendered once per open chat. Where the
    /// conversation open is with that person (or is the person's own, whose dates moved), its header and
    /// messages follow. Runs while every lane waits.
    private func profileUpdated(_ user: User) async throws {
        for (person, entry) in lists.all {
            let redraw: (User, Set<ChatID>, [ListenerRegistry.Entry])?? = entry.update(.other) { list -> (User, Set<ChatID>, [ListenerRegistry.Entry])? in
                var affected: Set<ChatID>
                if person == user.id {
                    list.user = user
                    affected = Set(list.chats.keys)
                } else {
                    affected = Set(list.contactChanged(user))
                }
                let pages = pages(of: person)
                guard !affected.isEmpty, !pages.isEmpty else { return nil }
                sendList(list, to: pages)
                return (list.user, affected, pages)
            }
            guard let found = redraw, let (viewer, affected, pages) = found else { continue }
            let drawing = context(for: viewer)
            for (chat, open) in Dictionary(grouping: pages.filter { $0.page.openChat.map(affected.contains) == true }, by: { $0.page.openChat! }) {
                try await redrawConversation(chat, for: viewer, context: drawing, pages: open)
            }
        }
    }

    /// The header and the newest messages of an open conversation, drawn again for `pages`; each page's
    /// cursor moves to the newest message drawn, so none is appended twice.
    private func redrawConversation(_ chat: ChatID, for viewer: User, context: ViewerContext, pages: [ListenerRegistry.Entry]) async throws {
        guard var snapshot = try await store.conversation(chat, viewer: viewer.id, before: nil, limit: Self.historyPageSize) else { return }
        if snapshot.showsReaders { snapshot = snapshot.with(readers: try await store.readers(of: chat)) }
        let builder = ConversationBuilder(context: context)
        let header = builder.header(chat, snapshot.heading)
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
        guard !pages.isEmpty, let feeds, let members = try await known.chat(chat, in: store).map({ Set($0.members) }) else { return }
        // Members at this event only: a page of someone taken out of the room was told to leave, and gets nothing more.
        for (viewerID, viewerPages) in Dictionary(grouping: pages, by: \.page.viewer) where members.contains(viewerID) {
            guard let viewer = try await known.user(viewerID, in: store),
                  let subscriptions = try await feeds.feedSubscriptions(in: chat, viewer: viewerID)
            else { continue }
            let list = FeedListBuilder(context: context(for: viewer)).list(chat: chat, subscriptions: subscriptions)
            deliver([renderer.update(.replace, list.domID, .feedList(list))], to: viewerPages)
        }
    }

    /// A new chat: at the top of each member's lists (nothing read but the other member of a direct chat, once).
    private func chatCreated(_ chat: Chat) async throws {
        known.remember(chat)
        for member in chat.members {
            guard let entry = lists.entry(member) else { continue }
            var contact: User?
            if let contactID = chat.contact(of: member) {
                contact = try await known.user(contactID, in: store)
                if contact == nil { continue }
            }
            let summary = ChatSummary(
                chatID: chat.id, heading: chat.heading(contact: contact, others: try await store.others(in: chat, for: member)), lastMessage: nil,
                unreadCount: 0, lastActivity: chat.createdAt
            )
            entry.update(.other) { list in
                guard list.added(summary) else { return }
                sendRow(chat.id, of: list, to: pages(of: member), movingToTop: true, isNew: true)
            }
        }
    }
}

/// A page's place in the handler; cancel it when the page's connection closes. Cancelling twice is harmless.
public final class ListenerRegistration: Sendable {
    private let handler: EventHandler
    private let listener: any Listener
    private let page: PageSubscription
    private let list: ViewerLists.Entry
    private let cancelled = Atomic(false)

    init(handler: EventHandler, listener: any Listener, page: PageSubscription, list: ViewerLists.Entry) {
        self.handler = handler
        self.listener = listener
        self.page = page
        self.list = list
    }

    public func cancel() {
        guard !cancelled.exchange(true, ordering: .relaxed) else { return }
        handler.remove(listener, for: page, list: list)
    }
}
