/// What kind of room a chat is: who its members are, and how it is found again.
public enum RoomKind: String, Hashable, Sendable, CaseIterable {
    /// Everyone in this Parlor is a member; people who sign up later join it.
    case open
    /// Only the members chosen, who may add others.
    case closed
    /// A chat with one or more people, found again (not made twice) for the same set of people. Every chat
    /// made before rooms is one, of two.
    case direct
}

/// How closely a member follows a room: what counts as unread, what the badge and toasts say.
public enum Involvement: String, Hashable, Sendable, CaseIterable {
    /// Every message counts.
    case everything
    /// The room shows a dot for unread messages and counts only mentions.
    case mentions
    /// The room stays in the list, muted.
    case nothing
    /// Not in the list until searched for or mentioned.
    case hidden

    /// What a new member gets: everything in a direct chat, mentions in a room.
    public static func joining(_ kind: RoomKind) -> Involvement {
        kind == .direct ? .everything : .mentions
    }
}
