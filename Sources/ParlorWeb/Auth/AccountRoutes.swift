import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

/// Sign up, sign in, sign out. Before sign-in the forms are protected by a token in a cookie and in
/// the form; afterwards by the session's token.
public struct AccountRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let events: EventRouter
        let store: any SessionReads
        /// The sign-up policy and join link, read at each request.
        let administration: any AdministrationReads
        let passwords: PasswordHasher
        let throttle: SignInThrottle
        /// Verified against when a handle is unknown, so a wrong handle costs as much as a wrong password.
        let decoyHash: String
        let metrics: ParlorMetrics
        let logger: Logger

        public init(
            gate: SignInGate, pages: WebPages, events: EventRouter, store: any SessionReads, administration: any AdministrationReads,
            passwords: PasswordHasher, throttle: SignInThrottle, decoyHash: String, metrics: ParlorMetrics, logger: Logger
        ) {
            self.administration = administration
            self.gate = gate
            self.pages = pages
            self.events = events
            self.store = store
            self.passwords = passwords
            self.throttle = throttle
            self.decoyHash = decoyHash
            self.metrics = metrics
            self.logger = logger
        }
    }

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var sessions: Sessions { dependencies.gate.sessions }
    private var paths: Paths { dependencies.pages.paths }
    private var passwords: PasswordHasher { dependencies.passwords }
    private var throttle: SignInThrottle { dependencies.throttle }
    private var metrics: ParlorMetrics { dependencies.metrics }
    private var logger: Logger { dependencies.logger }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.get("/") { [self] request in
            if try await sessions.current(request) != nil { return .redirect(to: paths.chats) }
            // A Parlor on its first run asks for its administrator.
            return .redirect(to: try await dependencies.administration.settings().hasPeople ? paths.signIn : paths.signUp)
        }
        router.get("/signup") { [self] request in
            let settings = try await dependencies.administration.settings()
            return try await anonymousPage(request, status: settings.signUpPolicy == .invitation && settings.hasPeople ? .forbidden : .ok) { token in
                Self.signUpForm(AuthFormBuilder(paths: paths, csrfToken: token), settings)
            }
        }
        router.get("/join/{code:secret}") { [self] request in
            let code = request.parameters["code"] ?? ""
            let refusal = try await joinLinkRefusal(code)
            return try await anonymousPage(request, status: refusal?.httpStatus ?? .ok) { token in
                let builder = AuthFormBuilder(paths: paths, csrfToken: token)
                return refusal.map { builder.signUpClosed($0.message) } ?? builder.joining(code: code)
            }
        }
        router.get("/signin") { [self] request in
            try await anonymousPage(request) { token in AuthFormBuilder(paths: paths, csrfToken: token).signIn() }
        }
        router.post("/signup", bodyLimit: 16 * 1024) { [self] request in try await signUp(request, code: nil) }
        router.post("/join/{code:secret}", bodyLimit: 16 * 1024) { [self] request in try await signUp(request, code: request.parameters["code"] ?? "") }
        router.post("/signin", bodyLimit: 16 * 1024) { [self] request in try await signIn(request) }
        router.post("/signout", gate.signedIn { [self] request, _ in
            .redirect(to: paths.signIn).settingCookie(try await sessions.end(request))
        })
    }

    /// The sign-up form as the Parlor's settings have it: its administrator's on a first run, none (why not) when it
    /// takes people by invitation, else anyone's.
    static func signUpForm(_ builder: AuthFormBuilder, _ settings: ParlorSettings) -> AuthFormViewModel {
        guard settings.hasPeople else { return builder.firstAdministrator() }
        if settings.signUpPolicy == .invitation { return builder.signUpClosed(Refusal.invitationRequired.message) }
        return builder.signUp()
    }

    /// Why the join link with `code` (from the URL: anything) lets nobody in now; nil while it does. The store checks
    /// again when the account is made.
    private func joinLinkRefusal(_ code: String) async throws -> Refusal? {
        guard JoinLink.isPlausible(code), let link = try await dependencies.administration.settings().joinLink,
              Sodium.constantTimeEqual(link.code, code)
        else { return .joinLinkInvalid }
        return link.refusal(at: dependencies.pages.clock.now)
    }

    /// A sign-in or sign-up page; a signed-in person goes to their chats instead.
    private func anonymousPage(_ request: Request, status: HTTPStatus = .ok, form: (String) -> AuthFormViewModel) async throws -> Response {
        if try await sessions.current(request) != nil { return .redirect(to: paths.chats) }
        let secure = gate.origin(request).isHTTPS
        let (token, cookie) = sessions.formToken(request, secure: secure)
        var response = authPage(form(token), status: status)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func authPage(_ form: AuthFormViewModel, status: HTTPStatus = .ok) -> Response {
        let layout = PageBuilder.signedOutLayout(title: form.submitLabel, paths: paths, csrfToken: form.csrfToken)
        return dependencies.pages.page(AuthPageViewModel(layout: layout, form: form), status: status)
    }

    /// Checks an anonymous POST's origin and form token. On failure, the answer: the form again, with why.
    private func refusedAnonymousPost(_ request: Request, form: (AuthFormBuilder, String) -> AuthFormViewModel) -> Response? {
        let origin = gate.origin(request)
        let cookieToken = request.cookies[Sessions.formCookieName] ?? ""
        if origin.allows(request), Sessions.formCarries(request, token: cookieToken) { return nil }
        let (token, cookie) = sessions.formToken(request, secure: origin.isHTTPS)
        var response = authPage(form(AuthFormBuilder(paths: paths, csrfToken: token), SignInGate.forgedFormMessage), status: .forbidden)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    /// Creates an account from the sign-up form, or from the join link's (`code`).
    private func signUp(_ request: Request, code: String?) async throws -> Response {
        let handle = request.form["handle"] ?? ""
        let displayName = request.form["displayName"] ?? ""
        let password = request.form["password"] ?? ""
        let settings = try await dependencies.administration.settings()
        func form(_ builder: AuthFormBuilder, _ error: String, _ field: AuthFormBuilder.Field?) -> AuthFormViewModel {
            guard let code else {
                if !settings.hasPeople { return builder.firstAdministrator(handle: handle, displayName: displayName, error: error, field: field) }
                return builder.signUp(handle: handle, displayName: displayName, error: error, field: field)
            }
            return builder.joining(code: code, handle: handle, displayName: displayName, error: error, field: field)
        }
        if let refused = refusedAnonymousPost(request, form: { form($0, $1, nil) }) {
            return refused
        }
        let origin = gate.origin(request)
        let builder = AuthFormBuilder(paths: paths, csrfToken: request.form["csrf"] ?? "")
        func again(_ message: String, _ field: AuthFormBuilder.Field) -> Response {
            authPage(form(builder, message, field), status: .unprocessableContent)
        }
        // A link that lets nobody in, or no link where one is needed, says so before the slow hash (the store checks again).
        if let code, let refusal = try await joinLinkRefusal(code) {
            return authPage(builder.signUpClosed(refusal.message), status: refusal.httpStatus)
        }
        if code == nil, settings.hasPeople, settings.signUpPolicy == .invitation {
            return authPage(builder.signUpClosed(Refusal.invitationRequired.message), status: Refusal.invitationRequired.httpStatus)
        }
        // Checked here only so a bad handle is reported before the slow hash; the router checks again.
        guard (try? Handle.normalized(handle)) != nil else { return again(Refusal.invalidHandle.message, .handle) }
        let length = password.count
        guard length >= AuthFormBuilder.minimumPasswordLength else {
            return again("Choose a password of at least \(AuthFormBuilder.minimumPasswordLength) characters.", .password)
        }
        guard length <= PasswordHasher.maximumLength else {
            return again("A password can have at most \(PasswordHasher.maximumLength) characters.", .password)
        }
        let hash: String
        do {
            hash = try await passwords.hashed(password)
        } catch .busy {
            return Self.busy(authPage(form(builder, PasswordHasher.busyMessage, .password), status: .serviceUnavailable))
        }
        let timeZone = request.form["timeZone"].flatMap { TimeZone(identifier: $0) == nil ? nil : $0 } ?? "UTC"
        let result = await dependencies.events.send(.signingUp(NewUser(
            handle: handle, displayName: displayName, timeZoneIdentifier: timeZone,
            localeIdentifier: Self.locale(from: request), passwordHash: hash, joinCode: code
        )), requestID: request.id.description)
        switch result {
        case .signedUp(let user):
            logger.info("account created", metadata: ["request": "\(request.id)", "user": "\(user.id)"])
            let cookie = try await sessions.start(for: user, secure: origin.isHTTPS, requestID: request.id.description)
            return Response.redirect(to: paths.chats).settingCookie(cookie).settingCookie(SetCookie.expired(Sessions.formCookieName, path: sessions.cookiePath))
        case .signUpFailed(_, let reason) where [.invitationRequired, .joinLinkInvalid, .joinLinkExpired, .joinLinkUsedUp].contains(reason):
            return authPage(builder.signUpClosed(reason.message), status: reason.httpStatus)
        case .signUpFailed(_, let reason):
            // The handle was checked above, so a text refusal here is about the display name.
            let field: AuthFormBuilder.Field = reason == .invalidDisplayName || reason == .controlCharacter ? .displayName : .handle
            return again(reason.message, field)
        default:
            return again(Refusal.unavailable.message, .handle)
        }
    }

    private func signIn(_ request: Request) async throws -> Response {
        let handle = request.form["handle"] ?? ""
        let password = request.form["password"] ?? ""
        if let refused = refusedAnonymousPost(request, form: { $0.signIn(handle: handle, error: $1) }) { return refused }
        let origin = gate.origin(request)
        let builder = AuthFormBuilder(paths: paths, csrfToken: request.form["csrf"] ?? "")
        let normalized = (try? Handle.normalized(handle)) ?? handle.lowercased()
        let now = dependencies.pages.clock.now
        func throttleUnavailable(_ error: any Error) -> Response {
            metrics.throttleUnavailable(error, request: request, logger: logger)
            return Self.busy(authPage(builder.signIn(handle: handle, error: SignInThrottle.unavailableMessage, field: .password), status: .serviceUnavailable))
        }
        let wait: TimeInterval?
        do {
            wait = try await throttle.wait(handle: normalized, address: origin.address, now: now)
        } catch {
            return throttleUnavailable(error)
        }
        if let wait {
            metrics.signInLockouts.increment()
            let message = "Too many attempts to sign in. Try again in \(SignInThrottle.spoken(wait))."
            var response = authPage(builder.signIn(handle: handle, error: message, field: .password), status: .tooManyRequests)
            response.headers.replace("Retry-After", with: String(max(1, Int(min(wait, 86_400).rounded(.up)))))
            return response
        }
        let credential = password.count <= PasswordHasher.maximumLength ? try await dependencies.store.credential(handle: normalized) : nil
        // An unknown handle is checked against a decoy, so it takes as long as a wrong password.
        let verified: Bool
        do {
            verified = try await passwords.verified(password, against: credential?.passwordHash ?? dependencies.decoyHash)
        } catch {
            // Not a failed attempt: nothing was checked, so the throttle does not count it.
            return Self.busy(authPage(builder.signIn(handle: handle, error: PasswordHasher.busyMessage, field: .password), status: .serviceUnavailable))
        }
        let matches = verified && credential != nil
        guard let credential, matches else {
            do {
                try await throttle.recordFailure(handle: normalized, address: origin.address, now: now)
            } catch {
                return throttleUnavailable(error)
            }
            metrics.signInFailures.increment()
            logger.notice("sign-in refused", metadata: ["request": "\(request.id)", "address": "\(origin.address.escapedForLog)"])
            return authPage(
                builder.signIn(handle: handle, error: "That handle and password do not match an account.", field: .password),
                status: .unprocessableContent
            )
        }
        do {
            try await throttle.recordSuccess(handle: normalized, address: origin.address)
        } catch {
            metrics.throttleUnavailable(error, request: request, logger: logger)
        }
        // Said only to whoever knows the password.
        guard !credential.isDeactivated else {
            logger.notice("sign-in of a deactivated account refused", metadata: ["request": "\(request.id)", "user": "\(credential.user.id)"])
            return authPage(builder.signIn(handle: handle, error: Self.deactivatedMessage, field: .password), status: .forbidden)
        }
        let cookie = try await sessions.start(for: credential.user, secure: origin.isHTTPS, requestID: request.id.description)
        return Response.redirect(to: paths.chats).settingCookie(cookie).settingCookie(SetCookie.expired(Sessions.formCookieName, path: sessions.cookiePath))
    }

    static let deactivatedMessage = "An administrator has deactivated this account. Ask them to reactivate it."

    /// A 503 that says when to try again.
    private static func busy(_ page: Response) -> Response {
        var response = page
        response.headers.replace("Retry-After", with: "5")
        return response
    }

    /// The first language the browser asks for that Foundation knows, as a locale identifier.
    static func locale(from request: Request) -> String {
        let first = request.headers["Accept-Language"]?.split(separator: ",").first?.split(separator: ";").first
        let identifier = first.map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "-", with: "_") } ?? ""
        guard !identifier.isEmpty, identifier.count <= 20, Locale.availableIdentifiers.contains(identifier) else { return "en_US" }
        return identifier
    }
}
