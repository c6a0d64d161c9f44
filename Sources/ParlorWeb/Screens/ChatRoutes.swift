import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorLive
import ParlorViews

/// The chat list, a conversation beside it, and starting a new chat with type-to-find.
extension ParlorApp {
    func registerChatRoutes(on router: inout Router) {
        router.get("/chats", signedIn { [self] request, signedIn in try await livePage(signedIn, chat: nil, requestID: request.id.description) })
        // Before `/chats/{id}`: the first matching route answers.
        router.get("/chats/new", signedIn { [self] request, signedIn in
            let query = request.query["q"] ?? ""
            return try await newChatPage(signedIn, handle: query, problem: nil, matches: try await matches(query, for: signedIn.user))
        })
        router.get("/chats/new/suggestions", signedIn { [self] request, signedIn in
            let query = request.query["q"] ?? ""
            let matches = try await matches(query, for: signedIn.user)
            return page(CreateChatBuilder(context: context(signedIn)).suggestions(query: query, matches: matches))
        })
        router.post("/chats/new", bodyLimit: 16 * 1024, signedIn { [self] request, signedIn in try await createChat(request, signedIn) })
        router.get("/chats/{id}", signedIn { [self] request, signedIn in
            let chat = try chatID(request)
            let before = request.query["before"].flatMap(Int64.init).map { MessageID($0) }
            if before == nil, request.query["reply"] == nil, request.query["edit"] == nil, request.query["delete"] == nil {
                return try await livePage(signedIn, chat: chat, requestID: request.id.description)
            }
            let draft = try await draft(request, chat: chat, viewer: signedIn.user)
            let opened = try await openedScreen(signedIn, chat: chat, before: before, requestID: request.id.description)
            return chatsPage(signedIn, screen: opened.screen, chat: chat, before: before, draft: draft, unreadAfter: opened.unreadAfter)
        })
    }

    /// The chat id in the path; anything else is "no such chat".
    func chatID(_ request: Request) throws -> ChatID {
        guard let raw = request.parameters["id"], let id = Int64(raw), id > 0 else { throw Self.noSuchChat }
        return ChatID(id)
    }

    static let noSuchChat = HTTPError(.notFound, "There is no such chat, or it is not yours.")

    /// The composer as `?reply=` or `?edit=` asks for it, with a fresh idempotency token.
    private func draft(_ request: Request, chat: ChatID, viewer: User) async throws -> ComposerDraft {
        let token = Self.newToken()
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

    /// A token for the next message of a composer: the same POST sent twice stores one message.
    static func newToken() -> String { Sodium.randomToken(bytes: 16) }

    /// `/chats` or `/chats/{id}`: the list, and the open conversation. 404 for a chat that is not the viewer's.
    func chatsPage(_ signedIn: SignedIn, chat: ChatID?, before: MessageID? = nil, draft: ComposerDraft? = nil, status: HTTPStatus = .ok)
        async throws -> Response
    {
        chatsPage(signedIn, screen: try await screen(signedIn, chat: chat, before: before), chat: chat, before: before, draft: draft, status: status)
    }

    /// Everything the page shows, in one read; 404 for a chat that is not the viewer's.
    private func screen(_ signedIn: SignedIn, chat: ChatID?, before: MessageID?) async throws -> ChatsScreen {
        let reading = ContinuousClock.now
        let screen = try await store.chatsScreen(for: signedIn.user.id, open: chat, before: before, limit: EventHandler.historyPageSize)
        metrics.pageReadDuration.recordNanoseconds(ParlorMetrics.nanoseconds(ContinuousClock.now - reading))
        if chat != nil, screen.conversation == nil { throw Self.noSuchChat }
        return screen
    }

    /// The screen of a page that opens `chat`. Opening the newest messages of a conversation reads it (the
    /// read receipt of pages without JavaScript), only when there is something to read, so looking again
    /// writes nothing. `mark` is the number of the newest change before the screen was read: taken before the
    /// read, a change committed meanwhile makes a page kept from this screen stale, never wrongly current.
    /// `unreadAfter` is the read mark this opening moved (zero when nothing had been read): the page shows
    /// where the unread messages start.
    private func openedScreen(_ signedIn: SignedIn, chat: ChatID?, before: MessageID?, requestID: String) async throws
        -> (screen: ChatsScreen, mark: UInt64, unreadAfter: MessageID?)
    {
        let mark = events.changes.mark()
        let screen = try await screen(signedIn, chat: chat, before: before)
        guard let chat, before == nil, screen.opensUnread else { return (screen, mark, nil) }
        await events.send(.userReads(ReadReport(chatID: chat, readerID: signedIn.user.id)), requestID: requestID)
        let markAfterRead = events.changes.mark()
        return (try await self.screen(signedIn, chat: chat, before: before), markAfterRead, screen.viewerLastRead ?? MessageID(0))
    }

    /// `/chats` or `/chats/{id}` as a plain GET, the page people load most: served from ``PageCache`` while
    /// nothing it shows has changed, else read, rendered and kept.
    private func livePage(_ signedIn: SignedIn, chat: ChatID?, requestID: String) async throws -> Response {
        guard pageCache.isEnabled else {
            let opened = try await openedScreen(signedIn, chat: chat, before: nil, requestID: requestID)
            return chatsPage(signedIn, screen: opened.screen, chat: chat, before: nil, draft: nil, unreadAfter: opened.unreadAfter)
        }
        let standIns = pageCache.standIns
        let context = ViewerContext(
            viewer: signedIn.user, now: clock.now, basePath: paths.basePath, csrfToken: standIns.csrf, cache: dateLabels
        )
        let key = PageCache.Key(viewer: signedIn.user.id, chat: chat, today: context.days.today)
        let tokens = PageCache.Tokens(csrf: signedIn.session.csrfToken, composer: Self.newToken())
        if let kept = pageCache.page(key, tokens: tokens) { return html(kept) }
        let (screen, mark, unreadAfter) = try await openedScreen(signedIn, chat: chat, before: nil, requestID: requestID)
        let rendered = templates.current.render(
            chatsPageModel(context, screen: screen, chat: chat, before: nil, draft: ComposerDraft(token: standIns.composer), unreadAfter: unreadAfter),
            capacity: 32 * 1024
        )
        // A page whose read did not go through would hide unread messages if served again, and the "New
        // messages" line belongs to the one opening that read them: neither is kept.
        let page = screen.opensUnread || unreadAfter != nil
            ? KeptPage(rendered, standIns: standIns, mark: mark, chats: []).filled(with: tokens)
            : pageCache.keep(rendered, for: key, mark: mark, chats: screen.summaries.map(\.chatID), tokens: tokens)
        return html(page)
    }

    private func chatsPage(
        _ signedIn: SignedIn, screen: ChatsScreen, chat: ChatID?, before: MessageID?, draft: ComposerDraft?, status: HTTPStatus = .ok,
        unreadAfter: MessageID? = nil
    ) -> Response {
        self.page(chatsPageModel(context(signedIn), screen: screen, chat: chat, before: before, draft: draft, unreadAfter: unreadAfter), status: status)
    }

    /// The list, the open conversation and the layout around them.
    private func chatsPageModel(
        _ context: ViewerContext, screen: ChatsScreen, chat: ChatID?, before: MessageID?, draft: ComposerDraft?,
        unreadAfter: MessageID? = nil
    ) -> ChatsPageViewModel {
        var conversation: ConversationViewModel?
        var contactName: String?
        if let snapshot = screen.conversation {
            conversation = ConversationBuilder(context: context).conversation(
                snapshot, draft: draft ?? ComposerDraft(token: Self.newToken()), history: before != nil, unreadAfter: unreadAfter
            )
            contactName = snapshot.contact.displayName
        }
        let list = ChatListBuilder(context: context).loaded(screen.summaries, current: chat)
        // A page of older history is not live: a live page shows the newest messages.
        return PageBuilder(context: context).chats(
            list: list, conversation: conversation, contactName: contactName, unreadTotal: screen.unreadTotal, openChat: chat,
            showsNewest: before == nil
        )
    }

    private func newChatPage(_ signedIn: SignedIn, handle: String, problem: CreateChatBuilder.Problem?, matches: [CreateChatBuilder.Match],
                             status: HTTPStatus = .ok) async throws -> Response
    {
        let context = context(signedIn)
        let unread = try await store.unreadTotal(for: signedIn.user.id)
        let form = CreateChatBuilder(context: context).form(handle: handle, problem: problem, matches: matches)
        let layout = PageBuilder(context: context).layout(title: "New chat", unreadTotal: unread)
        return page(NewChatPageViewModel(layout: layout, form: form), status: status)
    }

    /// People whose handle or name starts with what was typed, with the viewer's chat with each, if any.
    private func matches(_ query: String, for viewer: User) async throws -> [CreateChatBuilder.Match] {
        var prefix = query.trimmingCharacters(in: .whitespaces)
        if prefix.hasPrefix("@") { prefix.removeFirst() }
        guard !prefix.isEmpty, prefix.count <= 50 else { return [] }
        let people = try await store.users(matching: prefix, excluding: viewer.id, limit: 8)
        guard !people.isEmpty else { return [] }
        let chats = Dictionary(try await store.chatList(for: viewer.id).map { ($0.contact.id, $0.chatID) }, uniquingKeysWith: { first, _ in first })
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
        switch await events.send(.creating(creator: signedIn.user.id, contactHandle: handle), requestID: request.id.description) {
        case .created(let chat):
            return .redirect(to: paths.chat(chat.id))
        case .createFailed(_, .chatExists(let existing)):
            let name = try await store.chatSummary(existing, for: signedIn.user.id)?.contact.displayName ?? "@" + handle
            return try await newChatPage(signedIn, handle: typed, problem: .alreadyExists(existing, contactName: name), matches: [], status: .conflict)
        case .createFailed(_, let reason):
            let problem: CreateChatBuilder.Problem = switch reason {
            case .unknownHandle, .invalidHandle: .unknownHandle(handle)
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
