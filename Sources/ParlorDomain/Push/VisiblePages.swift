import Synchronization

/// The open pages of each person on this instance and whether each is visible (in front, in a tab that is not in
/// the background): reported by the page's script when its stream opens and whenever the browser says its
/// visibility changed. A message for a person with a visible page is shown there, and not pushed.
public final class VisiblePages: PageVisibility {
    struct Page: Sendable {
        var visible: Bool
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

    /// A page of `user` opened its stream.
    public func opened(_ user: UserID, page key: String, visible: Bool) {
        pages.withLock { pages in
            var own = pages[user, default: [:]]
            if own[key] == nil, own.count >= Self.pageLimit, let oldest = own.keys.min() { own[oldest] = nil }
            own[key] = Page(visible: visible)
            pages[user] = own
        }
    }

    /// A page says whether it is visible now; false when this instance has no such page open.
    @discardableResult
    public func reported(_ user: UserID, page key: String, visible: Bool) -> Bool {
        pages.withLock { pages in
            guard pages[user]?[key] != nil else { return false }
            pages[user]?[key]?.visible = visible
            return true
        }
    }

    /// A page's stream ended.
    public func closed(_ user: UserID, page key: String) {
        pages.withLock { pages in
            pages[user]?[key] = nil
            if pages[user]?.isEmpty == true { pages[user] = nil }
        }
    }

    public func hasVisiblePage(_ user: UserID) -> Bool {
        pages.withLock { $0[user]?.values.contains { $0.visible } ?? false }
    }

    /// How many pages `user` has open here.
    public func openPages(of user: UserID) -> Int {
        pages.withLock { $0[user]?.count ?? 0 }
    }
}
