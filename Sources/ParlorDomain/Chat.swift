import Foundation

/// A conversation between its members. One-to-one for now: exactly two members, never the same person twice.
public struct Chat: Hashable, Sendable {
    public let id: ChatID
    /// Sorted by id, so the same pair always gives the same value.
    public let members: [UserID]
    public let createdAt: Date
    /// Every chat so far is a direct one; rooms are open or closed.
    public let kind: RoomKind
    /// A room's name and topic line; a direct chat has neither (it is called by its people).
    public let name: String?
    public let topic: String?

    public init(id: ChatID, members: [UserID], createdAt: Date, kind: RoomKind = .direct, name: String? = nil, topic: String? = nil) {
        self.id = id
        self.members = members.sorted()
        self.createdAt = createdAt
        self.kind = kind
        self.name = name
        self.topic = topic
    }

    /// Whether `user` may see this chat, its messages and its stream.
    public func hasMember(_ user: UserID) -> Bool { members.contains(user) }

    /// The member who is not `viewer` (in a one-to-one chat).
    public func contact(of viewer: UserID) -> UserID? { members.first { $0 != viewer } }
}

/// A member's place in a chat: the newest message they have read, how closely they follow it, and since when.
public struct Membership: Hashable, Sendable {
    public let chatID: ChatID
    public let userID: UserID
    /// Nil until they read something.
    public let lastRead: MessageID?
    public let involvement: Involvement
    public let joinedAt: Date

    public init(chatID: ChatID, userID: UserID, lastRead: MessageID?, involvement: Involvement, joinedAt: Date) {
        self.chatID = chatID
        self.userID = userID
        self.lastRead = lastRead
        self.involvement = involvement
        self.joinedAt = joinedAt
    }
}
