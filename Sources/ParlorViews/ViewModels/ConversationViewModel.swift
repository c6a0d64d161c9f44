import ParlorTemplates

/// An open chat: who it is with, its history grouped by day, and the composer.
public struct ConversationViewModel: Renderable, Hashable {
    public static let templateName = "partials/conversation"

    /// The element id live updates target ("conversation-7").
    public let domID: String
    public let header: ConversationHeaderViewModel
    /// Oldest day first.
    public let days: [DaySectionViewModel]
    /// Where "Show older messages" goes; nil when the whole history is shown.
    public let olderMessagesURL: String?
    public let isEmpty: Bool
    /// Shown when there are no messages yet ("Say hello to Ana").
    public let emptyText: String
    /// The id of the list messages are appended to ("messages-7").
    public let messagesDomID: String
    public let composer: ComposerViewModel

    public init(
        domID: String, header: ConversationHeaderViewModel, days: [DaySectionViewModel], olderMessagesURL: String?,
        isEmpty: Bool, emptyText: String, messagesDomID: String, composer: ComposerViewModel
    ) {
        self.domID = domID
        self.header = header
        self.days = days
        self.olderMessagesURL = olderMessagesURL
        self.isEmpty = isEmpty
        self.emptyText = emptyText
        self.messagesDomID = messagesDomID
        self.composer = composer
    }

    public static let templateFields = TemplateFields<ConversationViewModel>(
        .text("domID", \.domID),
        .object("header", \.header),
        .list("days", \.days),
        .text("olderMessagesURL", \.olderMessagesURL),
        .flag("isEmpty", \.isEmpty),
        .text("emptyText", \.emptyText),
        .text("messagesDomID", \.messagesDomID),
        .object("composer", \.composer)
    )
}

/// The top of a conversation: the contact, and the way back to the list on narrow screens.
public struct ConversationHeaderViewModel: TemplateContext, Hashable {
    public let contactName: String
    public let contactHandle: String
    public let avatar: AvatarViewModel
    public let backURL: String

    public init(contactName: String, contactHandle: String, avatar: AvatarViewModel, backURL: String) {
        self.contactName = contactName
        self.contactHandle = contactHandle
        self.avatar = avatar
        self.backURL = backURL
    }

    public static let templateFields = TemplateFields<ConversationHeaderViewModel>(
        .text("contactName", \.contactName),
        .text("contactHandle", \.contactHandle),
        .object("avatar", \.avatar),
        .text("backURL", \.backURL)
    )
}

/// One day of a conversation, under its separator ("Today", "Yesterday", "Friday", "November 20").
public struct DaySectionViewModel: Renderable, Hashable {
    public static let templateName = "partials/day-section"

    public let domID: String
    public let label: String
    public let messages: [MessageCellViewModel]

    public init(domID: String, label: String, messages: [MessageCellViewModel]) {
        self.domID = domID
        self.label = label
        self.messages = messages
    }

    public static let templateFields = TemplateFields<DaySectionViewModel>(
        .text("domID", \.domID),
        .text("label", \.label),
        .list("messages", \.messages)
    )
}
