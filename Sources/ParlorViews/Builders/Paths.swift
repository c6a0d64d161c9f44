import ParlorDomain

/// Every URL a view model carries, under the base path Parlor is served at ("" or "/parlor").
public struct Paths: Sendable, Hashable {
    public let basePath: String

    public init(basePath: String) {
        var base = basePath
        while base.hasSuffix("/") { base.removeLast() }
        self.basePath = base
    }

    public var chats: String { "\(basePath)/chats" }
    public var newChat: String { "\(basePath)/chats/new" }
    public var newRoom: String { "\(basePath)/rooms/new" }
    public var contactSuggestions: String { "\(basePath)/chats/new/suggestions" }
    public var signIn: String { "\(basePath)/signin" }
    public var signUp: String { "\(basePath)/signup" }
    public var signOut: String { "\(basePath)/signout" }
    public var settings: String { "\(basePath)/settings" }
    public var administration: String { "\(basePath)/admin" }
    public var signUpPolicy: String { "\(basePath)/admin/signup" }
    public var roomCreation: String { "\(basePath)/admin/rooms" }
    public var joinLinkRotation: String { "\(basePath)/admin/join-link" }
    public var bots: String { "\(basePath)/admin/bots" }
    public func botKey(_ bot: UserID) -> String { "\(basePath)/admin/bots/\(bot)/key" }
    public func botAvatar(_ bot: UserID) -> String { "\(basePath)/admin/bots/\(bot)/avatar" }
    /// The Administration page's people, those whose handle or name starts with `query`.
    public func administration(searching query: String) -> String {
        query.isEmpty ? administration : "\(administration)?q=\(Self.queryValue(query))#people"
    }
    public func role(of person: UserID) -> String { "\(basePath)/admin/people/\(person)/role" }
    public func deactivate(_ person: UserID) -> String { "\(basePath)/admin/people/\(person)/deactivate" }
    public func reactivate(_ person: UserID) -> String { "\(basePath)/admin/people/\(person)/reactivate" }
    /// The join link's path; the page shows it with the origin in front.
    public func join(_ code: String) -> String { "\(basePath)/join/\(code)" }
    public var stylesheet: String { "\(basePath)/public/css/parlor.css" }
    public var script: String { "\(basePath)/public/js/parlor.js" }
    public var favicon: String { "\(basePath)/public/img/favicon.svg" }
    public var faviconUnread: String { "\(basePath)/public/img/favicon-unread.svg" }

    public func chat(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)" }
    public func messages(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/messages" }
    public func olderMessages(_ id: ChatID, before: MessageID) -> String { "\(basePath)/rooms/\(id)?before=\(before)" }
    public func reply(_ id: ChatID, to message: MessageID) -> String { "\(basePath)/rooms/\(id)?reply=\(message)#composer-\(id)" }
    public func edit(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)?edit=\(message)#composer-\(id)" }
    public func editAction(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)/messages/\(message)" }
    /// Asks "Delete this message?" in the conversation (pages without the script).
    public func delete(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)?delete=\(message)#delete-confirmation" }
    public func deleteAction(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)/messages/\(message)/delete" }
    /// Where a reaction to a message is posted (it toggles).
    public func reactions(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)/messages/\(message)/reactions" }
    /// Where the sender removes the card of the page a message links to.
    public func removePreview(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)/messages/\(message)/preview/remove" }
    /// The page for choosing a reaction (pages without the script).
    public func react(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)/messages/\(message)/react" }
    public func retry(_ id: ChatID, token: String) -> String { "\(basePath)/rooms/\(id)?retry=\(token)#composer-\(id)" }
    public func events(chat: ChatID?) -> String { "\(basePath)/events" + (chat.map { "?chat=\($0)" } ?? "") }
    /// The stream of a conversation opened at a message found, far from its newest (see `PageSubscription.showsWindow`).
    public func events(window chat: ChatID) -> String { "\(basePath)/events?chat=\(chat)&window=1" }
    /// The event stream of a chat's feeds screen.
    public func events(feedsOf chat: ChatID) -> String { "\(basePath)/events?feeds=\(chat)" }
    public func members(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/members" }
    public func removeMember(_ id: ChatID, _ member: UserID) -> String { "\(basePath)/rooms/\(id)/members/\(member)/remove" }
    public func seenBy(_ id: ChatID, message: MessageID) -> String { "\(basePath)/rooms/\(id)/messages/\(message)/seen" }
    public func mentionSuggestions(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/members/suggestions" }
    /// Where a page says its person is typing in the chat.
    public func typing(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/typing" }
    public func follow(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/follow" }
    public func leave(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/leave" }
    public func roomSettings(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/settings" }
    public func feeds(_ id: ChatID) -> String { "\(basePath)/rooms/\(id)/feeds" }
    public func retryFeed(_ id: ChatID, _ feed: FeedSubscriptionID) -> String { "\(basePath)/rooms/\(id)/feeds/\(feed)/retry" }
    public func unsubscribeFeed(_ id: ChatID, _ feed: FeedSubscriptionID) -> String { "\(basePath)/rooms/\(id)/feeds/\(feed)/delete" }
    public func image(_ id: ImageID) -> String { "\(basePath)/images/\(id)" }
    public func imageFile(_ id: ImageID) -> String { "\(basePath)/images/\(id)/display" }
    public func imageFile(_ id: ImageID, _ role: ImageRole) -> String { "\(basePath)/images/\(id)/\(role.rawValue)" }
    public func imageThumbnail(_ id: ImageID) -> String { "\(basePath)/images/\(id)/thumbnail" }
    public var photoPlaceholder: String { "\(basePath)/public/img/photo-placeholder.svg" }
    /// A person's face at the size lists and cells show it (96 px, for screens of 2 or more pixels a point).
    public func avatar(_ id: ImageID) -> String { "\(basePath)/images/\(id)/avatarSmall" }
    public var search: String { "\(basePath)/search" }

    /// The search for `text` in `order` (newest first when nil), from a page on: older than `before`, or past
    /// `offset` results.
    public func search(_ text: String, order: SearchOrder = .newest, before: MessageID? = nil, offset: Int = 0) -> String {
        var url = "\(basePath)/search?q=" + Self.queryValue(text)
        if order != .newest { url += "&order=\(order.rawValue)" }
        if let before { url += "&before=\(before)" }
        if offset > 0 { url += "&offset=\(offset)" }
        return url
    }

    /// A conversation opened at `message`, with the messages around it.
    public func message(_ message: MessageID, in chat: ChatID) -> String { "\(basePath)/rooms/\(chat)?around=\(message)#message-\(message)" }

    /// A conversation's messages after `message` (read forwards from a message found).
    public func newerMessages(_ chat: ChatID, after message: MessageID) -> String { "\(basePath)/rooms/\(chat)?after=\(message)" }
    public var avatarAction: String { "\(basePath)/settings/avatar" }

    /// `text` as a query takes it: letters, digits, "-" and "_" as they are (tokens are base64url), anything
    /// else percent-encoded.
    public static func queryValue(_ text: String) -> String {
        var query = ""
        for byte in text.utf8 {
            let plain = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
            if plain {
                query.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                query += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
            }
        }
        return query
    }
    public var removeAvatarAction: String { "\(basePath)/settings/avatar/remove" }
    /// Web Push: where a browser subscribes, unsubscribes, and asks for a test notification.
    public var pushSubscriptions: String { "\(basePath)/push/subscriptions" }
    public var pushUnsubscribe: String { "\(basePath)/push/subscriptions/remove" }
    public var pushTest: String { "\(basePath)/push/test" }
    public var notificationPreferences: String { "\(basePath)/settings/notifications" }
}
