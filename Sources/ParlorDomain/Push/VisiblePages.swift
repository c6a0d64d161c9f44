import Synchronization

/// The open pages of each person on this instance, whether each is visible (in front, in a tab that is not in the
/// background) and whether its person is idle there: reported by the page's script when its stream opens and
/// whenever the browser says its visibility changed or its person stopped (or started again) using it. A message
/// for a person with a visible page is shown there, and not pushed; what the pages say makes the person's
/// presence on this instance (``localState(of:)``).
public final class VisiblePages: PageVisibility {
    struct Page: Sendable {
        var visible: Bool
        var idle: Bool
    }

    /// Most pages kept for one person; an older one is forgotten past it (its stream still ends normally).
    public static let pageLimit = 64
    private let pages = Mutex<[UserID: [String: Page]]>([:])

    public init() {}

    /// Whether `key` can name a page: 1 to 64 letters, digits, `-` and `_` (a page makes its own at random).
    public static func isPageKey(_ key: String) -> Bool {
        (1...64).contains(key.utf8.count) && key.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
    }

    /// A page of `user` opened its stream. Answers the person's state here when it changed.
    @discardableResult
    public func opened(_ user: UserID, page key: String, visible: Bool, idle: Bool = false) -> LocalPresence? {
        change(user) { own in
            if own[key] == nil, own.count >= Self.pageLimit, let oldest = own.keys.min() { own[oldest] = nil }
            own[key] = Page(visible: visible, idle: idle)
        }
    }

    /// A page says whether it is visible, and whether its person is idle, now. Nothing changes for a page this
    /// instance does not have open. Answers the person's state here when it changed.
    @discardableResult
    public func reported(_ user: UserID, page key: String, visible: Bool, idle: Bool = false) -> LocalPresence? {
        change(user) { own in
            guard own[key] != nil else { return }
            own[key] = Page(visible: visible, idle: idle)
        }
    }

    /// A page's stream ended. Answers the person's state here when it changed.
    @discardableResult
    public func closed(_ user: UserID, page key: String) -> LocalPresence? {
        change(user) { own in own[key] = nil }
    }

    private func change(_ user: UserID, _ body: (inout [String: Page]) -> Void) -> LocalPresence? {
        pages.withLock { pages in
            var own = pages[user, default: [:]]
            let before = Self.state(own)
            body(&own)
            pages[user] = own.isEmpty ? nil : own
            let after = Self.state(own)
            return after == before ? nil : after
        }
    }

    public func hasVisiblePage(_ user: UserID) -> Bool {
        pages.withLock { $0[user]?.values.contains { $0.visible } ?? false }
    }

    /// How many pages `user` has open here.
    public func openPages(of user: UserID) -> Int {
        pages.withLock { $0[user]?.count ?? 0 }
    }

    /// The person's presence on this instance: active with a visible page they are using, away with pages open
    /// otherwise, gone without.
    public func localState(of user: UserID) -> LocalPresence {
        pages.withLock { Self.state($0[user] ?? [:]) }
    }

    /// Everyone with a page open here, and their state.
    public var everyone: [UserID: LocalPresence] {
        pages.withLock { $0.mapValues(Self.state) }
    }

    private static func state(_ pages: [String: Page]) -> LocalPresence {
        if pages.isEmpty { return .gone }
        return pages.values.contains { $0.visible && !$0.idle } ? .active : .away
    }
}

/// A person's presence as one instance sees it.
public enum LocalPresence: Int64, Sendable, Hashable {
    /// No page open here.
    case gone = 0
    /// Pages open, none visible and in use.
    case away = 1
    /// A page visible and in use.
    case active = 2
}
