/// What happens to chats. `creating` comes from a source; the router answers with `created` or `createFailed`.
public enum ChatEvent: Hashable, Sendable {
    /// `creator` asks for a chat with the person whose handle they typed.
    case creating(creator: UserID, contactHandle: String)
    /// `creator` asks for a direct chat with the people whose handles they typed (one: as `creating`).
    case creatingDirect(creator: UserID, handles: [String])
    /// `request.creator` asks for an open or closed room.
    case creatingRoom(RoomRequest)
    /// The chat exists now; both members' chat lists show it.
    case created(Chat)
    /// Nothing was created; `reason` says why (`chatExists` carries the chat to go to).
    case createFailed(creator: UserID, reason: Refusal)
    /// A member asks to add people to a closed room, to take someone out, or to leave.
    case changingMembers(MemberChange)
    /// Stored: whoever was added has the room in their list with its history, whoever was taken out loses it.
    case membersChanged(RoomChange)
    case memberChangeFailed(MemberChange, reason: Refusal)
    /// A member asks for a new name and topic.
    case renamingRoom(RoomRename)
    case roomRenamed(RoomChange)
    case renameFailed(RoomRename, reason: Refusal)
    /// A member chooses how closely to follow a chat; stored, it changes their list and badge only.
    case changingInvolvement(chat: ChatID, member: UserID, Involvement)
    case involvementChanged(Membership)
}

/// People to add to a closed room (by handle, as typed), or one to take out (the one asking: they leave).
public struct MemberChange: Hashable, Sendable {
    public let chatID: ChatID
    public let by: UserID
    public let adding: [String]
    public let removing: UserID?

    public init(chatID: ChatID, by: UserID, adding: [String] = [], removing: UserID? = nil) {
        self.chatID = chatID
        self.by = by
        self.adding = adding
        self.removing = removing
    }
}

/// A room's new name and topic, as typed.
public struct RoomRename: Hashable, Sendable {
    public let chatID: ChatID
    public let by: UserID
    public let name: String
    public let topic: String

    public init(chatID: ChatID, by: UserID, name: String, topic: String) {
        self.chatID = chatID
        self.by = by
        self.name = name
        self.topic = topic
    }
}

/// A room as someone asked for it in a form: the name, topic and handles as typed.
public struct RoomRequest: Hashable, Sendable {
    public let creator: UserID
    public let kind: RoomKind
    public let name: String
    public let topic: String
    /// The people to add to a closed room, by handle ("@ana" or "ana"); an open room has everyone.
    public let memberHandles: [String]

    public init(creator: UserID, kind: RoomKind, name: String, topic: String = "", memberHandles: [String] = []) {
        self.creator = creator
        self.kind = kind
        self.name = name
        self.topic = topic
        self.memberHandles = memberHandles
    }
}

/// What happens to accounts. Passwords and sessions belong to the web layer; the model knows people.
public enum UserEvent: Hashable, Sendable {
    case signingUp(NewUser)
    case signedUp(User)
    case signUpFailed(handle: String, reason: Refusal)
    /// A person changed their display name, time zone or locale.
    case updatingProfile(ProfileChange)
    case profileUpdated(User)
    case profileUpdateFailed(ProfileChange, reason: Refusal)
    /// An administrator deactivates or reactivates someone.
    case changingAccount(AccountChange)
    /// Stored: a deactivated person's pages close and they leave every room; a reactivated one is back in the open rooms.
    case accountChanged(AccountState)
    case accountChangeFailed(AccountChange, reason: Refusal)
}

/// Someone who wants an account.
public struct NewUser: Hashable, Sendable {
    public let handle: String
    public let displayName: String
    public let timeZoneIdentifier: String
    public let localeIdentifier: String
    public let isBot: Bool
    /// The Argon2id hash of their password (never the password), stored in the same transaction as the
    /// account so no account exists without its credential; nil for bots, who never sign in.
    public let passwordHash: String?
    /// The code of the join link they came through, which a Parlor that takes people by invitation asks for
    /// (and counts a use of, in the same transaction). The first person needs none: they are its administrator.
    public let joinCode: String?
    /// A bot an administrator makes: its key's hash and webhook, stored with the account (never with a person's).
    public let bot: BotCredential?

    public init(
        handle: String, displayName: String, timeZoneIdentifier: String = "UTC", localeIdentifier: String = "en_US",
        isBot: Bool = false, passwordHash: String? = nil, joinCode: String? = nil, bot: BotCredential? = nil
    ) {
        self.joinCode = joinCode
        self.bot = isBot ? bot : nil
        self.handle = handle
        self.displayName = displayName
        self.timeZoneIdentifier = timeZoneIdentifier
        self.localeIdentifier = localeIdentifier
        self.isBot = isBot
        self.passwordHash = passwordHash
    }
}

/// New profile values; nil keeps the old one.
public struct ProfileChange: Hashable, Sendable {
    public let userID: UserID
    public let displayName: String?
    public let timeZoneIdentifier: String?
    public let localeIdentifier: String?
    /// A new face: stored with the change, in the same transaction.
    public let avatar: NewImage?
    /// Back to initials (the image stays for messages that may show it; nobody's profile names it).
    public let removesAvatar: Bool

    public init(
        userID: UserID, displayName: String? = nil, timeZoneIdentifier: String? = nil, localeIdentifier: String? = nil,
        avatar: NewImage? = nil, removesAvatar: Bool = false
    ) {
        self.userID = userID
        self.displayName = displayName
        self.timeZoneIdentifier = timeZoneIdentifier
        self.localeIdentifier = localeIdentifier
        self.avatar = avatar
        self.removesAvatar = removesAvatar
    }
}
