import Foundation
import MicroHTTP
import ParlorDomain
import ParlorViews

/// `/settings`: display name, time zone and locale. A change is a `UserEvent` like any other.
extension ParlorApp {
    func registerSettingsRoutes(on router: inout Router) {
        router.get("/settings", signedIn { [self] request, signedIn in
            let builder = settingsBuilder(signedIn)
            return try await settingsPage(
                signedIn, form: builder.form(saved: request.query["saved"] == "1"), password: builder.passwordForm(changed: request.query["password"] == "changed"),
                avatarForm: builder.avatarForm(
                    changed: request.query["avatar"] == "changed", removed: request.query["avatar"] == "removed",
                    maximumBytes: configuration.imageLimits.maximumBytes
                )
            )
        })
        router.post("/settings/password", bodyLimit: 4 * 1024, signedIn { [self] request, signedIn in
            try await changePassword(request, signedIn)
        })
        router.post("/settings", bodyLimit: 16 * 1024, signedIn { [self] request, signedIn in
            let displayName = request.form["displayName"] ?? ""
            let timeZone = request.form["timeZone"] ?? signedIn.user.timeZoneIdentifier
            let locale = request.form["locale"] ?? signedIn.user.localeIdentifier
            guard StoredText.identifier(timeZone) != nil, TimeZone(identifier: timeZone) != nil,
                  SettingsBuilder.localeIdentifiers.contains(locale) || locale == signedIn.user.localeIdentifier
            else {
                let form = settingsBuilder(signedIn).form(displayName: displayName, error: "Choose a time zone and a language from the lists.")
                return try await settingsPage(signedIn, form: form, status: .unprocessableContent)
            }
            let change = ProfileChange(userID: signedIn.user.id, displayName: displayName, timeZoneIdentifier: timeZone, localeIdentifier: locale)
            switch await events.send(.updatingProfile(change), requestID: request.id.description) {
            case .profileUpdated:
                return .redirect(to: paths.settings + "?saved=1")
            case .profileUpdateFailed(_, let reason):
                let form = settingsBuilder(signedIn).form(displayName: displayName, error: reason.message)
                return try await settingsPage(signedIn, form: form, status: Self.status(for: reason))
            default:
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
        })
    }

    func settingsBuilder(_ signedIn: SignedIn) -> SettingsBuilder {
        SettingsBuilder(context: context(signedIn), timeZones: timeZones)
    }

    func settingsPage(
        _ signedIn: SignedIn, form: SettingsFormViewModel? = nil, password: PasswordFormViewModel? = nil,
        avatarForm: AvatarFormViewModel? = nil, status: HTTPStatus = .ok
    ) async throws -> Response {
        let context = context(signedIn)
        let builder = settingsBuilder(signedIn)
        let unread = try await store.unreadTotal(for: signedIn.user.id)
        let layout = PageBuilder(context: context).layout(title: "Settings", unreadTotal: unread)
        return page(
            SettingsPageViewModel(
                layout: layout, form: form ?? builder.form(), password: password ?? builder.passwordForm(),
                avatarForm: avatarForm ?? builder.avatarForm(maximumBytes: configuration.imageLimits.maximumBytes)
            ),
            status: status
        )
    }

    /// A new password, given the current one (a browser left signed in is not enough to take the account);
    /// every other session ends, and their open pages stop receiving. Wrong guesses count against the
    /// sign-in throttle of the handle.
    private func changePassword(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let current = request.form["currentPassword"] ?? ""
        let new = request.form["newPassword"] ?? ""
        let builder = settingsBuilder(signedIn)
        func again(_ message: String, _ field: SettingsBuilder.PasswordField, status: HTTPStatus = .unprocessableContent) async throws -> Response {
            try await settingsPage(signedIn, password: builder.passwordForm(error: message, at: field), status: status)
        }
        let handle = signedIn.user.handle
        let address = origin(request).address
        let now = clock.now
        let wait: TimeInterval?
        do {
            wait = try await throttle.wait(handle: handle, address: address, now: now)
        } catch {
            throttleFailed(error, request: request)
            return try await again(Self.throttleUnavailableMessage, .current, status: .serviceUnavailable)
        }
        if let wait {
            let minutes = max(1, Int((wait / 60).rounded(.up)))
            return try await again("Too many wrong passwords. Try again in \(minutes) minute\(minutes == 1 ? "" : "s").", .current, status: .tooManyRequests)
        }
        guard new.count >= AuthFormBuilder.minimumPasswordLength else {
            return try await again("Choose a password of at least \(AuthFormBuilder.minimumPasswordLength) characters.", .new)
        }
        guard new.count <= PasswordHasher.maximumLength, current.count <= PasswordHasher.maximumLength else {
            return try await again("A password can have at most \(PasswordHasher.maximumLength) characters.", current.count > PasswordHasher.maximumLength ? .current : .new)
        }
        guard let credential = try await store.credential(handle: handle) else { throw HTTPError(.forbidden, "This account has no password.") }
        let hash: String
        do {
            guard try await passwords.verified(current, against: credential.passwordHash) else {
                do {
                    try await throttle.recordFailure(handle: handle, address: address, now: now)
                } catch {
                    throttleFailed(error, request: request)
                    return try await again(Self.throttleUnavailableMessage, .current, status: .serviceUnavailable)
                }
                logger.notice("password change refused", metadata: ["request": "\(request.id)", "user": "\(signedIn.user.id)"])
                return try await again("That is not your current password.", .current)
            }
            hash = try await passwords.hashed(new)
        } catch {
            return try await again(Self.busyMessage, .current, status: .serviceUnavailable)
        }
        let ended = try await store.changePassword(of: signedIn.user.id, to: hash, keeping: signedIn.session.idHash)
        accountStreams.closeOthers(of: signedIn.user.id, except: signedIn.session.idHash)
        logger.info("password changed", metadata: ["request": "\(request.id)", "user": "\(signedIn.user.id)", "sessionsEnded": "\(ended)"])
        return .redirect(to: paths.settings + "?password=changed#password")
    }
}
