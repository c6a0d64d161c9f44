import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

/// Making a room: its name, topic, kind and (closed) members, in a form that works without the script.
public struct RoomRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let events: EventRouter
        let store: any ChatStore

        public init(gate: SignInGate, pages: WebPages, events: EventRouter, store: any ChatStore) {
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
