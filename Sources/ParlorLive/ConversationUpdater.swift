import Foundation
import ParlorDomain
import ParlorViews

/// The open conversations: what each message event changes on the pages that show its chat. Each event reads
/// what it needs from the store once (a quoted message, the history an open page lacks), never per member; then
/// it builds and renders per viewer, never per page. A stored message's fan-out is ``SentFanOut``'s.
struct ConversationUpdater: LiveUpdater {
    let live: LiveContext

    func handle(_ event: MessageEvent) async throws {
        switch event {
        case .sending(let outgoing):
            try await showPending(outgoing)
        case .failedSending(let outgoing, let reason):
            try await showFailed(outgoing, reason: reason)
        case .sent(let message, let token):
            try await showSent([(message, token)])
        case .edited(let message), .deleted(let message), .photoProcessed(let message), .previewed(let message):
            try await showChanged(message)
        case .userRead(let chat, let reader, let previous, let upTo):
            try await showRead(chat: chat, reader: reader, previous: previous, upTo: upTo)
        case .reacted(let reactions):
            try await showReactions(reactions)
        case .editing, .failedEditing, .deleting, .failedDeleting, .userReads, .processingPhoto, .reacting, .failedReacting, .previewing,
             .removingPreview, .failedRemovingPreview:
            break
        }
    }

    /// "Sending": on the sender's pages that have the chat open, at the end of the history.
    private func showPending(_ outgoing: OutgoingMessage) async throws {
        let pages = pages(of: outgoing.senderID, showing: outgoing.chatID)
        guard !pages.isEmpty, let chat = try await known.chat(outgoing.chatID, in: store),
              let viewer = try await known.user(outgoing.senderID, in: store)
        else { return }
        let context = context(for: viewer)
        let pending = PendingMessage(
            token: outgoing.token, chatID: outgoing.chatID, body: outgoing.body, createdAt: outgoing.createdAt, replyTo: outgoing.replyTo
        )
        let quoted = try await quote(try await quotedMessage(outgoing.replyTo, in: chat.id))
        let cells = MessageCellBuilder(context: context)
        // After the newest message each page has (its cursor): the store may hold newer ones by now.
        for (cursor, group) in Dictionary(grouping: pages, by: { $0.cursor ?? MessageID(0) }) {
            var previous: Message?
            if cursor.rawValue > 0 {
                if let newest = known.newest(in: chat.id), newest.id == cursor { previous = newest } else { previous = try await store.message(cursor) }
            }
            let cell = cells.cell(pending, quoted: quoted, after: previous)
            deliver(Self.appendUpdates(cell, date: outgoing.createdAt, after: previous, chat: chat.id, context: context, render: renderer.update), to: group)
        }
    }

    /// "Failed", with its reason and a retry, in place of "Sending".
    private func showFailed(_ outgoing: OutgoingMessage, reason: Refusal) async throws {
        let pages = pages(of: outgoing.senderID, showing: outgoing.chatID)
        guard !pages.isEmpty, let chat = try await known.chat(outgoing.chatID, in: store),
              let viewer = try await known.user(outgoing.senderID, in: store)
        else { return }
        let failed = PendingMessage(
            token: outgoing.token, chatID: outgoing.chatID, body: outgoing.body, createdAt: outgoing.createdAt,
            replyTo: outgoing.replyTo, failure: reason.message
        )
        let quoted = try await quote(try await quotedMessage(outgoing.replyTo, in: chat.id))
        let cell = MessageCellBuilder(context: context(for: viewer)).cell(failed, quoted: quoted)
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
        // The open pages of the chat, in one look at the registry (they register in this lane: none comes or
        // goes meanwhile), of its members only.
        let members = Set(chat.members)
        let open = live.pages(showing: chat.id).filter { members.contains($0.key) }
        let (history, truncated) = try await window(of: chat.id, through: latest, group: group, open: open, handedOnBefore: handedOnBefore)
        var quotes = Dictionary(history.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in Set(history.compactMap(\.replyTo)) where quotes[id] == nil {
            quotes[id] = try await quotedMessage(id, in: chat.id)
        }
        // The people these messages show: their senders and the authors they quote (not every member).
        let people = try await people(
            history.map(\.senderID) + quotes.values.map(\.senderID) + group.map(\.message.senderID) + history.compactMap(\.notice?.subject)
        )
        let added = group.map(\.message).sorted { $0.id < $1.id }
        let fanOut = SentFanOut(
            live: live, chat: chat, group: group, added: added, open: open, history: history, truncated: truncated, quotes: quotes, people: people,
            // Whom each names, read once for every member's count.
            named: Dictionary(added.map { ($0.id, $0.named) }, uniquingKeysWith: { first, _ in first })
        )
        // A room of thousands is fanned out in parts side by side, one per lane, each part's members in turn:
        // every page still gets this event's updates in one batch, and the next event only after the parts end.
        let parts = Self.fanOutParts(chat.members, count: live.laneCount, partSize: live.fanOutPartSize)
        if parts.count == 1 { return try await fanOut.run(parts[0]) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for part in parts { tasks.addTask { try await fanOut.run(part) } }
            try await tasks.waitForAll()
        }
    }

    /// What the open pages need: the messages after each one's cursor, and the one before them (for day separators);
    /// and whether a page is further behind than is caught up. When the bus keeps each chat's order, that is usually
    /// the chat's newest message handed on before and these; otherwise they are read back as far as the open page
    /// furthest behind: usually the new messages and one more, so that is what the first read asks for; after a
    /// burst, as many pages as it takes.
    private func window(
        of chat: ChatID, through latest: Message, group: [(message: Message, token: String)], open: [UserID: [ListenerRegistry.Entry]],
        handedOnBefore: Message?
    ) async throws -> (history: [Message], truncated: Bool) {
        let oldestCursor = open.values.joined().compactMap(\.cursor).min()
        if live.messagesInOrder, let previous = handedOnBefore, let oldest = oldestCursor, oldest >= previous.id,
           group.allSatisfy({ $0.message.id > previous.id }) {
            return ([previous] + group.map(\.message).sorted { $0.id < $1.id }, false)
        }
        guard let oldest = oldestCursor, oldest < latest.id, latest.id.rawValue < .max else { return ([], false) }
        var window: [Message] = []
        var before = MessageID(latest.id.rawValue + 1)
        var limit = min(group.count + 1, Self.catchUpPage)
        while true {
            let page = try await store.messages(in: chat, before: before, limit: limit)
            limit = Self.catchUpPage
            window.insert(contentsOf: page.messages, at: 0)
            guard page.hasOlder, let first = page.messages.first, first.id > oldest else { return (window, false) }
            if window.count >= Self.catchUpLimit { return (window, true) }
            before = first.id
        }
    }

    /// The parts `members` are fanned out in: one, or `count` for a room of more than `partSize`.
    static func fanOutParts(_ members: [UserID], count: Int, partSize: Int) -> [ArraySlice<UserID>] {
        guard count > 1, members.count > partSize else { return [members[...]] }
        let size = (members.count + count - 1) / count
        return stride(from: 0, to: members.count, by: size).map { members[$0..<min($0 + size, members.count)] }
    }

    /// The new text and the "Edited" mark, or "Message deleted", for everyone viewing; the chat list
    /// preview too.
    private func showChanged(_ message: Message) async throws {
        known.changed(message)
        guard let chat = try await known.chat(message.chatID, in: store) else { return }
        let viewers = chat.members.compactMap { member in lists.entry(member).map { (member, $0) } }
        guard !viewers.isEmpty else { return }
        let anyOpen = viewers.contains { !pages(of: $0.0, showing: chat.id).isEmpty }
        let cell = anyOpen ? try await changedCell(message, in: chat) : nil
        for (member, entry) in viewers {
            let open = pages(of: member, showing: chat.id)
            if !open.isEmpty, let cell, let viewer = try await live.viewer(member, entry) {
                let drawn = MessageCellBuilder(context: context(for: viewer)).cell(
                    message, sender: cell.sender, quoted: cell.quoted, contactLastRead: cell.readByContact, after: cell.previous,
                    readers: cell.readers, reactions: cell.reactions
                )
                deliver([renderer.update(.replace, drawn.domID, .messageCell(drawn))], to: open)
            }
            entry.update(.other) { list in
                // A deleted message no longer counts as unread for the others.
                chatList.sendChange(list.changed(message), in: chat.id, of: list, to: pages(of: member))
            }
        }
    }

    /// What a changed message's cell shows besides the message, read once for every viewer.
    private struct ChangedCell {
        let quoted: (message: Message, author: User)?
        let previous: Message?
        let readByContact: MessageID?
        let sender: User
        let readers: [Reader]?
        let reactions: [ReactionCount]
    }

    private func changedCell(_ message: Message, in chat: Chat) async throws -> ChangedCell? {
        guard let sender = try await known.user(message.senderID, in: store) else { return nil }
        let quoted = try await quote(try await quotedMessage(message.replyTo, in: chat.id))
        // Whether the cell continues a group depends on the message shown before it.
        let previous = try await store.messages(in: chat.id, before: message.id, limit: 1).messages.last
        // "Read" or "Sent" on the sender's own view depends on how far the other member has read.
        var readByContact: MessageID?
        if let contact = chat.contact(of: sender.id) { readByContact = try await known.lastRead(in: chat.id, by: contact, in: store) }
        // In a room small enough, "Seen by …" stays on the sender's own view; reactions stay under an edited text.
        let readers = chat.kind != .direct && chat.members.count <= Reader.roomLimit ? try await store.readers(of: chat.id) : nil
        let reactions = message.isDeleted ? [] : try await store.reactions(to: [message.id])[message.id] ?? []
        return ChangedCell(quoted: quoted, previous: previous, readByContact: readByContact, sender: sender, readers: readers, reactions: reactions)
    }

    /// A message's reactions, drawn again on every page that shows its chat: once for everyone who gave none of them,
    /// once for each member with a page open who gave one (their buttons are pressed). Members only, as they are now.
    private func showReactions(_ reactions: MessageReactions) async throws {
        guard let chat = try await known.chat(reactions.chatID, in: store) else { return }
        let open = live.pages(showing: chat.id)
        guard !open.isEmpty else { return }
        var shared: ScreenUpdate?
        func update(for viewer: UserID) -> ScreenUpdate {
            let model = ReactionsBuilder(viewer: viewer, paths: paths).reactions(to: reactions.messageID, in: chat.id, reactions.counts)
            return renderer.update(.replace, model.domID, .reactions(model))
        }
        for (viewer, pages) in open where chat.hasMember(viewer) {
            if reactions.counts.contains(where: { $0.people.contains(viewer) }) {
                deliver([update(for: viewer)], to: pages)
            } else {
                let drawn = shared ?? update(for: viewer)
                shared = drawn
                deliver([drawn], to: pages)
            }
        }
    }

    /// The reader's unread count and badge drop; the other members see "Read" on the messages it covers.
    private func showRead(chat id: ChatID, reader: UserID, previous: MessageID?, upTo: MessageID) async throws {
        known.read(in: id, by: reader, upTo: upTo)
        guard let chat = try await known.chat(id, in: store) else { return }
        try await readerListChanged(chat, reader: reader, upTo: upTo)
        // "Read" in a direct chat of two, "Seen by …" in a room small enough to list who.
        let inRoom = chat.kind != .direct
        guard chat.contact(of: reader) != nil || (inRoom && chat.members.count <= Reader.roomLimit) else { return }
        let others = chat.members.filter { $0 != reader }.map { ($0, pages(of: $0, showing: chat.id)) }.filter { !$0.1.isEmpty }
        guard !others.isEmpty else { return }
        // The mark is a stored id; the newest possible one has nothing after it to page before.
        let after = upTo.rawValue == .max ? nil : MessageID(upTo.rawValue + 1)
        // One more than a page: the message before the oldest one shown decides whether it continues a group.
        let recent = try await store.messages(in: chat.id, before: after, limit: EventHandler.historyPageSize + 1).messages
        let before = Dictionary(uniqueKeysWithValues: zip(recent.dropFirst().map(\.id), recent))
        var shown = Dictionary(uniqueKeysWithValues: recent.map { ($0.id, $0) })
        for replyTo in Set(recent.compactMap(\.replyTo)) where shown[replyTo] == nil {
            shown[replyTo] = try await quotedMessage(replyTo, in: chat.id)
        }
        let people = try await people(shown.values.map(\.senderID))
        let readers = inRoom ? try await store.readers(of: chat.id) : nil
        // The reactions of the cells drawn again (those of the members told), in one read.
        let told = Set(others.map(\.0))
        let redrawn = recent.filter { told.contains($0.senderID) && $0.id > (previous ?? MessageID(0)) }.map(\.id)
        let reactions = redrawn.isEmpty ? [:] : try await store.reactions(to: redrawn)
        for (member, open) in others {
            var viewer = people[member]
            if viewer == nil { viewer = try await known.user(member, in: store) }
            guard let viewer else { continue }
            let newlyRead = recent.dropFirst(recent.count > EventHandler.historyPageSize ? 1 : 0)
                .filter { $0.senderID == member && $0.id > (previous ?? MessageID(0)) }
            let cells = MessageCellBuilder(context: context(for: viewer))
            let updates = newlyRead.map { message in
                let cell = cells.cell(
                    message, sender: viewer, quoted: Self.quote(message.replyTo.flatMap { shown[$0] }, people), contactLastRead: upTo,
                    after: before[message.id], people: people, readers: readers, reactions: reactions[message.id] ?? []
                )
                return renderer.update(.replace, cell.domID, .messageCell(cell))
            }
            deliver(updates, to: open)
        }
    }

    /// The reader's own row and badge, as far as the mark goes.
    private func readerListChanged(_ chat: Chat, reader: UserID, upTo: MessageID) async throws {
        guard let entry = lists.entry(reader) else { return }
        let outcome = entry.update(.other) { list in
            let outcome = list.read(chat.id, upTo: upTo)
            if case .changed(let change) = outcome { chatList.sendChange(change, in: chat.id, of: list, to: pages(of: reader)) }
            return outcome
        }
        if outcome == .readAgain, let summary = try await store.chatSummary(chat.id, for: reader) {
            // Newer messages than the mark may still be unread: the row as the store has it, for the reader only.
            entry.update(.other) { list in
                chatList.sendChange(list.replace(summary), in: chat.id, of: list, to: pages(of: reader))
            }
        }
    }

    /// A cell at the end of the history: into its day's list when the previous message is from the same
    /// day for this viewer, otherwise as a new day section.
    static func appendUpdates(
        _ cell: MessageCellViewModel, date: Date, after previous: Message?, chat: ChatID, context: ViewerContext,
        render: (StreamAction, String, Fragment?) -> ScreenUpdate
    ) -> [ScreenUpdate] {
        let day = ConversationBuilder(context: context).daySection(chat, date: date, cells: [cell])
        if let previous, context.dates.dayKey(previous.createdAt) == context.dates.dayKey(date) {
            return [render(.append, day.listDomID, .messageCell(cell))]
        }
        return [render(.append, ConversationBuilder.messagesDomID(chat), .daySection(day))]
    }

    /// The header and the newest messages of an open conversation, drawn again for `pages`; each page's
    /// cursor moves to the newest message drawn, so none is appended twice.
    func redraw(_ chat: ChatID, for viewer: User, context: ViewerContext, pages: [ListenerRegistry.Entry]) async throws {
        guard var snapshot = try await store.conversation(chat, viewer: viewer.id, before: nil, limit: EventHandler.historyPageSize) else { return }
        if snapshot.showsReaders { snapshot = snapshot.with(readers: try await store.readers(of: chat)) }
        let builder = ConversationBuilder(context: context)
        let header = builder.header(chat, snapshot.heading)
        let messages = builder.messages(snapshot)
        deliver([
            renderer.update(.replace, header.domID, .conversationHeader(header)),
            renderer.update(.replace, messages.domID, .messages(messages)),
        ], to: pages)
        if let newest = snapshot.messages.last { live.advance(pages.map { ($0, newest.id) }) }
    }

    /// The message a reply quotes, if it is in the same chat.
    private func quotedMessage(_ id: MessageID?, in chat: ChatID) async throws -> Message? {
        guard let id, let message = try await store.message(id), message.chatID == chat else { return nil }
        return message
    }

    static func quote(_ message: Message?, _ people: [UserID: User]) -> (message: Message, author: User)? {
        guard let message, let author = people[message.senderID] else { return nil }
        return (message, author)
    }

    /// A quoted message with its author.
    private func quote(_ message: Message?) async throws -> (message: Message, author: User)? {
        guard let message, let author = try await known.user(message.senderID, in: store) else { return nil }
        return (message, author)
    }
}
