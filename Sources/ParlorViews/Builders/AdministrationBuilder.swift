import Foundation
import ParlorDomain

/// Builds the Administration page for one administrator: dates in their time zone and language.
public struct AdministrationBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// `origin` ("https://chat.example.org") goes in front of the join link's path, so the link can be copied whole.
    /// A bot's form as typed, kept when it was refused; and a key just made, for the bot with `handle`.
    public struct BotDraft: Sendable {
        public var name = ""
        public var handle = ""
        public var webhook = ""

        public init(name: String = "", handle: String = "", webhook: String = "") {
            self.name = name
            self.handle = handle
            self.webhook = webhook
        }
    }

    public func page(
        _ settings: ParlorSettings, people: [Account], query: String, rooms: [RoomListing], bots: [Bot] = [], origin: String, layout: PageLayoutViewModel,
        error: String? = nil, draft: BotDraft = BotDraft(), newKey: (handle: String, key: String)? = nil
    ) -> AdministrationPageViewModel {
        let paths = context.paths
        return AdministrationPageViewModel(
            layout: layout,
            chatsURL: paths.chats,
            csrfToken: context.csrfToken,
            errorMessage: error,
            signUpURL: paths.signUpPolicy,
            signUpChoices: SignUpPolicy.allCases.map { policy in
                FollowChoiceViewModel(
                    value: policy.rawValue, label: policy == .open ? "Open" : "By invitation",
                    hint: policy == .open ? "Anyone who reaches this Parlor can create an account." : "People join through the join link below.",
                    isChosen: policy == settings.signUpPolicy
                )
            },
            joinLink: joinLink(settings.joinLink, origin: origin),
            roomCreationURL: paths.roomCreation,
            onlyAdministratorsCreateRooms: settings.onlyAdministratorsCreateRooms,
            peopleSearchURL: paths.administration,
            peopleQuery: query,
            people: people.map(person),
            peopleLabel: people.isEmpty ? "No one’s handle or name starts with “\(query)”." : (people.count == 1 ? "1 person" : "\(people.count) people"),
            rooms: rooms.map { room in
                RoomRowViewModel(name: room.name, kindLabel: room.kind == .open ? "Open" : "Closed", membersLabel: CountLabels.members(room.memberCount))
            },
            roomsLabel: rooms.count == 1 ? "1 room" : "\(rooms.count) rooms",
            bots: BotsSectionViewModel(
                bots: bots.map { bot in
                    BotRowViewModel(
                        avatar: AvatarBuilder.avatar(for: bot.user, paths: paths), name: bot.user.displayName, handle: "@" + bot.user.handle,
                        webhookLabel: bot.webhookURL.map { "Webhook: " + $0 } ?? "No webhook", newKeyURL: paths.botKey(bot.user.id),
                        newKeyLabel: "New key for \(bot.user.displayName)",
                        avatarURL: paths.botAvatar(bot.user.id), avatarFieldID: "bot-avatar-\(bot.user.id)",
                        avatarLabel: "Photo of \(bot.user.displayName)", isDeactivated: !bot.isActive,
                        deactivateURL: bot.isActive ? paths.deactivate(bot.user.id) : nil, reactivateURL: bot.isActive ? nil : paths.reactivate(bot.user.id),
                        deactivateLabel: "Deactivate \(bot.user.displayName)"
                    )
                },
                createURL: paths.bots, name: draft.name, handle: draft.handle, webhook: draft.webhook,
                newKey: newKey.map { NewBotKeyViewModel(heading: "The key of @\($0.handle)", key: $0.key) }
            )
        )
    }

    func joinLink(_ link: JoinLink?, origin: String) -> JoinLinkViewModel {
        let paths = context.paths
        guard let link else {
            return JoinLinkViewModel(
                url: nil, stateLabel: nil, isSpent: false, rotateURL: paths.joinLinkRotation, rotateLabel: "Make a join link",
                maximumDays: String(JoinLink.maximumDays), maximumUses: String(JoinLink.maximumUses)
            )
        }
        var parts: [String] = []
        switch link.refusal(at: context.now) {
        case .joinLinkExpired?: parts.append("Expired: make a new link to let people in")
        case .joinLinkUsedUp?: parts.append("Used up: make a new link to let people in")
        default:
            if let limit = link.usesLimit {
                parts.append("Used \(link.uses) of \(limit) time\(limit == 1 ? "" : "s")")
            } else {
                parts.append(link.uses == 1 ? "Used once" : "Used \(link.uses) times")
            }
            if let expiresAt = link.expiresAt { parts.append("open until \(context.dates.fullDate(expiresAt))") }
        }
        return JoinLinkViewModel(
            url: origin + paths.join(link.code), stateLabel: parts.joined(separator: " · "), isSpent: link.refusal(at: context.now) != nil,
            rotateURL: paths.joinLinkRotation, rotateLabel: "Replace the link", maximumDays: String(JoinLink.maximumDays),
            maximumUses: String(JoinLink.maximumUses)
        )
    }

    func person(_ account: Account) -> PersonRowViewModel {
        let paths = context.paths
        let user = account.user
        let isAdministrator = account.role == .administrator
        return PersonRowViewModel(
            avatar: AvatarBuilder.avatar(for: user, paths: paths),
            name: user.displayName,
            handle: "@" + user.handle,
            roleLabel: isAdministrator ? "Administrator" : "Member",
            isDeactivated: !account.isActive,
            isYou: user.id == context.viewer.id,
            roleURL: account.isActive ? paths.role(of: user.id) : nil,
            newRole: (isAdministrator ? Role.member : Role.administrator).rawValue,
            roleActionLabel: isAdministrator ? "Make member" : "Make administrator",
            deactivateURL: account.isActive && user.id != context.viewer.id ? paths.deactivate(user.id) : nil,
            reactivateURL: account.isActive ? nil : paths.reactivate(user.id),
            deactivateLabel: "Deactivate \(user.displayName)"
        )
    }
}
