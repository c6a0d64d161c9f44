import Foundation
import ParlorDomain

/// What the composer shows besides the conversation: a draft put back after an error, a reply or an edit.
public struct ComposerDraft: Hashable, Sendable {
    public let text: String
    public let errorMessage: String?
    public let isSending: Bool
    /// The idempotency token the next POST carries; the caller draws it (builders never draw random numbers).
    public let token: String
    /// The message being answered.
    public let replyTo: Message?
    /// The viewer's message being edited.
    public let editing: Message?
    /// The viewer's message they asked to delete: the page asks first.
    public let deleting: Message?

    public init(text: String = "", errorMessage: String? = nil, isSending: Bool = false, token: String, replyTo: Message? = nil, editing: Message? = nil,
                deleting: Message? = nil) {
        self.text = text
        self.errorMessage = errorMessage
        self.isSending = isSending
        self.token = token
        self.replyTo = replyTo
        self.editing = editing
        self.deleting = deleting
    }
}

/// Builds an open conversation for one viewer: header, days with their separators, cells, composer.
public struct ConversationBuilder: Sendable {
    public let context: ViewerContext
    private let cells: MessageCellBuilder

    public init(context: ViewerContext) {
        self.context = context
        self.cells = MessageCellBuilder(context: context)
    }

    /// The conversation as a page shows it; `history` for a page of older messages (`?before=`), which is not
    /// live; `unreadAfter`, the viewer's read mark before this page opened, puts the "New messages" line above
    /// the first of the contact's messages past it. `hasNewer`: a page read forwards from a message found, with
    /// newer messages than its last.
    public func conversation(
        _ snapshot: ConversationSnapshot, draft: ComposerDraft, history: Bool = false, unreadAfter: MessageID? = nil, hasNewer: Bool = false
    ) -> ConversationViewModel {
        ConversationViewModel(
            domID: "conversation-\(snapshot.chatID)",
            header: header(snapshot.chatID, snapshot.heading),
            olderMessagesURL: snapshot.hasOlder ? snapshot.messages.first.map { context.paths.olderMessages(snapshot.chatID, before: $0.id) } : nil,
            newestMessagesURL: history ? context.paths.chat(snapshot.chatID) : nil,
            newerMessagesURL: hasNewer ? snapshot.messages.last.map { context.paths.newerMessages(snapshot.chatID, after: $0.id) } : nil,
            messages: messages(snapshot, unreadAfter: unreadAfter),
            deletion: draft.deleting.map { message in
                DeletionConfirmationViewModel(
                    actionURL: context.paths.deleteAction(snapshot.chatID, message: message.id), csrfToken: context.csrfToken,
                    excerpt: TextPreview.excerpt(MessageFormat.plainText(message.body), limit: MessageCellBuilder.quoteLimit), cancelURL: context.paths.chat(snapshot.chatID)
                )
            },
            typing: Self.showsTyping(snapshot.heading) ? TypingBuilder.line(in: snapshot.chatID, names: []) : nil,
            composer: composer(chat: snapshot.chatID, heading: snapshot.heading, people: snapshot.people, draft: draft, autofocus: !history)
        )
    }

    /// Which room, or who the conversation is with.
    public func header(_ chat: ChatID, _ heading: ChatHeading) -> ConversationHeaderViewModel {
        ConversationHeaderViewModel(
            domID: Self.headerDomID(chat),
            title: Headings.title(heading),
            subtitle: Headings.subtitle(heading),
            topic: heading.topic,
            avatar: AvatarBuilder.avatar(for: chat, heading, paths: context.paths),
            backURL: context.paths.chats,
            feedsURL: context.paths.feeds(chat),
            membersURL: heading.isRoom ? context.paths.members(chat) : nil,
            settingsURL: heading.isRoom ? context.paths.roomSettings(chat) : nil
        )
    }

    /// The id of a conversation's header.
    public static func headerDomID(_ chat: ChatID) -> String { "conversation-header-\(chat)" }

    /// The history alone, grouped by day: what a page that (re)connects is sent. `unreadAfter` as for
    /// ``conversation(_:draft:history:unreadAfter:)``; nil shows no "New messages" line.
    public func messages(_ snapshot: ConversationSnapshot, unreadAfter: MessageID? = nil) -> ConversationMessagesViewModel {
        var known: [MessageID: Message] = [:]
        known.reserveCapacity(snapshot.quoted.count + snapshot.messages.count)
        for message in snapshot.quoted { known[message.id] = message }
        for message in snapshot.messages { known[message.id] = message }
        func author(of message: Message) -> User { Self.author(of: message, viewer: context.viewer, people: snapshot.people) }
        // Each author's avatar is made once, not once per cell.
        var avatars: [UserID: AvatarViewModel] = [context.viewer.id: AvatarBuilder.avatar(for: context.viewer, paths: context.paths)]
        func avatar(of author: User) -> AvatarViewModel {
            if let made = avatars[author.id] { return made }
            let made = AvatarBuilder.avatar(for: author, paths: context.paths)
            avatars[author.id] = made
            return made
        }
        func quoted(_ id: MessageID?) -> (message: Message, author: User)? {
            guard let id, let message = known[id] else { return nil }
            return (message, author(of: message))
        }

        let firstUnread = unreadAfter.flatMap { mark in
            snapshot.messages.first { $0.id > mark && $0.isUnread(for: context.viewer.id) }?.id
        }
        var entries: [(date: Date, cell: MessageCellViewModel)] = []
        entries.reserveCapacity(snapshot.messages.count + snapshot.pending.count)
        var previous: Message?
        for message in snapshot.messages {
            let cell = cells.cell(
                message, sender: author(of: message), quoted: quoted(message.replyTo), contactLastRead: snapshot.contactLastRead,
                after: previous, startsUnread: message.id == firstUnread, senderAvatar: avatar(of: author(of: message)), people: snapshot.people,
                readers: snapshot.showsReaders ? snapshot.readers : nil, reactions: snapshot.reactions[message.id] ?? []
            )
            entries.append((message.createdAt, cell))
            previous = message
        }
        // Messages still in flight follow the stored ones, whatever their clocks say.
        entries += snapshot.pending.map { ($0.createdAt, cells.cell($0, quoted: quoted($0.replyTo), after: previous)) }

        var days: [DaySectionViewModel] = []
        var currentKey: String?
        var currentDate = context.now
        var currentCells: [MessageCellViewModel] = []
        func closeDay() {
            guard currentKey != nil else { return }
            days.append(daySection(snapshot.chatID, date: currentDate, cells: currentCells))
        }
        for entry in entries {
            let key = context.dates.dayKey(entry.date)
            if key != currentKey {
                closeDay()
                currentKey = key
                currentDate = entry.date
                currentCells = []
            }
            currentCells.append(entry.cell)
        }
        closeDay()

        return ConversationMessagesViewModel(
            domID: Self.messagesDomID(snapshot.chatID),
            days: days,
            isEmpty: entries.isEmpty,
            emptyText: snapshot.heading.contact.map { "No messages yet. Say hello to \($0.displayName)!" }
                ?? "No messages yet in \(Headings.title(snapshot.heading)). Say hello!"
        )
    }

    /// Who wrote `message`: the viewer, someone the page knows, or (gone from this Parlor) a nameless person.
    public static func author(of message: Message, viewer: User, people: [UserID: User]) -> User {
        if message.senderID == viewer.id { return viewer }
        return people[message.senderID] ?? User(id: message.senderID, handle: "someone", displayName: "Someone")
    }

    /// The id of a conversation's message region.
    public static func messagesDomID(_ chat: ChatID) -> String { "messages-\(chat)" }

    /// The id of one day's section in a conversation, for a day key from ``DateLabels/dayKey(_:)``.
    public static func dayDomID(_ chat: ChatID, dayKey: String) -> String { "day-\(chat)-\(dayKey)" }

    /// A day with the given cells, labelled for the viewer ("Today").
    public func daySection(_ chat: ChatID, date: Date, cells: [MessageCellViewModel]) -> DaySectionViewModel {
        DaySectionViewModel(
            domID: Self.dayDomID(chat, dayKey: context.dates.dayKey(date)),
            label: context.dates.dayLabel(date, days: context.days),
            messages: cells,
            labelLanguage: context.dates.language
        )
    }

    /// Whether a chat shows who is typing: any but a room of more than ``Typing/memberLimit`` members.
    public static func showsTyping(_ heading: ChatHeading) -> Bool { heading.memberCount <= Typing.memberLimit }

    public func composer(
        chat: ChatID, heading: ChatHeading, people: [UserID: User] = [:], draft: ComposerDraft, autofocus: Bool = false
    ) -> ComposerViewModel {
        var authors = people
        if let contact = heading.contact { authors[contact.id] = contact }
        let replyQuote = draft.replyTo.map { cells.quote($0, author: Self.author(of: $0, viewer: context.viewer, people: authors)) }
        let editing = draft.editing
        return ComposerViewModel(
            domID: "composer-\(chat)",
            // A new message may carry a photo, so the form is multipart; its token is its first field (never in a URL).
            actionURL: editing.map { context.paths.editAction(chat, message: $0.id) } ?? context.paths.messages(chat),
            csrfToken: context.csrfToken,
            text: draft.text,
            errorMessage: draft.errorMessage,
            isSending: draft.isSending,
            token: draft.token,
            replyQuote: replyQuote,
            replyToID: draft.replyTo.map { String($0.id.rawValue) },
            cancelReplyURL: draft.replyTo == nil && editing == nil ? nil : context.paths.chat(chat),
            fieldLabel: editing == nil ? "Message \(Headings.title(heading))" : "Edit your message",
            submitLabel: editing == nil ? "Send" : "Save",
            maxLength: String(MessageText.maximumLength),
            autofocus: autofocus,
            photoAccept: editing == nil ? "image/jpeg,image/png,image/webp,image/gif" : nil,
            mentionsURL: heading.isRoom ? context.paths.mentionSuggestions(chat) : nil,
            typingURL: editing == nil && Self.showsTyping(heading) ? context.paths.typing(chat) : nil
        )
    }
}
