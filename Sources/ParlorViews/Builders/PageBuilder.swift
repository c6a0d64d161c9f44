import ParlorDomain

/// Builds full pages: the layout (title with the unread total, assets, signed-in person, CSRF token) around a screen.
public struct PageBuilder: Sendable {
    public let context: ViewerContext
    /// Whether a person is signed in (false on the sign-in and sign-up pages).
    public let isSignedIn: Bool

    public init(context: ViewerContext, isSignedIn: Bool = true) {
        self.context = context
        self.isSignedIn = isSignedIn
    }

    public static let productName = "Parlor"

    public func layout(
        title: String? = nil, unreadTotal: Int = 0, liveChat: ChatID? = nil, liveFeeds: ChatID? = nil, liveWindow: ChatID? = nil,
        hasLiveUpdates: Bool = true, searchQuery: String = ""
    ) -> PageLayoutViewModel {
        let paths = context.paths
        let base = title.map { "\($0) · \(Self.productName)" } ?? Self.productName
        let viewer = context.viewer
        return PageLayoutViewModel(
            title: CountLabels.pageTitle(base, unread: unreadTotal),
            basePath: paths.basePath,
            stylesheetURL: paths.stylesheet,
            scriptURL: paths.script,
            faviconURL: unreadTotal > 0 ? paths.faviconUnread : paths.favicon,
            csrfToken: context.csrfToken,
            signedInUser: isSignedIn
                ? SignedInUserViewModel(
                    displayName: viewer.displayName,
                    handle: "@" + viewer.handle,
                    avatar: AvatarBuilder.avatar(for: viewer, paths: paths),
                    chatsURL: paths.chats,
                    settingsURL: paths.settings,
                    signOutURL: paths.signOut,
                    searchURL: paths.search
                )
                : nil,
            eventsURL: isSignedIn && hasLiveUpdates
                ? liveFeeds.map { paths.events(feedsOf: $0) } ?? liveWindow.map { paths.events(window: $0) } ?? paths.events(chat: liveChat) : nil,
            searchQuery: searchQuery
        )
    }

    /// The layout of the sign-in and sign-up pages: nobody signed in, no live updates.
    public static func signedOutLayout(title: String, paths: Paths, csrfToken: String) -> PageLayoutViewModel {
        PageLayoutViewModel(
            title: "\(title) · \(productName)", basePath: paths.basePath, stylesheetURL: paths.stylesheet, scriptURL: paths.script,
            faviconURL: paths.favicon, csrfToken: csrfToken, signedInUser: nil, eventsURL: nil
        )
    }

    /// `/chats` or `/rooms/{id}`. A page of older history (`showsNewest` false) gets live updates of its
    /// chat list only: live messages are appended to the newest ones.
    /// `showsWindow`: the conversation shows messages found by search, far from its newest: live for what it
    /// shows, told of new messages.
    public func chats(
        list: ChatListViewModel, conversation: ConversationViewModel?, title: String?, unreadTotal: Int, openChat: ChatID?,
        showsNewest: Bool = true, showsWindow: Bool = false
    ) -> ChatsPageViewModel {
        ChatsPageViewModel(
            layout: layout(
                title: title ?? "Chats", unreadTotal: unreadTotal, liveChat: showsNewest ? openChat : nil, liveWindow: showsWindow ? openChat : nil
            ),
            chatList: list,
            conversation: conversation,
            placeholderText: list.isEmpty ? "Start a chat to see it here." : "Choose a chat to read it."
        )
    }

    /// The unread total for the title and favicon, pushed live as a badge.
    public func unreadBadge(_ unreadTotal: Int, title: String? = nil) -> UnreadBadgeViewModel {
        let base = title.map { "\($0) · \(Self.productName)" } ?? Self.productName
        return UnreadBadgeViewModel(
            pageTitle: CountLabels.pageTitle(base, unread: unreadTotal),
            count: CountLabels.badge(unreadTotal),
            faviconURL: unreadTotal > 0 ? context.paths.faviconUnread : context.paths.favicon
        )
    }

    /// An in-app notification for `message` from `sender` in a chat that is not open on the page.
    public func toast(_ message: Message, from sender: User) -> ToastViewModel {
        ToastViewModel(
            domID: "toast-\(message.id)",
            title: sender.displayName,
            preview: TextPreview.excerpt(MessageCellBuilder.previewText(message), limit: 100),
            url: context.paths.chat(message.chatID),
            avatar: AvatarBuilder.avatar(for: sender, paths: context.paths)
        )
    }
}
