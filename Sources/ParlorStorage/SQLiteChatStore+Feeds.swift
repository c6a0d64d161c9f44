import Foundation
import GRDB
import ParlorDomain

// Feed subscriptions: a row each, the keys of the items each has seen, and the messages a check posts,
// written together.

extension SQLiteChatStore: FeedStore {
    private static let subscriptionColumns = """
        id, chatID, subscriberID, url, title, createdAt, status, newItems, statusAt, reason, nextCheck, failures, etag, lastModified,
        iconURL, iconID
        """

    public func subscribe(_ new: NewSubscription, limit: Int) async throws -> FeedSubscription {
        try await write { db in
            guard try Self.isMember(db, new.chatID, new.subscriberID) else { throw Refusal.notFound }
            let urls = try String.fetchAll(db, sql: "SELECT url FROM feedSubscription WHERE chatID = ?", arguments: [new.chatID.rawValue])
            guard !urls.contains(new.url) else { throw Refusal.alreadySubscribed }
            guard urls.count < limit else { throw Refusal.tooManyFeeds(limit: limit) }
            try db.execute(
                sql: """
                    INSERT INTO feedSubscription (chatID, subscriberID, url, createdAt, status, nextCheck) VALUES (?, ?, ?, ?, 'loading', ?)
                    """,
                arguments: [new.chatID.rawValue, new.subscriberID.rawValue, new.url, new.createdAt.timeIntervalSince1970, new.createdAt.timeIntervalSince1970]
            )
            return FeedSubscription(
                id: FeedSubscriptionID(db.lastInsertedRowID), chatID: new.chatID, subscriberID: new.subscriberID, url: new.url,
                title: nil, createdAt: new.createdAt, status: .loading, nextCheck: new.createdAt
            )
        }
    }

    public func unsubscribe(_ request: FeedRequest) async throws -> FeedSubscription {
        try await write { db in
            let subscription = try Self.requested(db, request)
            try db.execute(sql: "DELETE FROM feedSubscription WHERE id = ?", arguments: [subscription.id.rawValue])
            return subscription
        }
    }

    public func retry(_ request: FeedRequest) async throws -> FeedSubscription {
        try await write { db in
            let old = try Self.requested(db, request)
            let retried = FeedSubscription(
                id: old.id, chatID: old.chatID, subscriberID: old.subscriberID, url: old.url, title: old.title, createdAt: old.createdAt,
                status: .loading, nextCheck: request.date, failures: 0, validators: old.validators
            )
            try Self.update(db, retried)
            return retried
        }
    }

    public func feedSubscriptions(in chat: ChatID, viewer: UserID) async throws -> [FeedSubscription]? {
        try await read { db in
            guard try Self.isMember(db, chat, viewer) else { return nil }
            return try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(Self.subscriptionColumns) FROM feedSubscription WHERE chatID = ? ORDER BY id"),
                arguments: [chat.rawValue]
            ).map(Self.subscription)
        }
    }

    public func feedSubscription(_ id: FeedSubscriptionID) async throws -> FeedSubscription? {
        try await read { db in try Self.subscription(db, id) }
    }

    public func dueFeedSubscriptions(at date: Date, limit: Int) async throws -> [FeedSubscription] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(Self.subscriptionColumns) FROM feedSubscription WHERE nextCheck <= ? ORDER BY nextCheck, id LIMIT ?
                    """),
                arguments: [date.timeIntervalSince1970, max(0, limit)]
            ).map(Self.subscription)
        }
    }

    public func recordCheck(_ check: FeedCheck) async throws -> CheckedFeed? {
        try await write { db in
            guard let old = try Self.subscription(db, check.subscriptionID) else { return nil }
            if let moved = check.movedURL, moved != old.url, let other = try Int64.fetchOne(
                db, sql: "SELECT id FROM feedSubscription WHERE chatID = ? AND url = ? AND id <> ?", arguments: [old.chatID.rawValue, moved, old.id.rawValue]
            ) {
                try db.execute(sql: "DELETE FROM feedSubscription WHERE id = ?", arguments: [old.id.rawValue])
                return CheckedFeed(subscription: old, posted: [], duplicateOf: FeedSubscriptionID(other))
            }
            let seenStatement = try db.cachedStatement(sql: "SELECT 1 FROM feedSeenKey WHERE subscriptionID = ? AND key = ?")
            var lookupError: (any Error)?
            let items = check.itemsToPost(hasLoaded: old.hasLoaded) { key in
                do {
                    return try Bool.fetchOne(seenStatement, arguments: [old.id.rawValue, key]) ?? false
                } catch {
                    lookupError = error
                    return true
                }
            }
            if let lookupError { throw lookupError }
            var posted: [Message] = []
            var newIcon: ImageID?
            if case .loaded(let title, _, _, _, let fetchedIcon) = check.outcome {
                if let versions = fetchedIcon?.versions {
                    newIcon = try Self.insert(db, NewImage(ownerID: check.authorID, purpose: .feedIcon, versions: versions, createdAt: check.checkedAt))
                }
                let icon = fetchedIcon == nil ? old.icon?.image : newIcon
                for item in items {
                    let (outgoing, post) = check.message(for: item, in: old.chatID, source: title, icon: icon)
                    if let message = try Self.post(db, outgoing, post) { posted.append(message) }
                }
            }
            let at = check.checkedAt.timeIntervalSince1970
            let remember = try db.cachedStatement(sql: "INSERT OR IGNORE INTO feedSeenKey (subscriptionID, key, seenAt) VALUES (?, ?, ?)")
            for key in check.keysToRemember(hasLoaded: old.hasLoaded, posted: items) {
                try remember.execute(arguments: [old.id.rawValue, key, at])
            }
            if case .loaded(_, let all, _, _, _) = check.outcome {
                let touch = try db.cachedStatement(sql: "UPDATE feedSeenKey SET seenAt = ? WHERE subscriptionID = ? AND key = ?")
                for item in all { try touch.execute(arguments: [at, old.id.rawValue, item.key]) }
                try db.cachedStatement(sql: "DELETE FROM feedSeenKey WHERE subscriptionID = ? AND seenAt < ?")
                    .execute(arguments: [old.id.rawValue, at - FeedCheck.keyMemory])
            }
            let updated = check.applied(to: old, posted: posted.count, icon: newIcon)
            try Self.update(db, updated)
            return CheckedFeed(subscription: updated, posted: posted)
        }
    }

    /// Writes a feed's message, counted unread for every member (the feeds' account is none of them);
    /// nil when its token was stored before.
    private static func post(_ db: Database, _ message: OutgoingMessage, _ post: FeedPost) throws -> Message? {
        let exists = try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM message WHERE senderID = ? AND token = ?"), arguments: [message.senderID.rawValue, message.token]
        ) ?? false
        guard !exists else { return nil }
        let createdAt = message.createdAt.timeIntervalSince1970
        try db.cachedStatement(sql: """
            INSERT INTO message (chatID, senderID, body, createdAt, token, feedSource, feedTitle, feedLink, feedDate, feedIconID)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                message.chatID.rawValue, message.senderID.rawValue, message.body, createdAt, message.token,
                post.source, post.title, post.link, post.date?.timeIntervalSince1970, post.icon?.rawValue,
            ])
        let id = db.lastInsertedRowID
        // A post is unread for every member: the chat's count moves, no member's position.
        try db.cachedStatement(sql: "UPDATE chat SET lastMessageID = ?, lastActivity = MAX(lastActivity, ?), messageSeq = messageSeq + 1 WHERE id = ?")
            .execute(arguments: [id, createdAt, message.chatID.rawValue])
        return Message(
            id: MessageID(id), chatID: message.chatID, senderID: message.senderID, body: message.body, createdAt: message.createdAt, feed: post
        )
    }

    /// The subscription a member asks about: `notFound` unless it belongs to their chat.
    private static func requested(_ db: Database, _ request: FeedRequest) throws -> FeedSubscription {
        guard try isMember(db, request.chatID, request.requesterID), let subscription = try subscription(db, request.subscriptionID),
              subscription.chatID == request.chatID
        else { throw Refusal.notFound }
        return subscription
    }

    private static func subscription(_ db: Database, _ id: FeedSubscriptionID) throws -> FeedSubscription? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(subscriptionColumns) FROM feedSubscription WHERE id = ?"), arguments: [id.rawValue]
        ).map(subscription)
    }

    private static func update(_ db: Database, _ subscription: FeedSubscription) throws {
        let status = subscription.status.stored
        try db.cachedStatement(sql: """
            UPDATE feedSubscription SET url = ?, title = ?, status = ?, newItems = ?, statusAt = ?, reason = ?, nextCheck = ?, failures = ?,
                etag = ?, lastModified = ?, iconURL = ?, iconID = ?
            WHERE id = ?
            """).execute(arguments: [
                subscription.url, subscription.title, status.name, status.newItems, status.at?.timeIntervalSince1970, status.reason,
                subscription.nextCheck.timeIntervalSince1970, subscription.failures, subscription.validators.etag,
                subscription.validators.lastModified, subscription.icon?.url, subscription.icon?.image?.rawValue, subscription.id.rawValue,
            ])
    }

    private static func subscription(_ row: Row) -> FeedSubscription {
        let status = FeedStatus(stored: row[6], newItems: row[7], at: (row[8] as Double?).map { Date(timeIntervalSince1970: $0) }, reason: row[9])
        return FeedSubscription(
            id: FeedSubscriptionID(row[0] as Int64), chatID: ChatID(row[1] as Int64), subscriberID: UserID(row[2] as Int64), url: row[3],
            title: row[4], createdAt: Date(timeIntervalSince1970: row[5]), status: status, nextCheck: Date(timeIntervalSince1970: row[10]),
            failures: row[11], validators: FeedValidators(etag: row[12], lastModified: row[13]),
            icon: (row[14] as String?).map { FeedIcon(url: $0, image: (row[15] as Int64?).map { ImageID($0) }) }
        )
    }
}
