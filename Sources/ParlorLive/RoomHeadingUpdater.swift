import Foundation
import ParlorDomain
import ParlorViews

/// What a change to a room changes on the pages: newcomers get its row (and may open it), whoever left or was
/// taken out loses it and their pages of it go to the list, everyone still in sees the new name or member count
/// in their list and in the room's header. The lines the conversation shows for the change come after it, as
/// messages sent.
struct RoomHeadingUpdater: LiveUpdater {
    let live: LiveContext

    func membersChanged(_ change: RoomChange) async throws {
        let chat = change.chat
        // Who receives the room's events from now on: read at each event, so a removal holds for whatever follows.
        known.remember(chat)
        for person in change.added { try await chatList.added(chat, for: person) }
        for person in change.removed {
            chatList.removed(chat, for: person)
            // Their pages of the room (its conversation, its feeds) go back to the list.
            let leave = renderer.update(.leave, paths.chats, nil)
            deliver([leave], to: pages(of: person).filter { $0.page.openChat == chat.id || $0.page.feedsOf == chat.id })
        }
        try await headingChanged(chat)
    }

    func roomRenamed(_ change: RoomChange) async throws {
        known.remember(change.chat)
        try await headingChanged(change.chat)
    }

    /// A newcomer joined every open room: its messages reach them from now on, and the rooms' member counts
    /// move on the pages that show them (rooms read here before; the others show it when next read).
    func signedUp(_ user: User) async throws {
        for room in known.joinedOpenRooms(user.id) { try await headingChanged(room) }
    }

    /// The rooms a deactivated (or reactivated) person was in show their new member count.
    func accountChanged(_ state: AccountState) async throws {
        for room in state.rooms {
            guard let chat = try await store.chat(room) else { continue }
            known.remember(chat)
            try await headingChanged(chat)
        }
    }

    /// The room's row in each member's list, and the header of each open page of it, drawn again: one header
    /// for every page (a room's header is the same for everyone), one row per person.
    func headingChanged(_ chat: Chat) async throws {
        let heading = chat.heading(contact: nil)
        var header: ScreenUpdate?
        for member in chat.members {
            if let entry = lists.entry(member) {
                entry.update(.other) { list in
                    chatList.sendChange(list.renamed(chat.id, heading), in: chat.id, of: list, to: pages(of: member))
                }
            }
            let open = pages(of: member, showing: chat.id)
            guard !open.isEmpty, chat.kind != .direct else { continue }
            let update = header ?? {
                let viewer = User(id: member, handle: "", displayName: "")
                let drawn = ConversationBuilder(context: ViewerContext(viewer: viewer, now: live.clock.now, basePath: paths.basePath)).header(chat.id, heading)
                return renderer.update(.replace, drawn.domID, .conversationHeader(drawn))
            }()
            header = update
            deliver([update], to: open)
        }
    }
}
