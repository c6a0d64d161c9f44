import ParlorDomain
import Synchronization

/// Which stored things changed, and when, as counted by the router: what lets a page rendered earlier be
/// served again only while nothing it shows has changed.
///
/// Every stored event takes the next number of one sequence and writes it into the slots it touches: a
/// message, an edit or a read writes its chat's slot; a new chat writes both members' slots (their lists
/// gained a row); a profile change or a new account writes the slot everyone shares (names and zones show on
/// other people's pages; a new account joins the open rooms). A page read after ``mark()`` answered `m` shows every change numbered `m` or less, so it
/// is still current while ``unchanged(since:viewer:chats:)`` finds no slot of its viewer or its chats past
/// `m`. Slots are a fixed number of counters that ids hash into: memory stays bounded whatever the number
/// of people, and two ids sharing a slot only cost a page a fresh render.
///
/// The router writes a change after the store committed it and before it answers, so the page a person is
/// sent to after a POST never comes from before their own change. Another instance's changes arrive on the
/// event bus and are written when they are received.
public final class ChangeCounters: Sendable {
    private struct State {
        var sequence: UInt64 = 0
        var everyone: UInt64 = 0
        var users: [UInt64]
        var chats: [UInt64]
    }

    private let state: Mutex<State>
    private let slotMask: Int

    /// `slots` counters for people and as many for chats (rounded up to a power of two).
    public init(slots: Int = 1 << 14) {
        var count = 1
        while count < max(slots, 1) { count <<= 1 }
        slotMask = count - 1
        state = Mutex(State(users: Array(repeating: 0, count: count), chats: Array(repeating: 0, count: count)))
    }

    /// The number of the newest change so far. Take it before reading what a page shows.
    public func mark() -> UInt64 {
        state.withLock { $0.sequence }
    }

    /// Whether no change numbered after `mark` touched `viewer`, any of `chats`, or everyone.
    public func unchanged(since mark: UInt64, viewer: UserID, chats: [ChatID]) -> Bool {
        let user = slot(viewer.rawValue)
        let chatSlots = chats.map { slot($0.rawValue) }
        return state.withLock { state in
            guard state.everyone <= mark, state.users[user] <= mark else { return false }
            for chat in chatSlots where state.chats[chat] > mark { return false }
            return true
        }
    }

    /// Counts a stored event. Events that change nothing stored (a send that is still on its way, a refusal)
    /// count for nothing.
    public func note(_ event: DomainEvent) {
        switch event {
        case .message(.sent(let message, _)), .message(.edited(let message)), .message(.deleted(let message)),
             .message(.photoProcessed(let message)), .message(.previewed(let message)):
            touch(chat: message.chatID)
        case .message(.userRead(let chat, _, _, _)):
            touch(chat: chat)
        case .message(.reacted(let reactions)):
            touch(chat: reactions.chatID)
        case .chat(.membersChanged(let change)):
            // The newcomers' lists gain a row; everyone else's pages show the room (its count) already.
            noteNew(change.chat, for: change.added)
        case .chat(.roomRenamed(let change)):
            touch(chat: change.chat.id)
        case .chat(.involvementChanged(let membership)):
            // Only the member's own list and badge follow it.
            touch(user: membership.userID)
        case .account(.roleChanged(let person, _)):
            // Their pages may offer what only administrators have.
            touch(user: person)
        case .chat(.created(let chat)):
            noteNew(chat, for: chat.members)
        case .user(.profileUpdated), .user(.signedUp), .user(.accountChanged), .account(.settingsChanged):
            // A new account joins every open room (a deactivated one leaves every room): their member counts moved.
            state.withLock { state in
                state.sequence += 1
                state.everyone = state.sequence
            }
        case .message(.sending), .message(.failedSending), .message(.editing), .message(.failedEditing), .message(.userReads),
             .message(.deleting), .message(.failedDeleting), .message(.processingPhoto), .message(.reacting), .message(.failedReacting),
             .message(.previewing), .message(.removingPreview), .message(.failedRemovingPreview),
             .chat(.creating), .chat(.creatingDirect), .chat(.creatingRoom), .chat(.createFailed), .chat(.changingMembers), .chat(.memberChangeFailed),
             .chat(.renamingRoom), .chat(.renameFailed), .chat(.changingInvolvement), .user(.signingUp), .user(.signUpFailed),
             .user(.updatingProfile), .user(.profileUpdateFailed), .user(.changingAccount), .user(.accountChangeFailed), .feed, .presence, .account:
            break
        }
    }

    /// `chat` changed, and `people`'s lists have a new row.
    private func noteNew(_ chat: Chat, for people: [UserID]) {
        let slots = people.map { slot($0.rawValue) }
        let chatSlot = slot(chat.id.rawValue)
        state.withLock { state in
            state.sequence += 1
            for user in slots { state.users[user] = state.sequence }
            state.chats[chatSlot] = state.sequence
        }
    }

    private func touch(user: UserID) {
        let userSlot = slot(user.rawValue)
        state.withLock { state in
            state.sequence += 1
            state.users[userSlot] = state.sequence
        }
    }

    private func touch(chat: ChatID) {
        let chatSlot = slot(chat.rawValue)
        state.withLock { state in
            state.sequence += 1
            state.chats[chatSlot] = state.sequence
        }
    }

    private func slot(_ id: Int64) -> Int {
        // Ids are consecutive numbers: taken modulo a power of two, they share a slot only a full turn apart.
        Int(truncatingIfNeeded: id) & slotMask
    }
}
