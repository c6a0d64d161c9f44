import Foundation
import ParlorDomain

extension InMemoryChatStore {
    public func subscribe(_ new: NewSubscription, limit: Int) async throws -> FeedSubscription {
        try state.withLock { state throws(Refusal) in
            guard state.chats[new.chatID]?.hasMember(new.subscriberID) == true else { throw .notFound }
            let existing = state.feeds.values.filter { $0.chatID == new.chatID }
            guard !existing.contains(where: { $0.url == new.url }) else { throw .alreadySubscribed }
            guard existing.count < limit else { throw .tooManyFeeds(limit: limit) }
            let subscription = FeedSubscription(
                id: FeedSubscriptionID(state.nextFeed), chatID: new.chatID, subscriberID: new.subscriberID, url: new.url, title: nil,
                createdAt: new.createdAt, status: .loading, nextCheck: new.createdAt
            )
            state.nextFeed += 1
            state.feeds[subscription.id] = subscription
            return subscription
        }
    }

    public func unsubscribe(_ request: FeedRequest) async throws -> FeedSubscription {
        try state.withLock { state throws(Refusal) in
            let subscription = try Self.requested(request, in: state)
            state.feeds[subscription.id] = nil
            state.seenFeedKeys[subscription.id] = nil
            return subscription
        }
    }

    public func retry(_ request: FeedRequest) async throws -> FeedSubscription {
        try state.withLock { state throws(Refusal) in
            let old = try Self.requested(request, in: state)
            let retried = FeedSubscription(
                id: old.id, chatID: old.chatID, subscriberID: old.subscriberID, url: old.url, title: old.title, createdAt: old.createdAt,
                status: .loading, nextCheck: request.date, failures: 0, validators: old.validators
            )
            state.feeds[old.id] = retried
            return retried
        }
    }

    public func feedSubscriptions(in chat: ChatID, viewer: UserID) async throws -> [FeedSubscription]? {
        state.withLock { state in
            guard state.chats[chat]?.hasMember(viewer) == true else { return nil }
            return state.feeds.values.filter { $0.chatID == chat }.sorted { $0.id < $1.id }
        }
    }

    public func feedSubscription(_ id: FeedSubscriptionID) async throws -> FeedSubscription? {
        state.withLock { $0.feeds[id] }
    }

    public func dueFeedSubscriptions(at date: Date, limit: Int) async throws -> [FeedSubscription] {
        state.withLock { state in
            Array(state.feeds.values.filter { $0.nextCheck <= date }.sorted { ($0.nextCheck, $0.id) < ($1.nextCheck, $1.id) }.prefix(limit))
        }
    }

    public func recordCheck(_ check: FeedCheck) async throws -> CheckedFeed? {
        state.withLock { state in
            guard let old = state.feeds[check.subscriptionID], state.chats[old.chatID] != nil else { return nil }
            if let moved = check.movedURL, moved != old.url,
               let other = state.feeds.values.first(where: { $0.chatID == old.chatID && $0.url == moved && $0.id != old.id }) {
                state.feeds[old.id] = nil
                state.seenFeedKeys[old.id] = nil
                return CheckedFeed(subscription: old, posted: [], duplicateOf: other.id)
            }
            let seen = state.seenFeedKeys[old.id] ?? [:]
            let items = check.itemsToPost(hasLoaded: old.hasLoaded) { seen[$0] != nil }
            var posted: [Message] = []
            var newIcon: ImageID?
            if case .loaded(let title, _, _, _, let fetchedIcon) = check.outcome {
                if let versions = fetchedIcon?.versions {
                    let id = ImageID(state.nextImage)
                    state.nextImage += 1
                    state.images[id] = StoredImage(id: id, ownerID: check.authorID, purpose: .feedIcon, versions: versions)
                    newIcon = id
                }
                let icon = fetchedIcon == nil ? old.icon?.image : newIcon
                for item in items {
                    let (outgoing, post) = check.message(for: item, in: old.chatID, source: title, icon: icon)
                    let tokenKey = "\(outgoing.senderID):\(outgoing.token)"
                    guard state.messageIDsByToken[tokenKey] == nil else { continue }
                    let message = Message(
                        id: MessageID(state.nextMessage), chatID: old.chatID, senderID: outgoing.senderID, body: outgoing.body,
                        createdAt: outgoing.createdAt, feed: post
                    )
                    state.nextMessage += 1
                    state.messages[message.id] = message
                    state.messageIDsByChat[old.chatID, default: []].append(message.id)
                    state.messageIDsByToken[tokenKey] = message.id
                    state.lastActivity[old.chatID] = max(state.lastActivity[old.chatID] ?? message.createdAt, message.createdAt)
                    posted.append(message)
                }
            }
            var keys = state.seenFeedKeys[old.id] ?? [:]
            for key in check.keysToRemember(hasLoaded: old.hasLoaded, posted: items) where keys[key] == nil { keys[key] = check.checkedAt }
            if case .loaded(_, let all, _, _, _) = check.outcome {
                for item in all where keys[item.key] != nil { keys[item.key] = check.checkedAt }
                keys = keys.filter { $0.value >= check.checkedAt - FeedCheck.keyMemory }
            }
            state.seenFeedKeys[old.id] = keys
            let updated = check.applied(to: old, posted: posted.count, icon: newIcon)
            state.feeds[old.id] = updated
            return CheckedFeed(subscription: updated, posted: posted)
        }
    }

    /// The subscription a member asks about: `notFound` unless it belongs to their chat.
    private static func requested(_ request: FeedRequest, in state: State) throws(Refusal) -> FeedSubscription {
        guard let subscription = state.feeds[request.subscriptionID], subscription.chatID == request.chatID,
              state.chats[request.chatID]?.hasMember(request.requesterID) == true
        else { throw .notFound }
        return subscription
    }
}
