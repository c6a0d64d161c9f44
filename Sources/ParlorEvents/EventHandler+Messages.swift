import Foundation
import ParlorDomain
import ParlorViews

// What each message event changes on the pages that show it.

extension EventHandler {
    func handle(_ event: MessageEvent) async throws {
        switch event {
        case .sending(let outgoing):
            try await showPending(PendingMessage(token: outgoing.token, chatID: outgoing.chatID, body: outgoing.body, createdAt: outgoing.createdAt, replyTo: outgoing.replyTo), sender: outgoing.senderID)
        case .failedSending(let outgoing, let reason):
            try await showFailed(outgoing, reason: reason)
        case .sent(let message, let token):
            try await showSent(message, token: token)
        case .edited(let message):
            try await showEdited(message)
        case .userRead(let chat, let reader, let previous, let upTo):
            try await showRead(chat: chat, reader: reader, previous: previous, upTo: upTo)
        case .editing, .failedEditing, .userReads:
            break
        }
    }

    /// "Sending": on the sender's pages that have the chat open, at the end of the history.
    private func showPending(_ pending: PendingMessage, sender: UserID) async throws {
        let pages = pages(of: sender, showing: pending.chatID)
        guard !pages.isEmpty, let viewer = try await store.user(sender) else { return }
        let context = context(for: viewer)
        let quoted = try await quote(pending.replyTo, viewer: viewer, chat: pending.chatID)
        let cell = MessageCellBuilder(context: context).cell(pending, quoted: quoted)
        let previous = try await store.messages(in: pending.chatID, before: nil, limit: 1).messages.last
        let updates = appendUpdates(cell, date: pending.createdAt, after: previous, chat: pending.chatID, context: context)
        deliver(updates, to: pages)
    }

    /// "Failed", with its reason and a retry, in place of "Sending".
    private func showFailed(_ outgoing: OutgoingMessage, reason: Refusal) async throws {
        let pages = pages(of: outgoing.senderID, showing: outgoing.chatID)
        guard !pages.isEmpty, let viewer = try await store.user(outgoing.senderID) else { return }
        let failed = PendingMessage(
            token: outgoing.token, chatID: outgoing.chatID, body: outgoing.body, createdAt: outgoing.createdAt,
            replyTo: outgoing.replyTo, failure: reason.message
        )
        let quoted = try await quote(outgoing.replyTo, viewer: viewer, chat: outgoing.chatID)
        let cell = MessageCellBuilder(context: context(for: viewer)).cell(failed, quoted: quoted)
        deliver([renderer.update(.replace, cell.domID, .messageCell(cell))], to: pages)
    }

    /// A stored message: the sender's "Sending" cell gives way to the stored one, the other members see it
    /// arrive; everyone's chat list moves the chat to the top; recipients get a new unread total and, on
    /// pages where the chat is not open, a toast.
    private func showSent(_ message: Message, token: String) async throws {
        guard let chat = try await store.chat(message.chatID) else { return }
        let previous = try await store.messages(in: message.chatID, before: message.id, limit: 1).messages.last
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = try await store.user(member),
                  let sender = member == message.senderID ? viewer : try await store.user(message.senderID)
            else { continue }
            let context = context(for: viewer)
            let open = pages.filter { $0.page.openChat == chat.id }
            if !open.isEmpty {
                let quoted = try await quote(message.replyTo, viewer: viewer, chat: chat.id)
                let cell = MessageCellBuilder(context: context).cell(message, sender: sender, quoted: quoted)
                var updates: [ScreenUpdate] = []
                if member == message.senderID { updates.append(renderer.update(.remove, "pending-\(token)", nil)) }
                updates += appendUpdates(cell, date: message.createdAt, after: previous, chat: chat.id, context: context)
                deliver(updates, to: open)
            }
            try await moveToTop(chat.id, viewer: viewer, context: context, pages: pages)
            if member != message.senderID {
                let badge = try await badgeUpdate(for: viewer, context: context)
                deliver([badge], to: pages)
                let elsewhere = pages.filter { $0.page.openChat != chat.id }
                if !elsewhere.isEmpty {
                    let toast = PageBuilder(context: context).toast(message, from: sender)
                    deliver([renderer.update(.toast, toast.domID, .toast(toast))], to: elsewhere)
                }
            }
        }
    }

    /// The new text and the "Edited" mark, for everyone viewing; the chat list preview too.
    private func showEdited(_ message: Message) async throws {
        guard let chat = try await store.chat(message.chatID) else { return }
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = try await store.user(member),
                  let sender = try await store.user(message.senderID)
            else { continue }
            let context = context(for: viewer)
            let open = pages.filter { $0.page.openChat == chat.id }
            if !open.isEmpty {
                let contactLastRead = try await chat.contact(of: member).asyncFlatMap { try await store.membership(chat.id, $0)?.lastRead }
                let quoted = try await quote(message.replyTo, viewer: viewer, chat: chat.id)
                let cell = MessageCellBuilder(context: context).cell(message, sender: sender, quoted: quoted, contactLastRead: contactLastRead)
                deliver([renderer.update(.replace, cell.domID, .messageCell(cell))], to: open)
            }
            try await replaceListItem(chat.id, viewer: viewer, context: context, pages: pages)
        }
    }

    /// The reader's unread count and badge drop; the other members see "Read" on the messages it covers.
    private func showRead(chat: ChatID, reader: UserID, previous: MessageID?, upTo: MessageID) async throws {
        guard let stored = try await store.chat(chat) else { return }
        if let viewer = try await store.user(reader) {
            let pages = pages(of: reader)
            if !pages.isEmpty {
                let context = context(for: viewer)
                try await replaceListItem(chat, viewer: viewer, context: context, pages: pages)
                deliver([try await badgeUpdate(for: viewer, context: context)], to: pages)
            }
        }
        for member in stored.members where member != reader {
            let open = pages(of: member, showing: chat)
            guard !open.isEmpty, let viewer = try await store.user(member) else { continue }
            let context = context(for: viewer)
            let cells = MessageCellBuilder(context: context)
            let recent = try await store.messages(in: chat, before: MessageID(upTo.rawValue + 1), limit: Self.historyPageSize).messages
            var updates: [ScreenUpdate] = []
            for message in recent where message.senderID == member && message.id > (previous ?? MessageID(0)) {
                let quoted = try await quote(message.replyTo, viewer: viewer, chat: chat)
                let cell = cells.cell(message, sender: viewer, quoted: quoted, contactLastRead: upTo)
                updates.append(renderer.update(.replace, cell.domID, .messageCell(cell)))
            }
            deliver(updates, to: open)
        }
    }

    /// A cell at the end of the history: into its day's list when the previous message is from the same
    /// day for this viewer, otherwise as a new day section (and the "no messages yet" line goes).
    private func appendUpdates(_ cell: MessageCellViewModel, date: Date, after previous: Message?, chat: ChatID, context: ViewerContext) -> [ScreenUpdate] {
        let builder = ConversationBuilder(context: context)
        let day = builder.daySection(chat, date: date, cells: [cell])
        if let previous, context.dates.dayKey(previous.createdAt) == context.dates.dayKey(date) {
            return [renderer.update(.append, day.listDomID, .messageCell(cell))]
        }
        return [renderer.update(.append, ConversationBuilder.messagesDomID(chat), .daySection(day))]
    }

    private func moveToTop(_ chat: ChatID, viewer: User, context: ViewerContext, pages: [ListenerRegistry.Entry]) async throws {
        guard let summary = try await store.chatSummary(chat, for: viewer.id) else { return }
        let builder = ChatListBuilder(context: context)
        let removal = renderer.update(.remove, "chat-item-\(chat)", nil)
        // Two variants at most: the page with this chat open marks the item as current.
        var variants: [Bool: ScreenUpdate] = [:]
        for page in pages {
            let isCurrent = page.page.openChat == chat
            let update = variants[isCurrent] ?? renderer.update(.prepend, "chat-list-items", .chatListItem(builder.item(summary, isCurrent: isCurrent)))
            variants[isCurrent] = update
            page.listener.receive(removal)
            page.listener.receive(update)
        }
    }

    private func replaceListItem(_ chat: ChatID, viewer: User, context: ViewerContext, pages: [ListenerRegistry.Entry]) async throws {
        guard let summary = try await store.chatSummary(chat, for: viewer.id) else { return }
        let builder = ChatListBuilder(context: context)
        var variants: [Bool: ScreenUpdate] = [:]
        for page in pages {
            let isCurrent = page.page.openChat == chat
            let item = builder.item(summary, isCurrent: isCurrent)
            let update = variants[isCurrent] ?? renderer.update(.replace, item.domID, .chatListItem(item))
            variants[isCurrent] = update
            page.listener.receive(update)
        }
    }

    private func quote(_ id: MessageID?, viewer: User, chat: ChatID) async throws -> (message: Message, author: User)? {
        guard let id, let message = try await store.message(id), message.chatID == chat else { return nil }
        let author = message.senderID == viewer.id ? viewer : try await store.user(message.senderID)
        return author.map { (message, $0) }
    }

    func deliver(_ updates: [ScreenUpdate], to pages: [ListenerRegistry.Entry]) {
        for page in pages {
            for update in updates { page.listener.receive(update) }
        }
    }
}

extension Optional {
    func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
