import ParlorTemplates

/// The list of a person's chats, in one of four states: loading, loaded, empty, or failed with a message.
public struct ChatListViewModel: Renderable, Hashable {
    public static let templateName = "partials/chat-list"

    public let isLoading: Bool
    public let isEmpty: Bool
    /// Why the list could not be loaded, for a person; nil unless it failed.
    public let errorMessage: String?
    /// The rooms, newest activity first: the list's first section.
    public let rooms: [ChatListItemViewModel]
    /// The direct chats, newest activity first: the second section.
    public let directChats: [ChatListItemViewModel]
    /// Whether the list is loaded, with its two sections (each shown when it has a chat).
    public let showsSections: Bool
    public let newChatURL: String
    public let newRoomURL: String
    /// Where "try again" goes when loading failed.
    public let retryURL: String

    /// Every chat of the list, rooms first.
    public var items: [ChatListItemViewModel] { rooms + directChats }

    /// The ids of the two sections' lists, where a chat moved to the top of its section goes.
    public static let roomsDomID = "chat-list-rooms"
    public static let directChatsDomID = "chat-list-direct"

    public init(
        isLoading: Bool, isEmpty: Bool, errorMessage: String?, rooms: [ChatListItemViewModel], directChats: [ChatListItemViewModel],
        newChatURL: String, newRoomURL: String, retryURL: String
    ) {
        self.isLoading = isLoading
        self.isEmpty = isEmpty
        self.errorMessage = errorMessage
        self.rooms = rooms
        self.directChats = directChats
        self.showsSections = !isLoading && errorMessage == nil && !isEmpty
        self.newChatURL = newChatURL
        self.newRoomURL = newRoomURL
        self.retryURL = retryURL
    }

    public static let templateFields = TemplateFields<ChatListViewModel>(
        .flag("isLoading", \.isLoading),
        .flag("isEmpty", \.isEmpty),
        .text("errorMessage", \.errorMessage),
        .list("rooms", \.rooms),
        .list("directChats", \.directChats),
        .flag("showsSections", \.showsSections),
        .text("newChatURL", \.newChatURL),
        .text("newRoomURL", \.newRoomURL),
        .text("retryURL", \.retryURL)
    )
}

/// One chat in the list: which room or whom, their last message, when, and how much is unread.
public struct ChatListItemViewModel: Renderable, Hashable {
    public static let templateName = "partials/chat-list-item"

    /// The element id live updates replace ("chat-item-7").
    public let domID: String
    public let url: String
    /// A room's name, or the other person of a direct chat.
    public let title: String
    /// "@ana", or "12 members".
    public let subtitle: String
    public let avatar: AvatarViewModel
    /// The last message, on one line, cut on a character boundary ("You: See you at…").
    public let lastMessagePreview: String
    /// "14:05", "Yesterday", "Friday", "Nov 20" or "2025/11/20", in the viewer's locale and time zone.
    public let lastDate: String
    /// The full date for the tooltip.
    public let lastDateTooltip: String
    /// Machine-readable date for the `datetime` attribute.
    public let lastDateISO: String
    /// "3" or "99+"; nil when nothing is unread.
    public let unreadBadge: String?
    /// For screen readers: "3 unread messages".
    public let unreadLabel: String?
    public let isCurrent: Bool
    /// The language of the date when it is not the page's English ("ja-JP").
    public let dateLanguage: String?
    /// A dot for unread messages that are not counted (a room followed for mentions).
    public let hasDot: Bool
    /// Followed for nothing: shown quieter.
    public let isMuted: Bool

    /// The other person's id in a direct chat of two: the page script keeps their presence dot live.
    public let presenceOf: String?

    public init(
        domID: String, url: String, title: String, subtitle: String, avatar: AvatarViewModel,
        lastMessagePreview: String, lastDate: String, lastDateTooltip: String, lastDateISO: String,
        unreadBadge: String?, unreadLabel: String?, isCurrent: Bool, dateLanguage: String? = nil, hasDot: Bool = false, isMuted: Bool = false,
        presenceOf: String? = nil
    ) {
        self.presenceOf = presenceOf
        self.domID = domID
        self.url = url
        self.title = title
        self.subtitle = subtitle
        self.avatar = avatar
        self.lastMessagePreview = lastMessagePreview
        self.lastDate = lastDate
        self.lastDateTooltip = lastDateTooltip
        self.lastDateISO = lastDateISO
        self.unreadBadge = unreadBadge
        self.unreadLabel = unreadLabel
        self.isCurrent = isCurrent
        self.dateLanguage = dateLanguage
        self.hasDot = hasDot
        self.isMuted = isMuted
    }

    public static let templateFields = TemplateFields<ChatListItemViewModel>(
        .text("domID", \.domID),
        .text("url", \.url),
        .text("title", \.title),
        .text("subtitle", \.subtitle),
        .object("avatar", \.avatar),
        .text("lastMessagePreview", \.lastMessagePreview),
        .text("lastDate", \.lastDate),
        .text("lastDateTooltip", \.lastDateTooltip),
        .text("lastDateISO", \.lastDateISO),
        .text("unreadBadge", \.unreadBadge),
        .text("unreadLabel", \.unreadLabel),
        .flag("isCurrent", \.isCurrent),
        .text("dateLanguage", \.dateLanguage),
        .flag("hasDot", \.hasDot),
        .flag("isMuted", \.isMuted),
        .text("presenceOf", \.presenceOf)
    )
}
