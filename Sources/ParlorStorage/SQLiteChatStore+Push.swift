import Foundation
import GRDB
import ParlorDomain

// Push subscriptions, notification preferences and the VAPID key.

extension SQLiteChatStore: PushStore {
    public func addPushSubscription(_ subscription: PushSubscription, keepingNewest limit: Int) async throws -> PushSubscription {
        let origin = file.origin
        return try await write { db in
            try db.execute(sql: "DELETE FROM pushSubscription WHERE endpoint = ?", arguments: [subscription.endpoint])
            try db.execute(
                sql: "INSERT INTO pushSubscription (userID, endpoint, p256dh, auth, label, createdAt) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    subscription.userID.rawValue, subscription.endpoint, subscription.p256dh, subscription.auth, subscription.label,
                    subscription.createdAt.timeIntervalSince1970,
                ]
            )
            let id = db.lastInsertedRowID
            // A person who keeps subscribing new browsers keeps the newest few.
            try db.execute(sql: """
                DELETE FROM pushSubscription WHERE userID = ?1 AND id NOT IN (SELECT id FROM pushSubscription WHERE userID = ?1 ORDER BY id DESC LIMIT ?2)
                """, arguments: [subscription.userID.rawValue, max(1, limit)])
            try Self.log(.pushSubscriptionsChanged(subscription.userID), db, origin: origin)
            return PushSubscription(
                id: id, userID: subscription.userID, endpoint: subscription.endpoint, p256dh: subscription.p256dh,
                auth: subscription.auth, label: subscription.label, createdAt: subscription.createdAt
            )
        }
    }

    public func pushSubscriptions(of user: UserID) async throws -> [PushSubscription] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, userID, endpoint, p256dh, auth, label, createdAt FROM pushSubscription WHERE userID = ? ORDER BY id"),
                arguments: [user.rawValue]
            ).map { row in
                PushSubscription(
                    id: row[0], userID: UserID(row[1] as Int64), endpoint: row[2], p256dh: row[3], auth: row[4], label: row[5],
                    createdAt: Date(timeIntervalSince1970: row[6])
                )
            }
        }
    }

    public func removePushSubscription(_ removal: PushRemoval) async throws -> Bool {
        let origin = file.origin
        return try await write { db in
            switch removal.which {
            case .id(let id): try db.execute(sql: "DELETE FROM pushSubscription WHERE id = ? AND userID = ?", arguments: [id, removal.userID.rawValue])
            case .endpoint(let endpoint):
                try db.execute(sql: "DELETE FROM pushSubscription WHERE endpoint = ? AND userID = ?", arguments: [endpoint, removal.userID.rawValue])
            }
            guard db.changesCount > 0 else { return false }
            try Self.log(.pushSubscriptionsChanged(removal.userID), db, origin: origin)
            return true
        }
    }

    public func removePushSubscription(endpoint: String) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM pushSubscription WHERE endpoint = ?", arguments: [endpoint]) }
    }

    public func pushRecipients(in chat: ChatID, excluding sender: UserID) async throws -> [PushRecipient] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT push.id, push.userID, push.endpoint, push.p256dh, push.auth, push.label, push.createdAt, user.handle,
                           member.involvement, COALESCE(preference.isPrivate, 0)
                    FROM pushSubscription push
                    JOIN member ON member.chatID = ? AND member.userID = push.userID
                    JOIN user ON user.id = push.userID
                    LEFT JOIN notificationPreference preference ON preference.userID = push.userID
                    WHERE push.userID <> ?
                    ORDER BY push.id
                    """),
                arguments: [chat.rawValue, sender.rawValue]
            ).map { row in
                PushRecipient(
                    subscription: PushSubscription(
                        id: row[0], userID: UserID(row[1] as Int64), endpoint: row[2], p256dh: row[3], auth: row[4], label: row[5],
                        createdAt: Date(timeIntervalSince1970: row[6])
                    ),
                    handle: row[7], involvement: Involvement(rawValue: row[8]) ?? .everything, isPrivate: row[9]
                )
            }
        }
    }

    public func notificationPreferences(of user: UserID) async throws -> NotificationPreferences {
        try await read { db in
            let row = try Row.fetchOne(db, sql: "SELECT isPrivate, appearsOffline FROM notificationPreference WHERE userID = ?", arguments: [user.rawValue])
            return row.map { NotificationPreferences(isPrivate: $0[0], appearsOffline: $0[1]) } ?? NotificationPreferences()
        }
    }

    public func setNotificationPreferences(_ preferences: NotificationPreferences, of user: UserID) async throws {
        let origin = file.origin
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO notificationPreference (userID, isPrivate, appearsOffline) VALUES (?, ?, ?)
                    ON CONFLICT (userID) DO UPDATE SET isPrivate = excluded.isPrivate, appearsOffline = excluded.appearsOffline
                    """,
                arguments: [user.rawValue, preferences.isPrivate, preferences.appearsOffline]
            )
            try Self.log(.preferencesChanged(user, preferences), db, origin: origin)
        }
    }

    public func vapidKey(generate: @Sendable () -> String) async throws -> String {
        if let key = try await read({ db in try String.fetchOne(db, sql: "SELECT privateKey FROM vapidKey") }) { return key }
        let key = generate()
        return try await write { db in
            try db.execute(sql: "INSERT INTO vapidKey (single, privateKey) VALUES (1, ?) ON CONFLICT (single) DO NOTHING", arguments: [key])
            return try String.fetchOne(db, sql: "SELECT privateKey FROM vapidKey") ?? key
        }
    }

    public func replaceVapidKey(with key: String) async throws {
        try await write { db in
            try db.execute(sql: "INSERT INTO vapidKey (single, privateKey) VALUES (1, ?) ON CONFLICT (single) DO UPDATE SET privateKey = excluded.privateKey", arguments: [key])
            try db.execute(sql: "DELETE FROM pushSubscription")
        }
    }
}
