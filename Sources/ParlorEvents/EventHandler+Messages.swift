import Foundation
import ParlorDomain
import ParlorViews

// What each message event changes on the pages that show it. Each event reads what it needs from the
// store once (the members, a quoted message), then builds and renders per viewer, never per page.

extension EventHandler {
    func handle(_ event: MessageEvent) async throws {
        switch event {
        case .sending(let outgoing):
            try await showPending(outgoing)
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
    private func showPending(_ outgoing: OutgoingMessage) async throws {
        let pages = pages(of: outgoing.senderID, showing: outgoing.chatID)
        guard !pages.isEmpty, let chat = try await store.chat(outgoing.chatID) else { return }
        let people = try await members(of: chat)
        guard let viewer = people[outgoing.senderID] else { return }
        let context = context(for: viewer)
        let pending = PendingMessage(
            token: outgoing.token, chatID: outgoing.chatID, body: outgoing.body, createdAt: outgoing.createdAt, replyTo: outgoing.replyTo
        )
        let quoted = try await quotedMessage(outgoing.replyTo, in: chat.id)
        let cell = MessageCellBuilder(context: context).cell(pending, quoted: quote(quoted, people))
        let previous = try await store.messages(in: chat.id, before: nil, limit: 1).messages.last
        deliver(appendUpdates(cell, date: outgoing.createdAt, after: previous, chat: chat.id, context: context), to: pages)
    }

    /// "Failed", with its reason and a retry, in place of "Sending".
    private func showFailed(_ outgoing: OutgoingMessage, reason: Refusal) async throws {
        let pages = pages(of: outgoing.senderID, showing: outgoing.chatID)
        guard !pages.isEmpty, let chat = try await store.chat(outgoing.chatID) else { return }
        let people = try await members(of: chat)
        guard let viewer = people[outgoing.senderID] else { return }
        let failed = PendingMessage(
            token: outgoing.token, chatID: outgoing.chatID, body: outgoing.body, createdAt: outgoing.createdAt,
            replyTo: outgoing.replyTo, failure: reason.message
        )
        let quoted = try await quotedMessage(outgoing.replyTo, in: chat.id)
        let cell = MessageCellBuilder(context: context(for: viewer)).cell(failed, quoted: quote(quoted, people))
        deliver([renderer.update(.replace, cell.domID, .messageCell(cell))], to: pages)
    }

    /// A stored message: the sender's "Sending" cell gives way to the stored one, the other members see it
    /// arrive; everyone's chat list moves the chat to the top; recipients get a new unread total and, on
    /// pages where the chat is not open, a toast.
    private func showSent(_ message: Message, token: String) async throws {
        guard let chat = try await store.chat(message.chatID) else { return }
        let people = try await members(of: chat)
        guard let sender = people[message.senderID] else { return }
        let previous = try await store.messages(in: chat.id, before: message.id, limit: 1).messages.last
        let quoted = try await quotedMessage(message.replyTo, in: chat.id)
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = people[member] else { continue }
            let context = context(for: viewer)
            let open = pages.filter { $0.page.openChat == chat.id }
            if !open.isEmpty {
                let cell = MessageCellBuilder(context: context).cell(message, sender: sender, quoted: quote(quoted, people))
                var updates: [ScreenUpdate] = []
                if member == message.senderID { updates.append(renderer.update(.remove, "pending-\(token)", nil)) }
                updates += appendUpdates(cell, date: message.createdAt, after: previous, chat: chat.id, context: context)
                deliver(updates, to: open)
            }
            try await sendListItem(chat.id, viewer: viewer, context: context, pages: pages, movingToTop: true)
            if member != message.senderID {
                deliver([try await badgeUpdate(for: viewer, context: context)], to: pages)
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
        let people = try await members(of: chat)
        guard let sender = people[message.senderID] else { return }
        let quoted = try await quotedMessage(message.replyTo, in: chat.id)
        // "Read" or "Sent" on the sender's own view depends on how far the other member has read.
        var readByContact: MessageID?
        if let contact = chat.contact(of: sender.id) { readByContact = try await store.membership(chat.id, contact)?.lastRead }
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = people[member] else { continue }
            let context = context(for: viewer)
            let open = pages.filter { $0.page.openChat == chat.id }
            if !open.isEmpty {
                let cell = MessageCellBuilder(context: context).cell(message, sender: sender, quoted: quote(quoted, people), contactLastRead: readByContact)
                deliver([renderer.update(.replace, cell.domID, .messageCell(cell))], to: open)
            }
            try await sendListItem(chat.id, viewer: viewer, context: context, pages: pages, movingToTop: false)
        }
    }

    /// The reader's unread count and badge drop; the other members see "Read" on the messages it covers.
    private func showRead(chat id: ChatID, reader: UserID, previous: MessageID?, upTo: MessageID) async throws {
        guard let chat = try await store.chat(id) else { return }
        let people = try await members(of: chat)
        if let viewer = people[reader] {
            let pages = pages(of: reader)
            if !pages.isEmpty {
                let context = context(for: viewer)
                try await sendListItem(chat.id, viewer: viewer, context: context, pages: pages, movingToTop: false)
                deliver([try await badgeUpdate(for: viewer, context: context)], to: pages)
            }
        }
        for member in chat.members where member != reader {
            let open = pages(of: member, showing: chat.id)
            guard !open.isEmpty, let viewer = people[member] else { continue }
            // The mark is a stored id; the newest possible one has nothing after it to page before.
            let after = upTo.rawValue == .max ? nil : MessageID(upTo.rawValue + 1)
            let recent = try await store.messages(in: chat.id, before: after, limit: Self.historyPageSize).messages
            let newlyRead = recent.filter { $0.senderID == member && $0.id > (previous ?? MessageID(0)) }
            var known = Dictionary(uniqueKeysWithValues: recent.map { ($0.id, $0) })
            for replyTo in Set(newlyRead.compactMap(\.replyTo)) where known[replyTo] == nil {
                known[replyTo] = try await quotedMessage(replyTo, in: chat.id)
            }
            let cells = MessageCellBuilder(context: context(for: viewer))
            let updates = newlyRead.map { message in
                let cell = cells.cell(message, sender: viewer, quoted: quote(message.replyTo.flatMap { known[$0] }, people), contactLastRead: upTo)
                return renderer.update(.replace, cell.domID, .messageCell(cell))
            }
            deliver(updates, to: open)
        }
    }

    /// A cell at the end of the history: into its day's list when the previous message is from the same
    /// day for this viewer, otherwise as a new day section.
    private func appendUpdates(_ cell: MessageCellViewModel, date: Date, after previous: Message?, chat: ChatID, context: ViewerContext) -> [ScreenUpdate] {
        let day = ConversationBuilder(context: context).daySection(chat, date: date, cells: [cell])
        if let previous, context.dates.dayKey(previous.createdAt) == context.dates.dayKey(date) {
            return [renderer.update(.append, day.listDomID, .messageCell(cell))]
        }
        return [renderer.update(.append, ConversationBuilder.messagesDomID(chat), .daySection(day))]
    }

    /// The chat's row in each of the viewer's lists, replaced in place or moved to the top. Two variants at
    /// most, each rendered once: the page with this chat open marks the item as current.
    private func sendListItem(_ chat: ChatID, viewer: User, context: ViewerContext, pages: [ListenerRegistry.Entry], movingToTop: Bool) async throws {
        guard let summary = try await store.chatSummary(chat, for: viewer.id) else { return }
        let builder = ChatListBuilder(context: context)
        let removal = movingToTop ? renderer.update(.remove, "chat-item-\(chat)", nil) : nil
        var variants: [Bool: ScreenUpdate] = [:]
        for page in pages {
            let isCurrent = page.page.openChat == chat
            let update = variants[isCurrent] ?? {
                let item = builder.item(summary, isCurrent: isCurrent)
                return movingToTop
                    ? renderer.update(.prepend, "chat-list-items", .chatListItem(item))
                    : renderer.update(.replace, item.domID, .chatListItem(item))
            }()
            variants[isCurrent] = update
            if let removal { page.listener.receive(removal) }
            page.listener.receive(update)
        }
    }

    /// Every member of the chat as a person, read once per event.
    private func members(of chat: Chat) async throws -> [UserID: User] {
        remember(chat)
        var people: [UserID: User] = [:]
        for member in chat.members { people[member] = try await store.user(member) }
        return people
    }

    /// The message a reply quotes, if it is in the same chat.
    private func quotedMessage(_ id: MessageID?, in chat: ChatID) async throws -> Message? {
        guard let id, let message = try await store.message(id), message.chatID == chat else { return nil }
        return message
    }

    private func quote(_ message: Message?, _ people: [UserID: User]) -> (message: Message, author: User)? {
        guard let message, let author = people[message.senderID] else { return nil }
        return (message, author)
    }

    func deliver(_ updates: [ScreenUpdate], to pages: [ListenerRegistry.Entry]) {
        for page in pages {
            for update in updates { page.listener.receive(update) }
        }
    }
}
