import ParlorTemplates

/// `/rooms/{id}/members`: who is in the room, how many, and (closed rooms) adding, taking out and leaving.
public struct RoomMembersPageViewModel: Renderable, Hashable {
    public static let templateName = "room-members"

    public let layout: PageLayoutViewModel
    /// "Members of Launch".
    public let heading: String
    /// The room's whole topic (its header shows one line of it).
    public let topic: String?
    /// "6 members".
    public let countLabel: String
    public let chatURL: String
    public let members: [RoomMemberViewModel]
    /// Set in a closed room: the form that adds people by handle.
    public let addForm: AddMembersViewModel?
    /// Set in a closed room: the form that takes the viewer out.
    public let leaveURL: String?
    public let csrfToken: String
    /// How closely the viewer follows the room, as a form of four choices.
    public let followURL: String
    public let followChoices: [FollowChoiceViewModel]

    public init(
        layout: PageLayoutViewModel, heading: String, topic: String? = nil, countLabel: String, chatURL: String, members: [RoomMemberViewModel],
        addForm: AddMembersViewModel?, leaveURL: String?, csrfToken: String, followURL: String, followChoices: [FollowChoiceViewModel]
    ) {
        self.layout = layout
        self.heading = heading
        self.topic = topic
        self.countLabel = countLabel
        self.chatURL = chatURL
        self.members = members
        self.addForm = addForm
        self.leaveURL = leaveURL
        self.csrfToken = csrfToken
        self.followURL = followURL
        self.followChoices = followChoices
    }

    public static let templateFields = TemplateFields<RoomMembersPageViewModel>(
        .object("layout", \.layout),
        .text("heading", \.heading),
        .text("topic", \.topic),
        .text("countLabel", \.countLabel),
        .text("chatURL", \.chatURL),
        .list("members", \.members),
        .object("addForm", \.addForm),
        .text("leaveURL", \.leaveURL),
        .text("csrfToken", \.csrfToken),
        .text("followURL", \.followURL),
        .list("followChoices", \.followChoices)
    )
}

/// One way to follow a room: "Mentions: a dot for new messages, a count and a notification when you are named".
public struct FollowChoiceViewModel: TemplateContext, Hashable {
    public let value: String
    public let label: String
    public let hint: String
    public let isChosen: Bool

    public init(value: String, label: String, hint: String, isChosen: Bool) {
        self.value = value
        self.label = label
        self.hint = hint
        self.isChosen = isChosen
    }

    public static let templateFields = TemplateFields<FollowChoiceViewModel>(
        .text("value", \.value),
        .text("label", \.label),
        .text("hint", \.hint),
        .flag("isChosen", \.isChosen)
    )
}

/// `/rooms/{id}/messages/{message}/seen`: everyone who has seen one of the viewer's messages.
public struct SeenByPageViewModel: Renderable, Hashable {
    public static let templateName = "seen-by"

    public let layout: PageLayoutViewModel
    /// "Seen by 6 people".
    public let heading: String
    /// The start of the message.
    public let excerpt: String
    public let chatURL: String
    public let people: [RoomMemberViewModel]
    public let isEmpty: Bool

    public init(layout: PageLayoutViewModel, heading: String, excerpt: String, chatURL: String, people: [RoomMemberViewModel]) {
        self.layout = layout
        self.heading = heading
        self.excerpt = excerpt
        self.chatURL = chatURL
        self.people = people
        self.isEmpty = people.isEmpty
    }

    public static let templateFields = TemplateFields<SeenByPageViewModel>(
        .object("layout", \.layout),
        .text("heading", \.heading),
        .text("excerpt", \.excerpt),
        .text("chatURL", \.chatURL),
        .list("people", \.people),
        .flag("isEmpty", \.isEmpty)
    )
}

/// One member: face, name, handle, and the button that takes them out (closed rooms, not oneself).
public struct RoomMemberViewModel: TemplateContext, Hashable {
    public let avatar: AvatarViewModel
    public let name: String
    public let handle: String
    public let isYou: Bool
    public let removeURL: String?
    /// The member's id, where the page shows their presence (a dot the page script keeps live).
    public let presenceOf: String?

    public init(avatar: AvatarViewModel, name: String, handle: String, isYou: Bool, removeURL: String?, presenceOf: String? = nil) {
        self.presenceOf = presenceOf
        self.avatar = avatar
        self.name = name
        self.handle = handle
        self.isYou = isYou
        self.removeURL = removeURL
    }

    public static let templateFields = TemplateFields<RoomMemberViewModel>(
        .object("avatar", \.avatar),
        .text("name", \.name),
        .text("handle", \.handle),
        .flag("isYou", \.isYou),
        .text("removeURL", \.removeURL),
        .text("presenceOf", \.presenceOf)
    )
}

/// Handles to add, put back with the reason when one was refused.
public struct AddMembersViewModel: TemplateContext, Hashable {
    public let actionURL: String
    public let csrfToken: String
    public let handles: String
    public let errorMessage: String?
    public let suggestionsURL: String

    public init(actionURL: String, csrfToken: String, handles: String, errorMessage: String?, suggestionsURL: String) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.handles = handles
        self.errorMessage = errorMessage
        self.suggestionsURL = suggestionsURL
    }

    public static let templateFields = TemplateFields<AddMembersViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("handles", \.handles),
        .text("errorMessage", \.errorMessage),
        .text("suggestionsURL", \.suggestionsURL)
    )
}

/// `/rooms/{id}/settings`: the room's name and topic.
public struct RoomSettingsPageViewModel: Renderable, Hashable {
    public static let templateName = "room-settings"

    public let layout: PageLayoutViewModel
    public let heading: String
    public let chatURL: String
    public let actionURL: String
    public let csrfToken: String
    public let name: String
    public let topic: String
    public let nameError: String?
    public let topicError: String?
    public let nameMaxLength: String
    public let topicMaxLength: String

    public init(
        layout: PageLayoutViewModel, heading: String, chatURL: String, actionURL: String, csrfToken: String, name: String, topic: String,
        nameError: String?, topicError: String?, nameMaxLength: String, topicMaxLength: String
    ) {
        self.layout = layout
        self.heading = heading
        self.chatURL = chatURL
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.name = name
        self.topic = topic
        self.nameError = nameError
        self.topicError = topicError
        self.nameMaxLength = nameMaxLength
        self.topicMaxLength = topicMaxLength
    }

    public static let templateFields = TemplateFields<RoomSettingsPageViewModel>(
        .object("layout", \.layout),
        .text("heading", \.heading),
        .text("chatURL", \.chatURL),
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("name", \.name),
        .text("topic", \.topic),
        .text("nameError", \.nameError),
        .text("topicError", \.topicError),
        .text("nameMaxLength", \.nameMaxLength),
        .text("topicMaxLength", \.topicMaxLength)
    )
}
