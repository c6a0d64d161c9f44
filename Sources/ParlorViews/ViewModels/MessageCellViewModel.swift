import ParlorTemplates

/// A message in a conversation, the "comment cell": author label with the Edited mark, avatar, time,
/// body, the quote it replies to, its delivery state when it is the viewer's own, and its actions.
public struct MessageCellViewModel: Renderable, Hashable {
    public static let templateName = "partials/message-cell"

    /// The element id live updates replace ("message-42", or "pending-<token>" before the store acknowledged it).
    public let domID: String
    /// "Ana", "Ana · Edited", "You".
    public let authorLabel: String
    public let avatar: AvatarViewModel
    /// "14:05" in the viewer's locale and time zone.
    public let time: String
    /// The full date for the tooltip ("Friday, November 20, 2026 at 2:05 PM").
    public let fullDate: String
    /// Machine-readable date for the `datetime` attribute.
    public let isoDate: String
    /// The text as blocks (paragraphs, quotes, lists, code) of styled runs, links and mentions.
    public let body: [MessageBlockViewModel]
    /// The text as typed, for editing in place or sending again, when the blocks show it otherwise (formatted);
    /// nil when the shown text is the typed one, or the viewer cannot edit it.
    public let editText: String?
    public let replyQuote: ReplyQuoteViewModel?
    public let isOwn: Bool
    /// Set for the viewer's own messages only.
    public let delivery: DeliveryViewModel?
    public let replyURL: String?
    /// Set for the viewer's own, stored messages.
    public let editURL: String?
    /// Set for the viewer's own, stored messages; asks before deleting.
    public let deleteURL: String?
    /// The sender deleted it: "Message deleted" in place of the text, no actions.
    public let isDeleted: Bool
    /// The same person's previous message is just above: the page shows name and avatar once for the group
    /// (and again below the "New messages" line).
    public let continuesGroup: Bool
    /// The viewer's unread messages start here: the "New messages" line comes first.
    public let startsUnread: Bool
    /// The language of the time when it is not the page's English ("ja-JP").
    public let timeLanguage: String?
    /// The photo sent with it, in its state.
    public let photo: MessagePhotoViewModel?
    /// Set when a feed posted it: the item's title as a link, and its date.
    public let feedItem: FeedItemHeadlineViewModel?
    /// A line about the room ("Ana Lima added Ben Okafor"), shown instead of a message; nil for a message.
    public let noticeText: String?
    public let isNotice: Bool
    /// The text names the viewer (or everyone): the cell is marked.
    public let mentionsYou: Bool
    /// The text changed after sending: "Edited" shows even where the name line is tucked away.
    public let isEdited: Bool
    /// The reactions under it; nil when it has none (a live update brings the first) or can have none (deleted, a
    /// line about the room, not stored yet).
    public let reactions: ReactionsViewModel?
    /// The page for choosing a reaction, for pages without the script; the script's picker posts to the address
    /// beside it (`…/reactions` for `…/react`).
    public let reactURL: String?
    /// Reply, React, Edit or Delete applies: the cell has its toolbar.
    public let hasActions: Bool
    /// The card of the page its text links to, once read.
    public let preview: LinkPreviewViewModel?

    public init(
        domID: String, authorLabel: String, avatar: AvatarViewModel, time: String, fullDate: String, isoDate: String,
        body: [MessageBlockViewModel], editText: String? = nil, replyQuote: ReplyQuoteViewModel?, isOwn: Bool, delivery: DeliveryViewModel?,
        replyURL: String?, editURL: String?, deleteURL: String? = nil, isDeleted: Bool = false, continuesGroup: Bool = false, startsUnread: Bool = false,
        timeLanguage: String? = nil, photo: MessagePhotoViewModel? = nil, feedItem: FeedItemHeadlineViewModel? = nil, noticeText: String? = nil, mentionsYou: Bool = false,
        isEdited: Bool = false, reactions: ReactionsViewModel? = nil, reactURL: String? = nil, preview: LinkPreviewViewModel? = nil
    ) {
        self.preview = preview
        self.domID = domID
        self.authorLabel = authorLabel
        self.avatar = avatar
        self.time = time
        self.fullDate = fullDate
        self.isoDate = isoDate
        self.body = body
        self.editText = editText
        self.replyQuote = replyQuote
        self.isOwn = isOwn
        self.delivery = delivery
        self.replyURL = replyURL
        self.editURL = editURL
        self.deleteURL = deleteURL
        self.isDeleted = isDeleted
        self.continuesGroup = continuesGroup
        self.startsUnread = startsUnread
        self.timeLanguage = timeLanguage
        self.photo = photo
        self.feedItem = feedItem
        self.noticeText = noticeText
        self.isNotice = noticeText != nil
        self.mentionsYou = mentionsYou
        self.isEdited = isEdited
        self.reactions = reactions
        self.reactURL = reactURL
        self.hasActions = replyURL != nil || editURL != nil || deleteURL != nil || reactURL != nil
    }

    public static let templateFields = TemplateFields<MessageCellViewModel>(
        .text("domID", \.domID),
        .text("authorLabel", \.authorLabel),
        .object("avatar", \.avatar),
        .text("time", \.time),
        .text("fullDate", \.fullDate),
        .text("isoDate", \.isoDate),
        .list("body", \.body),
        .text("editText", \.editText),
        .object("replyQuote", \.replyQuote),
        .flag("isOwn", \.isOwn),
        .object("delivery", \.delivery),
        .text("replyURL", \.replyURL),
        .text("editURL", \.editURL),
        .text("deleteURL", \.deleteURL),
        .flag("isDeleted", \.isDeleted),
        .flag("continuesGroup", \.continuesGroup),
        .flag("startsUnread", \.startsUnread),
        .text("timeLanguage", \.timeLanguage),
        .object("photo", \.photo),
        .object("feedItem", \.feedItem),
        .text("noticeText", \.noticeText),
        .flag("isNotice", \.isNotice),
        .object("preview", \.preview),
        .flag("mentionsYou", \.mentionsYou),
        .flag("isEdited", \.isEdited),
        .object("reactions", \.reactions),
        .text("reactURL", \.reactURL),
        .flag("hasActions", \.hasActions)
    )
}

/// The head of a message a feed posted: the item's title, a link when the item has one, its date.
public struct FeedItemHeadlineViewModel: TemplateContext, Hashable {
    public let title: String
    public let url: String?
    /// "Nov 24, 2026" in the viewer's locale; nil when the feed gave none.
    public let date: String?

    public init(title: String, url: String?, date: String?) {
        self.title = title
        self.url = url
        self.date = date
    }

    public static let templateFields = TemplateFields<FeedItemHeadlineViewModel>(
        .text("title", \.title),
        .text("url", \.url),
        .text("date", \.date)
    )
}

/// A run of a message body: plain text, or a link whose URL is known to be http or https, in its style.
public struct BodySegmentViewModel: TemplateContext, Hashable {
    public let text: String
    public let isBold: Bool
    public let isItalic: Bool
    public let isStrike: Bool
    /// `code`: monospace, as typed.
    public let isCode: Bool
    /// Set when the run is a link.
    public let linkURL: String?
    /// Set when the run is a mention ("@ana", "@everyone"), highlighted; `mentionURL` leads to the person.
    public let isMention: Bool
    public let mentionURL: String?
    /// The mention names the viewer (or everyone).
    public let isYou: Bool

    public init(
        text: String, linkURL: String?, isMention: Bool = false, mentionURL: String? = nil, isYou: Bool = false,
        isBold: Bool = false, isItalic: Bool = false, isStrike: Bool = false, isCode: Bool = false
    ) {
        self.text = text
        self.isBold = isBold
        self.isItalic = isItalic
        self.isStrike = isStrike
        self.isCode = isCode
        self.linkURL = linkURL
        self.isMention = isMention
        self.mentionURL = mentionURL
        self.isYou = isYou
    }

    public static let templateFields = TemplateFields<BodySegmentViewModel>(
        .text("text", \.text),
        .flag("isBold", \.isBold),
        .flag("isItalic", \.isItalic),
        .flag("isStrike", \.isStrike),
        .flag("isCode", \.isCode),
        .text("linkURL", \.linkURL),
        .flag("isMention", \.isMention),
        .text("mentionURL", \.mentionURL),
        .flag("isYou", \.isYou)
    )
}

/// The message a reply quotes: who wrote it and the start of its text.
public struct ReplyQuoteViewModel: TemplateContext, Hashable {
    public let author: String
    public let excerpt: String
    /// Link to the quoted message in the conversation ("#message-40").
    public let url: String

    public init(author: String, excerpt: String, url: String) {
        self.author = author
        self.excerpt = excerpt
        self.url = url
    }

    public static let templateFields = TemplateFields<ReplyQuoteViewModel>(
        .text("author", \.author),
        .text("excerpt", \.excerpt),
        .text("url", \.url)
    )
}

/// Where the viewer's own message is: Sending, Sent, Failed (with retry) or Read.
public struct DeliveryViewModel: TemplateContext, Hashable {
    /// "Sending", "Sent", "Failed", "Read".
    public let label: String
    /// A CSS modifier ("delivery-read").
    public let stateClass: String
    public let isFailed: Bool
    /// Why it failed, for a person.
    public let failureReason: String?
    /// Opens the composer with the failed text and its idempotency token, so sending again never
    /// duplicates it; set when it failed. (Cells hold links, not forms, so a cell never carries a CSRF token.)
    public let retryURL: String?
    /// In a room: the page of everyone who has seen the message.
    public let detailsURL: String?

    public init(label: String, stateClass: String, isFailed: Bool, failureReason: String?, retryURL: String?, detailsURL: String? = nil) {
        self.label = label
        self.stateClass = stateClass
        self.isFailed = isFailed
        self.failureReason = failureReason
        self.retryURL = retryURL
        self.detailsURL = detailsURL
    }

    public static let templateFields = TemplateFields<DeliveryViewModel>(
        .text("label", \.label),
        .text("stateClass", \.stateClass),
        .flag("isFailed", \.isFailed),
        .text("failureReason", \.failureReason),
        .text("retryURL", \.retryURL),
        .text("detailsURL", \.detailsURL)
    )
}

/// The card under a message whose text links to a page: the site, the page's title and description, linking to it;
/// for the sender, the button that removes it.
public struct LinkPreviewViewModel: TemplateContext, Hashable {
    public let url: String
    public let title: String
    public let description: String?
    public let siteName: String?
    /// The page's picture, small; nil when it has none Parlor could read.
    public let imageURL: String?
    public let imageWidth: Int
    public let imageHeight: Int
    /// Where the sender removes it (the conversation's form carries their token); nil for everyone else.
    public let removeURL: String?
    /// "Remove the preview of “Rooms are here”".
    public let removeLabel: String

    public init(
        url: String, title: String, description: String?, siteName: String?, imageURL: String? = nil, imageWidth: Int = 0, imageHeight: Int = 0,
        removeURL: String?, removeLabel: String
    ) {
        self.url = url
        self.title = title
        self.description = description
        self.siteName = siteName
        self.imageURL = imageURL
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.removeURL = removeURL
        self.removeLabel = removeLabel
    }

    public static let templateFields = TemplateFields<LinkPreviewViewModel>(
        .text("url", \.url),
        .text("title", \.title),
        .text("description", \.description),
        .text("siteName", \.siteName),
        .text("imageURL", \.imageURL),
        .number("imageWidth", \.imageWidth),
        .number("imageHeight", \.imageHeight),
        .text("removeURL", \.removeURL),
        .text("removeLabel", \.removeLabel)
    )
}
