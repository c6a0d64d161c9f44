import Foundation
import MicroHTTP
import ParlorDomain
import ParlorEvents

/// A signed-in request: who, and the session (its CSRF token goes into every form).
struct SignedIn: Sendable {
    let user: User
    let session: StoredSession
}

/// Sign-in sessions. The browser keeps a random 256-bit id in an `HttpOnly`, `SameSite=Lax` cookie
/// (`Secure` over HTTPS); the store keeps only its hash, with a CSRF token and an expiry. Sessions start and end
/// through the router, so every instance hears of an ended one and closes its streams.
public struct Sessions: Sendable {
    static let cookieName = "parlor_session"
    /// Before sign-in, forms are protected by a random token in this cookie and in the form (double submit).
    static let formCookieName = "parlor_form"

    let accounts: any SessionReads
    let events: EventRouter
    let clock: any WallClock
    let lifetime: TimeInterval
    /// The cookies' `Path`: Parlor's base path, or "/" at the root.
    let cookiePath: String
    /// The same sessions read on the calling thread, when the store can.
    let immediate: (any ImmediateReads)?

    /// Sessions of `lifetime` seconds, kept in `accounts` (and read at once through `immediate`, when the store
    /// can); `basePath` is where the cookies are sent.
    public init(
        accounts: any SessionReads, events: EventRouter, immediate: (any ImmediateReads)? = nil, clock: any WallClock, lifetime: TimeInterval, basePath: String
    ) {
        self.accounts = accounts
        self.events = events
        self.immediate = immediate
        self.clock = clock
        self.lifetime = lifetime
        cookiePath = basePath.isEmpty ? "/" : basePath
    }

    /// Starts a session for `user`; the answer carries the cookie.
    func start(for user: User, secure: Bool, requestID: String) async throws -> SetCookie {
        let id = Sodium.randomToken()
        let now = clock.now
        let session = StoredSession(
            idHash: Sodium.hash(id), userID: user.id, csrfToken: Sodium.randomToken(), createdAt: now, expiresAt: now.addingTimeInterval(lifetime)
        )
        guard case .signedIn = await events.send(.signingIn(session), requestID: requestID) else {
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
        return SetCookie(
            name: Self.cookieName, value: id, path: cookiePath, maxAge: Int(lifetime),
            secure: secure, httpOnly: true, sameSite: .lax
        )
    }

    /// The request's session, if it has a live one.
    func current(_ request: Request) async throws -> SignedIn? {
        guard let idHash = Self.sessionIDHash(request) else { return nil }
        guard let live = try await accounts.liveSession(idHash: idHash, now: clock.now) else { return nil }
        return SignedIn(user: live.user, session: live.session)
    }

    /// The request's session, if it has a live one, read on the calling thread through `reads`.
    func currentNow(_ request: Request, _ reads: any ImmediateReads) throws -> SignedIn? {
        guard let idHash = Self.sessionIDHash(request) else { return nil }
        guard let live = try reads.liveSessionNow(idHash: idHash, now: clock.now) else { return nil }
        return SignedIn(user: live.user, session: live.session)
    }

    /// Ends the request's session (its streams close on every instance); the answer carries the expired cookie.
    func end(_ request: Request) async throws -> SetCookie {
        if let idHash = Self.sessionIDHash(request) {
            switch await events.send(.signingOut(sessionHash: idHash), requestID: request.id.description) {
            // Ended already (signed out in another tab): the cookie goes all the same.
            case .sessionsEnded, .refused(.notFound): break
            default: throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
        }
        return SetCookie.expired(Self.cookieName, path: cookiePath)
    }

    /// The stored form of the request's session id; nil without a plausible one (no hashing of megabytes).
    private static func sessionIDHash(_ request: Request) -> String? {
        guard let id = request.cookies[cookieName], !id.isEmpty, id.utf8.count <= 128 else { return nil }
        return Sodium.hash(id)
    }

    /// The form token of a visitor who is not signed in, and the cookie to set when they have none yet.
    func formToken(_ request: Request, secure: Bool) -> (token: String, cookie: SetCookie?) {
        if let token = request.cookies[Self.formCookieName], token.utf8.count == 43 { return (token, nil) }
        let token = Sodium.randomToken()
        return (token, SetCookie(name: Self.formCookieName, value: token, path: cookiePath, secure: secure, httpOnly: true, sameSite: .lax))
    }

    /// Whether a POST carries `expected` as its `csrf` field (for an upload, read once its body is), else as the
    /// script's `X-Parlor-CSRF` field. Never from a URL: a token there would reach proxies' logs and browsers' history.
    static func formCarries(_ request: Request, token expected: String) -> Bool {
        Sodium.constantTimeEqual(request.form["csrf"] ?? request.headers["X-Parlor-CSRF"] ?? "", expected)
    }
}
