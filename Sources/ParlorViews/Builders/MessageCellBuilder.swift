import Foundation
import ParlorDomain

/// Builds message cells for one viewer: labels, dates, links, delivery state and actions.
public struct MessageCellBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// How much of a quoted message a reply shows, in characters.
    public static let quoteLimit = 60

    /// How close together one person's messages must be to share a name and avatar.
    public static let groupingWindow: TimeInterval = 5 * 60

    /// Whether a message by `sender` at `date` continues the group of `previous`, the message shown just
    /// before it: same person, same day, within ``groupingWindow``.
    public func continues(sender: UserID, at date: Date, after previous: Message?) -> Bool {
        guard let previous, previous.senderID == sender, previous.notice == nil else { return false }
        let gap = date.timeIntervalSince(previous.createdAt)
        return gap >= 0 && gap < Self.groupingWindow && context.dates.dayKey(previous.createdAt) == context.dates.dayKey(date)
    }

    /// A stored message. `contactLastRead` decides between Sent and Read for the viewer's own messages;
    /// `previous`, the message shown just before, whether it continues a group; `startsUnread` puts the
    /// "New messages" line above it.
    public func cell(
        _ message: Message,
        sender: User,
        quoted: (message: Message, author: User)? = nil,
        contactLastRead: MessageID? = nil,
        after previous: Message? = nil,
        startsUnread: Bool = false,
        senderAvatar: AvatarViewModel? = nil,
        people: [UserID: User] = [:],
        readers: [Reader]? = nil,
        reactions: [ReactionCount] = []
    ) -> MessageCellViewModel {
        if let notice = message.notice { return noticeCell(message, notice, by: sender, people: people, startsUnread: startsUnread) }
        let feedAuthor = message.feed.map { Self.author(of: $0, id: message.senderID) }
        let sender = feedAuthor ?? sender
        let isOwn = message.senderID == context.viewer.id
        let isDeleted = message.isDeleted
        let blocks = isDeleted ? nil : MessageFormat.blocks(message.body)
        let delivery: DeliveryViewModel? = !isOwn ? nil
            : readers.map { seen(message, by: $0) }
            ?? (contactLastRead.map { $0 >= message.id } ?? false ? Self.read : Self.sent)
        return MessageCellViewModel(
            domID: "message-\(message.id)",
            authorLabel: authorLabel(sender, edited: message.editedAt != nil && !isDeleted),
            // `senderAvatar`: the sender's, made once for all their cells; a feed's post shows the feed's.
            avatar: feedAuthor == nil ? senderAvatar ?? AvatarBuilder.avatar(for: sender, paths: context.paths)
                : AvatarBuilder.avatar(for: sender, paths: context.paths),
            time: context.dates.timeOfDay(message.createdAt),
            fullDate: context.dates.fullDate(message.createdAt),
            isoDate: DateLabels.iso(message.createdAt),
            body: blocks.map(body) ?? [],
            editText: isOwn && !isDeleted && !MessageFormat.showsTextAsTyped(blocks ?? []) ? message.body : nil,
            replyQuote: isDeleted ? nil : quoted.map { quote($0.message, author: $0.author) },
            isOwn: isOwn,
            delivery: delivery,
            replyURL: isDeleted ? nil : context.paths.reply(message.chatID, to: message.id),
            editURL: isOwn && !isDeleted ? context.paths.edit(message.chatID, message: message.id) : nil,
            deleteURL: isOwn && !isDeleted ? context.paths.delete(message.chatID, message: message.id) : nil,
            isDeleted: isDeleted,
            continuesGroup: continues(sender: message.senderID, at: message.createdAt, after: previous),
            startsUnread: startsUnread,
            timeLanguage: context.dates.language,
            photo: isDeleted ? nil : message.photo.map { photo($0, sender: sender) },
            feedItem: isDeleted ? nil : message.feed.flatMap(feedItem),
            mentionsYou: !isOwn && !isDeleted && message.named.names(context.viewer.handle),
            isEdited: message.editedAt != nil && !isDeleted,
            // A message without reactions has no list: the first one given is put in place by the page's script.
            reactions: isDeleted || reactions.isEmpty ? nil
                : ReactionsBuilder(viewer: context.viewer.id, paths: context.paths).reactions(to: message.id, in: message.chatID, reactions),
            reactURL: isDeleted ? nil : context.paths.react(message.chatID, message: message.id),
            preview: isDeleted ? nil : message.preview.flatMap { preview in
                preview.isRemoved ? nil : LinkPreviewViewModel(
                    url: preview.url, title: preview.title, description: preview.description, siteName: preview.siteName,
                    imageURL: preview.image.map { context.paths.imageThumbnail($0.id) }, imageWidth: preview.image?.width ?? 0,
                    imageHeight: preview.image?.height ?? 0,
                    removeURL: isOwn ? context.paths.removePreview(message.chatID, message: message.id) : nil,
                    removeLabel: "Remove the preview of “\(preview.title)”"
                )
            }
        )
    }

    /// A line about the room, in the viewer's words: "You added Ben Okafor", "Ana Lima added you".
    func noticeCell(_ message: Message, _ notice: RoomNotice, by actor: User, people: [UserID: User], startsUnread: Bool) -> MessageCellViewModel {
        MessageCellViewModel(
            domID: "message-\(message.id)",
            authorLabel: "",
            avatar: AvatarBuilder.avatar(for: actor, paths: context.paths),
            time: context.dates.timeOfDay(message.createdAt),
            fullDate: context.dates.fullDate(message.createdAt),
            isoDate: DateLabels.iso(message.createdAt),
            body: [],
            replyQuote: nil,
            isOwn: false,
            delivery: nil,
            replyURL: nil,
            editURL: nil,
            startsUnread: startsUnread,
            timeLanguage: context.dates.language,
            noticeText: Self.noticeText(notice, by: actor, subject: notice.subject.flatMap { people[$0] }, viewer: context.viewer.id)
        )
    }

    /// What a line about the room says to `viewer`.
    public static func noticeText(_ notice: RoomNotice, by actor: User, subject: User?, viewer: UserID) -> String {
        let who = actor.id == viewer ? "You" : actor.displayName
        let whom = notice.subject == viewer ? "you" : subject?.displayName ?? "someone"
        switch notice.kind {
        case .added: return "\(who) added \(whom)"
        case .removed: return "\(who) removed \(whom)"
        case .left: return "\(who) left"
        case .renamed: return "\(who) renamed the room to \u{201C}\(notice.text ?? "")\u{201D}"
        case .topicChanged:
            guard let topic = notice.text else { return "\(who) cleared the topic" }
            return "\(who) changed the topic to \u{201C}\(topic)\u{201D}"
        }
    }

    /// "Sent", or in a room "Seen by Ana, Ben and 3 others" with a link to everyone who has.
    func seen(_ message: Message, by readers: [Reader]) -> DeliveryViewModel {
        let names = Self.seers(of: message.id, among: readers, viewer: context.viewer.id).map(\.displayName)
        guard !names.isEmpty else { return Self.sent }
        return DeliveryViewModel(
            label: Self.seenLabel(names), stateClass: "delivery-read", isFailed: false, failureReason: nil, retryURL: nil,
            detailsURL: context.paths.seenBy(message.chatID, message: message.id)
        )
    }

    /// Who of `readers` has read as far as `message`, but the viewer, by name.
    public static func seers(of message: MessageID, among readers: [Reader], viewer: UserID) -> [User] {
        readers.filter { $0.user.id != viewer && $0.hasSeen(message) }.map(\.user)
            .sorted { ($0.displayName.lowercased(), $0.handle) < ($1.displayName.lowercased(), $1.handle) }
    }

    /// "Seen by Ana", "Seen by Ana and Ben", "Seen by Ana, Ben and Chloé", "Seen by Ana, Ben and 3 others".
    static func seenLabel(_ names: [String]) -> String {
        switch names.count {
        case 1: return "Seen by \(names[0])"
        case 2: return "Seen by \(names[0]) and \(names[1])"
        case 3: return "Seen by \(names[0]), \(names[1]) and \(names[2])"
        default: return "Seen by \(names[0]), \(names[1]) and \(names.count - 2) others"
        }
    }

    /// A feed as the author of what it posts: its title as the name, its initials as the avatar.
    public static func author(of post: FeedPost, id: UserID) -> User {
        User(id: id, handle: "feed", displayName: post.source, avatar: post.icon, isBot: true)
    }

    /// The item's title (its link when it has none) with its date.
    func feedItem(_ post: FeedPost) -> FeedItemHeadlineViewModel? {
        guard let title = post.title ?? post.link else { return nil }
        return FeedItemHeadlineViewModel(title: title, url: post.link, date: post.date.map { context.dates.listDate($0, now: context.now) })
    }

    static let processingText = "Processing photo…"
    static let photoFailedText = "This photo could not be processed. Send it again, or another copy."

    /// The photo in its state: a placeholder of the thumbnail's size, the thumbnail, or why it failed.
    func photo(_ photo: MessagePhoto, sender: User) -> MessagePhotoViewModel {
        let paths = context.paths
        return MessagePhotoViewModel(
            width: photo.width, height: photo.height,
            altText: sender.id == context.viewer.id ? "Your photo" : "Photo from \(sender.displayName)",
            viewURL: paths.image(photo.id),
            thumbnailURL: photo.state == .ready ? paths.imageThumbnail(photo.id) : nil,
            placeholderURL: photo.state == .ready ? nil : paths.photoPlaceholder,
            status: photo.state == .pending ? Self.processingText : photo.state == .failed ? Self.photoFailedText : nil,
            isFailed: photo.state == .failed
        )
    }

    /// What a preview says of a message: its text, or "Photo" for a photo without words; a feed's post,
    /// its item's title.
    public static func previewText(_ message: Message) -> String {
        if let notice = message.notice {
            switch notice.kind {
            case .added: return "added someone"
            case .removed: return "removed someone"
            case .left: return "left"
            case .renamed: return "renamed the room"
            case .topicChanged: return "changed the topic"
            }
        }
        if let post = message.feed, let title = post.title ?? (message.body.isEmpty ? post.link : nil) { return title }
        return message.body.isEmpty && message.photo != nil ? "Photo" : MessageFormat.plainText(message.body)
    }

    /// The viewer's message that the store has not acknowledged (Sending) or that failed (Failed, with retry).
    public func cell(_ pending: PendingMessage, quoted: (message: Message, author: User)? = nil, after previous: Message? = nil) -> MessageCellViewModel {
        let delivery: DeliveryViewModel
        if let failure = pending.failure {
            delivery = DeliveryViewModel(
                label: "Failed", stateClass: "delivery-failed", isFailed: true, failureReason: failure,
                retryURL: context.paths.retry(pending.chatID, token: pending.token)
            )
        } else {
            delivery = Self.sending
        }
        let blocks = MessageFormat.blocks(pending.body)
        return MessageCellViewModel(
            domID: "pending-\(pending.token)",
            authorLabel: authorLabel(context.viewer, edited: false),
            avatar: AvatarBuilder.avatar(for: context.viewer, paths: context.paths),
            time: context.dates.timeOfDay(pending.createdAt),
            fullDate: context.dates.fullDate(pending.createdAt),
            isoDate: DateLabels.iso(pending.createdAt),
            body: body(blocks),
            editText: MessageFormat.showsTextAsTyped(blocks) ? nil : pending.body,
            replyQuote: quoted.map { quote($0.message, author: $0.author) },
            isOwn: true,
            delivery: delivery,
            replyURL: nil,
            editURL: nil,
            continuesGroup: continues(sender: context.viewer.id, at: pending.createdAt, after: previous),
            startsUnread: false,
            timeLanguage: context.dates.language
        )
    }

    /// The quote of `message` shown above a reply (and in the composer while replying). It links to the original in
    /// its conversation, opened around it, so it leads somewhere even when the original is older than the page holds
    /// (with the script, one already on the page is scrolled to instead).
    public func quote(_ message: Message, author: User) -> ReplyQuoteViewModel {
        let author = message.feed.map { Self.author(of: $0, id: message.senderID) } ?? author
        return ReplyQuoteViewModel(
            author: message.senderID == context.viewer.id ? "You" : author.displayName,
            excerpt: message.isDeleted ? Self.deletedText : TextPreview.excerpt(Self.previewText(message), limit: Self.quoteLimit),
            url: context.paths.message(message.id, in: message.chatID)
        )
    }

    /// "Ana", "You", with " · Edited" in the same label once the text changed.
    public func authorLabel(_ sender: User, edited: Bool) -> String {
        let name = sender.id == context.viewer.id ? "You" : sender.displayName
        return edited ? name + " · Edited" : name
    }

    /// The text of `message` as HTML on its own (a bot's webhook and API), as the cell shows it; empty once deleted.
    public func html(_ message: Message) -> MessageHTMLViewModel {
        MessageHTMLViewModel(body: message.isDeleted ? [] : body(MessageFormat.blocks(message.body)))
    }

    /// The text's blocks as the cell shows them: styled runs, links, mentions (a person's leads to a chat with
    /// them), and the rest.
    func body(_ blocks: [MessageFormat.Block]) -> [MessageBlockViewModel] {
        blocks.map { block in
            switch block {
            case .paragraph(let runs): .paragraph(parts(runs))
            case .quote(let runs): .quote(parts(runs))
            case .code(let code): .code(code)
            case .list(let ordered, let items):
                .list(ordered: ordered, items: items.map { MessageListItemViewModel(number: $0.number.map(String.init), parts: parts($0.runs)) })
            }
        }
    }

    private func parts(_ runs: [MessageFormat.Run]) -> [BodySegmentViewModel] {
        runs.map { run in
            let style = run.style
            switch run.kind {
            case .text:
                return BodySegmentViewModel(
                    text: run.text, linkURL: nil, isBold: style.contains(.bold), isItalic: style.contains(.italic),
                    isStrike: style.contains(.strike), isCode: style.contains(.code)
                )
            case .link(let url):
                return BodySegmentViewModel(
                    text: run.text, linkURL: url, isBold: style.contains(.bold), isItalic: style.contains(.italic), isStrike: style.contains(.strike)
                )
            case .mention(.person(let handle)):
                return BodySegmentViewModel(
                    text: run.text, linkURL: nil, isMention: true, mentionURL: context.paths.newChat + "?q=" + Paths.queryValue(handle),
                    isYou: handle == context.viewer.handle.lowercased(),
                    isBold: style.contains(.bold), isItalic: style.contains(.italic), isStrike: style.contains(.strike)
                )
            case .mention(.everyone), .mention(.here):
                return BodySegmentViewModel(
                    text: run.text, linkURL: nil, isMention: true, isYou: true,
                    isBold: style.contains(.bold), isItalic: style.contains(.italic), isStrike: style.contains(.strike)
                )
            }
        }
    }

    /// What a deleted message shows, in its cell, in quotes and in the chat list.
    public static let deletedText = "Message deleted"

    static let sending = DeliveryViewModel(label: "Sending", stateClass: "delivery-sending", isFailed: false, failureReason: nil, retryURL: nil)
    static let sent = DeliveryViewModel(label: "Sent", stateClass: "delivery-sent", isFailed: false, failureReason: nil, retryURL: nil)
    static let read = DeliveryViewModel(label: "Read", stateClass: "delivery-read", isFailed: false, failureReason: nil, retryURL: nil)
}
