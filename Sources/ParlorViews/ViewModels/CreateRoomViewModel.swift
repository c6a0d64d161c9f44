import ParlorTemplates

/// The new-room form: a name, a topic, open or closed, and (for a closed room) the people to add, each field
/// with what went wrong in it.
public struct CreateRoomViewModel: Renderable, Hashable {
    public static let templateName = "partials/create-room"

    public let actionURL: String
    public let csrfToken: String
    /// What the person typed, put back after an error.
    public let name: String
    public let topic: String
    public let members: String
    /// Which kind is chosen: closed unless open was.
    public let isOpen: Bool
    public let isClosed: Bool
    public let nameError: String?
    public let topicError: String?
    public let membersError: String?
    /// What went wrong outside any one field ("Parlor could not save that just now.").
    public let formError: String?
    public let nameMaxLength: String
    public let topicMaxLength: String
    /// Where the page script fetches people from as the members field is typed in.
    public let suggestionsURL: String
    public let cancelURL: String

    public init(
        actionURL: String, csrfToken: String, name: String, topic: String, members: String, isOpen: Bool, nameError: String?, topicError: String?,
        membersError: String?, formError: String?, nameMaxLength: String, topicMaxLength: String, suggestionsURL: String, cancelURL: String
    ) {
        self.actionURL = actionURL
        self.csrfToken = csrfToken
        self.name = name
        self.topic = topic
        self.members = members
        self.isOpen = isOpen
        self.isClosed = !isOpen
        self.nameError = nameError
        self.topicError = topicError
        self.membersError = membersError
        self.formError = formError
        self.nameMaxLength = nameMaxLength
        self.topicMaxLength = topicMaxLength
        self.suggestionsURL = suggestionsURL
        self.cancelURL = cancelURL
    }

    public static let templateFields = TemplateFields<CreateRoomViewModel>(
        .text("actionURL", \.actionURL),
        .text("csrfToken", \.csrfToken),
        .text("name", \.name),
        .text("topic", \.topic),
        .text("members", \.members),
        .flag("isOpen", \.isOpen),
        .flag("isClosed", \.isClosed),
        .text("nameError", \.nameError),
        .text("topicError", \.topicError),
        .text("membersError", \.membersError),
        .text("formError", \.formError),
        .text("nameMaxLength", \.nameMaxLength),
        .text("topicMaxLength", \.topicMaxLength),
        .text("suggestionsURL", \.suggestionsURL),
        .text("cancelURL", \.cancelURL)
    )
}

/// `/rooms/new`.
public struct NewRoomPageViewModel: Renderable, Hashable {
    public static let templateName = "new-room"

    public let layout: PageLayoutViewModel
    public let form: CreateRoomViewModel

    public init(layout: PageLayoutViewModel, form: CreateRoomViewModel) {
        self.layout = layout
        self.form = form
    }

    public static let templateFields = TemplateFields<NewRoomPageViewModel>(
        .object("layout", \.layout),
        .object("form", \.form)
    )
}
