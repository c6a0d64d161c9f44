import ParlorDomain
import Synchronization

/// What the live pages read again for every event, kept between events: chats (their members change only by
/// events: a new account joins the open rooms),
/// people (until an event says their profile changed), how far each member has read (it only moves forward,
/// by events) and each chat's newest message handed to pages (what the next ones follow). Bounded: emptied
/// when full.
final class KnownValues: Sendable {
    private struct State {
        var chats: [ChatID: Chat] = [:]
        var users: [UserID: User] = [:]
        var newest: [ChatID: Message] = [:]
        /// How far each member of a chat has read; 0 when nothing yet.
        var lastRead: [ChatID: [UserID: MessageID]] = [:]
        /// Moves on whenever a person is forgotten: a read that began before is not kept.
        var generation = 0
    }

    private let state = Mutex(State())
    /// How many chats, people and chats' read marks are kept.
    let limit: Int
    /// How many chats' newest messages are kept: a message may hold a few kilobytes of text.
    let newestLimit: Int

    init(limit: Int = 100_000, newestLimit: Int = 10_000) {
        self.limit = limit
        self.newestLimit = newestLimit
    }

    /// The chat, from the store the first time.
    func chat(_ id: ChatID, in store: any ChatReads) async throws -> Chat? {
        if let known = state.withLock({ $0.chats[id] }) { return known }
        guard let chat = try await store.chat(id) else { return nil }
        remember(chat)
        return chat
    }

    func remember(_ chat: Chat) {
        state.withLock { state in
            if state.chats[chat.id] == nil, state.chats.count >= limit { state.chats.removeAll(keepingCapacity: true) }
            state.chats[chat.id] = chat
        }
    }

    /// `user` signed up: a member of every open room. Answers the open rooms known here, as they are now.
    func joinedOpenRooms(_ user: UserID) -> [Chat] {
        state.withLock { state in
            var joined: [Chat] = []
            for (id, chat) in state.chats where chat.kind == .open {
                let now = chat.hasMember(user) ? chat : chat.with(members: chat.members + [user])
                state.chats[id] = now
                joined.append(now)
            }
            return joined
        }
    }

    /// The members of `chat`, if it was read or remembered.
    func members(of chat: ChatID) -> [UserID]? { state.withLock { $0.chats[chat]?.members } }

    /// Everyone who shares a known chat with `user`.
    func contacts(of user: UserID) -> [UserID] {
        state.withLock { state in state.chats.values.filter { $0.hasMember(user) }.flatMap(\.members) }
    }

    /// The person, from the store unless known and not changed since.
    func user(_ id: UserID, in store: any ChatReads) async throws -> User? {
        let (known, generation) = state.withLock { ($0.users[id], $0.generation) }
        if let known { return known }
        guard let user = try await store.user(id) else { return nil }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.users[id] == nil, state.users.count >= limit { state.users.removeAll(keepingCapacity: true) }
            state.users[id] = user
        }
        return user
    }

    /// A person's profile changed: read it again next time.
    func forget(_ user: UserID) {
        state.withLock { state in
            state.users[user] = nil
            state.generation += 1
        }
    }

    /// The newest message of `chat` that pages were handed, with its latest values; nil when not known (or
    /// events may have been missed since).
    func newest(in chat: ChatID) -> Message? { state.withLock { $0.newest[chat] } }

    /// Pages are being handed `message`: every message of its chat before it was handed on before (the log
    /// gives a chat's messages in their order).
    func handedOn(_ message: Message) {
        state.withLock { state in
            guard (state.newest[message.chatID]?.id ?? MessageID(0)) <= message.id else { return }
            if state.newest[message.chatID] == nil, state.newest.count >= newestLimit { state.newest.removeAll(keepingCapacity: true) }
            state.newest[message.chatID] = message
        }
    }

    /// A message changed (edited, deleted, its photo ready).
    func changed(_ message: Message) {
        state.withLock { state in
            if state.newest[message.chatID]?.id == message.id { state.newest[message.chatID] = message }
        }
    }

    /// Events were missed: what they change (people, read marks, the newest messages) is read again.
    func forgetWhatEventsChange() {
        state.withLock { state in
            state.users.removeAll()
            state.generation += 1
            state.lastRead.removeAll()
            state.newest.removeAll()
        }
    }

    /// The newest message `user` has read in `chat`, from the store the first time.
    func lastRead(in chat: ChatID, by user: UserID, in store: any ChatReads) async throws -> MessageID? {
        if let known = state.withLock({ $0.lastRead[chat]?[user] }) { return known.rawValue > 0 ? known : nil }
        guard let membership = try await store.membership(chat, user) else { return nil }
        read(in: chat, by: user, upTo: membership.lastRead ?? MessageID(0))
        return lastRead(chat, user)
    }

    /// `user` has read `chat` up to `upTo` (a read mark never moves back: the later of two is kept).
    func read(in chat: ChatID, by user: UserID, upTo: MessageID) {
        state.withLock { state in
            if state.lastRead[chat] == nil, state.lastRead.count >= limit { state.lastRead.removeAll(keepingCapacity: true) }
            state.lastRead[chat, default: [:]][user] = max(state.lastRead[chat]?[user] ?? MessageID(0), upTo)
        }
    }

    private func lastRead(_ chat: ChatID, _ user: UserID) -> MessageID? {
        state.withLock { $0.lastRead[chat]?[user] }.flatMap { $0.rawValue > 0 ? $0 : nil }
    }
}
