/// Unread counts as people read them.
public enum CountLabels {
    /// The badge: "3", "99+"; nil for zero.
    public static func badge(_ count: Int) -> String? {
        guard count > 0 else { return nil }
        return count > 99 ? "99+" : String(count)
    }

    /// For screen readers and tooltips: "1 unread message", "3 unread messages"; nil for zero.
    public static func unreadLabel(_ count: Int) -> String? {
        guard count > 0 else { return nil }
        return count == 1 ? "1 unread message" : "\(count) unread messages"
    }

    /// For screen readers: "1 mention", "3 mentions"; nil for zero.
    public static func mentionLabel(_ count: Int) -> String? {
        guard count > 0 else { return nil }
        return count == 1 ? "1 mention" : "\(count) mentions"
    }

    /// "1 member", "12 members".
    public static func members(_ count: Int) -> String {
        count == 1 ? "1 member" : "\(count) members"
    }

    /// The document title with the unread total in front: "(3) Parlor", "(99+) Parlor", "Parlor".
    public static func pageTitle(_ title: String, unread: Int) -> String {
        guard let badge = badge(unread) else { return title }
        return "(\(badge)) \(title)"
    }
}
