import Foundation
import ParlorDomain

extension InMemoryChatStore: AdministrationStore {
    /// As the SQLite store's: a bot always; the first person as administrator; then anyone while sign-up is open,
    /// else whoever brings the join link's code, which counts a use.
    static func admit(_ user: NewUser, at date: Date, in state: inout State) throws(Refusal) -> Role {
        guard !user.isBot else { return .member }
        let settings = settings(state)
        guard settings.hasPeople else { return .administrator }
        guard settings.signUpPolicy == .invitation else { return .member }
        guard let code = user.joinCode else { throw .invitationRequired }
        guard let link = settings.joinLink, link.code == code else { throw .joinLinkInvalid }
        if let refusal = link.refusal(at: date) { throw refusal }
        state.joinLink = JoinLink(code: link.code, createdAt: link.createdAt, expiresAt: link.expiresAt, usesLimit: link.usesLimit, uses: link.uses + 1)
        return .member
    }

    /// Makes `person` a member of every open room they are not in, with nothing unread; answers those rooms.
    static func joinOpenRooms(_ person: UserID, at date: Date, in state: inout State) -> [ChatID] {
        var joined: [ChatID] = []
        for chat in state.chats.values.sorted(by: { $0.id < $1.id }) where chat.kind == .open && !chat.hasMember(person) {
            state.chats[chat.id] = chat.with(members: chat.members + [person])
            state.chatIDsByUser[person, default: []].insert(chat.id)
            state.joinedAt[ChatKey(chat: chat.id, user: person)] = date
            state.lastRead[ChatKey(chat: chat.id, user: person)] = state.messageIDsByChat[chat.id]?.last
            state.joinedAfter[ChatKey(chat: chat.id, user: person)] = state.messageIDsByChat[chat.id]?.last
            joined.append(chat.id)
        }
        return joined
    }

    static func settings(_ state: State) -> ParlorSettings {
        ParlorSettings(
            signUpPolicy: state.signUpPolicy ?? .open, onlyAdministratorsCreateRooms: state.onlyAdministratorsCreateRooms,
            joinLink: state.joinLink, hasPeople: state.users.values.contains { !$0.isBot }
        )
    }

    public func startSettings(signUpPolicy policy: SignUpPolicy) async throws -> ParlorSettings {
        state.withLock { state in
            if state.signUpPolicy == nil { state.signUpPolicy = policy }
            return Self.settings(state)
        }
    }

    public func settings() async throws -> ParlorSettings { state.withLock { Self.settings($0) } }

    public func changeSettings(signUpPolicy: SignUpPolicy?, onlyAdministratorsCreateRooms: Bool?) async throws -> ParlorSettings {
        state.withLock { state in
            state.signUpPolicy = signUpPolicy ?? state.signUpPolicy ?? .open
            if let onlyAdministratorsCreateRooms { state.onlyAdministratorsCreateRooms = onlyAdministratorsCreateRooms }
            return Self.settings(state)
        }
    }

    public func replaceJoinLink(_ link: JoinLink) async throws {
        state.withLock { state in
            state.signUpPolicy = state.signUpPolicy ?? .open
            state.joinLink = link
        }
    }

    static func account(_ id: UserID, in state: State) -> Account? {
        guard let user = state.users[id], !user.isBot else { return nil }
        return Account(user: user, role: state.roles[id] ?? .member, deactivatedAt: state.deactivatedAt[id])
    }

    public func account(_ id: UserID) async throws -> Account? { state.withLock { Self.account(id, in: $0) } }

    /// As SQLite's: a person's account, or a bot's an administrator made.
    static func manageable(_ id: UserID, in state: State) -> Account? {
        guard let user = state.users[id], !user.isBot || state.bots[id] != nil else { return nil }
        return Account(user: user, role: state.roles[id] ?? .member, deactivatedAt: state.deactivatedAt[id])
    }

    public func accounts(matching prefix: String, limit: Int) async throws -> [Account] {
        let prefix = prefix.lowercased()
        return state.withLock { state in
            state.users.values
                .filter { !$0.isBot && ($0.handle.lowercased().hasPrefix(prefix) || $0.displayName.lowercased().hasPrefix(prefix)) }
                .sorted { $0.handle < $1.handle }
                .prefix(max(0, limit))
                .compactMap { Self.account($0.id, in: state) }
        }
    }

    private static func requireAnotherAdministrator(besides person: UserID, in state: State) throws(Refusal) {
        let others = state.roles.contains { id, role in role == .administrator && id != person && state.deactivatedAt[id] == nil }
        guard others else { throw .lastAdministrator }
    }

    public func setRole(_ role: Role, of person: UserID) async throws -> Account {
        try state.withLock { state throws(Refusal) in
            guard let account = Self.account(person, in: state) else { throw .notFound }
            if account.isActiveAdministrator, role != .administrator { try Self.requireAnotherAdministrator(besides: person, in: state) }
            state.roles[person] = role
            return Account(user: account.user, role: role, deactivatedAt: account.deactivatedAt)
        }
    }

    public func rooms(limit: Int) async throws -> [RoomListing] {
        state.withLock { state in
            state.chats.values.filter { $0.kind != .direct }
                .map { RoomListing(id: $0.id, name: $0.name ?? "", kind: $0.kind, memberCount: $0.members.count) }
                .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
                .prefix(max(0, limit))
                .map { $0 }
        }
    }

    public func deactivate(_ person: UserID, at date: Date) async throws -> AccountState {
        try state.withLock { state throws(Refusal) in
            guard let account = Self.manageable(person, in: state), account.isActive else { throw .notFound }
            if account.role == .administrator { try Self.requireAnotherAdministrator(besides: person, in: state) }
            state.deactivatedAt[person] = date
            for session in state.sessions.values where session.userID == person { state.sessions[session.idHash] = nil }
            let rooms = (state.chatIDsByUser[person] ?? []).filter { state.chats[$0]?.kind != .direct }.sorted()
            for room in rooms {
                guard let chat = state.chats[room] else { continue }
                state.chats[room] = chat.with(members: chat.members.filter { $0 != person })
                state.chatIDsByUser[person]?.remove(room)
                state.lastRead[ChatKey(chat: room, user: person)] = nil
                state.involvement[ChatKey(chat: room, user: person)] = nil
            }
            return AccountState(user: account.user, isActive: false, rooms: rooms)
        }
    }

    public func reactivate(_ person: UserID, at date: Date) async throws -> AccountState {
        try state.withLock { state throws(Refusal) in
            guard let account = Self.manageable(person, in: state), !account.isActive else { throw .notFound }
            state.deactivatedAt[person] = nil
            let rooms = Self.joinOpenRooms(person, at: date, in: &state)
            return AccountState(user: account.user, isActive: true, rooms: rooms)
        }
    }

    public func resetPassword(handle: String, to passwordHash: String) async throws -> SessionsEnded {
        try state.withLock { state throws(Refusal) in
            guard let id = state.userIDsByHandle[handle.lowercased()], state.users[id]?.isBot == false else { throw .notFound }
            state.passwordHashes[id] = passwordHash
            let ended = state.sessions.values.filter { $0.userID == id }
            for session in ended { state.sessions[session.idHash] = nil }
            return SessionsEnded(userID: id, count: ended.count, cause: .passwordReset)
        }
    }

    private static func bot(_ id: UserID, in state: State) -> Bot? {
        guard let user = state.users[id], let bot = state.bots[id] else { return nil }
        return Bot(user: user, webhookURL: bot.credential.webhookURL, createdAt: bot.createdAt, isActive: state.deactivatedAt[id] == nil)
    }

    public func bot(keyHash: String) async throws -> Bot? {
        state.withLock { state in
            state.bots.first { $0.value.credential.keyHash == keyHash }.flatMap { Self.bot($0.key, in: state) }.flatMap { $0.isActive ? $0 : nil }
        }
    }

    public func bot(_ id: UserID) async throws -> Bot? { state.withLock { Self.bot(id, in: $0) } }

    public func bots() async throws -> [Bot] {
        state.withLock { state in state.bots.keys.compactMap { Self.bot($0, in: state) }.sorted { $0.user.handle < $1.user.handle } }
    }

    public func replaceBotKey(of bot: UserID, keyHash: String) async throws {
        try state.withLock { state throws(Refusal) in
            guard let old = state.bots[bot] else { throw .notFound }
            state.bots[bot] = (BotCredential(keyHash: keyHash, webhookURL: old.credential.webhookURL), old.createdAt)
        }
    }
}
