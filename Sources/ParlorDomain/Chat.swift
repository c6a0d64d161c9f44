import Foundation

/// A conversation between its members: a room (open or closed, with a name) or a direct chat.
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

    /// The member who is not `viewer`, in a direct chat of two; nil in a room.
    public func contact(of viewer: UserID) -> UserID? {
        kind == .direct && members.count == 2 ? members.first { $0 != viewer } : nil
    }

    /// How it is called on screens, with `contact` the other member of a direct chat of two, and `others` the
    /// names a direct chat of more people is called by (``Chat/othersShown`` of them, by name).
    public func heading(contact: User?, others: [String] = []) -> ChatHeading {
        let name = kind == .direct && members.count > 2 ? others.joined(separator: ", ") : self.name
        return ChatHeading(kind: kind, name: name, topic: topic, memberCount: members.count, contact: kind == .direct ? contact : nil)
    }

    /// How many of its other members a direct chat of more than two is called by.
    public static let othersShown = 3

    /// The key a direct chat is found by: its members' ids in order ("3:8:12").
    public static func directKey(_ people: [UserID]) -> String {
        Set(people).sorted().map { String($0.rawValue) }.joined(separator: ":")
    }

    /// This chat with other members (sorted as every chat's are).
    public func with(members: [UserID]) -> Chat {
        Chat(id: id, members: members, createdAt: createdAt, kind: kind, name: name, topic: topic)
    }
}

/// A room someone asks for, validated by the event router: its members are the creator and `members` for a
/// closed room, everyone in this Parlor for an open one.
public struct NewRoom: Hashable, Sendable {
    public let creator: UserID
    public let kind: RoomKind
    public let name: String
    public let topic: String?
    public let members: [UserID]
    public let createdAt: Date

    public init(creator: UserID, kind: RoomKind, name: String, topic: String?, members: [UserID] = [], createdAt: Date) {
        self.creator = creator
        self.kind = kind
        self.name = name
        self.topic = topic
        self.members = members
        self.createdAt = createdAt
    }

    /// Everyone in a room, in its order: the creator and the members chosen, once each.
    public var closedMembers: [UserID] { Array(Set(members + [creator])).sorted() }
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
