import Foundation
import ParlorDomain
import Synchronization

/// A ``PushStore`` in memory, for tests: memberships are read from `chats`.
public final class InMemoryPushStore: PushStore {
    struct State {
        var subscriptions: [Int64: PushSubscription] = [:]
        var next: Int64 = 1
        var preferences: [UserID: NotificationPreferences] = [:]
        var key: String?
    }

    let state = Mutex(State())
    let chats: any ChatStore

    public init(chats: any ChatStore) {
        self.chats = chats
    }

    public func pushRecipients(in chat: ChatID, excluding sender: UserID) async throws -> [PushRecipient] {
        guard let members = try await chats.chat(chat)?.members else { return [] }
        let (subscriptions, preferences) = state.withLock { state in
            (state.subscriptions.values.filter { $0.userID != sender && members.contains($0.userID) }.sorted { $0.id < $1.id }, state.preferences)
        }
        var recipients: [PushRecipient] = []
        for subscription in subscriptions {
            guard let membership = try await chats.membership(chat, subscription.userID), let user = try await chats.user(subscription.userID) else { continue }
            recipients.append(PushRecipient(
                subscription: subscription, handle: user.handle, involvement: membership.involvement,
                isPrivate: preferences[subscription.userID]?.isPrivate ?? false
            ))
        }
        return recipients
    }

    public func addPushSubscription(_ subscription: PushSubscription, keepingNewest limit: Int) async throws -> PushSubscription {
        state.withLock { state in
            state.subscriptions = state.subscriptions.filter { $0.value.endpoint != subscription.endpoint }
            let stored = PushSubscription(
                id: state.next, userID: subscription.userID, endpoint: subscription.endpoint, p256dh: subscription.p256dh,
                auth: subscription.auth, label: subscription.label, createdAt: subscription.createdAt
            )
            state.next += 1
            state.subscriptions[stored.id] = stored
            let theirs = state.subscriptions.values.filter { $0.userID == subscription.userID }.map(\.id).sorted()
            for old in theirs.dropLast(max(1, limit)) { state.subscriptions[old] = nil }
            return stored
        }
    }

    public func pushSubscriptions(of user: UserID) async throws -> [PushSubscription] {
        state.withLock { $0.subscriptions.values.filter { $0.userID == user }.sorted { $0.id < $1.id } }
    }

    public func removePushSubscription(_ removal: PushRemoval) async throws -> Bool {
        state.withLock { state in
            let gone = state.subscriptions.values.filter { subscription in
                guard subscription.userID == removal.userID else { return false }
                switch removal.which {
                case .id(let id): return subscription.id == id
                case .endpoint(let endpoint): return subscription.endpoint == endpoint
                }
            }
            for subscription in gone { state.subscriptions[subscription.id] = nil }
            return !gone.isEmpty
        }
    }

    public func removePushSubscription(endpoint: String) async throws {
        state.withLock { $0.subscriptions = $0.subscriptions.filter { $0.value.endpoint != endpoint } }
    }

    public func notificationPreferences(of user: UserID) async throws -> NotificationPreferences {
        state.withLock { $0.preferences[user] ?? NotificationPreferences() }
    }

    public func setNotificationPreferences(_ preferences: NotificationPreferences, of user: UserID) async throws {
        state.withLock { $0.preferences[user] = preferences }
    }

    public func vapidKey(generate: @Sendable () -> String) async throws -> String {
        state.withLock { state in
            if let key = state.key { return key }
            let key = generate()
            state.key = key
            return key
        }
    }

    public func replaceVapidKey(with key: String) async throws {
        state.withLock { state in
            state.key = key
            state.subscriptions = [:]
        }
    }
}
