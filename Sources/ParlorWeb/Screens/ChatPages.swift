import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorLive
import ParlorViews

/// The chats screen as a page: the list, and the open conversation beside it, read in one go, kept in the
/// ``PageCache`` while nothing it shows changes. Loading a chat's newest messages reads them.
public struct ChatPages: Sendable {
    let store: any ChatReads
    /// The same screen read on the calling thread, when the store can (SQLite with a connection free).
    let immediate: (any ImmediateReads)?
    let events: EventRouter
    let pages: WebPages
    let pageCache: PageCache
    let metrics: ParlorMetrics

    public init(
        store: any ChatReads, immediate: (any ImmediateReads)? = nil, events: EventRouter, pages: WebPages, pageCache: PageCache, metrics: ParlorMetrics
    ) {
        self.store = store
        self.immediate = immediate
        self.events = events
        self.pages = pages
        self.pageCache = pageCache
        self.metrics = metrics
    }

    static let noSuchChat = HTTPError(.notFound, "There is no such chat, or it is not yours.")

    /// The chat id in the path; anything else is "no such chat".
    static func chatID(_ request: Request) throws -> ChatID {
        guard let raw = request.parameters["id"], let id = Int64(raw), id > 0 else { throw noSuchChat }
        return ChatID(id)
    }

    /// A token for the next message of a composer: the same POST sent twice stores one message.
    static func newToken() -> String { Sodium.randomToken(bytes: 16) }

    /// `/chats` or `/rooms/{id}`: the list, and the open conversation. 404 for a chat that is not the viewer's.
    func chatsPage(_ signedIn: SignedIn, chat: ChatID?, before: MessageID? = nil, draft: ComposerDraft? = nil, status: HTTPStatus = .ok)
        async throws -> Response
    {
        chatsPage(signedIn, screen: try await screen(signedIn, chat: chat, before: before), chat: chat, before: before, draft: draft, status: status)
    }

    /// A page of older history or a composer asked for by the query: read and rendered, never kept.
    func openedPage(_ signedIn: SignedIn, chat: ChatID, before: MessageID?, draft: ComposerDraft, requestID: String) async throws -> Response {
        let opened = try await openedScreen(signedIn, chat: chat, before: before, requestID: requestID)
        return chatsPage(signedIn, screen: opened.screen, chat: chat, before: before, draft: draft, unreadAfter: opened.unreadAfter)
    }

    /// A conversation opened at a message found: `around` it (the message, and messages on both sides), or read
    /// forwards `after` one ("Show newer messages"). Live when it reaches the newest message; otherwise live for the
    /// messages it shows (edits, deletions, read marks), told of new ones ("1 new message ↓" leads to the latest),
    /// and with links to newer messages and to the latest.
    func foundPage(_ signedIn: SignedIn, chat: ChatID, at pivot: MessageID, around: Bool, draft: ComposerDraft) async throws -> Response {
        let side = EventHandler.historyPageSize / 2
        // Up to the message itself (around), or only whether older ones exist (after).
        let screen = try await screen(signedIn, chat: chat, before: MessageID(pivot.rawValue + 1), limit: around ? side + 1 : 0)
        guard let snapshot = screen.conversation else { throw Self.noSuchChat }
        let newer = try await store.messages(in: chat, after: pivot, limit: around ? side : EventHandler.historyPageSize)
        let extended = ChatsScreen(
            summaries: screen.summaries, conversation: try await self.extended(snapshot, with: newer.messages, viewer: signedIn.user.id),
            viewerLastRead: screen.viewerLastRead
        )
        return pages.page(chatsPageModel(
            pages.context(signedIn), screen: extended, chat: chat, before: nil, draft: draft, hasNewer: newer.hasNewer
        ))
    }

    /// `snapshot` with `newer` messages after its own, and what they quote and who wrote them.
    private func extended(_ snapshot: ConversationSnapshot, with newer: [Message], viewer: UserID) async throws -> ConversationSnapshot {
        guard !newer.isEmpty else { return snapshot }
        let messages = snapshot.messages + newer
        let shown = Set(messages.map(\.id))
        var quoted = snapshot.quoted
        for id in Set(newer.compactMap(\.replyTo)).sorted() where !shown.contains(id) && !quoted.contains(where: { $0.id == id }) {
            if let message = try await store.message(id), message.chatID == snapshot.chatID { quoted.append(message) }
        }
        var people = Array(snapshot.people.values)
        for id in ConversationSnapshot.authors(of: newer, quoted) where snapshot.people[id] == nil {
            if let person = try await store.user(id) { people.append(person) }
        }
        return ConversationSnapshot(
            chatID: snapshot.chatID, heading: snapshot.heading, messages: messages, quoted: quoted, pending: snapshot.pending, people: people,
            contactLastRead: snapshot.contactLastRead, hasOlder: snapshot.hasOlder, readers: snapshot.readers,
            reactions: snapshot.reactions.merging(try await store.reactions(to: newer.map(\.id))) { kept, _ in kept }
        )
    }

    /// Everything the page shows, in one read; 404 for a chat that is not the viewer's.
    private func screen(_ signedIn: SignedIn, chat: ChatID?, before: MessageID?, limit: Int = EventHandler.historyPageSize) async throws -> ChatsScreen {
        let reading = ContinuousClock.now
        let screen = try checked(
            try await store.chatsScreen(for: signedIn.user.id, open: chat, before: before, limit: limit), chat: chat, readingSince: reading
        )
        // A room's "Seen by": who has read how far, read beside the screen.
        guard let conversation = screen.conversation, conversation.showsReaders else { return screen }
        return ChatsScreen(
            summaries: screen.summaries, conversation: conversation.with(readers: try await store.readers(of: conversation.chatID)),
            viewerLastRead: screen.viewerLastRead
        )
    }

    /// The read timed, and a conversation the viewer may not see refused.
    private func checked(_ screen: ChatsScreen, chat: ChatID?, readingSince reading: ContinuousClock.Instant) throws -> ChatsScreen {
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
    /// `read` is the screen when it was read already, with the mark taken before.
    private func openedScreen(
        _ signedIn: SignedIn, chat: ChatID?, before: MessageID?, requestID: String, read: (screen: ChatsScreen, mark: UInt64)? = nil
    ) async throws -> (screen: ChatsScreen, mark: UInt64, unreadAfter: MessageID?) {
        let mark = read?.mark ?? events.changes.mark()
        let screen: ChatsScreen
        if let read { screen = read.screen } else { screen = try await self.screen(signedIn, chat: chat, before: before) }
        guard let chat, before == nil, screen.opensUnread else { return (screen, mark, nil) }
        await events.send(.userReads(ReadReport(chatID: chat, readerID: signedIn.user.id)), requestID: requestID)
        let markAfterRead = events.changes.mark()
        return (try await self.screen(signedIn, chat: chat, before: before), markAfterRead, screen.viewerLastRead ?? MessageID(0))
    }

    /// `/chats` or `/rooms/{id}` as a plain GET, the page people load most: served from ``PageCache`` while
    /// nothing it shows has changed, else read, rendered and kept. A chat with more unread messages than its
    /// newest page shows opens at the first of them instead (``unreadWindow(_:chat:newest:requestID:)``).
    func livePage(_ signedIn: SignedIn, chat: ChatID?, requestID: String) async throws -> Response {
        let keeping = keeping(signedIn, chat: chat)
        if let keeping, let kept = pageCache.page(keeping.key, tokens: keeping.tokens) { return pages.html(kept) }
        let markBefore = events.changes.mark()
        let newest = try await screen(signedIn, chat: chat, before: nil)
        if let chat, let window = try await unreadWindow(signedIn, chat: chat, newest: newest, requestID: requestID) { return window }
        let (screen, mark, unreadAfter) = try await openedScreen(
            signedIn, chat: chat, before: nil, requestID: requestID, read: (newest, markBefore)
        )
        guard let keeping else { return chatsPage(signedIn, screen: screen, chat: chat, before: nil, draft: nil, unreadAfter: unreadAfter) }
        return kept(keeping, screen: screen, chat: chat, mark: mark, unreadAfter: unreadAfter)
    }

    /// A few messages read before the first unread one, for context above the "New messages" line.
    static let readMessagesAboveUnread = 3

    /// The chat opened at its first unread message when its newest page does not reach back to it: a few read
    /// messages, the "New messages" line, then a page of unread ones read forwards, with the links to newer
    /// messages and to the latest ("Jump to newest"). What it shows is marked read, and no more: the rest stays
    /// unread in the list until it is shown. Nil when `newest`, the newest page, shows every unread message.
    private func unreadWindow(_ signedIn: SignedIn, chat: ChatID, newest: ChatsScreen, requestID: String) async throws -> Response? {
        guard newest.opensUnread, let conversation = newest.conversation, conversation.hasOlder, let oldest = conversation.messages.first
        else { return nil }
        let lastRead = newest.viewerLastRead ?? MessageID(0)
        guard oldest.id > lastRead else { return nil }
        let unread = try await store.messages(in: chat, after: lastRead, limit: EventHandler.historyPageSize)
        // The viewer's own messages past the mark are not unread; when they fill the page, the newest page is opened.
        guard let firstUnread = unread.messages.first(where: { $0.isUnread(for: signedIn.user.id) }), firstUnread.id < oldest.id,
            let first = unread.messages.first, let last = unread.messages.last
        else { return nil }
        await events.send(.userReads(ReadReport(chatID: chat, readerID: signedIn.user.id, upTo: last.id)), requestID: requestID)
        // Read after the mark moved, so the list counts what is still unread.
        let above = try await screen(signedIn, chat: chat, before: first.id, limit: Self.readMessagesAboveUnread)
        guard let snapshot = above.conversation else { throw Self.noSuchChat }
        let window = ChatsScreen(
            summaries: above.summaries, conversation: try await extended(snapshot, with: unread.messages, viewer: signedIn.user.id),
            viewerLastRead: lastRead
        )
        return pages.page(chatsPageModel(
            pages.context(signedIn), screen: window, chat: chat, before: nil, draft: nil, unreadAfter: lastRead, hasNewer: unread.hasNewer
        ))
    }

    /// The same page on the calling thread, when it can be answered at once: kept, or read through a free
    /// connection with nothing to mark read. Nil otherwise (no such store, none free, or the opening reads
    /// messages, which is a change): ``livePage(_:chat:requestID:)`` answers then.
    func livePageNow(_ signedIn: SignedIn, chat: ChatID?) throws -> Response? {
        guard let immediate else { return nil }
        let keeping = keeping(signedIn, chat: chat)
        if let keeping, let kept = pageCache.page(keeping.key, tokens: keeping.tokens) {
            metrics.answeredAtOnce()
            return pages.html(kept)
        }
        let mark = events.changes.mark()
        let reading = ContinuousClock.now
        guard let read = try immediate.chatsScreenNow(for: signedIn.user.id, open: chat, before: nil, limit: EventHandler.historyPageSize) else {
            return nil
        }
        let screen = try checked(read, chat: chat, readingSince: reading)
        // Opening reads messages (a change), or a room's "Seen by" is to be read as well: the async path.
        guard !screen.opensUnread, screen.conversation?.showsReaders != true else { return nil }
        metrics.answeredAtOnce()
        guard let keeping else { return chatsPage(signedIn, screen: screen, chat: chat, before: nil, draft: nil) }
        return kept(keeping, screen: screen, chat: chat, mark: mark, unreadAfter: nil)
    }

    /// Where a live page is kept and the tokens it is served with; nil with the cache off.
    private struct Keeping {
        let key: PageCache.Key
        let tokens: PageCache.Tokens
        /// Rendered with the cache's stand-ins for the tokens.
        let context: ViewerContext
    }

    private func keeping(_ signedIn: SignedIn, chat: ChatID?) -> Keeping? {
        guard pageCache.isEnabled else { return nil }
        let context = ViewerContext(
            viewer: signedIn.user, now: pages.clock.now, basePath: pages.paths.basePath, csrfToken: pageCache.standIns.csrf, cache: pages.dateLabels
        )
        return Keeping(
            key: PageCache.Key(viewer: signedIn.user.id, chat: chat, today: context.days.today),
            tokens: PageCache.Tokens(csrf: signedIn.session.csrfToken, composer: Self.newToken()), context: context
        )
    }

    /// The page rendered with stand-ins and kept, then served with its own tokens.
    private func kept(_ keeping: Keeping, screen: ChatsScreen, chat: ChatID?, mark: UInt64, unreadAfter: MessageID?) -> Response {
        let standIns = pageCache.standIns
        let rendered = pages.templates.current.render(
            chatsPageModel(keeping.context, screen: screen, chat: chat, before: nil, draft: ComposerDraft(token: standIns.composer), unreadAfter: unreadAfter),
            capacity: 32 * 1024
        )
        // A page whose read did not go through would hide unread messages if served again, and the "New
        // messages" line belongs to the one opening that read them: neither is kept.
        let page = screen.opensUnread || unreadAfter != nil
            ? KeptPage(rendered, standIns: standIns, mark: mark, chats: []).filled(with: keeping.tokens)
            : pageCache.keep(rendered, for: keeping.key, mark: mark, chats: screen.summaries.map(\.chatID), tokens: keeping.tokens)
        return pages.html(page)
    }

    private func chatsPage(
        _ signedIn: SignedIn, screen: ChatsScreen, chat: ChatID?, before: MessageID?, draft: ComposerDraft?, status: HTTPStatus = .ok,
        unreadAfter: MessageID? = nil
    ) -> Response {
        pages.page(
            chatsPageModel(pages.context(signedIn), screen: screen, chat: chat, before: before, draft: draft, unreadAfter: unreadAfter), status: status
        )
    }

    /// The list, the open conversation and the layout around them.
    private func chatsPageModel(
        _ context: ViewerContext, screen: ChatsScreen, chat: ChatID?, before: MessageID?, draft: ComposerDraft?,
        unreadAfter: MessageID? = nil, hasNewer: Bool = false
    ) -> ChatsPageViewModel {
        var conversation: ConversationViewModel?
        var title: String?
        if let snapshot = screen.conversation {
            conversation = ConversationBuilder(context: context).conversation(
                snapshot, draft: draft ?? ComposerDraft(token: Self.newToken()), history: before != nil || hasNewer, unreadAfter: unreadAfter,
                hasNewer: hasNewer
            )
            title = Headings.title(snapshot.heading)
        }
        let list = ChatListBuilder(context: context).loaded(screen.summaries, current: chat)
        // A page of older history is not live: a live page shows the newest messages.
        return PageBuilder(context: context).chats(
            list: list, conversation: conversation, title: title, unreadTotal: screen.unreadTotal, openChat: chat,
            showsNewest: before == nil && !hasNewer, showsWindow: hasNewer
        )
    }
}
