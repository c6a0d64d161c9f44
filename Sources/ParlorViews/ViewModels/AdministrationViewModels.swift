import ParlorTemplates

/// `/admin`: who may join and how, who is here and with which role, which rooms exist. Administrators only.
public struct AdministrationPageViewModel: Renderable, Hashable {
    public static let templateName = "administration"

    public let layout: PageLayoutViewModel
    public let chatsURL: String
    public let csrfToken: String
    /// What was refused, said at the top ("This Parlor needs an active administrator…"); nil when nothing was.
    public let errorMessage: String?
    public let signUpURL: String
    public let signUpChoices: [FollowChoiceViewModel]
    public let joinLink: JoinLinkViewModel
    public let roomCreationURL: String
    public let onlyAdministratorsCreateRooms: Bool
    public let peopleSearchURL: String
    public let peopleQuery: String
    public let people: [PersonRowViewModel]
    /// "3 people" or "No one starts with “xy”".
    public let peopleLabel: String
    public let rooms: [RoomRowViewModel]
    /// "2 rooms".
    public let roomsLabel: String
    public let bots: BotsSectionViewModel

    public init(
        layout: PageLayoutViewModel, chatsURL: String, csrfToken: String, errorMessage: String?, signUpURL: String, signUpChoices: [FollowChoiceViewModel],
        joinLink: JoinLinkViewModel, roomCreationURL: String, onlyAdministratorsCreateRooms: Bool, peopleSearchURL: String, peopleQuery: String,
        people: [PersonRowViewModel], peopleLabel: String, rooms: [RoomRowViewModel], roomsLabel: String, bots: BotsSectionViewModel
    ) {
        self.bots = bots
        self.layout = layout
        self.chatsURL = chatsURL
        self.csrfToken = csrfToken
        self.errorMessage = errorMessage
        self.signUpURL = signUpURL
        self.signUpChoices = signUpChoices
        self.joinLink = joinLink
        self.roomCreationURL = roomCreationURL
        self.onlyAdministratorsCreateRooms = onlyAdministratorsCreateRooms
        self.peopleSearchURL = peopleSearchURL
        self.peopleQuery = peopleQuery
        self.people = people
        self.peopleLabel = peopleLabel
        self.rooms = rooms
        self.roomsLabel = roomsLabel
    }

    public static let templateFields = TemplateFields<AdministrationPageViewModel>(
        .object("layout", \.layout),
        .text("chatsURL", \.chatsURL),
        .text("csrfToken", \.csrfToken),
        .text("errorMessage", \.errorMessage),
        .text("signUpURL", \.signUpURL),
        .list("signUpChoices", \.signUpChoices),
        .object("joinLink", \.joinLink),
        .text("roomCreationURL", \.roomCreationURL),
        .flag("onlyAdministratorsCreateRooms", \.onlyAdministratorsCreateRooms),
        .text("peopleSearchURL", \.peopleSearchURL),
        .text("peopleQuery", \.peopleQuery),
        .list("people", \.people),
        .text("peopleLabel", \.peopleLabel),
        .list("rooms", \.rooms),
        .text("roomsLabel", \.roomsLabel),
        .object("bots", \.bots)
    )
}

/// The bots administrators made, the form that makes one, and a key just made (shown this once).
public struct BotsSectionViewModel: TemplateContext, Hashable {
    public let bots: [BotRowViewModel]
    public let createURL: String
    /// What was typed into the form, kept when it was refused.
    public let name: String
    public let handle: String
    public let webhook: String
    public let newKey: NewBotKeyViewModel?

    public init(bots: [BotRowViewModel], createURL: String, name: String, handle: String, webhook: String, newKey: NewBotKeyViewModel?) {
        self.bots = bots
        self.createURL = createURL
        self.name = name
        self.handle = handle
        self.webhook = webhook
        self.newKey = newKey
    }

    public static let templateFields = TemplateFields<BotsSectionViewModel>(
        .list("bots", \.bots),
        .text("createURL", \.createURL),
        .text("name", \.name),
        .text("handle", \.handle),
        .text("webhook", \.webhook),
        .object("newKey", \.newKey)
    )
}

public struct BotRowViewModel: TemplateContext, Hashable {
    public let avatar: AvatarViewModel
    public let name: String
    public let handle: String
    /// "Webhook: https://…" or "No webhook".
    public let webhookLabel: String
    public let newKeyURL: String
    /// "New key for Deploy Bot", for screen readers.
    public let newKeyLabel: String
    /// Where its photo is uploaded (the session's token in the query), the file field's id and label.
    public let avatarURL: String
    public let avatarFieldID: String
    public let avatarLabel: String
    /// Deactivated: its key opens nothing, no webhook is told, it is in no room.
    public let isDeactivated: Bool
    /// One of the two, by its state.
    public let deactivateURL: String?
    public let reactivateURL: String?
    /// "Deactivate Deploy Bot", for screen readers.
    public let deactivateLabel: String

    public init(
        avatar: AvatarViewModel, name: String, handle: String, webhookLabel: String, newKeyURL: String, newKeyLabel: String,
        avatarURL: String, avatarFieldID: String, avatarLabel: String, isDeactivated: Bool, deactivateURL: String?, reactivateURL: String?,
        deactivateLabel: String
    ) {
        self.isDeactivated = isDeactivated
        self.deactivateURL = deactivateURL
        self.reactivateURL = reactivateURL
        self.deactivateLabel = deactivateLabel
        self.avatar = avatar
        self.name = name
        self.handle = handle
        self.webhookLabel = webhookLabel
        self.newKeyURL = newKeyURL
        self.newKeyLabel = newKeyLabel
        self.avatarURL = avatarURL
        self.avatarFieldID = avatarFieldID
        self.avatarLabel = avatarLabel
    }

    public static let templateFields = TemplateFields<BotRowViewModel>(
        .object("avatar", \.avatar),
        .text("name", \.name),
        .text("handle", \.handle),
        .text("webhookLabel", \.webhookLabel),
        .text("newKeyURL", \.newKeyURL),
        .text("newKeyLabel", \.newKeyLabel),
        .text("avatarURL", \.avatarURL),
        .text("avatarFieldID", \.avatarFieldID),
        .text("avatarLabel", \.avatarLabel),
        .flag("isDeactivated", \.isDeactivated),
        .text("deactivateURL", \.deactivateURL),
        .text("reactivateURL", \.reactivateURL),
        .text("deactivateLabel", \.deactivateLabel)
    )
}

/// A bot's key, shown once: Parlor keeps only its hash.
public struct NewBotKeyViewModel: TemplateContext, Hashable {
    /// "The key of @deploy".
    public let heading: String
    public let key: String

    public init(heading: String, key: String) {
        self.heading = heading
        self.key = key
    }

    public static let templateFields = TemplateFields<NewBotKeyViewModel>(
        .text("heading", \.heading),
        .text("key", \.key)
    )
}

/// The join link to copy, what holds for it, and the form that makes a new one.
public struct JoinLinkViewModel: TemplateContext, Hashable {
    /// The whole link to copy ("https://chat.example.org/join/…"); nil before one is made.
    public let url: String?
    /// "Used 2 of 10 times · open until 3 Dec 2026" or "Expired: make a new one to let people in".
    public let stateLabel: String?
    /// Whether the link lets nobody in now.
    public let isSpent: Bool
    public let rotateURL: String
    /// "Make a join link" or "Replace the link".
    public let rotateLabel: String
    public let maximumDays: String
    public let maximumUses: String

    public init(url: String?, stateLabel: String?, isSpent: Bool, rotateURL: String, rotateLabel: String, maximumDays: String, maximumUses: String) {
        self.url = url
        self.stateLabel = stateLabel
        self.isSpent = isSpent
        self.rotateURL = rotateURL
        self.rotateLabel = rotateLabel
        self.maximumDays = maximumDays
        self.maximumUses = maximumUses
    }

    public static let templateFields = TemplateFields<JoinLinkViewModel>(
        .text("url", \.url),
        .text("stateLabel", \.stateLabel),
        .flag("isSpent", \.isSpent),
        .text("rotateURL", \.rotateURL),
        .text("rotateLabel", \.rotateLabel),
        .text("maximumDays", \.maximumDays),
        .text("maximumUses", \.maximumUses)
    )
}

/// One person on the Administration page, with what an administrator may do to them.
public struct PersonRowViewModel: TemplateContext, Hashable {
    public let avatar: AvatarViewModel
    public let name: String
    /// "@ana".
    public let handle: String
    /// "Administrator", "Member"; "Deactivated" is said apart.
    public let roleLabel: String
    public let isDeactivated: Bool
    public let isYou: Bool
    /// Where the role is changed, and to what: nil for a deactivated person.
    public let roleURL: String?
    public let newRole: String
    /// "Make administrator" or "Make member".
    public let roleActionLabel: String
    public let deactivateURL: String?
    public let reactivateURL: String?
    /// "Deactivate Ana Lima", for screen readers (the button says "Deactivate").
    public let deactivateLabel: String

    public init(
        avatar: AvatarViewModel, name: String, handle: String, roleLabel: String, isDeactivated: Bool, isYou: Bool, roleURL: String?, newRole: String,
        roleActionLabel: String, deactivateURL: String?, reactivateURL: String?, deactivateLabel: String
    ) {
        self.avatar = avatar
        self.name = name
        self.handle = handle
        self.roleLabel = roleLabel
        self.isDeactivated = isDeactivated
        self.isYou = isYou
        self.roleURL = roleURL
        self.newRole = newRole
        self.roleActionLabel = roleActionLabel
        self.deactivateURL = deactivateURL
        self.reactivateURL = reactivateURL
        self.deactivateLabel = deactivateLabel
    }

    public static let templateFields = TemplateFields<PersonRowViewModel>(
        .object("avatar", \.avatar),
        .text("name", \.name),
        .text("handle", \.handle),
        .text("roleLabel", \.roleLabel),
        .flag("isDeactivated", \.isDeactivated),
        .flag("isYou", \.isYou),
        .text("roleURL", \.roleURL),
        .text("newRole", \.newRole),
        .text("roleActionLabel", \.roleActionLabel),
        .text("deactivateURL", \.deactivateURL),
        .text("reactivateURL", \.reactivateURL),
        .text("deactivateLabel", \.deactivateLabel)
    )
}

/// A room as the Administration page lists it: its name, kind and size; never its messages.
public struct RoomRowViewModel: TemplateContext, Hashable {
    public let name: String
    /// "Open" or "Closed".
    public let kindLabel: String
    /// "6 members".
    public let membersLabel: String

    public init(name: String, kindLabel: String, membersLabel: String) {
        self.name = name
        self.kindLabel = kindLabel
        self.membersLabel = membersLabel
    }

    public static let templateFields = TemplateFields<RoomRowViewModel>(
        .text("name", \.name),
        .text("kindLabel", \.kindLabel),
        .text("membersLabel", \.membersLabel)
    )
}
