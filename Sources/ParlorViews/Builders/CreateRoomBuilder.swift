import ParlorDomain

/// Builds the new-room form, blank or with what the person typed and what was wrong with it.
public struct CreateRoomBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// What was typed into the form.
    public struct Draft: Hashable, Sendable {
        public let name: String
        public let topic: String
        public let kind: RoomKind
        public let members: String

        public init(name: String = "", topic: String = "", kind: RoomKind = .closed, members: String = "") {
            self.name = name
            self.topic = topic
            self.kind = kind
            self.members = members
        }
    }

    /// `refusal` goes next to the field it concerns.
    public func form(_ draft: Draft = Draft(), refusal: Refusal? = nil) -> CreateRoomViewModel {
        var nameError: String?, topicError: String?, membersError: String?, formError: String?
        switch refusal {
        case nil: break
        case .invalidRoomName: nameError = refusal?.message
        case .invalidTopic: topicError = refusal?.message
        case .unknownHandle, .invalidHandle: membersError = refusal?.message
        case .some(let other): formError = other.message
        }
        return CreateRoomViewModel(
            actionURL: context.paths.newRoom,
            csrfToken: context.csrfToken,
            name: draft.name,
            topic: draft.topic,
            members: draft.members,
            isOpen: draft.kind == .open,
            nameError: nameError,
            topicError: topicError,
            membersError: membersError,
            formError: formError,
            nameMaxLength: String(RoomName.maximumLength),
            topicMaxLength: String(RoomTopic.maximumLength),
            suggestionsURL: context.paths.contactSuggestions,
            cancelURL: context.paths.chats
        )
    }
}
