import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

/// Making a room (its name, topic, kind and members), its members page (adding, taking out, leaving) and its
/// settings (name and topic): forms that work without the script, each refusal shown by its field.
public struct RoomRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let events: EventRouter
        let store: any ChatReads

        public init(gate: SignInGate, pages: WebPages, events: EventRouter, store: any ChatReads) {
            self.gate = gate
            self.pages = pages
            self.events = events
            self.store = store
        }
    }

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var pages: WebPages { dependencies.pages }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.get("/rooms/new", gate.signedIn { [self] _, signedIn in try await newRoomPage(signedIn, CreateRoomBuilder.Draft()) })
        router.post("/rooms/new", bodyLimit: 16 * 1024, gate.signedIn { [self] request, signedIn in try await createRoom(request, signedIn) })
        router.get("/rooms/{id}/members", gate.signedIn { [self] request, signedIn in
            try await membersPage(signedIn, chat: try ChatPages.chatID(request))
        })
        router.post("/rooms/{id}/members", bodyLimit: 16 * 1024, gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            let typed = request.form["members"] ?? ""
            let change = MemberChange(chatID: chat, by: signedIn.user.id, adding: Self.handles(in: typed))
            return try await changeMembers(change, request, signedIn, typed: typed)
        })
        router.post("/rooms/{id}/members/{member}/remove", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            guard let raw = request.parameters["member"], let id = Int64(raw), id > 0 else { throw ChatPages.noSuchChat }
            return try await changeMembers(MemberChange(chatID: chat, by: signedIn.user.id, removing: UserID(id)), request, signedIn, typed: "")
        })
        router.post("/rooms/{id}/leave", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            return try await changeMembers(MemberChange(chatID: chat, by: signedIn.user.id, removing: signedIn.user.id), request, signedIn, typed: "")
        })
        router.post("/rooms/{id}/follow", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            guard let level = request.form["follow"].flatMap(Involvement.init(rawValue:)) else {
                return try await membersPage(signedIn, chat: chat, error: "Choose how closely to follow the room.", status: .unprocessableContent)
            }
            guard case .involvementChanged = await dependencies.events.send(
                .changingInvolvement(chat: chat, member: signedIn.user.id, level), requestID: request.id.description
            ) else { throw ChatPages.noSuchChat }
            return .redirect(to: pages.paths.members(chat))
        })
        router.get("/rooms/{id}/members/suggestions", gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            var prefix = (request.query["q"] ?? "").trimmingCharacters(in: .whitespaces)
            if prefix.hasPrefix("@") { prefix.removeFirst() }
            guard prefix.count <= 20, let members = try await dependencies.store.members(of: chat, viewer: signedIn.user.id) else {
                throw ChatPages.noSuchChat
            }
            let suggestions = RoomPagesBuilder.mentionSuggestions(
                prefix, members: members, viewer: signedIn.user.id, everyoneAllowed: members.count <= EventRouter.everyoneLimit
            )
            return pages.page(suggestions)
        })
        router.get("/rooms/{id}/messages/{message}/seen", gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            let room = try await room(chat, for: signedIn.user)
            guard room.kind != .direct, let raw = request.parameters["message"], let id = Int64(raw), id > 0,
                  let message = try await dependencies.store.message(MessageID(id)), message.chatID == chat, message.senderID == signedIn.user.id
            else { throw ChatPages.noSuchChat }
            let context = pages.context(signedIn)
            let layout = PageBuilder(context: context).layout(title: "Seen by", unreadTotal: try await dependencies.store.unreadTotal(for: signedIn.user.id))
            return pages.page(RoomPagesBuilder(context: context).seenBy(message, readers: try await dependencies.store.readers(of: chat), layout: layout))
        })
        router.get("/rooms/{id}/settings", gate.signedIn { [self] request, signedIn in
            try await settingsPage(signedIn, chat: try ChatPages.chatID(request))
        })
        router.post("/rooms/{id}/settings", bodyLimit: 8 * 1024, gate.signedIn { [self] request, signedIn in try await rename(request, signedIn) })
    }

    /// The room as `viewer` may see it; "no such chat" for a stranger.
    private func room(_ chat: ChatID, for viewer: User) async throws -> Chat {
        guard let room = try await dependencies.store.chat(chat), room.hasMember(viewer.id) else { throw ChatPages.noSuchChat }
        return room
    }

    private func membersPage(
        _ signedIn: SignedIn, chat: ChatID, handles: String = "", error: String? = nil, status: HTTPStatus = .ok
    ) async throws -> Response {
        let room = try await room(chat, for: signedIn.user)
        guard room.kind != .direct, let members = try await dependencies.store.members(of: chat, viewer: signedIn.user.id) else {
            throw ChatPages.noSuchChat
        }
        let context = pages.context(signedIn)
        let heading = room.heading(contact: nil)
        let layout = PageBuilder(context: context).layout(
            title: "Members of \(Headings.title(heading))", unreadTotal: try await dependencies.store.unreadTotal(for: signedIn.user.id)
        )
        let following = try await dependencies.store.membership(chat, signedIn.user.id)?.involvement
        return pages.page(
            RoomPagesBuilder(context: context).members(chat, heading, members: members, layout: layout, handles: handles, error: error, following: following),
            status: status
        )
    }

    /// Adds, takes out or leaves; back to the members page (the list, after leaving), or the page with why not.
    private func changeMembers(_ change: MemberChange, _ request: Request, _ signedIn: SignedIn, typed: String) async throws -> Response {
        switch await dependencies.events.send(.changingMembers(change), requestID: request.id.description) {
        case .membersChanged:
            return .redirect(to: change.removing == signedIn.user.id ? pages.paths.chats : pages.paths.members(change.chatID))
        case .memberChangeFailed(_, .notFound) where change.removing == nil || change.removing == signedIn.user.id:
            throw ChatPages.noSuchChat
        case .memberChangeFailed(_, let reason):
            return try await membersPage(signedIn, chat: change.chatID, handles: typed, error: reason.message, status: reason.httpStatus)
        default:
            return try await membersPage(signedIn, chat: change.chatID, handles: typed, error: Refusal.unavailable.message, status: .serviceUnavailable)
        }
    }

    private func settingsPage(
        _ signedIn: SignedIn, chat: ChatID, name: String? = nil, topic: String? = nil, refusal: Refusal? = nil, status: HTTPStatus = .ok
    ) async throws -> Response {
        let room = try await room(chat, for: signedIn.user)
        guard room.kind != .direct else { throw ChatPages.noSuchChat }
        let context = pages.context(signedIn)
        let heading = room.heading(contact: nil)
        let layout = PageBuilder(context: context).layout(
            title: "Settings of \(Headings.title(heading))", unreadTotal: try await dependencies.store.unreadTotal(for: signedIn.user.id)
        )
        return pages.page(RoomPagesBuilder(context: context).settings(chat, heading, layout: layout, name: name, topic: topic, refusal: refusal), status: status)
    }

    private func rename(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let chat = try ChatPages.chatID(request)
        let name = request.form["name"] ?? "", topic = request.form["topic"] ?? ""
        switch await dependencies.events.send(.renamingRoom(RoomRename(chatID: chat, by: signedIn.user.id, name: name, topic: topic)), requestID: request.id.description) {
        case .roomRenamed:
            return .redirect(to: pages.paths.chat(chat))
        case .renameFailed(_, .notFound), .renameFailed(_, .notARoom):
            throw ChatPages.noSuchChat
        case .renameFailed(_, let reason):
            return try await settingsPage(signedIn, chat: chat, name: name, topic: topic, refusal: reason, status: reason.httpStatus)
        default:
            return try await settingsPage(signedIn, chat: chat, name: name, topic: topic, refusal: .unavailable, status: .serviceUnavailable)
        }
    }

    /// The handles typed into the members field: separated by spaces or commas, each with or without "@".
    static func handles(in typed: String) -> [String] {
        var seen = Set<String>()
        return typed.split(whereSeparator: { $0.isWhitespace || $0 == "," }).map(String.init)
            .filter { seen.insert($0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "@"))).inserted }
    }

    private func createRoom(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let draft = CreateRoomBuilder.Draft(
            name: request.form["name"] ?? "", topic: request.form["topic"] ?? "",
            kind: request.form["kind"] == RoomKind.open.rawValue ? .open : .closed, members: request.form["members"] ?? ""
        )
        let ask = RoomRequest(
            creator: signedIn.user.id, kind: draft.kind, name: draft.name, topic: draft.topic,
            memberHandles: draft.kind == .closed ? Self.handles(in: draft.members) : []
        )
        switch await dependencies.events.send(.creatingRoom(ask), requestID: request.id.description) {
        case .created(let chat):
            return .redirect(to: pages.paths.chat(chat.id))
        case .createFailed(_, let reason):
            return try await newRoomPage(signedIn, draft, refusal: reason, status: reason.httpStatus)
        default:
            return try await newRoomPage(signedIn, draft, refusal: .unavailable, status: .serviceUnavailable)
        }
    }

    private func newRoomPage(_ signedIn: SignedIn, _ draft: CreateRoomBuilder.Draft, refusal: Refusal? = nil, status: HTTPStatus = .ok) async throws
        -> Response
    {
        let context = pages.context(signedIn)
        let unread = try await dependencies.store.unreadTotal(for: signedIn.user.id)
        let form = CreateRoomBuilder(context: context).form(draft, refusal: refusal)
        let layout = PageBuilder(context: context).layout(title: "New room", unreadTotal: unread)
        return pages.page(NewRoomPageViewModel(layout: layout, form: form), status: status)
    }
}
