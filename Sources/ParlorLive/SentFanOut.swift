import Foundation
import ParlorDomain
import ParlorViews

/// One event's stored messages of one chat, told to its members (or a part of them, side by side with the other
/// parts): every open page of the chat gets the messages after its cursor, drawn once per variant of a cell
/// (``CellVariant``), and the sender's "Sending" cells give way; every member's row moves to the top, the
/// badge counts the new ones, and a toast shows where the chat is not open. Everything one member's pages get
/// goes out in one write per page (``Outbox``).
struct SentFanOut: LiveUpdater {
    let live: LiveContext
    let chat: Chat
    let group: [(message: Message, token: String)]
    /// The new messages, in id order.
    let added: [Message]
    /// The open pages of the chat, by member.
    let open: [UserID: [ListenerRegistry.Entry]]
    /// What the open pages lack, with the message before it; `truncated` when a page is further behind than that.
    let history: [Message]
    let truncated: Bool
    let quotes: [MessageID: Message]
    let people: [UserID: User]
    let named: [MessageID: NamedPeople]

    func run(_ members: ArraySlice<UserID>) async throws {
        let memo = FragmentRenderer.Memo(renderer)
        let outbox = Outbox()
        // The pages' new cursors, recorded together at the end (in one hold of the registry), failure or not.
        var advanced: [(page: ListenerRegistry.Entry, cursor: MessageID)] = []
        defer { live.advance(advanced) }
        for member in members {
            guard let entry = lists.entry(member) else { continue }
            // Whatever this member's pages get below goes out in one write per page, at the end.
            defer { outbox.send() }
            if let openPages = open[member], let viewer = try await live.viewer(member, entry) {
                advanced += try await drawMessages(for: viewer, on: openPages, memo: memo, outbox: outbox)
            }
            moveRow(of: member, entry, memo: memo, outbox: outbox)
        }
    }

    /// The messages each of the viewer's open pages lacks; answers the pages' new cursors.
    private func drawMessages(
        for viewer: User, on openPages: [ListenerRegistry.Entry], memo: FragmentRenderer.Memo, outbox: Outbox
    ) async throws -> [(page: ListenerRegistry.Entry, cursor: MessageID)] {
        let member = viewer.id
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
        var advanced: [(page: ListenerRegistry.Entry, cursor: MessageID)] = []
        for page in openPages {
            let cursor = page.cursor ?? MessageID(0)
            guard let start = history.firstIndex(where: { $0.id > cursor }) else {
                outbox.add(removals, to: page)
                continue
            }
            if start == 0, truncated {
                outbox.add([renderer.update(.refresh, "page", nil)], to: page)
                continue
            }
            var updates = removals
            for index in start..<history.count {
                let message = history[index]
                let cells = rendered[message.id] ?? memo.updates(for: variant(of: index, for: viewer, contactRead: contactRead)) {
                    cell(at: index, for: viewer, contactRead: contactRead, context: drawing(), memo: memo)
                }
                rendered[message.id] = cells
                updates += cells
            }
            outbox.add(updates, to: page)
            advanced.append((page, history[history.count - 1].id))
        }
        return advanced
    }

    /// Everything the cell of `history[index]` depends on besides the message: in a room, most members share it.
    private func variant(of index: Int, for viewer: User, contactRead: MessageID?) -> CellVariant {
        let message = history[index]
        let member = viewer.id
        return CellVariant(
            message: message.id, previous: index > 0 ? history[index - 1].id : nil, zone: viewer.timeZoneIdentifier,
            locale: viewer.localeIdentifier,
            viewer: chat.kind == .direct || message.senderID == member || message.notice?.subject == member ? member : nil,
            namedHandle: (named[message.id] ?? message.named).handles.contains(viewer.handle.lowercased()) ? viewer.handle.lowercased() : nil,
            contactRead: contactRead
        )
    }

    /// The cell of `history[index]` at the end of the viewer's history.
    private func cell(at index: Int, for viewer: User, contactRead: MessageID?, context: ViewerContext, memo: FragmentRenderer.Memo) -> [ScreenUpdate] {
        let message = history[index]
        let previous = index > 0 ? history[index - 1] : nil
        let cell = MessageCellBuilder(context: context).cell(
            message, sender: people[message.senderID] ?? viewer,
            quoted: ConversationUpdater.quote(message.replyTo.flatMap { quotes[$0] }, people), contactLastRead: contactRead,
            after: previous, people: people
        )
        return ConversationUpdater.appendUpdates(cell, date: message.createdAt, after: previous, chat: chat.id, context: context, render: memo.update)
    }

    /// The row moves to the top, the badge counts the new ones, a toast where the chat is not open.
    private func moveRow(of member: UserID, _ entry: ViewerLists.Entry, memo: FragmentRenderer.Memo, outbox: Outbox) {
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
            chatList.sendRow(chat.id, of: list, to: pages, movingToTop: true, memo: memo, outbox: outbox)
            if change.unread {
                let badge = badgeUpdate(total: list.unreadTotal, context: context)
                for page in pages { outbox.add([badge], to: page) }
            }
            toast(for: list, on: pages, context: context, outbox: outbox)
        }
    }

    /// A toast as the person follows the chat (every message, or those that name them), on their pages where the
    /// chat is not open.
    private func toast(for list: ViewerList, on pages: [ListenerRegistry.Entry], context: ViewerContext, outbox: Outbox) {
        let member = list.user.id
        let involvement = list.chats[chat.id]?.involvement ?? .everything
        let toasted = added.last { message in
            guard message.senderID != member, message.notice == nil else { return false }
            switch involvement {
            case .everything: return true
            case .mentions, .hidden: return named[message.id]?.names(list.user.handle) == true
            case .nothing: return false
            }
        }
        guard let newest = toasted, let sender = people[newest.senderID] else { return }
        let elsewhere = pages.filter { $0.page.openChat != chat.id }
        guard !elsewhere.isEmpty else { return }
        let toast = PageBuilder(context: context).toast(newest, from: sender)
        let update = renderer.update(.toast, toast.domID, .toast(toast))
        for page in elsewhere { outbox.add([update], to: page) }
    }
}
