import Foundation

// What a check changes, the same for every store: which items it posts, which keys it remembers, the
// messages it writes and the subscription's new state.

extension FeedCheck {
    /// The items this check posts, oldest first: on a subscription's first load only the newest, then up
    /// to `postLimit` of those whose key it has not seen (the rest wait for the next check). An item
    /// re-dated or moved in the feed keeps its key, so it is never posted twice.
    public func itemsToPost(hasLoaded: Bool, isSeen: (String) -> Bool) -> [FeedItem] {
        guard case .loaded(_, let items, _, _, _) = outcome else { return [] }
        var unseen: [FeedItem] = []
        var keys = Set<String>()
        for item in items where !isSeen(item.key) && keys.insert(item.key).inserted { unseen.append(item) }
        guard hasLoaded else { return unseen.last.map { [$0] } ?? [] }
        return Array(unseen.prefix(max(0, postLimit)))
    }

    /// The keys to remember: every item of a first load (its older items are never posted), later the
    /// posted ones.
    public func keysToRemember(hasLoaded: Bool, posted: [FeedItem]) -> [String] {
        guard case .loaded(_, let items, _, _, _) = outcome else { return [] }
        return Array(Set(hasLoaded ? posted.map(\.key) : items.map(\.key))).sorted()
    }

    /// The message that posts `item` into `chat`, sent by the feeds' bot account.
    public func message(for item: FeedItem, in chat: ChatID, source: String, icon: ImageID?) -> (outgoing: OutgoingMessage, post: FeedPost) {
        let outgoing = OutgoingMessage(
            chatID: chat, senderID: authorID, body: Self.summary(item.text), token: Self.token(subscriptionID, item.key), createdAt: checkedAt
        )
        let post = FeedPost(
            source: Self.line(source, limit: Self.sourceLength), title: item.title.map { Self.line($0, limit: Self.titleLength) },
            link: item.link, date: item.date, icon: icon
        )
        return (outgoing, post)
    }

    /// The subscription after this check, which posted `posted` items; `icon` is the image the store made of
    /// a new icon.
    public func applied(to old: FeedSubscription, posted: Int, icon newIcon: ImageID? = nil) -> FeedSubscription {
        var title = old.title, url = old.url, validators = old.validators, icon = old.icon
        let status: FeedStatus
        var failures = 0
        var next = nextCheck
        switch outcome {
        case .loaded(let newTitle, _, let newValidators, let newURL, let fetchedIcon):
            if let fetchedIcon { icon = FeedIcon(url: fetchedIcon.url, image: newIcon) }
            title = newTitle
            validators = newValidators
            url = newURL ?? old.url
            status = .loaded(newItems: posted, checkedAt: checkedAt)
        case .notModified:
            status = .loaded(newItems: 0, checkedAt: checkedAt)
        case .failed(let reason):
            failures = old.failures + 1
            if failures >= FeedSubscription.failuresBeforePause {
                status = .paused(reason: reason, at: checkedAt)
                next = .distantFuture
            } else {
                status = .failed(reason: reason, at: checkedAt)
            }
        }
        return FeedSubscription(
            id: old.id, chatID: old.chatID, subscriberID: old.subscriberID, url: url, title: title, createdAt: old.createdAt,
            status: status, nextCheck: next, failures: failures, validators: validators, icon: icon
        )
    }

    /// How long a subscription remembers an item's key once the feed no longer lists it: a feed lists its
    /// latest items, so a key gone for this long is gone for good, and the table does not grow forever.
    public static let keyMemory: TimeInterval = 90 * 24 * 3_600

    /// The longest feed title (a post's author) and item title kept, in characters.
    public static let sourceLength = 80
    public static let titleLength = 300

    static func line(_ text: String, limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }

    /// The longest summary a post shows, in characters.
    public static let summaryLength = 300

    /// An item's text as a message's: at most ``summaryLength`` characters, cut at a word, control
    /// characters other than line breaks dropped.
    static func summary(_ text: String) -> String {
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 == "\n" || !CharacterSet.controlCharacters.contains($0) }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard clean.count > summaryLength else { return clean }
        var cut = String(clean.prefix(summaryLength))
        if let space = cut.lastIndex(where: \.isWhitespace), cut.distance(from: cut.startIndex, to: space) > summaryLength / 2 {
            cut = String(cut[..<space])
        }
        return cut + "…"
    }

    /// The idempotency token of an item's message: the store refuses to write it twice.
    static func token(_ subscription: FeedSubscriptionID, _ key: String) -> String {
        "feed-\(subscription)-\(String(FeedItem.fnv1a(key.utf8), radix: 16))"
    }
}
