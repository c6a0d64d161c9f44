import ParlorDomain

/// Who listens to what: every page by its viewer (chat list, badge, toasts) and, when a conversation is
/// open, by that chat. Adding and removing a page are a few dictionary operations, whatever the count.
struct ListenerRegistry {
    struct Entry {
        let listener: any Listener
        let page: PageSubscription
    }

    private(set) var byViewer: [UserID: [ObjectIdentifier: Entry]] = [:]
    private(set) var byChat: [ChatID: [UserID: [ObjectIdentifier: Entry]]] = [:]

    var count: Int { byViewer.values.reduce(0) { $0 + $1.count } }
    var isEmpty: Bool { byViewer.isEmpty && byChat.isEmpty }

    mutating func insert(_ listener: any Listener, for page: PageSubscription) {
        let entry = Entry(listener: listener, page: page)
        let key = ObjectIdentifier(listener)
        byViewer[page.viewer, default: [:]][key] = entry
        if let chat = page.openChat { byChat[chat, default: [:]][page.viewer, default: [:]][key] = entry }
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
    }

    /// The pages of `viewer`.
    func pages(of viewer: UserID) -> [Entry] { byViewer[viewer].map { Array($0.values) } ?? [] }

    /// The pages of `viewer` that have `chat` open.
    func pages(of viewer: UserID, showing chat: ChatID) -> [Entry] {
        byChat[chat]?[viewer].map { Array($0.values) } ?? []
    }
}
