import Foundation
import Logging
import ParlorDomain
import PostgresNIO

// Roles, deactivation and the Parlor's settings (one row), shared by every instance.

extension PostgresChatStore: AdministrationStore {
    /// As the SQLite store's: a bot always (a member); the first person as the administrator; then anyone while
    /// sign-up is open, else whoever brings the join link's code, which counts a use. The settings row (or, on a
    /// Parlor that never kept one, an advisory lock) is held to the end of the transaction, so two instances cannot
    /// both make a first person, nor both take a link's last use.
    static func admit(_ connection: PostgresConnection, _ user: NewUser, at date: Date, _ logger: Logger) async throws -> Role {
        guard !user.isBot else { return .member }
        try await connection.run("SELECT pg_advisory_xact_lock(7460203)", logger: logger)
        let settings = try await settings(connection, logger, locking: true)
        guard settings.hasPeople else { return .administrator }
        guard settings.signUpPolicy == .invitation else { return .member }
        guard let code = user.joinCode else { throw Refusal.invitationRequired }
        guard let link = settings.joinLink, link.code == code else { throw Refusal.joinLinkInvalid }
        if let refusal = link.refusal(at: date) { throw refusal }
        try await connection.run("UPDATE parlorSetting SET joinUses = joinUses + 1", logger: logger)
        return .member
    }

    /// Makes `person` a member of every open room they are not in; what was said there before is not unread for
    /// them. Answers the rooms joined.
    static func joinOpenRooms(_ connection: PostgresConnection, _ person: UserID, at date: Date, _ logger: Logger) async throws -> [ChatID] {
        try await connection.rows("""
            WITH joined AS (
                INSERT INTO member (chatID, userID, lastReadMessageID, joinedAfterMessageID, involvement, joinedAt, readSeq, everyoneReadSeq)
                SELECT id, \(person.rawValue), lastMessageID, COALESCE(lastMessageID, 0), \(Involvement.joining(.open).rawValue), \(date.timeIntervalSince1970),
                    messageSeq, everyoneSeq
                FROM chat WHERE kind = 'open' AND NOT EXISTS (SELECT 1 FROM member m WHERE m.chatID = chat.id AND m.userID = \(person.rawValue))
                RETURNING chatID)
            UPDATE chat SET memberCount = memberCount + 1 FROM joined WHERE chat.id = joined.chatID RETURNING chat.id
            """, logger: logger).map { ChatID(try $0.at(0, as: Int64.self)) }.sorted()
    }

    static func settings(_ connection: PostgresConnection, _ logger: Logger, locking: Bool = false) async throws -> ParlorSettings {
        let hasPeople = try await connection.row("SELECT EXISTS (SELECT 1 FROM account WHERE NOT isBot)", logger: logger)?.at(0, as: Bool.self) ?? false
        guard let row = try await connection.row("""
            SELECT signUpPolicy, onlyAdministratorsCreateRooms, joinCode, joinCreatedAt, joinExpiresAt, joinUsesLimit, joinUses
            FROM parlorSetting \(unescaped: locking ? "FOR UPDATE" : "")
            """, logger: logger)
        else { return ParlorSettings(signUpPolicy: .open, hasPeople: hasPeople) }
        let link = try row.at(2, as: String?.self).map { code in
            JoinLink(
                code: code, createdAt: Date(timeIntervalSince1970: try row.at(3, as: Double?.self) ?? 0),
                expiresAt: try row.at(4, as: Double?.self).map { Date(timeIntervalSince1970: $0) },
                usesLimit: try row.at(5, as: Int64?.self).map { Int(clamping: $0) }, uses: Int(clamping: try row.at(6, as: Int64.self))
            )
        }
        // An unknown policy (written by a later release) lets nobody in without the link.
        return ParlorSettings(
            signUpPolicy: SignUpPolicy(rawValue: try row.at(0, as: String.self)) ?? .invitation,
            onlyAdministratorsCreateRooms: try row.at(1, as: Bool.self), joinLink: link, hasPeople: hasPeople
        )
    }

    public func startSettings(signUpPolicy policy: SignUpPolicy) async throws -> ParlorSettings {
        try await database.write { [logger] connection in
            try await connection.run("INSERT INTO parlorSetting (signUpPolicy) VALUES (\(policy.rawValue)) ON CONFLICT DO NOTHING", logger: logger)
            return try await Self.settings(connection, logger)
        }
    }

    public func settings() async throws -> ParlorSettings {
        try await database.single { [logger] connection in try await Self.settings(connection, logger) }
    }

    /// Changes the settings row, making it first when a Parlor never kept one (open, as it was).
    private func changeSettings(_ change: PostgresQuery, logging event: AccountEvent) async throws {
        try await database.write { [logger] connection in
            try await connection.run("INSERT INTO parlorSetting (signUpPolicy) VALUES ('open') ON CONFLICT DO NOTHING", logger: logger)
            try await connection.run(change, logger: logger)
            try await EventLogEntry.append(event, connection, logger: logger)
        }
    }

    public func changeSettings(signUpPolicy: SignUpPolicy?, onlyAdministratorsCreateRooms: Bool?) async throws -> ParlorSettings {
        try await changeSettings("""
            UPDATE parlorSetting SET signUpPolicy = COALESCE(\(signUpPolicy?.rawValue), signUpPolicy),
                onlyAdministratorsCreateRooms = COALESCE(\(onlyAdministratorsCreateRooms), onlyAdministratorsCreateRooms)
            """, logging: .settingsChanged)
        return try await settings()
    }

    public func replaceJoinLink(_ link: JoinLink) async throws {
        try await changeSettings("""
            UPDATE parlorSetting SET joinCode = \(link.code), joinCreatedAt = \(link.createdAt.timeIntervalSince1970),
                joinExpiresAt = \(link.expiresAt?.timeIntervalSince1970), joinUsesLimit = \(link.usesLimit.map(Int64.init)), joinUses = \(Int64(link.uses))
            """, logging: .joinLinkReplaced)
    }

    static let accountColumns = "\(Columns.user()), role, deactivatedAt"

    static func account(_ row: PostgresRandomAccessRow) throws -> Account {
        Account(
            user: try User(row: row), role: Role(rawValue: try row.at(7, as: String.self)) ?? .member,
            deactivatedAt: try row.at(8, as: Double?.self).map { Date(timeIntervalSince1970: $0) }
        )
    }

    static func account(_ connection: PostgresConnection, _ id: UserID, _ logger: Logger, locking: Bool = false) async throws -> Account? {
        try await connection.row("""
            SELECT \(unescaped: accountColumns) FROM account WHERE id = \(id.rawValue) AND NOT isBot \(unescaped: locking ? "FOR UPDATE" : "")
            """, logger: logger).map(account)
    }

    /// As SQLite's: a person's account, or a bot's an administrator made; locked to the end of the transaction.
    static func manageable(_ connection: PostgresConnection, _ id: UserID, _ logger: Logger) async throws -> Account? {
        try await connection.row("""
            SELECT \(unescaped: accountColumns) FROM account
            WHERE id = \(id.rawValue) AND (NOT isBot OR EXISTS (SELECT 1 FROM botKey WHERE botKey.userID = account.id)) FOR UPDATE
            """, logger: logger).map(account)
    }

    public func account(_ id: UserID) async throws -> Account? {
        try await database.single { [logger] connection in try await Self.account(connection, id, logger) }
    }

    public func accounts(matching prefix: String, limit: Int) async throws -> [Account] {
        let pattern = Self.likePrefix(prefix)
        return try await database.rows("""
            SELECT \(unescaped: Self.accountColumns) FROM account
            WHERE NOT isBot AND (handle ILIKE \(pattern) OR displayName ILIKE \(pattern))
            ORDER BY lower(handle) LIMIT \(Int64(max(0, limit)))
            """).map(Self.account)
    }

    /// Throws `lastAdministrator` unless an active administrator other than `person` exists. Administrators' rows
    /// are locked first, so two instances cannot each demote one of the last two.
    private static func requireAnotherAdministrator(_ connection: PostgresConnection, besides person: UserID, _ logger: Logger) async throws {
        let others = try await connection.rows("""
            SELECT id FROM account WHERE role = 'administrator' AND deactivatedAt IS NULL AND NOT isBot AND id <> \(person.rawValue) FOR UPDATE
            """, logger: logger)
        guard !others.isEmpty else { throw Refusal.lastAdministrator }
    }

    public func setRole(_ role: Role, of person: UserID) async throws -> Account {
        try await database.write { [logger] connection in
            try await connection.run("SELECT pg_advisory_xact_lock(7460204)", logger: logger)
            guard let account = try await Self.account(connection, person, logger, locking: true) else { throw Refusal.notFound }
            if account.isActiveAdministrator, role != .administrator {
                try await Self.requireAnotherAdministrator(connection, besides: person, logger)
            }
            try await connection.run("UPDATE account SET role = \(role.rawValue) WHERE id = \(person.rawValue)", logger: logger)
            try await EventLogEntry.append(.roleChanged(person: person, role), connection, logger: logger)
            return Account(user: account.user, role: role, deactivatedAt: account.deactivatedAt)
        }
    }

    public func rooms(limit: Int) async throws -> [RoomListing] {
        try await database.rows("""
            SELECT id, name, kind, memberCount FROM chat WHERE kind IN ('open', 'closed') ORDER BY lower(name), id LIMIT \(Int64(max(0, limit)))
            """).map { row in
            RoomListing(
                id: ChatID(try row.at(0, as: Int64.self)), name: try row.at(1, as: String?.self) ?? "",
                kind: RoomKind(rawValue: try row.at(2, as: String.self)) ?? .closed, memberCount: Int(clamping: try row.at(3, as: Int64.self))
            )
        }
    }

    public func deactivate(_ person: UserID, at date: Date) async throws -> AccountState {
        try await database.write { [logger] connection in
            try await connection.run("SELECT pg_advisory_xact_lock(7460204)", logger: logger)
            guard let account = try await Self.manageable(connection, person, logger), account.isActive else { throw Refusal.notFound }
            if account.role == .administrator { try await Self.requireAnotherAdministrator(connection, besides: person, logger) }
            try await connection.run("UPDATE account SET deactivatedAt = \(date.timeIntervalSince1970) WHERE id = \(person.rawValue)", logger: logger)
            try await connection.run("DELETE FROM session WHERE userID = \(person.rawValue)", logger: logger)
            try await connection.run("DELETE FROM pushSubscription WHERE userID = \(person.rawValue)", logger: logger)
            let rooms = try await connection.rows("""
                WITH gone AS (
                    DELETE FROM member USING chat
                    WHERE member.userID = \(person.rawValue) AND chat.id = member.chatID AND chat.kind IN ('open', 'closed')
                    RETURNING member.chatID)
                UPDATE chat SET memberCount = memberCount - 1 FROM gone WHERE chat.id = gone.chatID RETURNING chat.id
                """, logger: logger).map { ChatID(try $0.at(0, as: Int64.self)) }.sorted()
            try await EventLogEntry.accountChanged(person, isActive: false, rooms: rooms).append(connection, logger: logger)
            return AccountState(user: account.user, isActive: false, rooms: rooms)
        }
    }

    public func reactivate(_ person: UserID, at date: Date) async throws -> AccountState {
        try await database.write { [logger] connection in
            guard let account = try await Self.manageable(connection, person, logger), !account.isActive else { throw Refusal.notFound }
            try await connection.run("UPDATE account SET deactivatedAt = NULL WHERE id = \(person.rawValue)", logger: logger)
            let rooms = try await Self.joinOpenRooms(connection, person, at: date, logger)
            try await EventLogEntry.accountChanged(person, isActive: true, rooms: rooms).append(connection, logger: logger)
            return AccountState(user: account.user, isActive: true, rooms: rooms)
        }
    }

    public func resetPassword(handle: String, to passwordHash: String) async throws -> SessionsEnded {
        try await database.write { [logger] connection in
            guard let row = try await connection.row("""
                UPDATE account SET passwordHash = \(passwordHash) WHERE lower(handle) = lower(\(handle)) AND NOT isBot RETURNING id
                """, logger: logger)
            else { throw Refusal.notFound }
            let id = try row.at(0, as: Int64.self)
            let count = try await connection.rows("DELETE FROM session WHERE userID = \(id) RETURNING 1", logger: logger).count
            let ended = SessionsEnded(userID: UserID(id), count: count, cause: .passwordReset)
            try await EventLogEntry.append(.sessionsEnded(ended), connection, logger: logger)
            return ended
        }
    }

    // MARK: Bots

    private static let botColumns = """
        \(Columns.user(in: "account")), botKey.webhookURL, botKey.createdAt, account.deactivatedAt IS NULL FROM botKey
        JOIN account ON account.id = botKey.userID
        """

    private static func bot(_ row: PostgresRandomAccessRow) throws -> Bot {
        Bot(
            user: try User(row: row), webhookURL: try row.at(7, as: String?.self),
            createdAt: Date(timeIntervalSince1970: try row.at(8, as: Double.self)), isActive: try row.at(9, as: Bool.self)
        )
    }

    public func bot(keyHash: String) async throws -> Bot? {
        try await database.rows("SELECT \(unescaped: Self.botColumns) WHERE botKey.keyHash = \(keyHash) AND account.deactivatedAt IS NULL").first.map(Self.bot)
    }

    public func bot(_ id: UserID) async throws -> Bot? {
        try await database.rows("SELECT \(unescaped: Self.botColumns) WHERE botKey.userID = \(id.rawValue)").first.map(Self.bot)
    }

    public func bots() async throws -> [Bot] {
        try await database.rows("SELECT \(unescaped: Self.botColumns) ORDER BY lower(account.handle)").map(Self.bot)
    }

    public func replaceBotKey(of bot: UserID, keyHash: String) async throws {
        try await database.write { [logger] connection in
            guard try await connection.row(
                "UPDATE botKey SET keyHash = \(keyHash) WHERE userID = \(bot.rawValue) RETURNING userID", logger: logger
            ) != nil else { throw Refusal.notFound }
            try await EventLogEntry.append(.botKeyReplaced(bot), connection, logger: logger)
        }
    }

    /// An ILIKE pattern for what starts with `prefix`, its own % and _ escaped.
    static func likePrefix(_ prefix: String) -> String {
        prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}
