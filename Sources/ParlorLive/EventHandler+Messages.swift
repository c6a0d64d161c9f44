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
            try await showSent([(message, token)])
        case .edited(let message), .deleted(let message), .photoProcessed(let message):
            try await showChanged(message)
        case .userRead(let chat, let reader, let previous, let upTo):
            try await showRead(chat: chat, reader: reader, previous: previous, upTo: upTo)
        case .editing, .failedEditing, .deleting, .failedDeleting, .userReads, .processingPhoto:
            break
        }
    }

    /// "Sending": on the sender's pages that have the chat open, at the end of the history.
    private func showPending(_ outgoing: OutgoingMessage) async throws {
        let pages = pages(of: outgoing.senderID, showing: outgoing.chatID)
        guard !pages.isEmpty, let chat = try await known.chat(outgoing.chatID, in: store) else { return }
        let people = try await members(of: chat)
        guard let viewer = people[outgoing.senderID] else { return }
        let context = context(for: viewer)
        let pending = PendingMessage(
            token: outgoing.token, chatID: outgoing.chatID, body: outgoing.body, createdAt: outgoing.createdAt, replyTo: outgoing.replyTo
        )
        let quoted = quote(try await quotedMessage(outgoing.replyTo, in: chat.id), people)
        let cells = MessageCellBuilder(context: context)
        // After the newest message each page has (its cursor): the store may hold newer ones by now.
        for (cursor, group) in Dictionary(grouping: pages, by: { $0.cursor ?? MessageID(0) }) {
            var previous: Message?
            if cursor.rawValue > 0 {
                if let newest = known.newest(in: chat.id), newest.id == cursor { previous = newest } else { previous = try await store.message(cursor) }
            }
            let cell = cells.cell(pending, quoted: quoted, after: previous)
            deliver(appendUpdates(cell, date: outgoing.createdAt, after: previous, chat: chat.id, context: context), to: group)
        }
    }

    /// "Failed", with its reason and a retry, in place of "Sending".
    private func showFailed(_ outgoing: OutgoingMessage, reason: Refusal) async throws {
        let pages = pages(of: outgoing.senderID, showing: outgoing.chatID)
        guard !pages.isEmpty, let chat = try await known.chat(outgoing.chatID, in: store) else { return }
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

    /// How far back a page with a conversation open is caught up; one further behind is told to reload.
    static let catchUpLimit = 5_000
    /// Messages read at a time while catching up.
    static let catchUpPage = 500

    /// Stored messages of one chat (those of one batch, or one): every open page of the chat gets each
    /// message it does not have yet, in order and exactly once (its cursor says what it has), and the
    /// sender's "Sending" cells give way to them; everyone's chat list moves the chat to the top; recipients
    /// get a new unread total and, on pages where the chat is not open, a toast for the newest.
    func showSent(_ group: [(message: Message, token: String)]) async throws {
        guard let latest = group.map(\.message).max(by: { $0.id < $1.id }) else { return }
        // Noted first, so that a failure below (its pages are told to reload) does not leave an older one.
        let handedOnBefore = known.newest(in: latest.chatID)
        known.handedOn(latest)
        guard let chat = try await known.chat(latest.chatID, in: store) else { return }
        let people = try await members(of: chat)
        var open: [UserID: [ListenerRegistry.Entry]] = [:]
        for member in chat.members {
            let pages = pages(of: member, showing: chat.id)
            if !pages.isEmpty { open[member] = pages }
        }
        // Every open page needs the messages after its cursor, and the one before them (for day separators).
        // When the bus keeps each chat's order, that is usually the chat's newest message handed on before and
        // these; otherwise they are read back as far as the open page furthest behind: usually the new messages
        // and one more, so that is what the first read asks for; after a burst, as many pages as it takes.
        var window: [Message] = []
        var truncated = false
        let oldestCursor = open.values.joined().compactMap(\.cursor).min()
        if messagesInOrder, let previous = handedOnBefore, let oldest = oldestCursor, oldest >= previous.id,
           group.allSatisfy({ $0.message.id > previous.id }) {
            window = [previous] + group.map(\.message).sorted { $0.id < $1.id }
        } else if let oldest = oldestCursor, oldest < latest.id, latest.id.rawValue < .max {
            var before = MessageID(latest.id.rawValue + 1)
            var limit = min(group.count + 1, Self.catchUpPage)
            while true {
                let page = try await store.messages(in: chat.id, before: before, limit: limit)
                limit = Self.catchUpPage
                window.insert(contentsOf: page.messages, at: 0)
                guard page.hasOlder, let first = page.messages.first, first.id > oldest else { break }
                if window.count >= Self.catchUpLimit {
                    truncated = true
                    break
                }
                before = first.id
            }
        }
        var quotes = Dictionary(window.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in Set(window.compactMap(\.replyTo)) where quotes[id] == nil {
            quotes[id] = try await quotedMessage(id, in: chat.id)
        }
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = people[member] else { continue }
            let context = context(for: viewer)
            if let openPages = open[member] {
                // "Read" or "Sent" on the viewer's own messages, as far as the contact has read now.
                var contactRead: MessageID?
                if let contact = chat.contact(of: member) { contactRead = try await known.lastRead(in: chat.id, by: contact, in: store) }
                let removals = group.filter { $0.message.senderID == member }.map { renderer.update(.remove, "pending-\($0.token)", nil) }
                var rendered: [MessageID: [ScreenUpdate]] = [:]
                for page in openPages {
                    let cursor = page.cursor ?? MessageID(0)
                    guard let start = window.firstIndex(where: { $0.id > cursor }) else {
                        deliver(removals, to: [page])
                        continue
                    }
                    if start == 0, truncated {
                        page.listener.receive(renderer.update(.refresh, "page", nil))
                        continue
                    }
                    var updates = removals
                    for index in start..<window.count {
                        let message = window[index]
                        let cells = rendered[message.id] ?? {
                            let cell = MessageCellBuilder(context: context).cell(
                                message, sender: people[message.senderID] ?? viewer,
                                quoted: quote(message.replyTo.flatMap { quotes[$0] }, people), contactLastRead: contactRead,
                                after: index > 0 ? window[index - 1] : nil
                            )
                            return appendUpdates(cell, date: message.createdAt, after: index > 0 ? window[index - 1] : nil, chat: chat.id, context: context)
                        }()
                        rendered[message.id] = cells
                        updates += cells
                    }
                    deliver(updates, to: [page])
                    advance(page, to: window[window.count - 1].id)
                }
            }
            try await sendListItem(chat.id, viewer: viewer, context: context, pages: pages, movingToTop: true)
            if let newest = group.map(\.message).filter({ $0.senderID != member }).max(by: { $0.id < $1.id }), let sender = people[newest.senderID] {
                deliver([try await badgeUpdate(for: viewer, context: context)], to: pages)
                let elsewhere = pages.filter { $0.page.openChat != chat.id }
                if !elsewhere.isEmpty {
                    let toast = PageBuilder(context: context).toast(newest, from: sender)
                    deliver([renderer.update(.toast, toast.domID, .toast(toast))], to: elsewhere)
                }
            }
        }
    }

    /// The new text and the "Edited" mark, or "Message deleted", for everyone viewing; the chat list
    /// preview too.
    private func showChanged(_ message: Message) async throws {
        known.changed(message)
        guard let chat = try await known.chat(message.chatID, in: store) else { return }
        let people = try await members(of: chat)
        guard let sender = people[message.senderID] else { return }
        let quoted = try await quotedMessage(message.replyTo, in: chat.id)
        // Whether the cell continues a group depends on the message shown before it.
        let previous = try await store.messages(in: chat.id, before: message.id, limit: 1).messages.last
        // "Read" or "Sent" on the sender's own view depends on how far the other member has read.
        var readByContact: MessageID?
        if let contact = chat.contact(of: sender.id) { readByContact = try await known.lastRead(in: chat.id, by: contact, in: store) }
        for member in chat.members {
            let pages = pages(of: member)
            guard !pages.isEmpty, let viewer = people[member] else { continue }
            let context = context(for: viewer)
            let open = pages.filter { $0.page.openChat == chat.id }
            if !open.isEmpty {
                let cell = MessageCellBuilder(context: context).cell(
                    message, sender: sender, quoted: quote(quoted, people), contactLastRead: readByContact, after: previous
                )
                deliver([renderer.update(.replace, cell.domID, .messageCell(cell))], to: open)
            }
            try await sendListItem(chat.id, viewer: viewer, context: context, pages: pages, movingToTop: false)
            // A deleted message no longer counts as unread for the others.
            if message.isDeleted, member != message.senderID { deliver([try await badgeUpdate(for: viewer, context: context)], to: pages) }
        }
    }

    /// The reader's unread count and badge drop; the other members see "Read" on the messages it covers.
    private func showRead(chat id: ChatID, reader: UserID, previous: MessageID?, upTo: MessageID) async throws {
        known.read(in: id, by: reader, upTo: upTo)
        guard let chat = try await known.chat(id, in: store) else { return }
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
            // One more than a page: the message before the oldest one shown decides whether it continues a group.
            let recent = try await store.messages(in: chat.id, before: after, limit: Self.historyPageSize + 1).messages
            let before = Dictionary(uniqueKeysWithValues: zip(recent.dropFirst().map(\.id), recent))
            let newlyRead = recent.dropFirst(recent.count > Self.historyPageSize ? 1 : 0)
                .filter { $0.senderID == member && $0.id > (previous ?? MessageID(0)) }
            var known = Dictionary(uniqueKeysWithValues: recent.map { ($0.id, $0) })
            for replyTo in Set(newlyRead.compactMap(\.replyTo)) where known[replyTo] == nil {
                known[replyTo] = try await quotedMessage(replyTo, in: chat.id)
            }
            let cells = MessageCellBuilder(context: context(for: viewer))
            let updates = newlyRead.map { message in
                let cell = cells.cell(
                    message, sender: viewer, quoted: quote(message.replyTo.flatMap { known[$0] }, people), contactLastRead: upTo,
                    after: before[message.id]
                )
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

    /// Every member of the chat as a person (read for an earlier event unless their profile changed since).
    private func members(of chat: Chat) async throws -> [UserID: User] {
        var people: [UserID: User] = [:]
        for member in chat.members { people[member] = try await known.user(member, in: store) }
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
