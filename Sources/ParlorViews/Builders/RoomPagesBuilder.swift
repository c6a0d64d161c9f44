import ParlorDomain

/// Builds a room's members page and its settings page for one viewer.
public struct RoomPagesBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// Everyone in the room; in a closed room, with the form that adds people (`handles` and `error` put back
    /// what was refused), a button to take out each other member and one to leave.
    public func members(
        _ chat: ChatID, _ heading: ChatHeading, members: [User], layout: PageLayoutViewModel, handles: String = "", error: String? = nil,
        following: Involvement? = nil
    ) -> RoomMembersPageViewModel {
        let following = following ?? .joining(heading.kind)
        let paths = context.paths
        let closed = heading.kind == .closed
        return RoomMembersPageViewModel(
            layout: layout,
            heading: "Members of \(Headings.title(heading))",
            topic: heading.topic.flatMap { $0.isEmpty ? nil : $0 },
            countLabel: CountLabels.members(members.count),
            chatURL: paths.chat(chat),
            members: members.map { member in
                let isYou = member.id == context.viewer.id
                return RoomMemberViewModel(
                    avatar: AvatarBuilder.avatar(for: member, paths: paths), name: member.displayName, handle: "@" + member.handle, isYou: isYou,
                    removeURL: closed && !isYou ? paths.removeMember(chat, member.id) : nil, presenceOf: String(member.id.rawValue)
                )
            },
            addForm: closed
                ? AddMembersViewModel(
                    actionURL: paths.members(chat), csrfToken: context.csrfToken, handles: handles, errorMessage: error,
                    suggestionsURL: paths.contactSuggestions
                )
                : nil,
            leaveURL: closed ? paths.leave(chat) : nil,
            csrfToken: context.csrfToken,
            followURL: paths.follow(chat),
            followChoices: Involvement.allCases.map { level in
                FollowChoiceViewModel(value: level.rawValue, label: Self.label(level), hint: Self.hint(level), isChosen: level == following)
            }
        )
    }

    static func label(_ level: Involvement) -> String {
        switch level {
        case .everything: "Everything"
        case .mentions: "Mentions"
        case .nothing: "Nothing"
        case .hidden: "Hidden"
        }
    }

    static func hint(_ level: Involvement) -> String {
        switch level {
        case .everything: "Every new message is counted and notified."
        case .mentions: "A dot for new messages; a count and a notification when you are named."
        case .nothing: "The room stays in your list, quiet."
        case .hidden: "Out of your list until someone names you."
        }
    }

    /// Everyone who has read as far as the viewer's `message`.
    public func seenBy(_ message: Message, readers: [Reader], layout: PageLayoutViewModel) -> SeenByPageViewModel {
        let seers = MessageCellBuilder.seers(of: message.id, among: readers, viewer: context.viewer.id)
        return SeenByPageViewModel(
            layout: layout,
            heading: seers.count == 1 ? "Seen by 1 person" : "Seen by \(seers.count) people",
            excerpt: TextPreview.excerpt(MessageCellBuilder.previewText(message), limit: MessageCellBuilder.quoteLimit),
            chatURL: context.paths.chat(message.chatID) + "#message-\(message.id)",
            people: seers.map { person in
                RoomMemberViewModel(
                    avatar: AvatarBuilder.avatar(for: person, paths: context.paths), name: person.displayName, handle: "@" + person.handle, isYou: false,
                    removeURL: nil
                )
            }
        )
    }

    /// The members whose handle or name starts with `prefix` (at most 8), and everyone when that fits.
    public static func mentionSuggestions(_ prefix: String, members: [User], viewer: UserID, everyoneAllowed: Bool) -> MentionSuggestionsViewModel {
        let wanted = prefix.lowercased()
        var items: [MentionSuggestionViewModel] = []
        for member in members where member.id != viewer && items.count < 8 {
            let words = member.displayName.lowercased().split(separator: " ")
            guard member.handle.lowercased().hasPrefix(wanted) || words.contains(where: { $0.hasPrefix(wanted) }) else { continue }
            items.append(MentionSuggestionViewModel(handle: member.handle, name: member.displayName, optionID: "mention-option-\(member.id)"))
        }
        if everyoneAllowed, "everyone".hasPrefix(wanted) {
            items.append(MentionSuggestionViewModel(handle: "everyone", name: "Everyone in the room", optionID: "mention-option-everyone"))
        }
        return MentionSuggestionsViewModel(items: items)
    }

    /// The name and topic, as stored or as typed with what was wrong.
    public func settings(
        _ chat: ChatID, _ heading: ChatHeading, layout: PageLayoutViewModel, name: String? = nil, topic: String? = nil, refusal: Refusal? = nil
    ) -> RoomSettingsPageViewModel {
        RoomSettingsPageViewModel(
            layout: layout,
            heading: "Settings of \(Headings.title(heading))",
            chatURL: context.paths.chat(chat),
            actionURL: context.paths.roomSettings(chat),
            csrfToken: context.csrfToken,
            name: name ?? heading.name ?? "",
            topic: topic ?? heading.topic ?? "",
            nameError: refusal == .invalidRoomName ? refusal?.message : refusal.flatMap { $0 == .invalidTopic ? nil : $0.message },
            topicError: refusal == .invalidTopic ? refusal?.message : nil,
            nameMaxLength: String(RoomName.maximumLength),
            topicMaxLength: String(RoomTopic.maximumLength)
        )
    }
}
