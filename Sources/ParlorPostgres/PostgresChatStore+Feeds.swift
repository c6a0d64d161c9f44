import Foundation
import Logging
import ParlorDomain
import PostgresNIO

// Feed subscriptions, the keys of the items each has seen, and the messages a check posts, written together.
// A due subscription is leased to the instance that will check it, so each feed is fetched once however
// many instances poll.

extension PostgresChatStore: FeedStore {
    private static let subscriptionColumns = """
        id, chatID, subscriberID, url, title, createdAt, status, newItems, statusAt, reason, nextCheck, failures, etag, lastModified,
        iconURL, iconID
        """

    /// How long a subscription handed to one instance's poller stays away from the others' (its check records
    /// it before then; past it, an instance that stopped mid-check no longer holds it up).
    static let feedLease: TimeInterval = 120

    public func subscribe(_ new: NewSubscription, limit: Int) async throws -> FeedSubscription {
        do {
            return try await database.write { [logger] connection in
                // The chat's row is locked, so two members adding at once cannot both pass the limit.
                guard try await connection.row("""
                    SELECT 1 FROM member JOIN chat ON chat.id = member.chatID
                    WHERE member.chatID = \(new.chatID.rawValue) AND member.userID = \(new.subscriberID.rawValue) FOR UPDATE OF chat
                    """, logger: logger) != nil
                else { throw Refusal.notFound }
                let urls = try await connection.rows("SELECT url FROM feedSubscription WHERE chatID = \(new.chatID.rawValue)", logger: logger)
                    .map { try $0.at(0, as: String.self) }
                guard !urls.contains(new.url) else { throw Refusal.alreadySubscribed }
                guard urls.count < limit else { throw Refusal.tooManyFeeds(limit: limit) }
                let at = new.createdAt.timeIntervalSince1970
                let row = try await connection.row("""
                    INSERT INTO feedSubscription (chatID, subscriberID, url, createdAt, status, nextCheck)
                    VALUES (\(new.chatID.rawValue), \(new.subscriberID.rawValue), \(new.url), \(at), 'loading', \(at))
                    RETURNING id
                    """, logger: logger)
                let id = FeedSubscriptionID(try row!.at(0, as: Int64.self))
                try await EventLogEntry.feedSubscribed(id).append(connection, logger: logger)
                return FeedSubscription(
                    id: id, chatID: new.chatID, subscriberID: new.subscriberID, url: new.url,
                    title: nil, createdAt: new.createdAt, status: .loading, nextCheck: new.createdAt
                )
            }
        } catch where error.isUniqueViolation {
            throw Refusal.alreadySubscribed
        }
    }

    public func unsubscribe(_ request: FeedRequest) async throws -> FeedSubscription {
        try await database.write { [logger] connection in
            let subscription = try await Self.requested(connection, request, logger)
            try await connection.run("DELETE FROM feedSubscription WHERE id = \(subscription.id.rawValue)", logger: logger)
            try await EventLogEntry.feedUnsubscribed(subscription.id, chat: subscription.chatID, subscriber: subscription.subscriberID)
                .append(connection, logger: logger)
            return subscription
        }
    }

    public func retry(_ request: FeedRequest) async throws -> FeedSubscription {
        try await database.write { [logger] connection in
            let old = try await Self.requested(connection, request, logger)
            let retried = FeedSubscription(
                id: old.id, chatID: old.chatID, subscriberID: old.subscriberID, url: old.url, title: old.title, createdAt: old.createdAt,
                status: .loading, nextCheck: request.date, failures: 0, validators: old.validators
            )
            try await Self.update(connection, retried, logger)
            try await EventLogEntry.feedRetried(old.id).append(connection, logger: logger)
            return retried
        }
    }

    public func feedSubscriptions(in chat: ChatID, viewer: UserID) async throws -> [FeedSubscription]? {
        try await database.read { [logger] connection in
            guard try await Self.isMember(connection, chat, viewer, logger) else { return nil }
            return try await connection.rows(
                "SELECT \(unescaped: Self.subscriptionColumns) FROM feedSubscription WHERE chatID = \(chat.rawValue) ORDER BY id", logger: logger
            ).map(Self.subscription)
        }
    }

    public func feedSubscription(_ id: FeedSubscriptionID) async throws -> FeedSubscription? {
        try await database.single { [logger] connection in try await Self.subscription(connection, id, logger) }
    }

    /// The due subscriptions no other instance holds, the most overdue first, leased to this one for
    /// ``feedLease`` seconds from `date` (a check's record ends the lease).
    public func dueFeedSubscriptions(at date: Date, limit: Int) async throws -> [FeedSubscription] {
        let at = date.timeIntervalSince1970
        return try await database.write { [logger, instance] connection in
            try await connection.rows("""
                UPDATE feedSubscription SET leaseHolder = \(instance), leaseUntil = \(at + Self.feedLease)
                WHERE id IN (
                    SELECT id FROM feedSubscription WHERE nextCheck <= \(at) AND (leaseUntil IS NULL OR leaseUntil <= \(at))
                    ORDER BY nextCheck, id LIMIT \(max(0, limit)) FOR UPDATE SKIP LOCKED)
                RETURNING \(unescaped: Self.subscriptionColumns)
                """, logger: logger).map(Self.subscription).sorted { ($0.nextCheck, $0.id.rawValue) < ($1.nextCheck, $1.id.rawValue) }
        }
    }

    public func recordCheck(_ check: FeedCheck) async throws -> CheckedFeed? {
        try await database.write { [logger] connection in
            // The chat's lock before any write: the posts may be messages (see ChatLocks).
            guard let chat = try await connection.row(
                "SELECT chatID FROM feedSubscription WHERE id = \(check.subscriptionID.rawValue)", logger: logger
            ) else { return nil }
            try await ChatLocks.lock([ChatID(try chat.at(0, as: Int64.self))], connection, logger)
            guard let old = try await connection.row("""
                SELECT \(unescaped: Self.subscriptionColumns) FROM feedSubscription WHERE id = \(check.subscriptionID.rawValue) FOR UPDATE
                """, logger: logger).map(Self.subscription)
            else { return nil }
            if let moved = check.movedURL, moved != old.url, let other = try await connection.row("""
                SELECT id FROM feedSubscription WHERE chatID = \(old.chatID.rawValue) AND url = \(moved) AND id <> \(old.id.rawValue)
                """, logger: logger) {
                try await connection.run("DELETE FROM feedSubscription WHERE id = \(old.id.rawValue)", logger: logger)
                try await EventLogEntry.feedUnsubscribed(old.id, chat: old.chatID, subscriber: old.subscriberID).append(connection, logger: logger)
                return CheckedFeed(subscription: old, posted: [], duplicateOf: FeedSubscriptionID(try other.at(0, as: Int64.self)))
            }
            var allKeys: [String] = []
            if case .loaded(_, let all, _, _, _) = check.outcome { allKeys = all.map(\.key) }
            let seen = allKeys.isEmpty ? Set<String>() : Set(try await connection.rows(
                "SELECT key FROM feedSeenKey WHERE subscriptionID = \(old.id.rawValue) AND key = ANY(\(allKeys))", logger: logger
            ).map { try $0.at(0, as: String.self) })
            let items = check.itemsToPost(hasLoaded: old.hasLoaded) { seen.contains($0) }
            var posted: [Message] = []
            var newIcon: ImageID?
            if case .loaded(let title, _, _, _, let fetchedIcon) = check.outcome {
                if let versions = fetchedIcon?.versions {
                    newIcon = try await Self.insert(
                        connection, NewImage(ownerID: check.authorID, purpose: .feedIcon, versions: versions, createdAt: check.checkedAt), logger
                    )
                }
                let icon = fetchedIcon == nil ? old.icon?.image : newIcon
                for item in items {
                    let (outgoing, post) = check.message(for: item, in: old.chatID, source: title, icon: icon)
                    if let message = try await Self.post(connection, outgoing, post, logger) { posted.append(message) }
                }
            }
            let at = check.checkedAt.timeIntervalSince1970
            let remember = check.keysToRemember(hasLoaded: old.hasLoaded, posted: items)
            if !remember.isEmpty {
                try await connection.run("""
                    INSERT INTO feedSeenKey (subscriptionID, key, seenAt) SELECT \(old.id.rawValue), key, \(at) FROM unnest(\(remember)) AS key
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            if !allKeys.isEmpty {
                try await connection.run(
                    "UPDATE feedSeenKey SET seenAt = \(at) WHERE subscriptionID = \(old.id.rawValue) AND key = ANY(\(allKeys))", logger: logger
                )
                try await connection.run(
                    "DELETE FROM feedSeenKey WHERE subscriptionID = \(old.id.rawValue) AND seenAt < \(at - FeedCheck.keyMemory)", logger: logger
                )
            }
            let updated = check.applied(to: old, posted: posted.count, icon: newIcon)
            try await Self.update(connection, updated, logger)
            try await EventLogEntry.feedChecked(old.id).append(connection, logger: logger)
            return CheckedFeed(subscription: updated, posted: posted)
        }
    }

    /// Writes a feed's message, counted unread for every member; nil when its token was stored before.
    private static func post(_ connection: PostgresConnection, _ message: OutgoingMessage, _ post: FeedPost, _ logger: Logger) async throws -> Message? {
        let chat = message.chatID.rawValue
        guard try await connection.row(
            "SELECT 1 FROM message WHERE senderID = \(message.senderID.rawValue) AND token = \(message.token)", logger: logger
        ) == nil else { return nil }
        let createdAt = message.createdAt.timeIntervalSince1970
        let row = try await connection.row("""
            INSERT INTO message (chatID, senderID, body, createdAt, token, feedSource, feedTitle, feedLink, feedDate, feedIconID, searchText)
            VALUES (\(chat), \(message.senderID.rawValue), \(message.body), \(createdAt), \(message.token), \(post.source), \(post.title), \(post.link),
                \(post.date?.timeIntervalSince1970), \(post.icon?.rawValue), \(SearchText.searchable(message.body)))
            RETURNING id
            """, logger: logger)
        let id = try row!.at(0, as: Int64.self)
        // A post is unread for every member: the chat's count moves, no member's position.
        try await connection.run("""
            UPDATE chat SET lastMessageID = \(id), lastActivity = GREATEST(lastActivity, \(createdAt)), messageSeq = messageSeq + 1 WHERE id = \(chat)
            """, logger: logger)
        try await EventLogEntry.messageSent(MessageID(id), token: "feed-\(id)").append(connection, logger: logger)
        return Message(id: MessageID(id), chatID: message.chatID, senderID: message.senderID, body: message.body, createdAt: message.createdAt, feed: post)
    }

    private static func requested(_ connection: PostgresConnection, _ request: FeedRequest, _ logger: Logger) async throws -> FeedSubscription {
        guard try await isMember(connection, request.chatID, request.requesterID, logger),
              let subscription = try await connection.row("""
                SELECT \(unescaped: subscriptionColumns) FROM feedSubscription WHERE id = \(request.subscriptionID.rawValue) FOR UPDATE
                """, logger: logger).map(Self.subscription),
              subscription.chatID == request.chatID
        else { throw Refusal.notFound }
        return subscription
    }

    private static func subscription(_ connection: PostgresConnection, _ id: FeedSubscriptionID, _ logger: Logger) async throws -> FeedSubscription? {
        try await connection.row("SELECT \(unescaped: subscriptionColumns) FROM feedSubscription WHERE id = \(id.rawValue)", logger: logger)
            .map(subscription)
    }

    /// Writes the subscription's state and ends any lease on it.
    private static func update(_ connection: PostgresConnection, _ subscription: FeedSubscription, _ logger: Logger) async throws {
        let status = subscription.status.stored
        try await connection.run("""
            UPDATE feedSubscription SET url = \(subscription.url), title = \(subscription.title), status = \(status.name),
                newItems = \(Int64(status.newItems)), statusAt = \(status.at?.timeIntervalSince1970), reason = \(status.reason),
                nextCheck = \(subscription.nextCheck.timeIntervalSince1970),
                failures = \(Int64(subscription.failures)), etag = \(subscription.validators.etag), lastModified = \(subscription.validators.lastModified),
                iconURL = \(subscription.icon?.url), iconID = \(subscription.icon?.image?.rawValue), leaseHolder = NULL, leaseUntil = NULL
            WHERE id = \(subscription.id.rawValue)
            """, logger: logger)
    }

    private static func subscription(_ row: PostgresRandomAccessRow) throws -> FeedSubscription {
        let status = FeedStatus(
            stored: try row.at(6), newItems: Int(try row.at(7, as: Int64.self)),
            at: try row.at(8, as: Double?.self).map { Date(timeIntervalSince1970: $0) }, reason: try row.at(9)
        )
        return FeedSubscription(
            id: FeedSubscriptionID(try row.at(0, as: Int64.self)), chatID: ChatID(try row.at(1, as: Int64.self)),
            subscriberID: UserID(try row.at(2, as: Int64.self)), url: try row.at(3), title: try row.at(4),
            createdAt: Date(timeIntervalSince1970: try row.at(5)), status: status, nextCheck: Date(timeIntervalSince1970: try row.at(10)),
            failures: Int(try row.at(11, as: Int64.self)), validators: FeedValidators(etag: try row.at(12), lastModified: try row.at(13)),
            icon: try row.at(14, as: String?.self).map { FeedIcon(url: $0, image: try row.at(15, as: Int64?.self).map { ImageID($0) }) }
        )
    }
}
