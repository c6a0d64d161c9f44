import Foundation
import Synchronization

/// A browser that asked to be told of messages while no Parlor page of its person is visible: where its push
/// service takes messages for it (`endpoint`), and the keys the browser decrypts them with.
public struct PushSubscription: Sendable, Hashable, Identifiable {
    public let id: Int64
    public let userID: UserID
    /// The push service's address for this browser (https; chosen by the browser's vendor).
    public let endpoint: String
    /// The browser's P-256 public key, base64url (RFC 8291's `ua_public`).
    public let p256dh: String
    /// The browser's 16-byte authentication secret, base64url.
    public let auth: String
    /// What the person sees in Settings to tell their browsers apart ("Chrome on Linux").
    public let label: String
    public let createdAt: Date

    public init(id: Int64, userID: UserID, endpoint: String, p256dh: String, auth: String, label: String, createdAt: Date) {
        self.id = id
        self.userID = userID
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
        self.label = label
        self.createdAt = createdAt
    }
}

/// How a person wants to be told: what a notification may say, and whether others see them as around.
public struct NotificationPreferences: Sendable, Hashable {
    /// Notifications say only "New message in …": no author, no words (for a screen others can see).
    public var isPrivate: Bool
    /// Others see this person as offline whatever their pages do.
    public var appearsOffline: Bool

    public init(isPrivate: Bool = false, appearsOffline: Bool = false) {
        self.isPrivate = isPrivate
        self.appearsOffline = appearsOffline
    }
}

/// A subscription of a member of a chat, with what decides whether a message there is pushed to it.
public struct PushRecipient: Sendable, Hashable {
    public let subscription: PushSubscription
    /// The member's handle, for mentions.
    public let handle: String
    public let involvement: Involvement
    public let isPrivate: Bool

    public init(subscription: PushSubscription, handle: String, involvement: Involvement, isPrivate: Bool) {
        self.subscription = subscription
        self.handle = handle
        self.involvement = involvement
        self.isPrivate = isPrivate
    }
}

/// Where Parlor keeps push subscriptions, each person's notification preferences and the server's VAPID key: its
/// reads (``PushReads``), given to whom-to-push, presence and the settings page, and its writes (``PushWrites``),
/// the router's (``AccountEvent``) and the start's (the key).
public protocol PushStore: PushReads, PushWrites {}

/// Subscriptions and notification preferences, read.
public protocol PushReads: Sendable {
    /// A person's subscriptions, oldest first.
    func pushSubscriptions(of user: UserID) async throws -> [PushSubscription]
    /// The subscriptions of `chat`'s members other than `sender`, each with how its person follows the chat: whom a
    /// new message there may be pushed to (one read, whatever the room's size: only people with subscriptions).
    func pushRecipients(in chat: ChatID, excluding sender: UserID) async throws -> [PushRecipient]
    func notificationPreferences(of user: UserID) async throws -> NotificationPreferences
}

/// Subscriptions added and removed, preferences set, and the VAPID key kept.
public protocol PushWrites: Sendable {
    /// Stores a browser's subscription; the same endpoint again (the browser subscribed anew, or another person
    /// signed in on it) replaces the old one, so a browser is told for one person only.
    /// Past `limit` subscriptions of the person, their oldest go, in the same transaction.
    func addPushSubscription(_ subscription: PushSubscription, keepingNewest limit: Int) async throws -> PushSubscription
    /// Removes one of a person's subscriptions; false when they have none with that id or endpoint.
    @discardableResult
    func removePushSubscription(_ removal: PushRemoval) async throws -> Bool
    /// Removes the subscription at `endpoint` (its push service said it is gone).
    func removePushSubscription(endpoint: String) async throws
    func setNotificationPreferences(_ preferences: NotificationPreferences, of user: UserID) async throws
    /// The VAPID private key (P-256, raw 32 bytes, base64url): the one stored, or `generate()`'s stored now when
    /// there is none. Instances sharing a database agree on the first one stored.
    func vapidKey(generate: @Sendable () -> String) async throws -> String
    /// Replaces the VAPID key: every browser must subscribe again (their subscriptions are removed).
    func replaceVapidKey(with key: String) async throws
}

extension PushWrites {
    /// Stores a subscription, however many the person has.
    public func addPushSubscription(_ subscription: PushSubscription) async throws -> PushSubscription {
        try await addPushSubscription(subscription, keepingNewest: Int(Int32.max))
    }

    @discardableResult
    public func removePushSubscription(_ id: Int64, of user: UserID) async throws -> Bool {
        try await removePushSubscription(PushRemoval(userID: user, which: .id(id)))
    }
}
