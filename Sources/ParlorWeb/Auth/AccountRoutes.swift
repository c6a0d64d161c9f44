import Foundation
import MicroHTTP
import ParlorDomain
import ParlorViews

/// Sign up, sign in, sign out. Before sign-in the forms are protected by a token in a cookie and in
/// the form; afterwards by the session's token.
extension ParlorApp {
    func registerAccountRoutes(on router: inout Router) {
        router.get("/signup") { [self] request in
            try await anonymousPage(request) { token in AuthFormBuilder(paths: paths, csrfToken: token).signUp() }
        }
        router.get("/signin") { [self] request in
            try await anonymousPage(request) { token in AuthFormBuilder(paths: paths, csrfToken: token).signIn() }
        }
        router.post("/signup", bodyLimit: 16 * 1024) { [self] request in try await signUp(request) }
        router.post("/signin", bodyLimit: 16 * 1024) { [self] request in try await signIn(request) }
        router.post("/signout", signedIn { [self] request, _ in
            .redirect(to: paths.signIn).settingCookie(try await sessions.end(request))
        })
    }

    /// A sign-in or sign-up page; a signed-in person goes to their chats instead.
    private func anonymousPage(_ request: Request, form: (String) -> AuthFormViewModel) async throws -> Response {
        if try await sessions.current(request) != nil { return .redirect(to: paths.chats) }
        let secure = origin(request).isHTTPS
        let (token, cookie) = sessions.formToken(request, secure: secure)
        var response = authPage(form(token))
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func authPage(_ form: AuthFormViewModel, status: HTTPStatus = .ok) -> Response {
        let layout = PageBuilder.signedOutLayout(title: form.submitLabel, paths: paths, csrfToken: form.csrfToken)
        return page(AuthPageViewModel(layout: layout, form: form), status: status)
    }

    /// Checks an anonymous POST's origin and form token. On failure, the answer: the form again, with why.
    private func refusedAnonymousPost(_ request: Request, form: (AuthFormBuilder, String) -> AuthFormViewModel) -> Response? {
        let origin = origin(request)
        let cookieToken = request.cookies[Sessions.formCookieName] ?? ""
        if origin.allows(request), Sessions.formCarries(request, token: cookieToken) { return nil }
        let (token, cookie) = sessions.formToken(request, secure: origin.isHTTPS)
        var response = authPage(form(AuthFormBuilder(paths: paths, csrfToken: token), Self.forgedFormMessage), status: .forbidden)
        if let cookie { response.setCookie(cookie) }
        return response
    }

    private func signUp(_ request: Request) async throws -> Response {
        let handle = request.form["handle"] ?? ""
        let displayName = request.form["displayName"] ?? ""
        let password = request.form["password"] ?? ""
        if let refused = refusedAnonymousPost(request, form: { $0.signUp(handle: handle, displayName: displayName, error: $1) }) {
            return refused
        }
        let origin = origin(request)
        let builder = AuthFormBuilder(paths: paths, csrfToken: request.form["csrf"] ?? "")
        func again(_ message: String, _ field: AuthFormBuilder.Field) -> Response {
            authPage(builder.signUp(handle: handle, displayName: displayName, error: message, field: field), status: .unprocessableContent)
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
            return Self.busy(authPage(builder.signUp(handle: handle, displayName: displayName, error: Self.busyMessage, field: .password),
                                      status: .serviceUnavailable))
        }
        let timeZone = request.form["timeZone"].flatMap { TimeZone(identifier: $0) == nil ? nil : $0 } ?? "UTC"
        let result = await events.send(.signingUp(NewUser(
            handle: handle, displayName: displayName, timeZoneIdentifier: timeZone,
            localeIdentifier: Self.locale(from: request), passwordHash: hash
        )), requestID: request.id.description)
        switch result {
        case .signedUp(let user):
            logger.info("account created", metadata: ["request": "\(request.id)", "user": "\(user.id)"])
            let cookie = try await sessions.start(for: user, secure: origin.isHTTPS)
            return Response.redirect(to: paths.chats).settingCookie(cookie).settingCookie(SetCookie.expired(Sessions.formCookieName, path: sessions.cookiePath))
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
        let origin = origin(request)
        let builder = AuthFormBuilder(paths: paths, csrfToken: request.form["csrf"] ?? "")
        let normalized = (try? Handle.normalized(handle)) ?? handle.lowercased()
        let now = clock.now
        func throttleUnavailable(_ error: any Error) -> Response {
            throttleFailed(error, request: request)
            return Self.busy(authPage(builder.signIn(handle: handle, error: Self.throttleUnavailableMessage, field: .password), status: .serviceUnavailable))
        }
        let wait: TimeInterval?
        do {
            wait = try await throttle.wait(handle: normalized, address: origin.address, now: now)
        } catch {
            return throttleUnavailable(error)
        }
        if let wait {
            metrics.signInLockouts.increment()
            let minutes = max(1, Int((wait / 60).rounded(.up)))
            let message = "Too many attempts to sign in. Try again in \(minutes) minute\(minutes == 1 ? "" : "s")."
            var response = authPage(builder.signIn(handle: handle, error: message, field: .password), status: .tooManyRequests)
            response.headers.replace("Retry-After", with: String(Int(wait.rounded(.up))))
            return response
        }
        let credential = password.count <= PasswordHasher.maximumLength ? try await store.credential(handle: normalized) : nil
        // An unknown handle is checked against a decoy, so it takes as long as a wrong password.
        let verified: Bool
        do {
            verified = try await passwords.verified(password, against: credential?.passwordHash ?? decoyHash)
        } catch {
            // Not a failed attempt: nothing was checked, so the throttle does not count it.
            return Self.busy(authPage(builder.signIn(handle: handle, error: Self.busyMessage, field: .password), status: .serviceUnavailable))
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
            try await throttle.recordSuccess(handle: normalized)
        } catch {
            throttleFailed(error, request: request)
        }
        let cookie = try await sessions.start(for: credential.user, secure: origin.isHTTPS)
        return Response.redirect(to: paths.chats).settingCookie(cookie).settingCookie(SetCookie.expired(Sessions.formCookieName, path: sessions.cookiePath))
    }

    static let busyMessage = "Parlor is busy signing people in. Please try again in a few seconds."
    static let throttleUnavailableMessage = "Signing in is not possible for a moment. Please try again in a few seconds."

    /// The throttle's shared store failed: said in the log and counted, never passed over in silence.
    func throttleFailed(_ error: any Error, request: Request) {
        metrics.signInThrottleUnavailable.increment()
        logger.error("sign-in throttle unavailable", metadata: ["request": "\(request.id)", "error": "\(String(describing: error).escapedForLog)"])
    }

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
