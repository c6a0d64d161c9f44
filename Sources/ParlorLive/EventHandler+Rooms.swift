import Foundation
import ParlorDomain
import ParlorViews

// What a change to a room changes on the pages: newcomers get its row (and may open it), whoever left or was
// taken out loses it and their pages of it go to the list, everyone still in sees the new name or count. The
// lines the conversation shows for the change come after it, as messages sent.

extension EventHandler {
    func membersChanged(_ change: RoomChange) async throws {
        let chat = change.chat
        // Who receives the room's events from now on: read at each event, so a removal holds for whatever follows.
        known.remember(chat)
        for person in change.added {
            guard let entry = lists.entry(person), let summary = try await store.chatSummary(chat.id, for: person) else { continue }
            entry.update(.other) { list in
                guard list.added(summary) else { return }
                let pages = pages(of: person)
                sendRow(chat.id, of: list, to: pages, movingToTop: true, isNew: true)
                if summary.unreadCount > 0 { deliver([badgeUpdate(total: list.unreadTotal, context: context(for: list.user))], to: pages) }
            }
        }
        for person in change.removed {
            if let entry = lists.entry(person) {
                entry.update(.other) { list in
                    let removal = list.removed(chat.id)
                    let pages = pages(of: person)
                    if removal.row { deliver([renderer.update(.remove, "chat-item-\(chat.id)", nil)], to: pages.filter { $0.page.feedsOf == nil }) }
                    if removal.unread { deliver([badgeUpdate(total: list.unreadTotal, context: context(for: list.user))], to: pages) }
                }
            }
            // Their pages of the room (its conversation, its feeds) go back to the list.
            let leave = renderer.update(.leave, paths.chats, nil)
            deliver([leave], to: pages(of: person).filter { $0.page.openChat == chat.id || $0.page.feedsOf == chat.id })
        }
        try await headingChanged(chat)
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

    func roomRenamed(_ change: RoomChange) async throws {
        known.remember(change.chat)
        try await headingChanged(change.chat)
    }

    /// The room's row in each member's list, and the header of each open page of it, drawn again: one header
    /// for every page (a room's header is the same for everyone), one row per person.
    func headingChanged(_ chat: Chat) async throws {
        let heading = chat.heading(contact: nil)
        var header: ScreenUpdate?
        for member in chat.members {
            if let entry = lists.entry(member) {
                entry.update(.other) { list in
                    sendChange(list.renamed(chat.id, heading), in: chat.id, of: list, to: pages(of: member))
                }
            }
            let open = pages(of: member, showing: chat.id)
            guard !open.isEmpty, chat.kind != .direct else { continue }
            let update = header ?? {
                let drawn = ConversationBuilder(context: ViewerContext(viewer: User(id: member, handle: "", displayName: ""), now: clock.now, basePath: paths.basePath))
                    .header(chat.id, heading)
                return renderer.update(.replace, drawn.domID, .conversationHeader(drawn))
            }()
            header = update
            deliver([update], to: open)
        }
    }
}

extension EventHandler {
    /// A deactivated person's pages are told to reload (which signs them out) and closed at once, on every
    /// instance; the rooms they left, or joined again, show their new member count.
    func accountChanged(_ state: AccountState) async throws {
        known.forget(state.user.id)
        if !state.isActive {
            let pages = pages(of: state.user.id)
            let refresh = renderer.update(.refresh, "page", nil)
            for page in pages {
                page.listener.receive(refresh)
                page.listener.end()
            }
            lists.entry(state.user.id)?.forget()
        }
        for room in state.rooms {
            guard let chat = try await store.chat(room) else { continue }
            known.remember(chat)
            try await headingChanged(chat)
        }
    }
}
