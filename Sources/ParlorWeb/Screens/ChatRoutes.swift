import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

/// The chat list, a conversation beside it, and starting a new chat with type-to-find.
public struct ChatRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let chats: ChatPages
        let events: EventRouter
        let store: any ChatReads

        public init(gate: SignInGate, chats: ChatPages, events: EventRouter, store: any ChatReads) {
            self.gate = gate
            self.chats = chats
            self.events = events
            self.store = store
        }
    }

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var chats: ChatPages { dependencies.chats }
    private var events: EventRouter { dependencies.events }
    private var store: any ChatReads { dependencies.store }
    private var pages: WebPages { chats.pages }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        // The page people load most: answered on the connection's thread when the store can read it at once.
        router.get(
            "/chats", immediately: gate.signedInNow { [chats] _, signedIn in try chats.livePageNow(signedIn, chat: nil) },
            gate.signedIn { [self] request, signedIn in try await chats.livePage(signedIn, chat: nil, requestID: request.id.description) }
        )
        router.get("/chats/new", gate.signedIn { [self] request, signedIn in
            let query = request.query["q"] ?? ""
            return try await newChatPage(signedIn, handle: query, problem: nil, matches: try await matches(query, for: signedIn.user))
        })
        router.get("/chats/new/suggestions", gate.signedIn { [self] request, signedIn in
            let query = request.query["q"] ?? ""
            let matches = try await matches(query, for: signedIn.user)
            return pages.page(CreateChatBuilder(context: pages.context(signedIn)).suggestions(query: query, matches: matches))
        })
        router.post("/chats/new", bodyLimit: 16 * 1024, gate.signedIn { [self] request, signedIn in try await createChat(request, signedIn) })
        router.get("/rooms/{id}", immediately: gate.signedInNow { [chats] request, signedIn in
            guard Self.isLivePage(request) else { return nil }
            return try chats.livePageNow(signedIn, chat: try ChatPages.chatID(request))
        }, gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            let before = request.query["before"].flatMap(Int64.init).map { MessageID($0) }
            if Self.isLivePage(request) {
                return try await chats.livePage(signedIn, chat: chat, requestID: request.id.description)
            }
            let draft = try await draft(request, chat: chat, viewer: signedIn.user)
            if let around = Self.messageID(request.query["around"]) {
                return try await chats.foundPage(signedIn, chat: chat, at: around, around: true, draft: draft)
            }
            if let after = Self.messageID(request.query["after"]) {
                return try await chats.foundPage(signedIn, chat: chat, at: after, around: false, draft: draft)
            }
            return try await chats.openedPage(signedIn, chat: chat, before: before, draft: draft, requestID: request.id.description)
        })
    }

    /// A conversation's newest messages with an empty composer: no older history, message found, reply, edit or
    /// deletion asked.
    private static func isLivePage(_ request: Request) -> Bool {
        request.query["before"].flatMap(Int64.init) == nil && request.query["reply"] == nil && request.query["edit"] == nil && request.query["delete"] == nil
            && request.query["around"] == nil && request.query["after"] == nil
    }

    /// A message's id in the query: a positive number below the largest (one past it is read too); else none.
    static func messageID(_ raw: String?) -> MessageID? {
        guard let raw, let id = Int64(raw), id > 0, id < Int64.max else { return nil }
        return MessageID(id)
    }

    /// The composer as `?reply=` or `?edit=` asks for it, with a fresh idempotency token.
    private func draft(_ request: Request, chat: ChatID, viewer: User) async throws -> ComposerDraft {
        let token = ChatPages.newToken()
        if let raw = request.query["reply"], let id = Int64(raw), let message = try await store.message(MessageID(id)), message.chatID == chat {
            return ComposerDraft(token: token, replyTo: message)
        }
        if let raw = request.query["edit"], let id = Int64(raw), let message = try await store.message(MessageID(id)),
           message.chatID == chat, message.senderID == viewer.id
        {
            return ComposerDraft(text: message.body, token: token, editing: message)
        }
        if let raw = request.query["delete"], let id = Int64(raw), let message = try await store.message(MessageID(id)),
           message.chatID == chat, message.senderID == viewer.id, !message.isDeleted
        {
            return ComposerDraft(token: token, deleting: message)
        }
        return ComposerDraft(token: token)
    }

    private func newChatPage(_ signedIn: SignedIn, handle: String, problem: CreateChatBuilder.Problem?, matches: [CreateChatBuilder.Match],
                             status: HTTPStatus = .ok) async throws -> Response
    {
        let context = pages.context(signedIn)
        let unread = try await store.unreadTotal(for: signedIn.user.id)
        let form = CreateChatBuilder(context: context).form(handle: handle, problem: problem, matches: matches)
        let layout = PageBuilder(context: context).layout(title: "New chat", unreadTotal: unread)
        return pages.page(NewChatPageViewModel(layout: layout, form: form), status: status)
    }

    /// People whose handle or name starts with what was typed, with the viewer's chat with each, if any.
    private func matches(_ query: String, for viewer: User) async throws -> [CreateChatBuilder.Match] {
        var prefix = query.trimmingCharacters(in: .whitespaces)
        if prefix.hasPrefix("@") { prefix.removeFirst() }
        guard !prefix.isEmpty, prefix.count <= 50 else { return [] }
        let people = try await store.users(matching: prefix, excluding: viewer.id, limit: 8)
        guard !people.isEmpty else { return [] }
        let direct = try await store.chatList(for: viewer.id).compactMap { summary in summary.contact.map { ($0.id, summary.chatID) } }
        let chats = Dictionary(direct, uniquingKeysWith: { first, _ in first })
        return people.map { CreateChatBuilder.Match(user: $0, existingChat: chats[$0.id]) }
    }

    private func createChat(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        // A suggestion's button sends its handle as `pick`; the text field sends `handle`.
        let typed = request.form["pick"] ?? request.form["handle"] ?? ""
        var handle = typed.trimmingCharacters(in: .whitespaces)
        if handle.hasPrefix("@") { handle.removeFirst() }
        guard !handle.isEmpty else {
            return try await newChatPage(signedIn, handle: typed, problem: .emptyHandle, matches: [], status: .unprocessableContent)
        }
        // Several handles ("@ben @chloe"): a direct chat of them all.
        let handles = RoomRoutes.handles(in: typed)
        let asked: ChatEvent = handles.count > 1
            ? .creatingDirect(creator: signedIn.user.id, handles: handles)
            : .creating(creator: signedIn.user.id, contactHandle: handle)
        switch await events.send(asked, requestID: request.id.description) {
        case .created(let chat):
            return .redirect(to: pages.paths.chat(chat.id))
        case .createFailed(_, .chatExists(let existing)):
            let name = try await store.chatSummary(existing, for: signedIn.user.id).map { Headings.title($0.heading) } ?? "@" + handle
            return try await newChatPage(signedIn, handle: typed, problem: .alreadyExists(existing, contactName: name), matches: [], status: .conflict)
        case .createFailed(_, let reason):
            let problem: CreateChatBuilder.Problem = switch reason {
            case .unknownHandle(let name): .unknownHandle(name)
            case .invalidHandle: .unknownHandle(handle)
            case .chatWithYourself: .yourself
            default: .other(reason.message)
            }
            return try await newChatPage(signedIn, handle: typed, problem: problem, matches: try await matches(handle, for: signedIn.user),
                                         status: .unprocessableContent)
        default:
            return try await newChatPage(signedIn, handle: typed, problem: .other(Refusal.unavailable.message), matches: [], status: .serviceUnavailable)
        }
    }
}
