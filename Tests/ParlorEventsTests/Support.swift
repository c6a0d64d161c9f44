import InMemoryStores
import ByteOutput
import Foundation
import ParlorDomain
import ParlorEvents
import ParlorLive
import ParlorStorage
import ParlorTemplates
import ParlorViews
import Synchronization
import Testing

/// A page that records every update it receives, in order.
final class RecordingListener: Listener {
    private let received = Mutex<[ScreenUpdate]>([])

    func receive(_ update: ScreenUpdate) { received.withLock { $0.append(update) } }

    var updates: [ScreenUpdate] { received.withLock { $0 } }
    var fragments: [Fragment] { updates.compactMap(\.fragment) }
    /// "action target" per update, the shape of what the page was told to do.
    var steps: [String] { updates.map { "\($0.action.rawValue) \($0.target)" } }

    func clear() { received.withLock { $0.removeAll() } }
}

enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, sqlite
    var testDescription: String { rawValue }
}

/// The in-process bus, saying it keeps each chat's order, as the PostgreSQL event log does.
struct InOrderBus: EventBus {
    let bus = InProcessEventBus()
    func publish(_ event: PublishedEvent) { bus.publish(event) }
    func subscribe(_ receiver: @escaping @Sendable (PublishedEvent) -> Void) { bus.subscribe(receiver) }
    var deliversEachChatsMessagesInOrder: Bool { true }
}

/// Ana, Ben and Chloé with a store, a handler and a router, on Friday 20 November 2026 at 14:05 in Paris.
struct ChatWorld {
    static let templates: TemplateSet = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Templates").path
        do {
            return try TemplateLibrary(directory: folder, viewModels: ParlorViewModels.renderable).templates
        } catch {
            preconditionFailure("templates: \(error)")
        }
    }()

    let store: any ChatStore & FeedStore
    let clock = ManualClock(Date(timeIntervalSince1970: 1_795_698_300))  // 2026-11-20 13:05 UTC
    let handler: EventHandler
    /// The router itself (for event sources such as Parlor Bot).
    let events: EventRouter
    /// The router as tests use it: a send returns once the pages have what it published.
    let router: SettlingRouter
    let live: LiveRunner
    let ana: User
    let ben: User
    let chloe: User
    let folder: URL

    /// `inOrder`: the bus says it hands on each chat's messages in id order (true of these tests' sends, made
    /// one at a time), so the pages follow a chat's newest message without reading it again.
    /// `fanOutPartSize`: rooms larger than this have a message's fan-out split across the lanes.
    /// `openRoom`: people sign up through the router (and so join the open room every newcomer joins); without
    /// it they are made in the store, and share only the chats a test makes.
    init(
        _ backend: Backend = .inMemory, inOrder: Bool = false, fanOutPartSize: Int = EventHandler.defaultFanOutPartSize, openRoom: Bool = true
    ) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = switch backend {
        case .inMemory: InMemoryChatStore()
        case .sqlite: try SQLiteChatStore(path: folder.appendingPathComponent("parlor.sqlite").path)
        }
        let bus: any EventBus = inOrder ? InOrderBus() : InProcessEventBus()
        handler = EventHandler(
            store: store, feeds: store, clock: clock, bus: bus, templates: { ChatWorld.templates }, lanes: 2, fanOutPartSize: fanOutPartSize
        )
        events = EventRouter(store: store, feeds: store, bus: bus, clock: clock)
        router = SettlingRouter(router: events, handler: handler)
        live = LiveRunner(handler)
        let signUp: @Sendable (String, String, String) async throws -> User = { [events, store, clock] handle, name, zone in
            if openRoom { return try await Self.signUp(events, handle, name, zone) }
            return try await store.createUser(NewUser(handle: handle, displayName: name, timeZoneIdentifier: zone), at: clock.now)
        }
        ana = try await signUp("ana", "Ana Lima", "Europe/Paris")
        ben = try await signUp("ben", "Ben Okafor", "Europe/Paris")
        chloe = try await signUp("chloe", "Chloé Martin", "America/Los_Angeles")
        await handler.settled()
    }

    static func signUp(_ router: EventRouter, _ handle: String, _ name: String, _ zone: String) async throws -> User {
        guard case .signedUp(let user) = await router.send(.signingUp(NewUser(handle: handle, displayName: name, timeZoneIdentifier: zone))) else {
            throw Refusal.unavailable
        }
        return user
    }

    func context(_ user: User) -> ViewerContext { ViewerContext(viewer: user, now: clock.now) }

    func chat(_ a: User, _ b: User) async throws -> Chat {
        guard case .created(let chat) = await router.send(.creating(creator: a.id, contactHandle: b.handle)) else { throw Refusal.unavailable }
        return chat
    }

    func outgoing(_ chat: Chat, _ sender: User, _ body: String, token: String, replyTo: MessageID? = nil) -> OutgoingMessage {
        OutgoingMessage(chatID: chat.id, senderID: sender.id, body: body, replyTo: replyTo, token: token, createdAt: clock.now)
    }

    func send(_ chat: Chat, _ sender: User, _ body: String, token: String = UUID().uuidString) async throws -> Message {
        guard case .sent(let message, _) = await router.send(.sending(outgoing(chat, sender, body, token: token))) else { throw Refusal.unavailable }
        return message
    }

    func page(_ viewer: User, open chat: Chat? = nil) async throws -> (RecordingListener, ListenerRegistration) {
        let listener = RecordingListener()
        let registration = try await handler.register(listener, for: PageSubscription(viewer: viewer.id, openChat: chat?.id))
        return (listener, registration)
    }
}

/// Runs the live pages for as long as a test world lives.
final class LiveRunner: Sendable {
    private let task: Task<Void, Never>

    init(_ handler: EventHandler) {
        task = Task { await handler.run() }
    }

    deinit { task.cancel() }
}

/// The router with a wait after each send until the live pages have applied what it published.
struct SettlingRouter: Sendable {
    let router: EventRouter
    let handler: EventHandler

    @discardableResult
    func send(_ event: MessageEvent) async -> MessageEvent {
        let result = await router.send(event)
        await handler.settled()
        return result
    }

    @discardableResult
    func send(_ event: ChatEvent) async -> ChatEvent {
        let result = await router.send(event)
        await handler.settled()
        return result
    }

    @discardableResult
    func send(_ event: UserEvent) async -> UserEvent {
        let result = await router.send(event)
        await handler.settled()
        return result
    }

    @discardableResult
    func send(_ event: PresenceEvent) async -> PresenceEvent {
        let result = await router.send(event)
        await handler.settled()
        return result
    }

    @discardableResult
    func send(_ event: FeedEvent) async -> FeedEvent {
        let result = await router.send(event)
        await handler.settled()
        return result
    }
}

extension Fragment {
    var conversationHeader: ConversationHeaderViewModel? { if case .conversationHeader(let header) = self { header } else { nil } }
    var messages: ConversationMessagesViewModel? { if case .messages(let messages) = self { messages } else { nil } }
    var messageCell: MessageCellViewModel? { if case .messageCell(let cell) = self { cell } else { nil } }
    var daySection: DaySectionViewModel? { if case .daySection(let day) = self { day } else { nil } }
    var chatListItem: ChatListItemViewModel? { if case .chatListItem(let item) = self { item } else { nil } }
    var badge: UnreadBadgeViewModel? { if case .badge(let badge) = self { badge } else { nil } }
    var toast: ToastViewModel? { if case .toast(let toast) = self { toast } else { nil } }
    var feedList: FeedListViewModel? { if case .feedList(let list) = self { list } else { nil } }
}
