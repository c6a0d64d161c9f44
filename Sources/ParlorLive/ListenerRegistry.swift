import ParlorDomain

/// Who listens to what: every page by its viewer (chat list, badge, toasts) and, when a conversation is
/// open, by that chat, with the newest message that page has. Adding and removing a page are a few
/// dictionary operations, whatever the count.
struct ListenerRegistry {
    struct Entry {
        let listener: any Listener
        let page: PageSubscription
        /// For a page with a conversation open: the newest message of it the page has (0: none yet).
        var cursor: MessageID? = nil
    }

    private(set) var byViewer: [UserID: [ObjectIdentifier: Entry]] = [:]
    private(set) var byChat: [ChatID: [UserID: [ObjectIdentifier: Entry]]] = [:]
    /// Feeds screens, by their chat.
    private(set) var byFeeds: [ChatID: [ObjectIdentifier: Entry]] = [:]
    /// A page that shows a person's presence, and whose page it is.
    struct Watcher {
        let listener: any Listener
        let viewer: UserID
    }

    /// Pages that show a person's presence, by that person: only people their viewer shared a chat with when
    /// the page opened (and still shares one, as each change is delivered).
    private(set) var byWatched: [UserID: [ObjectIdentifier: Watcher]] = [:]

    var count: Int { byViewer.values.reduce(0) { $0 + $1.count } }
    var isEmpty: Bool { byViewer.isEmpty && byChat.isEmpty && byFeeds.isEmpty && byWatched.isEmpty }

    /// Registers a page; it is told of the presence of `watching` (those of ``PageSubscription/watching`` its
    /// viewer may see).
    mutating func insert(_ listener: any Listener, for page: PageSubscription, cursor: MessageID? = nil, watching: Set<UserID> = []) {
        let entry = Entry(listener: listener, page: page, cursor: page.openChat == nil ? nil : cursor ?? MessageID(0))
        let key = ObjectIdentifier(listener)
        byViewer[page.viewer, default: [:]][key] = entry
        if let chat = page.openChat { byChat[chat, default: [:]][page.viewer, default: [:]][key] = entry }
        if let chat = page.feedsOf { byFeeds[chat, default: [:]][key] = entry }
        for person in watching where page.watching.contains(person) {
            byWatched[person, default: [:]][key] = Watcher(listener: listener, viewer: page.viewer)
        }
    }

    mutating func remove(_ listener: any Listener, for page: PageSubscription) {
        let key = ObjectIdentifier(listener)
        byViewer[page.viewer]?[key] = nil
        if byViewer[page.viewer]?.isEmpty == true { byViewer[page.viewer] = nil }
        if let chat = page.openChat {
            byChat[chat]?[page.viewer]?[key] = nil
            if byChat[chat]?[page.viewer]?.isEmpty == true { byChat[chat]?[page.viewer] = nil }
            if byChat[chat]?.isEmpty == true { byChat[chat] = nil }
        }
        if let chat = page.feedsOf {
            byFeeds[chat]?[key] = nil
            if byFeeds[chat]?.isEmpty == true { byFeeds[chat] = nil }
        }
        for person in page.watching {
            byWatched[person]?[key] = nil
            if byWatched[person]?.isEmpty == true { byWatched[person] = nil }
        }
    }

    /// The pages that show `person`'s presence.
    func watchers(of person: UserID) -> [Watcher] { byWatched[person].map { Array($0.values) } ?? [] }

    /// The pages of `viewers` are no longer told of `person`'s presence (they share no chat now).
    mutating func unwatch(_ person: UserID, by viewers: Set<UserID>) {
        byWatched[person] = byWatched[person]?.filter { !viewers.contains($0.value.viewer) }
        if byWatched[person]?.isEmpty == true { byWatched[person] = nil }
    }

    /// Moves the cursor of a page's open chat forward (never back); nothing when the page has left.
    mutating func advance(_ listener: any Listener, for page: PageSubscription, to cursor: MessageID) {
        let key = ObjectIdentifier(listener)
        guard var entry = byViewer[page.viewer]?[key], let chat = entry.page.openChat, (entry.cursor ?? MessageID(0)) < cursor
        else { return }
        entry.cursor = cursor
        byViewer[entry.page.viewer]?[key] = entry
        byChat[chat]?[entry.page.viewer]?[key] = entry
    }

    /// The pages of `viewer`.
    func pages(of viewer: UserID) -> [Entry] { byViewer[viewer].map { Array($0.values) } ?? [] }

    /// The feeds screens of `chat`, whoever looks.
    func feedPages(of chat: ChatID) -> [Entry] { byFeeds[chat].map { Array($0.values) } ?? [] }

    /// The pages of `viewer` that have `chat` open.
    /// Every page with `chat` open, by viewer.
    func pages(showing chat: ChatID) -> [UserID: [Entry]] {
        (byChat[chat] ?? [:]).mapValues { Array($0.values) }.filter { !$0.value.isEmpty }
    }

    func pages(of viewer: UserID, showing chat: ChatID) -> [Entry] {
        byChat[chat]?[viewer].map { Array($0.values) } ?? []
    }
}
