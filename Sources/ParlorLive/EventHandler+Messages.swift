import Foundation
import ParlorDomain
import ParlorViews

// What each message event changes on the pages that show it. Each event reads what it needs from the
// store once (a quoted message, the history an open page lacks), never per member: each person's chat list
// and unread total are kept (``ViewerLists``); then it builds and renders per viewer, never per page.

extension EventHandler {
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
            deliver(appendUpdates(cell, date: outgoing.createdAt, after: previous, chat: chat.id, context: context), to: group)
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
        let open = registry(pagesShowing: chat.id).filter { members.contains($0.key) }
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
        // The people these messages show: their senders and the authors they quote (not every member).
        let people = try await people(
            window.map(\.senderID) + quotes.values.map(\.senderID) + group.map(\.message.senderID) + window.compactMap(\.notice?.subject)
        )
        let added = group.map(\.message).sorted { $0.id < $1.id }
        // Whom each names, read once for every member's count.
        let named = Dictionary(added.map { ($0.id, $0.named) }, uniquingKeysWith: { first, _ in first })
        // Fixed for the parts below, which may run side by side.
        let (history, cut, quoting) = (window, truncated, quotes)
        // A room of thousands is fanned out in parts side by side, one per lane, each part's members in turn:
        // every page still gets this event's updates in one batch, and the next event only after the parts end.
        @Sendable func fanOut(_ members: ArraySlice<UserID>) async throws {
            let memo = FragmentRenderer.Memo(renderer)
            let outbox = Outbox()
            // The pages' new cursors, recorded together at the end (in one hold of the registry), failure or not.
            var advanced: [(page: ListenerRegistry.Entry, cursor: MessageID)] = []
            defer { advance(advanced) }
            for member in members {
                guard let entry = lists.entry(member) else { continue }
                // Whatever this member's pages get below goes out in one write per page, at the end.
                defer { outbox.send() }
                if let openPages = open[member], let viewer = try await viewer(member, entry) {
                    // Made at the first cell this member does not share with someone before them.
                    var made: ViewerContext?
                    func drawing() -> ViewerContext {
                        if let made { return made }
                        let new = context(for: viewer)
                        made = new
                        return new
                    }
                    // "Read" or "Sent" on the viewer's own messages, as far as the contact has read now.
                    var contactRead: MessageID?
                    if let contact = chat.contact(of: member) { contactRead = try await known.lastRead(in: chat.id, by: contact, in: store) }
                    let removals = group.filter { $0.message.senderID == member }.map { renderer.update(.remove, "pending-\($0.token)", nil) }
                    var rendered: [MessageID: [ScreenUpdate]] = [:]
                    for page in openPages {
                        let cursor = page.cursor ?? MessageID(0)
                        guard let start = history.firstIndex(where: { $0.id > cursor }) else {
                            outbox.add(removals, to: page)
                            continue
                        }
                        if start == 0, cut {
                            outbox.add([renderer.update(.refresh, "page", nil)], to: page)
                            continue
                        }
                        var updates = removals
                        for index in start..<history.count {
                            let message = history[index]
                            // Everything the cell depends on besides the message: in a room, most members share it.
                            let variant = CellVariant(
                                message: message.id, previous: index > 0 ? history[index - 1].id : nil, zone: viewer.timeZoneIdentifier,
                                locale: viewer.localeIdentifier,
                                viewer: chat.kind == .direct || message.senderID == member || message.notice?.subject == member ? member : nil,
                                namedHandle: (named[message.id] ?? message.named).handles.contains(viewer.handle.lowercased()) ? viewer.handle.lowercased() : nil,
                                contactRead: contactRead
                            )
                            let cells = rendered[message.id] ?? memo.updates(for: variant) {
                                let cell = MessageCellBuilder(context: drawing()).cell(
                                    message, sender: people[message.senderID] ?? viewer,
                                    quoted: quote(message.replyTo.flatMap { quoting[$0] }, people), contactLastRead: contactRead,
                                    after: index > 0 ? history[index - 1] : nil, people: people
                                )
                                return appendUpdates(
                                    cell, date: message.createdAt, after: index > 0 ? history[index - 1] : nil, chat: chat.id, context: drawing(), memo: memo
                                )
                            }
                            rendered[message.id] = cells
                            updates += cells
                        }
                        outbox.add(updates, to: page)
                        advanced.append((page, history[history.count - 1].id))
                    }
                }
                // The row moves to the top, the badge counts the new ones, a toast where the chat is not open.
                entry.update(.sent(added.map { ($0, people[$0.senderID]?.displayName) })) { list in
                    var change = ViewerList.Change()
                    for message in added {
                        let one = list.sent(message, senderName: people[message.senderID]?.displayName, named: named[message.id])
                        change.row = change.row || one.row
                        change.unread = change.unread || one.unread
                    }
                    // Sent under the person's lock: their badge's totals arrive in order, whatever lanes produce them.
                    defer { outbox.send() }
                    let pages = pages(of: member)
                    guard !pages.isEmpty else { return }
                    let context = context(for: list.user)
                    sendRow(chat.id, of: list, to: pages, movingToTop: true, memo: memo, outbox: outbox)
                    if change.unread {
                        let badge = badgeUpdate(total: list.unreadTotal, context: context)
                        for page in pages { outbox.add([badge], to: page) }
                    }
                    // A toast as the person follows the chat: every message, or those that name them.
                    let involvement = list.chats[chat.id]?.involvement ?? .everything
                    let toasted = added.last { message in
                        guard message.senderID != member, message.notice == nil else { return false }
                        switch involvement {
                        case .everything: return true
                        case .mentions, .hidden: return named[message.id]?.names(list.user.handle) == true
                        case .nothing: return false
                        }
                    }
                    if let newest = toasted, let sender = people[newest.senderID] {
                        let elsewhere = pages.filter { $0.page.openChat != chat.id }
                        if !elsewhere.isEmpty {
                            let toast = PageBuilder(context: context).toast(newest, from: sender)
                            let update = renderer.update(.toast, toast.domID, .toast(toast))
                            for page in elsewhere { outbox.add([update], to: page) }
                        }
                    }
                }
            }
        }
        let parts = Self.fanOutParts(chat.members, count: laneCount, partSize: fanOutPartSize)
        if parts.count == 1 { return try await fanOut(parts[0]) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for part in parts { tasks.addTask { try await fanOut(part) } }
            try await tasks.waitForAll()
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
        let open = viewers.filter { !pages(of: $0.0, showing: chat.id).isEmpty }
        var cell: (
            quoted: (message: Message, author: User)?, previous: Message?, readByContact: MessageID?, sender: User, readers: [Reader]?,
            reactions: [ReactionCount]
        )?
        if !open.isEmpty, let sender = try await known.user(message.senderID, in: store) {
            let quoted = try await quote(try await quotedMessage(message.replyTo, in: chat.id))
            // Whether the cell continues a group depends on the message shown before it.
            let previous = try await store.messages(in: chat.id, before: message.id, limit: 1).messages.last
            // "Read" or "Sent" on the sender's own view depends on how far the other member has read.
            var readByContact: MessageID?
            if let contact = chat.contact(of: sender.id) { readByContact = try await known.lastRead(in: chat.id, by: contact, in: store) }
            // In a room small enough, "Seen by …" stays on the sender's own view; reactions stay under an edited text.
            let readers = chat.kind != .direct && chat.members.count <= Reader.roomLimit ? try await store.readers(of: chat.id) : nil
            let reactions = message.isDeleted ? [] : try await store.reactions(to: [message.id])[message.id] ?? []
            cell = (quoted, previous, readByContact, sender, readers, reactions)
        }
        for (member, entry) in viewers {
            let open = pages(of: member, showing: chat.id)
            if !open.isEmpty, let cell, let viewer = try await viewer(member, entry) {
                let drawn = MessageCellBuilder(context: context(for: viewer)).cell(
                    message, sender: cell.sender, quoted: cell.quoted, contactLastRead: cell.readByContact, after: cell.previous,
                    readers: cell.readers, reactions: cell.reactions
                )
                deliver([renderer.update(.replace, drawn.domID, .messageCell(drawn))], to: open)
            }
            entry.update(.other) { list in
                // A deleted message no longer counts as unread for the others.
                sendChange(list.changed(message), in: chat.id, of: list, to: pages(of: member))
            }
        }
    }

    /// A message's reactions, drawn again on every page that shows its chat: once for everyone who gave none of them,
    /// once for each member with a page open who gave one (their buttons are pressed). Members only, as they are now.
    private func showReactions(_ reactions: MessageReactions) async throws {
        guard let chat = try await known.chat(reactions.chatID, in: store) else { return }
        let open = registry(pagesShowing: chat.id)
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

    /// The person a kept list is drawn for; read (once) while it is being read again.
    private func viewer(_ member: UserID, _ entry: ViewerLists.Entry) async throws -> User? {
        if let user = entry.withList({ $0?.user }) { return user }
        return try await known.user(member, in: store)
    }

    /// The reader's unread count and badge drop; the other members see "Read" on the messages it covers.
    private func showRead(chat id: ChatID, reader: UserID, previous: MessageID?, upTo: MessageID) async throws {
        known.read(in: id, by: reader, upTo: upTo)
        guard let chat = try await known.chat(id, in: store) else { return }
        if let entry = lists.entry(reader) {
            let outcome = entry.update(.other) { list in
                let outcome = list.read(chat.id, upTo: upTo)
                if case .changed(let change) = outcome { sendChange(change, in: chat.id, of: list, to: pages(of: reader)) }
                return outcome
            }
            if outcome == .readAgain, let summary = try await store.chatSummary(chat.id, for: reader) {
                // Newer messages than the mark may still be unread: the row as the store has it, for the reader only.
                entry.update(.other) { list in
                    sendChange(list.replace(summary), in: chat.id, of: list, to: pages(of: reader))
                }
            }
        }
        // "Read" in a direct chat of two, "Seen by …" in a room small enough to list who.
        let inRoom = chat.kind != .direct
        guard chat.contact(of: reader) != nil || (inRoom && chat.members.count <= Reader.roomLimit) else { return }
        let others = chat.members.filter { $0 != reader }.map { ($0, pages(of: $0, showing: chat.id)) }.filter { !$0.1.isEmpty }
        guard !others.isEmpty else { return }
        // The mark is a stored id; the newest possible one has nothing after it to page before.
        let after = upTo.rawValue == .max ? nil : MessageID(upTo.rawValue + 1)
        // One more than a page: the message before the oldest one shown decides whether it continues a group.
        let recent = try await store.messages(in: chat.id, before: after, limit: Self.historyPageSize + 1).messages
        let before = Dictionary(uniqueKeysWithValues: zip(recent.dropFirst().map(\.id), recent))
        var known = Dictionary(uniqueKeysWithValues: recent.map { ($0.id, $0) })
        for replyTo in Set(recent.compactMap(\.replyTo)) where known[replyTo] == nil {
            known[replyTo] = try await quotedMessage(replyTo, in: chat.id)
        }
        let people = try await people(known.values.map(\.senderID))
        let readers = inRoom ? try await store.readers(of: chat.id) : nil
        // The reactions of the cells drawn again (those of the members told), in one read.
        let told = Set(others.map(\.0))
        let redrawn = recent.filter { told.contains($0.senderID) && $0.id > (previous ?? MessageID(0)) }.map(\.id)
        let reactions = redrawn.isEmpty ? [:] : try await store.reactions(to: redrawn)
        for (member, open) in others {
            var viewer = people[member]
            if viewer == nil { viewer = try await self.known.user(member, in: store) }
            guard let viewer else { continue }
            let newlyRead = recent.dropFirst(recent.count > Self.historyPageSize ? 1 : 0)
                .filter { $0.senderID == member && $0.id > (previous ?? MessageID(0)) }
            let cells = MessageCellBuilder(context: context(for: viewer))
            let updates = newlyRead.map { message in
                let cell = cells.cell(
                    message, sender: viewer, quoted: quote(message.replyTo.flatMap { known[$0] }, people), contactLastRead: upTo,
                    after: before[message.id], people: people, readers: readers, reactions: reactions[message.id] ?? []
                )
                return renderer.update(.replace, cell.domID, .messageCell(cell))
            }
            deliver(updates, to: open)
        }
    }

    /// A cell at the end of the history: into its day's list when the previous message is from the same
    /// day for this viewer, otherwise as a new day section.
    private func appendUpdates(
        _ cell: MessageCellViewModel, date: Date, after previous: Message?, chat: ChatID, context: ViewerContext, memo: FragmentRenderer.Memo? = nil
    ) -> [ScreenUpdate] {
        let render = memo?.update ?? renderer.update
        let day = ConversationBuilder(context: context).daySection(chat, date: date, cells: [cell])
        if let previous, context.dates.dayKey(previous.createdAt) == context.dates.dayKey(date) {
            return [render(.append, day.listDomID, .messageCell(cell))]
        }
        return [render(.append, ConversationBuilder.messagesDomID(chat), .daySection(day))]
    }

    /// The chat's row in each of the viewer's lists, replaced in place or moved to the top. Two variants at
    /// most, each rendered once: the page with this chat open marks the item as current. A row that should
    /// move to the top but is not the newest (another lane moved a newer one there first) redraws the list.
    /// A new row (`isNew`) has nothing to remove first.
    func sendRow(
        _ chat: ChatID, of list: ViewerList, to pages: [ListenerRegistry.Entry], movingToTop: Bool, isNew: Bool = false, memo: FragmentRenderer.Memo? = nil,
        outbox: Outbox? = nil
    ) {
        let render = memo?.update ?? renderer.update
        guard let summary = list.chats[chat] else { return }
        // A hidden chat that names nobody: not in the lists (the page that has it open redraws its list).
        if !summary.isListed { return sendList(list, to: pages) }
        if movingToTop, !list.isAtTop(chat) { return sendList(list, to: pages) }
        var made: ChatListBuilder?
        func builder() -> ChatListBuilder {
            if let made { return made }
            let new = ChatListBuilder(context: context(for: list.user))
            made = new
            return new
        }
        let lists = pages.filter { $0.page.feedsOf == nil }
        let removal = movingToTop && !isNew ? render(.remove, "chat-item-\(chat)", nil) : nil
        var variants: [Bool: ScreenUpdate] = [:]
        for page in lists {
            let isCurrent = page.page.openChat == chat
            let update = variants[isCurrent] ?? {
                let draw = {
                    let item = builder().item(summary, isCurrent: isCurrent)
                    return [movingToTop
                        ? render(.prepend, ChatListBuilder.sectionDomID(summary.heading), .chatListItem(item))
                        : render(.replace, item.domID, .chatListItem(item))]
                }
                guard let memo else { return draw()[0] }
                return memo.updates(for: RowVariant(summary, viewer: list.user, isCurrent: isCurrent, movingToTop: movingToTop), draw)[0]
            }()
            variants[isCurrent] = update
            let updates = removal.map { [$0, update] } ?? [update]
            if let outbox { outbox.add(updates, to: page) } else { page.listener.receive(updates) }
        }
    }

    /// The whole chat list, rendered once per open chat, to the pages that show one.
    func sendList(_ list: ViewerList, to pages: [ListenerRegistry.Entry]) {
        let builder = ChatListBuilder(context: context(for: list.user))
        let summaries = list.summaries
        var variants: [ChatID?: ScreenUpdate] = [:]
        for page in pages where page.page.feedsOf == nil {
            let update = variants[page.page.openChat]
                ?? renderer.update(.replace, "chat-list", .chatList(builder.loaded(summaries, current: page.page.openChat)))
            variants[page.page.openChat] = update
            page.listener.receive(update)
        }
    }

    /// What a change to one row shows: the row in place, and the badge when the total moved.
    func sendChange(_ change: ViewerList.Change, in chat: ChatID, of list: ViewerList, to pages: [ListenerRegistry.Entry]) {
        guard !pages.isEmpty else { return }
        if change.row { sendRow(chat, of: list, to: pages, movingToTop: false) }
        if change.unread { deliver([badgeUpdate(total: list.unreadTotal, context: context(for: list.user))], to: pages) }
    }

    /// The people with these ids (each read for an earlier event unless their profile changed since).
    func people(_ ids: some Sequence<UserID>) async throws -> [UserID: User] {
        var people: [UserID: User] = [:]
        for id in Set(ids) { people[id] = try await known.user(id, in: store) }
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

    /// A quoted message with its author.
    private func quote(_ message: Message?) async throws -> (message: Message, author: User)? {
        guard let message, let author = try await known.user(message.senderID, in: store) else { return nil }
        return (message, author)
    }

    func deliver(_ updates: [ScreenUpdate], to pages: [ListenerRegistry.Entry]) {
        guard !updates.isEmpty else { return }
        for page in pages { page.listener.receive(updates) }
    }
}
