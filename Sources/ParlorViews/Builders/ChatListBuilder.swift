import ParlorDomain

/// Builds the chat list and its items for one viewer.
public struct ChatListBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// How long a preview may be, in characters.
    public static let previewLimit = 80

    /// The list once loaded; `summaries` newest activity first.
    public func loaded(_ summaries: [ChatSummary], current: ChatID?) -> ChatListViewModel {
        // A hidden chat is left out until it names the viewer (or is the one open).
        let listed = summaries.filter { $0.isListed || $0.chatID == current }
        return list(
            rooms: listed.filter(\.heading.isRoom).map { item($0, isCurrent: $0.chatID == current) },
            directChats: listed.filter { !$0.heading.isRoom }.map { item($0, isCurrent: $0.chatID == current) }, isLoading: false, errorMessage: nil
        )
    }

    /// The list while it is being fetched.
    public func loading() -> ChatListViewModel {
        list(rooms: [], directChats: [], isLoading: true, errorMessage: nil)
    }

    /// The list when it could not be loaded; `message` is for a person ("Your chats could not be loaded.").
    public func failed(_ message: String) -> ChatListViewModel {
        list(rooms: [], directChats: [], isLoading: false, errorMessage: message)
    }

    public func item(_ summary: ChatSummary, isCurrent: Bool) -> ChatListItemViewModel {
        let date = summary.lastMessage?.createdAt ?? summary.lastActivity
        return ChatListItemViewModel(
            domID: "chat-item-\(summary.chatID)",
            url: context.paths.chat(summary.chatID),
            title: Headings.title(summary.heading),
            subtitle: Headings.subtitle(summary.heading),
            avatar: AvatarBuilder.avatar(for: summary.chatID, summary.heading, paths: context.paths),
            lastMessagePreview: preview(summary.lastMessage, sender: summary.heading.contact == nil ? summary.lastSenderName : nil),
            lastDate: context.dates.listDate(date, days: context.days),
            lastDateTooltip: context.dates.fullDate(date),
            lastDateISO: DateLabels.iso(date),
            unreadBadge: CountLabels.badge(summary.badgeCount),
            unreadLabel: summary.involvement == .everything ? CountLabels.unreadLabel(summary.unreadCount)
                : summary.showsDot ? "Unread messages" : CountLabels.mentionLabel(summary.badgeCount),
            isCurrent: isCurrent,
            dateLanguage: context.dates.language,
            hasDot: summary.showsDot,
            isMuted: summary.involvement == .nothing,
            presenceOf: summary.heading.contact.flatMap { $0.isBot ? nil : String($0.id.rawValue) }
        )
    }

    /// The last message on one line; in a room, with who wrote it ("Ana Lima: …").
    private func preview(_ message: Message?, sender: String?) -> String {
        guard let message else { return "No messages yet" }
        if message.isDeleted { return MessageCellBuilder.deletedText }
        if message.notice != nil {
            let who = message.senderID == context.viewer.id ? "You" : sender ?? "Someone"
            return TextPreview.excerpt(who + " " + MessageCellBuilder.previewText(message), limit: Self.previewLimit)
        }
        let prefix = message.senderID == context.viewer.id ? "You: " : message.feed.map { $0.source + ": " } ?? sender.map { $0 + ": " } ?? ""
        return prefix + TextPreview.excerpt(MessageCellBuilder.previewText(message), limit: Self.previewLimit - prefix.count)
    }

    /// Where a chat moved to the top goes: the top of its section's list.
    public static func sectionDomID(_ heading: ChatHeading) -> String {
        heading.isRoom ? ChatListViewModel.roomsDomID : ChatListViewModel.directChatsDomID
    }

    private func list(rooms: [ChatListItemViewModel], directChats: [ChatListItemViewModel], isLoading: Bool, errorMessage: String?) -> ChatListViewModel {
        ChatListViewModel(
            isLoading: isLoading,
            isEmpty: !isLoading && errorMessage == nil && rooms.isEmpty && directChats.isEmpty,
            errorMessage: errorMessage,
            rooms: rooms,
            directChats: directChats,
            newChatURL: context.paths.newChat,
            newRoomURL: context.paths.newRoom,
            retryURL: context.paths.chats
        )
    }
}
