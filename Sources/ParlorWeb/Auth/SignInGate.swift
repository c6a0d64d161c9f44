import MicroHTTP
import ParlorDomain
import ParlorLive
import ParlorViews

/// What stands before every signed-in route: a live session, and for a change this site's origin and the
/// session's CSRF token, then room in the live pages of the chat it changes.
public struct SignInGate: Sendable {
    let sessions: Sessions
    let paths: Paths
    let trustedProxies: Set<String>
    /// Whose lanes a change waits for while they are far behind.
    let live: EventHandler

    public init(sessions: Sessions, paths: Paths, trustedProxies: Set<String>, live: EventHandler) {
        self.sessions = sessions
        self.paths = paths
        self.trustedProxies = trustedProxies
        self.live = live
    }

    static let forgedFormMessage =
        "This form was out of date or came from another site, so nothing was changed. Check it and send it again."

    func origin(_ request: Request) -> RequestOrigin {
        RequestOrigin(request, trustedProxies: trustedProxies)
    }

    /// Wraps a handler that needs a signed-in person. Without a session a page goes to sign-in and a
    /// POST is refused; every POST must carry the session's CSRF token and come from this site. A refused
    /// POST gets 403 with `refused`'s page (the form again, with a fresh token) or a page saying why.
    func signedIn(
        refused: (@Sendable (Request, SignedIn) async throws -> Response)? = nil,
        _ handler: @escaping @Sendable (Request, SignedIn) async throws -> Response
    ) -> AsyncHandler {
        { [self] request in
            guard let signedIn = try await sessions.current(request) else {
                if request.method == .post {
                    throw HTTPError(.forbidden, "Your session has ended, so nothing was changed. Sign in and try again.")
                }
                return .redirect(to: paths.signIn)
            }
            if request.method == .post {
                guard origin(request).allows(request), Sessions.formCarries(request, token: signedIn.session.csrfToken) else {
                    return try await forged(request, signedIn, refused: refused)
                }
                // A change waits while the open pages of its chat (`/rooms/{id}/…`) are far behind: under a
                // flood of sends the answers slow down, and every page still shows every message, in order.
                // A change that names no chat waits for every lane.
                let chat = request.parameters["id"].flatMap { Int64($0) }.flatMap { $0 > 0 ? ChatID($0) : nil }
                await live.room(for: chat)
            }
            return try await handler(request, signedIn)
        }
    }

    /// The first try of a page that needs a signed-in person, on the connection's thread: nil (answered by the
    /// route's `async` handler) when the store cannot read the session at once or `handler` cannot answer at
    /// once. Pages only: a change always goes through ``signedIn(refused:_:)``.
    func signedInNow(_ handler: @escaping @Sendable (Request, SignedIn) throws -> Response?) -> ImmediateHandler {
        { [self] request in
            guard request.method != .post, let reads = sessions.immediate else { return nil }
            guard let signedIn = try sessions.currentNow(request, reads) else { return .redirect(to: paths.signIn) }
            return try handler(request, signedIn)
        }
    }

    /// The check on an upload's head, before a byte of its body is stored: a live session, and nothing that says
    /// another site sent it (`Origin`, `Sec-Fetch-Site`). Refused, the body is never stored; `refused` renders the
    /// form again (its text was in the body, so it comes back empty, with the reason). The session's token is
    /// checked from the body once it is read, by ``signedIn(refused:_:)``: a wrong one stores nothing, and the
    /// request's files go with it. No token is ever in a URL.
    func uploadAdmission(refused: (@Sendable (Request, SignedIn) async throws -> Response)? = nil) -> Admission {
        { [self] request in
            guard let signedIn = try await sessions.current(request) else {
                throw HTTPError(.forbidden, "Your session has ended, so nothing was changed. Sign in and try again.")
            }
            guard origin(request).allows(request) else {
                return try await forged(request, signedIn, refused: refused)
            }
            return nil
        }
    }

    /// The answer to a POST that did not come from this site's form: `refused`'s page (the form again) with
    /// 403, or a page saying why.
    private func forged(
        _ request: Request, _ signedIn: SignedIn, refused: (@Sendable (Request, SignedIn) async throws -> Response)?
    ) async throws -> Response {
        guard let refused, !request.isFromScript else { throw HTTPError(.forbidden, Self.forgedFormMessage) }
        var response = try await refused(request, signedIn)
        response.status = .forbidden
        return response
    }
}
