import Foundation
import ParlorDomain
import PostgresNIO

// Push subscriptions, notification preferences and the VAPID key, shared by every instance.

extension PostgresChatStore: PushStore {
    public func addPushSubscription(_ subscription: PushSubscription, keepingNewest limit: Int) async throws -> PushSubscription {
        try await database.write { [logger] connection in
            try await connection.run("DELETE FROM pushSubscription WHERE endpoint = \(subscription.endpoint)", logger: logger)
            guard let row = try await connection.row("""
                INSERT INTO pushSubscription (userID, endpoint, p256dh, auth, label, createdAt)
                VALUES (\(subscription.userID.rawValue), \(subscription.endpoint), \(subscription.p256dh), \(subscription.auth), \(subscription.label),
                        \(subscription.createdAt.timeIntervalSince1970))
                RETURNING id
                """, logger: logger)
            else { throw Refusal.notFound }
            // A person who keeps subscribing new browsers keeps the newest few.
            try await connection.run("""
                DELETE FROM pushSubscription WHERE userID = \(subscription.userID.rawValue) AND id NOT IN (
                    SELECT id FROM pushSubscription WHERE userID = \(subscription.userID.rawValue) ORDER BY id DESC LIMIT \(Int64(max(1, limit))))
                """, logger: logger)
            try await EventLogEntry.append(.pushSubscriptionsChanged(subscription.userID), connection, logger: logger)
            return PushSubscription(
                id: try row.at(0), userID: subscription.userID, endpoint: subscription.endpoint, p256dh: subscription.p256dh,
                auth: subscription.auth, label: subscription.label, createdAt: subscription.createdAt
            )
        }
    }

    public func pushSubscriptions(of user: UserID) async throws -> [PushSubscription] {
        try await database.rows("""
            SELECT id, userID, endpoint, p256dh, auth, label, createdAt FROM pushSubscription WHERE userID = \(user.rawValue) ORDER BY id
            """).map { row in
            PushSubscription(
                id: try row.at(0), userID: UserID(try row.at(1)), endpoint: try row.at(2), p256dh: try row.at(3), auth: try row.at(4),
                label: try row.at(5), createdAt: Date(timeIntervalSince1970: try row.at(6))
            )
        }
    }

    public func removePushSubscription(_ removal: PushRemoval) async throws -> Bool {
        try await database.write { [logger] connection in
            let query: PostgresQuery = switch removal.which {
            case .id(let id): "DELETE FROM pushSubscription WHERE id = \(id) AND userID = \(removal.userID.rawValue) RETURNING 1"
            case .endpoint(let endpoint): "DELETE FROM pushSubscription WHERE endpoint = \(endpoint) AND userID = \(removal.userID.rawValue) RETURNING 1"
            }
            guard try await connection.row(query, logger: logger) != nil else { return false }
            try await EventLogEntry.append(.pushSubscriptionsChanged(removal.userID), connection, logger: logger)
            return true
        }
    }

    public func removePushSubscription(endpoint: String) async throws {
        try await database.write { [logger] connection in
            try await connection.run("DELETE FROM pushSubscription WHERE endpoint = \(endpoint)", logger: logger)
        }
    }

    public func pushRecipients(in chat: ChatID, excluding sender: UserID) async throws -> [PushRecipient] {
        try await database.rows("""
            SELECT push.id, push.userID, push.endpoint, push.p256dh, push.auth, push.label, push.createdAt, account.handle,
                   member.involvement, COALESCE(preference.isPrivate, FALSE)
            FROM pushSubscription push
            JOIN member ON member.chatID = \(chat.rawValue) AND member.userID = push.userID
            JOIN account ON account.id = push.userID
            LEFT JOIN notificationPreference preference ON preference.userID = push.userID
            WHERE push.userID <> \(sender.rawValue)
            ORDER BY push.id
            """).map { row in
            PushRecipient(
                subscription: PushSubscription(
                    id: try row.at(0), userID: UserID(try row.at(1)), endpoint: try row.at(2), p256dh: try row.at(3), auth: try row.at(4),
                    label: try row.at(5), createdAt: Date(timeIntervalSince1970: try row.at(6))
                ),
                handle: try row.at(7), involvement: Involvement(rawValue: try row.at(8)) ?? .everything, isPrivate: try row.at(9)
            )
        }
    }

    public func notificationPreferences(of user: UserID) async throws -> NotificationPreferences {
        let rows = try await database.rows("SELECT isPrivate, appearsOffline FROM notificationPreference WHERE userID = \(user.rawValue)")
        guard let row = rows.first else { return NotificationPreferences() }
        return NotificationPreferences(isPrivate: try row.at(0), appearsOffline: try row.at(1))
    }

    public func setNotificationPreferences(_ preferences: NotificationPreferences, of user: UserID) async throws {
        try await database.write { [logger] connection in
            try await connection.run("""
                INSERT INTO notificationPreference (userID, isPrivate, appearsOffline)
                VALUES (\(user.rawValue), \(preferences.isPrivate), \(preferences.appearsOffline))
                ON CONFLICT (userID) DO UPDATE SET isPrivate = EXCLUDED.isPrivate, appearsOffline = EXCLUDED.appearsOffline
                """, logger: logger)
            try await EventLogEntry.append(.preferencesChanged(user, preferences), connection, logger: logger)
        }
    }

    public func vapidKey(generate: @Sendable () -> String) async throws -> String {
        if let row = try await database.rows("SELECT privateKey FROM vapidKey").first { return try row.at(0) }
        let key = generate()
        return try await database.write { [logger] connection in
            try await connection.run("INSERT INTO vapidKey (privateKey) VALUES (\(key)) ON CONFLICT (single) DO NOTHING", logger: logger)
            guard let row = try await connection.row("SELECT privateKey FROM vapidKey", logger: logger) else { return key }
            return try row.at(0)
        }
    }

    public func replaceVapidKey(with key: String) async throws {
        try await database.write { [logger] connection in
            try await connection.run("""
                INSERT INTO vapidKey (privateKey) VALUES (\(key)) ON CONFLICT (single) DO UPDATE SET privateKey = EXCLUDED.privateKey
                """, logger: logger)
            try await connection.run("DELETE FROM pushSubscription", logger: logger)
        }
    }
}
