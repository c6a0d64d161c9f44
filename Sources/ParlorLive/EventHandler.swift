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
    /// What the screens' updaters share.
    let live: LiveContext
    private let lanes: LiveLanes
    private let fanOutTimers = Mutex<[@Sendable (Duration, Int) -> Void]>([])

    /// How many messages a conversation shows at first.
    public static let historyPageSize = 50

    /// The lanes used unless told otherwise: one per core.
    public static var defaultLaneCount: Int { min(max(ProcessInfo.processInfo.activeProcessorCount, 1), 64) }

    /// `lanes`: how many chats' events are applied at once. `laneLimit`: how far one lane may be behind
    /// before the sources of its chats' events wait (``room(for:)``). `clock` is the pages' "now" (dates shown);
    /// `timer` times what ages and the sweeps (a test drives it).
    public init(
        store: any ChatReads, feeds: (any FeedReads)? = nil, clock: any WallClock, timer: AnyClock<Duration> = AnyClock(ContinuousClock()),
        basePath: String = "", logger: Logger = Logger(label: "parlor.events"),
        dateLabels: DateLabels.Cache = DateLabels.Cache(), bus: any EventBus, templates: @escaping @Sendable () -> TemplateSet,
        encoding: (any UpdateEncoding)? = nil, lanes: Int = EventHandler.defaultLaneCount, laneLimit: Int = 1_000,
        fanOutPartSize: Int = EventHandler.defaultFanOutPartSize, offlineAfter: Duration = Presence.offlineAfter
    ) {
        let lanes = LiveLanes(count: lanes, limit: laneLimit)
        self.lanes = lanes
        live = LiveContext(
            store: store, feeds: feeds, clock: clock, timer: timer, paths: Paths(basePath: basePath),
            renderer: FragmentRenderer(templates: templates, encoding: encoding), logger: logger, dateLabels: dateLabels, offlineAfter: offlineAfter,
            messagesInOrder: bus.deliversEachChatsMessagesInOrder, fanOutPartSize: fanOutPartSize, laneCount: lanes.count
        )
        bus.subscribe { [weak self] event in self?.route(event) }
        bus.onMissedEvents { [weak self] in self?.refreshAll() }
    }

    /// How many lanes apply events side by side.
    public var laneCount: Int { lanes.count }
    public static let defaultFanOutPartSize = 2_000

    var conversations: ConversationUpdater { ConversationUpdater(live: live) }
    var chatList: ChatListUpdater { ChatListUpdater(live: live) }
    var rooms: RoomHeadingUpdater { RoomHeadingUpdater(live: live) }
    var presence: PresenceUpdater { PresenceUpdater(live: live) }
    var typing: TypingUpdater { TypingUpdater(live: live) }
    var feedScreens: FeedsUpdater { FeedsUpdater(live: live) }

    /// Each lane applies its events and registers its pages, in order, until cancelled. Events published
    /// meanwhile wait in the lane's queue and are taken in batches: stored messages of one chat that wait
    /// together are delivered together.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            for queue in lanes.queues {
                group.addTask { await self.consume(queue) }
            }
            group.addTask { await self.typing.sweep(queue: self.queue) }
            group.addTask { await self.presence.sweep(queue: self.queue) }
        }
    }

    private func consume(_ queue: LiveWorkQueue) async {
        // "Sending" of messages not stored within their batch, held for the next batch when one is already waiting
        // (their messages are mostly stored by then, and "Sending" is not drawn only to be replaced at once), drawn
        // first thing in it; drawn at once when nothing is waiting, so no page waits for them.
        var held: [LiveWork] = []
        while true {
            let taken: [LiveWork]
            if held.isEmpty {
                guard let next = await queue.takeAll() else { return }
                taken = next
            } else {
                taken = queue.takeReady()
            }
            let started = ContinuousClock.now
            // Nothing is held past a barrier or a page's registration ("everything before is done" holds for them), nor
            // when nothing else is waiting; what was held already is drawn now, whatever comes.
            let holds = !taken.isEmpty && taken.allSatisfy(\.isEvent)
            held = await process(held + taken, holdingFrom: holds ? held.count : nil)
            let events = taken.reduce(0) { count, item in item.counts ? count + 1 : count }
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
        case .presence(.presenceChanged(let report)): live.presence.apply(report)
        case .presence(.presenceRefreshed(let reports)): live.presence.refresh(reports)
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

    /// Applies `batch` in order; answers the "Sending" events held for the next batch (from `holdingFrom` on, those
    /// whose message was neither stored nor failed in this one; nil holds nothing).
    private func process(_ batch: [LiveWork], holdingFrom: Int?) async -> [LiveWork] {
        // Stored messages of one chat in this batch go out together, where the first of them was queued.
        var sends: [ChatID: [(message: Message, token: String)]] = [:]
        var stored = Set<String>()
        var failed = Set<String>()
        for case .event(let published) in batch {
            switch published.event {
            case .message(.sent(let message, let token)):
                sends[message.chatID, default: []].append((message, token))
                stored.insert(token)
            case .message(.failedSending(let outgoing, _)):
                failed.insert(outgoing.token)
            default:
                break
            }
        }
        var delivered = Set<ChatID>()
        var held: [LiveWork] = []
        for (index, item) in batch.enumerated() {
            switch item {
            case .event(let published):
                switch published.event {
                case .message(.sent(let message, _)):
                    guard delivered.insert(message.chatID).inserted, let group = sends[message.chatID] else { continue }
                    await apply(published) {
                        try await self.conversations.showSent(group)
                        try await self.typing.stoppedTypingBySending(group.map(\.message))
                    }
                case .message(.sending(let outgoing)) where stored.contains(outgoing.token):
                    continue  // stored in the same batch: "Sending" would be replaced at once
                case .message(.sending(let outgoing)) where index >= holdingFrom ?? batch.count && !failed.contains(outgoing.token):
                    held.append(item)
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
        return held
    }

    /// Events were lost on the way here: once every lane is done with what came before, every open page
    /// reloads, and the lists are read again.
    private func refreshAll() {
        lanes.pushEverywhere(LaneBarrier(lanes: lanes.count) { [live] in
            live.known.forgetWhatEventsChange()
            for (_, entry) in live.lists.all { entry.forget() }
            let refresh = live.renderer.update(.refresh, "page", nil)
            let pages = live.registry.withLock { registry in
                (registry.byViewer.values.flatMap(\.values) + registry.byFeeds.values.flatMap(\.values)).reduce(into: [ObjectIdentifier: any Listener]()) {
                    $0[ObjectIdentifier($1.listener)] = $1.listener
                }
            }
            for listener in pages.values { listener.receive(refresh) }
            live.logger.warning("events were missed; every open page was told to reload", metadata: ["pages": "\(pages.count)"])
        })
    }

    /// Fragments rendered since start: with many pages on one chat this grows per variant, not per page.
    public var renderCount: Int { live.renderer.renders.load(ordering: .relaxed) }

    /// Pages listening now.
    public var listenerCount: Int { live.registry.withLock { $0.count } }

    /// Whether no page is registered, and no index entry is left behind.
    public var hasNoListeners: Bool { live.registry.withLock { $0.isEmpty } && live.lists.count == 0 }

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
        let (entry, joined) = live.lists.join(page.viewer)
        var handedOver = joined != .mustLoad
        do {
            guard let viewer = try await live.known.user(page.viewer, in: live.store) else { throw Refusal.notFound }
            var conversation: ConversationSnapshot?
            switch joined {
            case .mustLoad:
                // One read for all the page shows; this lane applies no event of its chat meanwhile.
                for attempt in 1...Self.listReadAttempts {
                    let screen = try await live.store.chatsScreen(for: viewer.id, open: page.openChat, before: nil, limit: Self.historyPageSize)
                    conversation = screen.conversation
                    if entry.loaded(ViewerList(user: viewer, summaries: screen.summaries), accept: attempt == Self.listReadAttempts) { break }
                }
                handedOver = true
            case .loading, .ready:
                if joined == .loading, await !entry.ready() { throw Refusal.unavailable }
                if let chat = page.openChat {
                    conversation = try await live.store.conversation(chat, viewer: viewer.id, before: nil, limit: Self.historyPageSize)
                }
            }
            if page.openChat != nil, conversation == nil { throw Refusal.notFound }
            if let snapshot = conversation, snapshot.showsReaders { conversation = snapshot.with(readers: try await live.store.readers(of: snapshot.chatID)) }
            let (fragments, watching) = try await opening(page, for: viewer, conversation: conversation)
            let cursor = conversation.map { $0.messages.last?.id ?? MessageID(0) }
            // Under the person's lock: no change to their list falls between what the page is sent and its
            // place among the pages that are told of changes.
            entry.withList { list in
                if let list {
                    let context = live.context(for: list.user)
                    if page.feedsOf == nil {
                        let items = ChatListBuilder(context: context).loaded(list.summaries, current: page.openChat)
                        listener.receive(live.renderer.update(.replace, "chat-list", .chatList(items)))
                    }
                    listener.receive(live.badgeUpdate(total: list.unreadTotal, context: context))
                    for fragment in fragments { listener.receive(fragment) }
                } else {
                    // Events were missed while it registered: the page starts again.
                    listener.receive(live.renderer.update(.refresh, "page", nil))
                }
                live.registry.withLock { $0.insert(listener, for: page, cursor: cursor, watching: watching) }
            }
            return ListenerRegistration(handler: self, listener: listener, page: page, list: entry)
        } catch {
            if !handedOver { entry.failedLoading() }
            live.lists.leave(page.viewer, entry)
            throw error
        }
    }

    /// What an opening page shows besides its list and badge (its feeds, its conversation, who types, the dots of
    /// the people it shows), and whose dots it is told of from now on: only people the viewer shares a chat with.
    private func opening(
        _ page: PageSubscription, for viewer: User, conversation: ConversationSnapshot?
    ) async throws -> (fragments: [ScreenUpdate], watching: Set<UserID>) {
        var fragments: [ScreenUpdate] = []
        if let chat = page.feedsOf {
            guard let list = try await feedScreens.list(of: chat, for: viewer) else { throw Refusal.notFound }
            fragments.append(list)
        }
        if let snapshot = conversation, !page.showsWindow {
            let messages = ConversationBuilder(context: live.context(for: viewer)).messages(snapshot)
            fragments.append(live.renderer.update(.replace, messages.domID, .messages(messages)))
        }
        if let chat = page.openChat, let line = try await typing.typingLine(in: chat, for: viewer.id) { fragments.append(line) }
        let watching = try await presence.sharing(with: viewer.id, among: page.watching)
        fragments += try await presence.presenceNow(of: watching)
        return (fragments, watching)
    }

    func remove(_ listener: any Listener, for page: PageSubscription, list: ViewerLists.Entry) {
        live.registry.withLock { $0.remove(listener, for: page) }
        live.lists.leave(page.viewer, list)
    }

    /// Whether a page of `user`'s is in front of them on an instance other than `instance`, as its reports say.
    public func hasVisiblePage(_ user: UserID, elsewhereThan instance: Int64) -> Bool { live.presence.isActive(user, elsewhereThan: instance) }

    /// Updates every page that shows what `event` changed.
    func handle(_ event: DomainEvent) async throws {
        switch event {
        case .message(let event): try await conversations.handle(event)
        case .chat(.created(let chat)): try await chatList.chatCreated(chat)
        case .chat(.membersChanged(let change)): try await rooms.membersChanged(change)
        case .chat(.roomRenamed(let change)): try await rooms.roomRenamed(change)
        case .chat(.involvementChanged(let membership)): chatList.involvementChanged(membership)
        case .user(.profileUpdated(let user)):
            live.known.forget(user.id)
            try await chatList.profileUpdated(user)
        case .user(.signedUp(let user)): try await rooms.signedUp(user)
        case .user(.accountChanged(let state)):
            live.known.forget(state.user.id)
            if !state.isActive { endPages(of: state.user.id) }
            try await rooms.accountChanged(state)
        case .feed(.subscribed(let subscription)), .feed(.unsubscribed(let subscription)), .feed(.retried(let subscription)),
             .feed(.checked(let subscription)):
            try await feedScreens.feedsChanged(subscription.chatID)
        case .presence(.typing(let report)): try await typing.typingChanged(report)
        case .presence(.presenceChanged(let report)): try await presence.showPresence(of: report.userID)
        case .chat, .user, .feed, .presence, .account: break
        }
    }

    /// A deactivated person's pages are told to reload (which signs them out) and closed at once, on every instance.
    private func endPages(of user: UserID) {
        let refresh = live.renderer.update(.refresh, "page", nil)
        for page in live.pages(of: user) {
            page.listener.receive(refresh)
            page.listener.end()
        }
        live.lists.entry(user)?.forget()
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
            live.logger.error("open pages were not updated; they were told to reload", metadata: [
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
            people.formUnion(live.known.contacts(of: user.id))
        default:
            break
        }
        if let chat { people.formUnion(live.known.members(of: chat) ?? []) }
        let refresh = live.renderer.update(.refresh, "page", nil)
        var told = Set<ObjectIdentifier>()
        for person in people {
            live.lists.entry(person)?.forget()
            for page in live.pages(of: person) where told.insert(ObjectIdentifier(page.listener)).inserted {
                page.listener.receive(refresh)
            }
        }
        return told.count
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
