import ParlorDomain
import ParlorTemplates

/// An open chat: who it is with, its history grouped by day, and the composer.
public struct ConversationViewModel: Renderable, Hashable {
    public static let templateName = "partials/conversation"

    /// The element id live updates target ("conversation-7").
    public let domID: String
    public let header: ConversationHeaderViewModel
    /// Where "Show older messages" goes; nil when the whole history is shown.
    public let olderMessagesURL: String?
    /// On a page of older history, the way back to the newest messages (where live ones arrive); nil on the live page.
    public let newestMessagesURL: String?
    /// On a page opened at a message found, where "Show newer messages" goes; nil when the newest are shown.
    public let newerMessagesURL: String?
    /// The history, replaced as a whole when a page (re)connects.
    public let messages: ConversationMessagesViewModel
    /// "Delete this message?", asked above the composer on pages without the script.
    public let deletion: DeletionConfirmationViewModel?
    /// Who is typing (live; empty as the page is drawn); nil in a room too big to show it.
    public let typing: TypingViewModel?
    public let composer: ComposerViewModel
    /// The reactions the script's picker offers first, space-separated ("👍 ❤️ 😂").
    public let quickReactions: String
    /// "Jump to first unread": the "New messages" line, when the page shows one.
    public let firstUnreadURL: String?

    public init(
        domID: String, header: ConversationHeaderViewModel, olderMessagesURL: String?, newestMessagesURL: String? = nil,
        newerMessagesURL: String? = nil, messages: ConversationMessagesViewModel, deletion: DeletionConfirmationViewModel? = nil,
        typing: TypingViewModel? = nil, composer: ComposerViewModel
    ) {
        self.typing = typing
        self.newerMessagesURL = newerMessagesURL
        self.domID = domID
        self.header = header
        self.olderMessagesURL = olderMessagesURL
        self.newestMessagesURL = newestMessagesURL
        self.messages = messages
        self.deletion = deletion
        self.composer = composer
        self.quickReactions = ReactionText.quickPicks.joined(separator: " ")
        self.firstUnreadURL = messages.days.contains { $0.messages.contains(where: \.startsUnread) } ? "#unread-marker" : nil
    }

    /// Oldest day first.
    public var days: [DaySectionViewModel] { messages.days }

    public static let templateFields = TemplateFields<ConversationViewModel>(
        .text("domID", \.domID),
        .object("header", \.header),
        .text("olderMessagesURL", \.olderMessagesURL),
        .text("newestMessagesURL", \.newestMessagesURL),
        .text("newerMessagesURL", \.newerMessagesURL),
        .object("messages", \.messages),
        .object("deletion", \.deletion),
        .object("typing", \.typing),
        .object("composer", \.composer),
        .text("quickReactions", \.quickReactions),
        .text("firstUnreadURL", \.firstUnreadURL)
    )
}

/// The question asked before the viewer's message is deleted, as a form of its own.
public struct DeletionConfirmationViewModel: TemplateContext, Hashable {
    public let actionURL: String
    public let csrfToken: String
    /// The start of the message, so the person knows which one.
    public let excerpt: String
    public let cancelURL: String

    public init(actionURL: String, csrfToken: String, excerpt: String, cancelURL: String) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.excerpt = excerpt
        self.cancelURL = cancelURL
    }

    public static let templateFields = TemplateFields<DeletionConfirmationViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("excerpt", \.excerpt),
        .text("cancelURL", \.cancelURL)
    )
}

/// The messages of an open conversation, grouped by day: the region live updates append to.
public struct ConversationMessagesViewModel: Renderable, Hashable {
    public static let templateName = "partials/conversation-messages"

    /// The id of the region ("messages-7"); new days are appended to it.
    public let domID: String
    /// Oldest day first.
    public let days: [DaySectionViewModel]
    public let isEmpty: Bool
    /// Shown when there are no messages yet ("Say hello to Ana").
    public let emptyText: String

    public init(domID: String, days: [DaySectionViewModel], isEmpty: Bool, emptyText: String) {
        self.domID = domID
        self.days = days
        self.isEmpty = isEmpty
        self.emptyText = emptyText
    }

    public static let templateFields = TemplateFields<ConversationMessagesViewModel>(
        .text("domID", \.domID),
        .list("days", \.days),
        .flag("isEmpty", \.isEmpty),
        .text("emptyText", \.emptyText)
    )
}

/// The top of a conversation: the room (its name, members and topic) or the contact, and the way back to the
/// list on narrow screens. Replaced live when the contact changes name.
public struct ConversationHeaderViewModel: Renderable, Hashable {
    public static let templateName = "partials/conversation-header"

    /// The element id live updates replace ("conversation-header-7"); its title is "<domID>-title".
    public let domID: String
    /// A room's name, or the other person of a direct chat.
    public let title: String
    /// "@ana", or "12 members".
    public let subtitle: String
    /// A room's topic line.
    public let topic: String?
    public let avatar: AvatarViewModel
    public let backURL: String
    /// The chat's feeds screen.
    public let feedsURL: String?
    /// A room's members page (the subtitle links there) and its settings.
    public let membersURL: String?
    public let settingsURL: String?

    public init(
        domID: String, title: String, subtitle: String, topic: String? = nil, avatar: AvatarViewModel, backURL: String, feedsURL: String? = nil,
        membersURL: String? = nil, settingsURL: String? = nil
    ) {
        self.domID = domID
        self.title = title
        self.subtitle = subtitle
        self.topic = topic
        self.avatar = avatar
        self.backURL = backURL
        self.feedsURL = feedsURL
        self.membersURL = membersURL
        self.settingsURL = settingsURL
    }

    public static let templateFields = TemplateFields<ConversationHeaderViewModel>(
        .text("domID", \.domID),
        .text("title", \.title),
        .text("subtitle", \.subtitle),
        .text("topic", \.topic),
        .object("avatar", \.avatar),
        .text("backURL", \.backURL),
        .text("feedsURL", \.feedsURL),
        .text("membersURL", \.membersURL),
        .text("settingsURL", \.settingsURL)
    )
}

/// One day of a conversation, under its separator ("Today", "Yesterday", "Friday", "November 20").
public struct DaySectionViewModel: Renderable, Hashable {
    public static let templateName = "partials/day-section"

    public let domID: String
    /// The id of the day's list, which new messages of that day are appended to ("day-7-2026-11-20-messages").
    public let listDomID: String
    public let label: String
    public let messages: [MessageCellViewModel]
    /// The language of the label when it is not the page's English ("ja-JP").
    public let labelLanguage: String?

    public init(domID: String, label: String, messages: [MessageCellViewModel], labelLanguage: String? = nil) {
        self.domID = domID
        self.listDomID = domID + "-messages"
        self.label = label
        self.messages = messages
        self.labelLanguage = labelLanguage
    }

    public static let templateFields = TemplateFields<DaySectionViewModel>(
        .text("domID", \.domID),
        .text("listDomID", \.listDomID),
        .text("label", \.label),
        .list("messages", \.messages),
        .text("labelLanguage", \.labelLanguage)
    )
}
