import Foundation
import Logging
import ParlorDomain
import ParlorTemplates
import ParlorViews
import Synchronization

/// Knows the open pages and what each shows. After the router changed the model, it builds fresh view
/// models for the pages that show what changed, renders each distinct variant once (per viewer, and
/// per "is this chat open here"), and hands the same bytes to every page of that variant.
public final class EventHandler: Sendable {
    let store: any ChatStore
    let clock: any WallClock
    let paths: Paths
    let renderer: FragmentRenderer
    let logger: Logger
    /// Date labels per (locale, time zone), shared with the pages the app renders.
    let dateLabels: DateLabels.Cache
    private let registry = Mutex(ListenerRegistry())
    /// The members of chats that events touched, for telling pages to reload after a failed update.
    private let knownMembers = Mutex<[ChatID: [UserID]]>([:])
    static let knownChatsLimit = 100_000

    /// How many messages a conversation shows at first.
    public static let historyPageSize = 50

    public init(
        store: any ChatStore, clock: any WallClock, basePath: String = "", logger: Logger = Logger(label: "parlor.events"),
        dateLabels: DateLabels.Cache = DateLabels.Cache(), templates: @escaping @Sendable () -> TemplateSet
    ) {
        self.store = store
        self.dateLabels = dateLabels
        self.logger = logger
        self.clock = clock
        self.paths = Paths(basePath: basePath)
        self.renderer = FragmentRenderer(templates: templates)
    }

    /// Fragments rendered since start: with many pages on one chat this grows per variant, not per page.
    public var renderCount: Int { renderer.renders.load(ordering: .relaxed) }

    /// Pages listening now.
    public var listenerCount: Int { registry.withLock { $0.count } }

    /// Whether no page is registered, and no index entry is left behind.
    public var hasNoListeners: Bool { registry.withLock { $0.isEmpty } }

    /// Registers an open page and sends it what it shows now: the chat list, the unread badge, and the
    /// open conversation's messages. A page may only open a chat its viewer is a member of.
    public func register(_ listener: any Listener, for page: PageSubscription) async throws -> ListenerRegistration {
        guard let viewer = try await store.user(page.viewer) else { throw Refusal.notFound }
        if let chat = page.openChat {
            guard try await store.chat(chat)?.hasMember(page.viewer) == true else { throw Refusal.notFound }
        }
        // Registered before the current state is read, so a change in between is sent, never lost.
        registry.withLock { $0.insert(listener, for: page) }
        let registration = ListenerRegistration(handler: self, listener: listener, page: page)
        do {
            let context = context(for: viewer)
            // One read for all the page shows.
            let screen = try await store.chatsScreen(for: viewer.id, open: page.openChat, before: nil, limit: Self.historyPageSize)
            let list = ChatListBuilder(context: context).loaded(screen.summaries, current: page.openChat)
            listener.receive(renderer.update(.replace, "chat-list", .chatList(list)))
            listener.receive(badgeUpdate(total: screen.unreadTotal, context: context))
            if let snapshot = screen.conversation {
                let messages = ConversationBuilder(context: context).messages(snapshot)
                listener.receive(renderer.update(.replace, messages.domID, .messages(messages)))
            }
        } catch {
            registration.cancel()
            throw error
        }
        return registration
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

    /// The builders' context for a viewer, in their time zone and locale, at the clock's now.
    func context(for viewer: User) -> ViewerContext {
        ViewerContext(viewer: viewer, now: clock.now, basePath: paths.basePath, cache: dateLabels)
    }

    /// Updates every page that shows what `event` changed. Called by the router after the store has it;
    /// `requestID` names the request that caused it in the log.
    public func handle(_ event: DomainEvent, requestID: String? = nil) async {
        do {
            switch event {
            case .message(let event): try await handle(event)
            case .chat(.created(let chat)): try await chatCreated(chat)
            case .user(.profileUpdated(let user)): try await profileUpdated(user)
            case .chat, .user: break
            }
        } catch {
            // The change itself is stored, but pages that show it missed the update: they are told to reload,
            // which brings them the whole state. The event's kind and the cause only: never a message body.
            let refreshed = refreshPages(affectedBy: event)
            logger.error("open pages were not updated; they were told to reload", metadata: [
                "event": "\(event.kind)", "request": "\(requestID ?? "-")", "error": "\(String(describing: error))",
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
        case .message(.sent(let message, _)), .message(.edited(let message)):
            people.insert(message.senderID)
            chat = message.chatID
        case .message(.userRead(let id, let reader, _, _)):
            people.insert(reader)
            chat = id
        case .chat(.created(let created)):
            people.formUnion(created.members)
        case .user(.profileUpdated(let user)):
            people.insert(user.id)
            people.formUnion(knownMembers.withLock { chats in chats.values.filter { $0.contains(user.id) }.flatMap { $0 } })
        default:
            break
        }
        if let chat { people.formUnion(knownMembers.withLock { $0[chat] } ?? []) }
        let refresh = renderer.update(.refresh, "page", nil)
        var told = Set<ObjectIdentifier>()
        for person in people {
            for page in pages(of: person) where told.insert(ObjectIdentifier(page.listener)).inserted {
                page.listener.receive(refresh)
            }
        }
        return told.count
    }

    /// Remembers who is in `chat`, so pages can be told to reload even when the store cannot say.
    /// A chat's members never change.
    func remember(_ chat: Chat) {
        knownMembers.withLock { known in
            if known.count >= Self.knownChatsLimit { known.removeAll(keepingCapacity: true) }
            known[chat.id] = chat.members
        }
    }

    func badgeUpdate(for viewer: User, context: ViewerContext) async throws -> ScreenUpdate {
        badgeUpdate(total: try await store.unreadTotal(for: viewer.id), context: context)
    }

    func badgeUpdate(total: Int, context: ViewerContext) -> ScreenUpdate {
        renderer.update(.badge, "unread-badge", .badge(PageBuilder(context: context).unreadBadge(total)))
    }

    /// The newest page of a chat's history as the conversation's message region.
    func messagesRegion(_ chat: ChatID, viewer: User, context: ViewerContext) async throws -> ConversationMessagesViewModel? {
        try await ConversationReader(store: store).snapshot(chat, viewer: viewer.id).map(ConversationBuilder(context: context).messages)
    }

    /// A new name, time zone or locale: the person's own pages and their contacts' pages get their chat
    /// list again (names, and dates in the new time zone), rendered once per open chat.
    private func profileUpdated(_ user: User) async throws {
        let own = try await store.chatList(for: user.id)
        for person in [user] + own.map(\.contact) {
            let pages = pages(of: person.id)
            guard !pages.isEmpty else { continue }
            let builder = ChatListBuilder(context: context(for: person))
            let summaries = person.id == user.id ? own : try await store.chatList(for: person.id)
            var variants: [ChatID?: ScreenUpdate] = [:]
            for page in pages {
                let update = variants[page.page.openChat]
                    ?? renderer.update(.replace, "chat-list", .chatList(builder.loaded(summaries, current: page.page.openChat)))
                variants[page.page.openChat] = update
                page.listener.receive(update)
            }
        }
    }

    private func chatCreated(_ chat: Chat) async throws {
        remember(chat)
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = try await store.user(member),
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
