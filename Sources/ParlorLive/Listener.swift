import ByteOutput
import ServerSentEvents
import ParlorDomain
import ParlorViews

/// An open page: the HTTP layer backs it with an event stream, tests with a recording listener.
public protocol Listener: AnyObject, Sendable {
    /// Called on the publisher's task for every change this page shows. Must return at once (queue the
    /// update); a slow page is the stream's business, never the publisher's.
    func receive(_ update: ScreenUpdate)
    /// Several changes at once, in order (a stream sends them together).
    func receive(_ updates: [ScreenUpdate])
    /// The page may show nothing more (its person's account was deactivated): close it now, after what was sent.
    func end()
}

extension Listener {
    public func end() {}

    public func receive(_ updates: [ScreenUpdate]) {
        for update in updates { receive(update) }
    }
}

/// What a page shows, and so which changes its listener receives.
public struct PageSubscription: Hashable, Sendable {
    /// Who is looking: only their chats reach this page.
    public let viewer: UserID
    /// The conversation open beside the chat list, if any.
    public let openChat: ChatID?
    /// The chat whose feeds screen this is (then no conversation is open).
    public let feedsOf: ChatID?
    /// The open conversation shows messages found by search, not its newest: it is not sent the newest messages
    /// when it connects (its own stay), and is told of new ones without being able to show them in place.
    public let showsWindow: Bool
    /// The people whose presence the page shows (dots on their avatars): told when it changes.
    public let watching: Set<UserID>
    /// The most people one page is told the presence of.
    public static let watchLimit = 200

    /// The people a page's stream address names (`watch=7,12,40`, outside bytes): at most ``watchLimit``, and
    /// anything that is not an id passed over.
    public static func watched(_ value: String?) -> Set<UserID> {
        guard let value, value.utf8.count <= 8 * 1024 else { return [] }
        return Set(value.split(separator: ",").prefix(watchLimit).compactMap { Int64($0).flatMap { $0 > 0 ? UserID($0) : nil } })
    }

    public init(viewer: UserID, openChat: ChatID? = nil, feedsOf: ChatID? = nil, showsWindow: Bool = false, watching: Set<UserID> = []) {
        self.viewer = viewer
        self.watching = watching.count <= Self.watchLimit ? watching : Set(watching.sorted().prefix(Self.watchLimit))
        self.openChat = feedsOf == nil ? openChat : nil
        self.feedsOf = feedsOf
        self.showsWindow = showsWindow && self.openChat != nil
    }
}

/// One change for one page: what to do to which element, the view model it shows, and that view model
/// rendered inside DESIGN.md's envelope. Listeners showing the same variant share the same bytes.
public struct ScreenUpdate: Sendable {
    public let action: StreamAction
    /// The element id the action applies to.
    public let target: String
    /// The view model of the fragment; nil for `remove` and `refresh`.
    public let fragment: Fragment?
    /// The envelope with the rendered fragment, ready to be an event stream's `data`.
    public let html: OutputBuffer
    /// The update as the transport sends it (an event stream's bytes, with its id), made once when the
    /// update is rendered by the ``UpdateEncoding`` the live pages were given; every page of the variant
    /// that receives this update sends these same bytes.
    public let encoded: EncodedEvent?

    public init(action: StreamAction, target: String, fragment: Fragment?, html: OutputBuffer, encoded: EncodedEvent? = nil) {
        self.action = action
        self.target = target
        self.fragment = fragment
        self.html = html
        self.encoded = encoded
    }
}

/// Turns a rendered update into what the transport sends, once per update (the web front: event-stream
/// bytes with an id). Given to ``EventHandler``.
public protocol UpdateEncoding: Sendable {
    func encode(_ update: ScreenUpdate) -> EncodedEvent
}

/// What a page does with an update (DESIGN.md, "Listeners").
public enum StreamAction: String, Hashable, Sendable {
    case replace, append, prepend, remove, toast, badge, refresh
    /// A person's presence: every dot of theirs on the page takes the state the fragment says.
    case presence
    /// The page shows a room its viewer is no longer in: it goes to the address in `target` (the chat list).
    case leave
}

/// The view model inside an update.
public enum Fragment: Hashable, Sendable {
    case chatList(ChatListViewModel)
    case chatListItem(ChatListItemViewModel)
    case conversationHeader(ConversationHeaderViewModel)
    case messages(ConversationMessagesViewModel)
    case daySection(DaySectionViewModel)
    case messageCell(MessageCellViewModel)
    case badge(UnreadBadgeViewModel)
    case toast(ToastViewModel)
    case feedList(FeedListViewModel)
    case typing(TypingViewModel)
    case presence(PresenceViewModel)
    case reactions(ReactionsViewModel)
}
