import ParlorDomain
import ParlorViews

/// The chat list and the unread badge of each open page: rows moved, replaced, added and taken out, each
/// rendered once per variant (whether the row's chat is the page's open one), from the person's kept list
/// (``ViewerLists``), so a change reads nothing per member.
struct ChatListUpdater: LiveUpdater {
    let live: LiveContext

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
        let removal = movingToTop && !isNew ? render(.remove, "chat-item-\(chat)", nil) : nil
        var variants: [Bool: ScreenUpdate] = [:]
        for page in pages where page.page.feedsOf == nil {
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

    /// A new chat: at the top of each member's lists (nothing read but the other member of a direct chat, once).
    func chatCreated(_ chat: Chat) async throws {
        known.remember(chat)
        for member in chat.members {
            guard let entry = lists.entry(member) else { continue }
            var contact: User?
            if let contactID = chat.contact(of: member) {
                contact = try await known.user(contactID, in: store)
                if contact == nil { continue }
            }
            let summary = ChatSummary(
                chatID: chat.id, heading: chat.heading(contact: contact, others: try await store.others(in: chat, for: member)), lastMessage: nil,
                unreadCount: 0, lastActivity: chat.createdAt
            )
            entry.update(.other) { list in
                guard list.added(summary) else { return }
                sendRow(chat.id, of: list, to: pages(of: member), movingToTop: true, isNew: true)
            }
        }
    }

    /// A room's newcomer gets its row (and the badge, when it holds unread messages).
    func added(_ chat: Chat, for person: UserID) async throws {
        guard let entry = lists.entry(person), let summary = try await store.chatSummary(chat.id, for: person) else { return }
        entry.update(.other) { list in
            guard list.added(summary) else { return }
            let pages = pages(of: person)
            sendRow(chat.id, of: list, to: pages, movingToTop: true, isNew: true)
            if summary.unreadCount > 0 { deliver([badgeUpdate(total: list.unreadTotal, context: context(for: list.user))], to: pages) }
        }
    }

    /// Whoever left a room, or was taken out, loses its row (and its unread count).
    func removed(_ chat: Chat, for person: UserID) {
        guard let entry = lists.entry(person) else { return }
        entry.update(.other) { list in
            let removal = list.removed(chat.id)
            let pages = pages(of: person)
            if removal.row { deliver([renderer.update(.remove, "chat-item-\(chat.id)", nil)], to: pages.filter { $0.page.feedsOf == nil }) }
            if removal.unread { deliver([badgeUpdate(total: list.unreadTotal, context: context(for: list.user))], to: pages) }
        }
    }

    /// The member follows the chat more or less closely: their list (a row may hide or come back) and badge.
    func involvementChanged(_ membership: Membership) {
        guard let entry = lists.entry(membership.userID) else { return }
        entry.update(.other) { list in
            let change = list.follows(membership.chatID, membership.involvement)
            let pages = pages(of: membership.userID)
            guard change.row else { return }
            sendList(list, to: pages)
            if change.unread { deliver([badgeUpdate(total: list.unreadTotal, context: context(for: list.user))], to: pages) }
        }
    }

    /// A new name, time zone or locale: the person's own pages and their contacts' pages get their chat
    /// list again (names, and dates in the new time zone), rendered once per open chat. Where the
    /// conversation open is with that person (or is the person's own, whose dates moved), its header and
    /// messages follow. Runs while every lane waits.
    func profileUpdated(_ user: User) async throws {
        for (person, entry) in lists.all {
            let redraw: (User, Set<ChatID>, [ListenerRegistry.Entry])?? = entry.update(.other) { list -> (User, Set<ChatID>, [ListenerRegistry.Entry])? in
                var affected: Set<ChatID>
                if person == user.id {
                    list.user = user
                    affected = Set(list.chats.keys)
                } else {
                    affected = Set(list.contactChanged(user))
                }
                let pages = pages(of: person)
                guard !affected.isEmpty, !pages.isEmpty else { return nil }
                sendList(list, to: pages)
                return (list.user, affected, pages)
            }
            guard let found = redraw, let (viewer, affected, pages) = found else { continue }
            let drawing = context(for: viewer)
            let conversations = ConversationUpdater(live: live)
            for (chat, open) in Dictionary(grouping: pages.filter { $0.page.openChat.map(affected.contains) == true }, by: { $0.page.openChat! }) {
                try await conversations.redraw(chat, for: viewer, context: drawing, pages: open)
            }
        }
    }
}
