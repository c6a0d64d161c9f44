import Foundation
import GRDB
import ParlorDomain

// Roles, deactivation and the Parlor's settings (one row), in the file that holds the accounts.

extension SQLiteChatStore: AdministrationStore {
    /// Whether `user` may have an account now, and with which role: a bot always (a member); the first person as
    /// the administrator; then anyone while sign-up is open, else whoever brings the join link's code, which counts
    /// a use. In the transaction that creates the account, so two people cannot both be first or both take a last use.
    static func admit(_ db: Database, _ user: NewUser, at date: Date) throws -> Role {
        guard !user.isBot else { return .member }
        let settings = try settings(db)
        guard settings.hasPeople else { return .administrator }
        guard settings.signUpPolicy == .invitation else { return .member }
        guard let code = user.joinCode else { throw Refusal.invitationRequired }
        guard let link = settings.joinLink, link.code == code else { throw Refusal.joinLinkInvalid }
        if let refusal = link.refusal(at: date) { throw refusal }
        try db.execute(sql: "UPDATE parlorSetting SET joinUses = joinUses + 1")
        return .member
    }

    /// Makes `person` a member of every open room they are not in; what was said there before is not unread for
    /// them. Answers the rooms joined.
    static func joinOpenRooms(_ db: Database, _ person: UserID, at date: Date) throws -> [ChatID] {
        let rooms = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT id FROM chat WHERE kind = 'open' AND NOT EXISTS (SELECT 1 FROM member WHERE chatID = chat.id AND userID = ?) ORDER BY id
            """), arguments: [person.rawValue]).map { ChatID($0) }
        guard !rooms.isEmpty else { return [] }
        let list = rooms.map { String($0.rawValue) }.joined(separator: ",")
        try db.execute(sql: """
            INSERT INTO member (chatID, userID, lastReadMessageID, joinedAfterMessageID, involvement, joinedAt, readSeq, everyoneReadSeq)
            SELECT id, ?, lastMessageID, IFNULL(lastMessageID, 0), ?, ?, messageSeq, everyoneSeq FROM chat WHERE id IN (\(list))
            """, arguments: [person.rawValue, Involvement.joining(.open).rawValue, date.timeIntervalSince1970])
        try db.execute(sql: "UPDATE chat SET memberCount = memberCount + 1 WHERE id IN (\(list))")
        return rooms
    }

    static func settings(_ db: Database) throws -> ParlorSettings {
        let hasPeople = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM user WHERE isBot = 0)")) ?? false
        let kept = try db.cachedStatement(sql: """
            SELECT signUpPolicy, onlyAdministratorsCreateRooms, joinCode, joinCreatedAt, joinExpiresAt, joinUsesLimit, joinUses FROM parlorSetting
            """).first(arguments: []) { row in
            let link = row.stringOrNil(2).map { code in
                JoinLink(
                    code: code, createdAt: row.date(3), expiresAt: row.dateOrNil(4),
                    usesLimit: row.int64OrNil(5).map { Int(clamping: $0) }, uses: Int(clamping: row.int64(6))
                )
            }
            // An unknown policy (written by a later release) lets nobody in without the link.
            return ParlorSettings(
                signUpPolicy: SignUpPolicy(rawValue: row.string(0)) ?? .invitation, onlyAdministratorsCreateRooms: row.bool(1), joinLink: link,
                hasPeople: hasPeople
            )
        }
        return kept ?? ParlorSettings(signUpPolicy: .open, hasPeople: hasPeople)
    }

    public func startSettings(signUpPolicy policy: SignUpPolicy) async throws -> ParlorSettings {
        try await write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO parlorSetting (single, signUpPolicy) VALUES (1, ?)", arguments: [policy.rawValue])
            return try Self.settings(db)
        }
    }

    public func settings() async throws -> ParlorSettings {
        try await read { db in try Self.settings(db) }
    }

    /// Changes the settings row, making it first when a Parlor never kept one (open, as it was).
    private func changeSettings(_ sql: String, _ arguments: StatementArguments, logging event: AccountEvent) async throws -> ParlorSettings {
        let origin = file.origin
        return try await write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO parlorSetting (single, signUpPolicy) VALUES (1, 'open')")
            try db.execute(sql: sql, arguments: arguments)
            try Self.log(event, db, origin: origin)
            return try Self.settings(db)
        }
    }

    public func changeSettings(signUpPolicy: SignUpPolicy?, onlyAdministratorsCreateRooms: Bool?) async throws -> ParlorSettings {
        try await changeSettings(
            "UPDATE parlorSetting SET signUpPolicy = IFNULL(?, signUpPolicy), onlyAdministratorsCreateRooms = IFNULL(?, onlyAdministratorsCreateRooms)",
            [signUpPolicy?.rawValue, onlyAdministratorsCreateRooms], logging: .settingsChanged
        )
    }

    public func replaceJoinLink(_ link: JoinLink) async throws {
        _ = try await changeSettings(
            "UPDATE parlorSetting SET joinCode = ?, joinCreatedAt = ?, joinExpiresAt = ?, joinUsesLimit = ?, joinUses = ?",
            [link.code, link.createdAt.timeIntervalSince1970, link.expiresAt?.timeIntervalSince1970, link.usesLimit, link.uses], logging: .joinLinkReplaced
        )
    }

    static let accountColumns = "\(Columns.user), role, deactivatedAt"

    static func account(_ row: StatementRow) -> Account {
        Account(user: User(row, at: 0), role: Role(rawValue: row.string(7)) ?? .member, deactivatedAt: row.dateOrNil(8))
    }

    static func account(_ db: Database, _ id: UserID) throws -> Account? {
        try db.cachedStatement(sql: "SELECT \(accountColumns) FROM user WHERE id = ? AND isBot = 0").first(arguments: [id.rawValue], account)
    }

    /// A person's account, or a bot's an administrator made (Parlor Bot included; the feeds' account is Parlor's own):
    /// what deactivation and reactivation take.
    static func manageable(_ db: Database, _ id: UserID) throws -> Account? {
        try db.cachedStatement(sql: """
            SELECT \(accountColumns) FROM user WHERE id = ? AND (isBot = 0 OR EXISTS (SELECT 1 FROM botKey WHERE botKey.userID = user.id))
            """).first(arguments: [id.rawValue], account)
    }

    public func account(_ id: UserID) async throws -> Account? {
        try await read { db in try Self.account(db, id) }
    }

    public func accounts(matching prefix: String, limit: Int) async throws -> [Account] {
        let pattern = Self.likePrefix(prefix)
        return try await read { db in
            try db.cachedStatement(sql: """
                SELECT \(Self.accountColumns) FROM user
                WHERE isBot = 0 AND (handle LIKE ? ESCAPE '\\' OR displayName LIKE ? ESCAPE '\\')
                ORDER BY handle LIMIT ?
                """).all(arguments: [pattern, pattern, limit], Self.account)
        }
    }

    /// Throws `lastAdministrator` unless an active administrator other than `person` exists.
    private static func requireAnotherAdministrator(_ db: Database, besides person: UserID) throws {
        let others = try Int.fetchOne(db, sql: """
            SELECT COUNT(*) FROM user WHERE role = 'administrator' AND deactivatedAt IS NULL AND isBot = 0 AND id <> ?
            """, arguments: [person.rawValue]) ?? 0
        guard others > 0 else { throw Refusal.lastAdministrator }
    }

    public func setRole(_ role: Role, of person: UserID) async throws -> Account {
        let origin = file.origin
        return try await write { db in
            guard let account = try Self.account(db, person) else { throw Refusal.notFound }
            if account.isActiveAdministrator, role != .administrator { try Self.requireAnotherAdministrator(db, besides: person) }
            try db.execute(sql: "UPDATE user SET role = ? WHERE id = ?", arguments: [role.rawValue, person.rawValue])
            try Self.log(.roleChanged(person: person, role), db, origin: origin)
            return Account(user: account.user, role: role, deactivatedAt: account.deactivatedAt)
        }
    }

    public func rooms(limit: Int) async throws -> [RoomListing] {
        try await read { db in
            try db.cachedStatement(sql: """
                SELECT id, name, kind, memberCount FROM chat WHERE kind IN ('open', 'closed') ORDER BY name COLLATE NOCASE, id LIMIT ?
                """).all(arguments: [limit]) { row in
                RoomListing(
                    id: ChatID(row.int64(0)), name: row.string(1), kind: RoomKind(rawValue: row.string(2)) ?? .closed,
                    memberCount: Int(clamping: row.int64(3))
                )
            }
        }
    }

    public func deactivate(_ person: UserID, at date: Date) async throws -> AccountState {
        try await write { db in
            guard let account = try Self.manageable(db, person), account.isActive else { throw Refusal.notFound }
            if account.role == .administrator { try Self.requireAnotherAdministrator(db, besides: person) }
            try db.execute(sql: "UPDATE user SET deactivatedAt = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, person.rawValue])
            try db.execute(sql: "DELETE FROM session WHERE userID = ?", arguments: [person.rawValue])
            try db.execute(sql: "DELETE FROM pushSubscription WHERE userID = ?", arguments: [person.rawValue])
            let rooms = try Int64.fetchAll(db, sql: """
                SELECT member.chatID FROM member JOIN chat ON chat.id = member.chatID
                WHERE member.userID = ? AND chat.kind IN ('open', 'closed') ORDER BY member.chatID
                """, arguments: [person.rawValue]).map { ChatID($0) }
            for room in rooms {
                try db.execute(sql: "DELETE FROM member WHERE chatID = ? AND userID = ?", arguments: [room.rawValue, person.rawValue])
                try db.execute(sql: "UPDATE chat SET memberCount = memberCount - 1 WHERE id = ?", arguments: [room.rawValue])
            }
            return AccountState(user: account.user, isActive: false, rooms: rooms)
        }
    }

    public func reactivate(_ person: UserID, at date: Date) async throws -> AccountState {
        try await write { db in
            guard let account = try Self.manageable(db, person), !account.isActive else { throw Refusal.notFound }
            try db.execute(sql: "UPDATE user SET deactivatedAt = NULL WHERE id = ?", arguments: [person.rawValue])
            let rooms = try Self.joinOpenRooms(db, person, at: date)
            return AccountState(user: account.user, isActive: true, rooms: rooms)
        }
    }

    public func resetPassword(handle: String, to passwordHash: String) async throws -> SessionsEnded {
        let origin = file.origin
        return try await write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE handle = ? AND isBot = 0", arguments: [handle]) else {
                throw Refusal.notFound
            }
            try db.execute(sql: "UPDATE user SET passwordHash = ? WHERE id = ?", arguments: [passwordHash, id])
            try db.execute(sql: "DELETE FROM session WHERE userID = ?", arguments: [id])
            let ended = SessionsEnded(userID: UserID(id), count: db.changesCount, cause: .passwordReset)
            try Self.log(.sessionsEnded(ended), db, origin: origin)
            return ended
        }
    }

    /// A LIKE pattern for what starts with `prefix`, its own % and _ escaped.
    static func likePrefix(_ prefix: String) -> String {
        prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    // MARK: Bots

    private static let botColumns = """
        \(Columns.user(in: "user")), botKey.webhookURL, botKey.createdAt, user.deactivatedAt IS NULL FROM botKey JOIN user ON user.id = botKey.userID
        """

    private static func bot(_ row: StatementRow) -> Bot {
        Bot(user: User(row, at: 0), webhookURL: row.stringOrNil(7), createdAt: row.date(8), isActive: row.bool(9))
    }

    /// Read on the caller's thread, like a session: one indexed row on every request of the API.
    public func bot(keyHash: String) async throws -> Bot? {
        try readHere { db in try db.cachedStatement(sql: "SELECT \(Self.botColumns) WHERE botKey.keyHash = ? AND user.deactivatedAt IS NULL").first(arguments: [keyHash], Self.bot) }
    }

    public func bot(_ id: UserID) async throws -> Bot? {
        try await read { db in try db.cachedStatement(sql: "SELECT \(Self.botColumns) WHERE botKey.userID = ?").first(arguments: [id.rawValue], Self.bot) }
    }

    public func bots() async throws -> [Bot] {
        try await read { db in try db.cachedStatement(sql: "SELECT \(Self.botColumns) ORDER BY user.handle").all(arguments: [], Self.bot) }
    }

    public func replaceBotKey(of bot: UserID, keyHash: String) async throws {
        let origin = file.origin
        try await write { db in
            try db.execute(sql: "UPDATE botKey SET keyHash = ? WHERE userID = ?", arguments: [keyHash, bot.rawValue])
            guard db.changesCount == 1 else { throw Refusal.notFound }
            try Self.log(.botKeyReplaced(bot), db, origin: origin)
        }
    }
}
