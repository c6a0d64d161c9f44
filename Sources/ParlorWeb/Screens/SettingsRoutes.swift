import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorImages
import ParlorViews

/// `/settings`: display name, time zone and locale, the password, and the photo a person shows. A change
/// is an event like any other (`UserEvent`, `AccountEvent`).
public struct SettingsRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let events: EventRouter
        let store: any ChatReads & SessionReads & AdministrationReads
        let passwords: PasswordHasher
        let throttle: SignInThrottle
        let images: any ImageService
        let media: MediaFolder
        let maximumPhotoBytes: Int
        let metrics: ParlorMetrics
        /// Where push subscriptions and notification preferences are kept, and the key browsers subscribe with; nil:
        /// Settings says nothing of notifications.
        let push: (store: any PushReads, serverKey: String)?
        let logger: Logger

        public init(
            gate: SignInGate, pages: WebPages, events: EventRouter, store: any ChatReads & SessionReads & AdministrationReads, passwords: PasswordHasher,
            throttle: SignInThrottle, images: any ImageService, media: MediaFolder, maximumPhotoBytes: Int,
            metrics: ParlorMetrics, push: (store: any PushReads, serverKey: String)? = nil, logger: Logger
        ) {
            self.push = push
            self.gate = gate
            self.pages = pages
            self.events = events
            self.store = store
            self.passwords = passwords
            self.throttle = throttle
            self.images = images
            self.media = media
            self.maximumPhotoBytes = maximumPhotoBytes
            self.metrics = metrics
            self.logger = logger
        }
    }

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var pages: WebPages { dependencies.pages }
    private var paths: Paths { dependencies.pages.paths }
    private var store: any ChatReads & SessionReads & AdministrationReads { dependencies.store }
    /// The zones settings offers: the system's list under current city names, read once rather than on every
    /// settings page.
    private let timeZones = TimeZoneNames.offered(TimeZone.knownTimeZoneIdentifiers)

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.get("/settings", gate.signedIn { [self] request, signedIn in
            let builder = settingsBuilder(signedIn)
            return try await settingsPage(
                signedIn, form: builder.form(saved: request.query["saved"] == "1"), password: builder.passwordForm(changed: request.query["password"] == "changed"),
                avatarForm: builder.avatarForm(
                    changed: request.query["avatar"] == "changed", removed: request.query["avatar"] == "removed",
                    maximumBytes: dependencies.maximumPhotoBytes
                ),
                notificationsSaved: Self.notificationsSaved(request.query["push"])
            )
        })
        router.post("/settings/password", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            try await changePassword(request, signedIn)
        })
        router.post("/settings", bodyLimit: 16 * 1024, gate.signedIn { [self] request, signedIn in
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
            switch await dependencies.events.send(.updatingProfile(change), requestID: request.id.description) {
            case .profileUpdated:
                return .redirect(to: paths.settings + "?saved=1")
            case .profileUpdateFailed(_, let reason):
                let form = settingsBuilder(signedIn).form(displayName: displayName, error: reason.message)
                return try await settingsPage(signedIn, form: form, status: reason.httpStatus)
            default:
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
        })
        // The upload goes to disk as it arrives; 413 before the body when Content-Length says more.
        router.post(
            "/settings/avatar", bodyLimit: dependencies.maximumPhotoBytes + 64 * 1024, uploads: UploadLimits(files: 1, fields: 4),
            admission: gate.uploadAdmission(), gate.signedIn { [self] request, signedIn in try await setAvatar(request, signedIn) }
        )
        router.post("/settings/avatar/remove", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            let change = ProfileChange(userID: signedIn.user.id, removesAvatar: true)
            guard case .profileUpdated = await dependencies.events.send(.updatingProfile(change), requestID: request.id.description) else {
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
            return .redirect(to: paths.settings + "?avatar=removed#avatar")
        })
    }

    func settingsBuilder(_ signedIn: SignedIn) -> SettingsBuilder {
        SettingsBuilder(context: pages.context(signedIn), timeZones: timeZones)
    }

    func settingsPage(
        _ signedIn: SignedIn, form: SettingsFormViewModel? = nil, password: PasswordFormViewModel? = nil,
        avatarForm: AvatarFormViewModel? = nil, notificationsSaved: SettingsBuilder.NotificationsSaved? = nil, status: HTTPStatus = .ok
    ) async throws -> Response {
        let context = pages.context(signedIn)
        let builder = settingsBuilder(signedIn)
        let unread = try await store.unreadTotal(for: signedIn.user.id)
        var notifications: NotificationSettingsViewModel?
        if let push = dependencies.push {
            notifications = builder.notifications(
                browsers: try await push.store.pushSubscriptions(of: signedIn.user.id),
                preferences: try await push.store.notificationPreferences(of: signedIn.user.id), serverKey: push.serverKey, saved: notificationsSaved
            )
        }
        let layout = PageBuilder(context: context).layout(title: "Settings", unreadTotal: unread)
        let administers = try await store.account(signedIn.user.id)?.isActiveAdministrator == true
        return pages.page(
            SettingsPageViewModel(
                layout: layout, form: form ?? builder.form(), password: password ?? builder.passwordForm(),
                avatarForm: avatarForm ?? builder.avatarForm(maximumBytes: dependencies.maximumPhotoBytes), notifications: notifications,
                administrationURL: administers ? pages.paths.administration : nil
            ),
            status: status
        )
    }

    /// What `?push=` says just happened: "saved", "removed", "tested-3".
    static func notificationsSaved(_ value: String?) -> SettingsBuilder.NotificationsSaved? {
        switch value {
        case "saved": return .preferences
        case "removed": return .removed
        case let value? where value.hasPrefix("tested-"):
            guard let count = Int(value.dropFirst(7)), (0...PushRoutes.browserLimit).contains(count) else { return nil }
            return .tested(count)
        default: return nil
        }
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
        let address = gate.origin(request).address
        let now = pages.clock.now
        let wait: TimeInterval?
        do {
            wait = try await dependencies.throttle.wait(handle: handle, address: address, now: now)
        } catch {
            dependencies.metrics.throttleUnavailable(error, request: request, logger: dependencies.logger)
            return try await again(SignInThrottle.unavailableMessage, .current, status: .serviceUnavailable)
        }
        if let wait {
            return try await again("Too many wrong passwords. Try again in \(SignInThrottle.spoken(wait)).", .current, status: .tooManyRequests)
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
            guard try await dependencies.passwords.verified(current, against: credential.passwordHash) else {
                do {
                    try await dependencies.throttle.recordFailure(handle: handle, address: address, now: now)
                } catch {
                    dependencies.metrics.throttleUnavailable(error, request: request, logger: dependencies.logger)
                    return try await again(SignInThrottle.unavailableMessage, .current, status: .serviceUnavailable)
                }
                dependencies.logger.notice("password change refused", metadata: ["request": "\(request.id)", "user": "\(signedIn.user.id)"])
                return try await again("That is not your current password.", .current)
            }
            hash = try await dependencies.passwords.hashed(new)
        } catch {
            return try await again(PasswordHasher.busyMessage, .current, status: .serviceUnavailable)
        }
        // The other sessions end in the same change; their streams close on every instance when it is heard there.
        let change = PasswordChange(userID: signedIn.user.id, passwordHash: hash, keeping: signedIn.session.idHash)
        guard case .sessionsEnded(let ended) = await dependencies.events.send(.changingPassword(change), requestID: request.id.description) else {
            return try await again(Refusal.unavailable.message, .current, status: .serviceUnavailable)
        }
        dependencies.logger.info("password changed", metadata: ["request": "\(request.id)", "user": "\(signedIn.user.id)", "sessionsEnded": "\(ended.count)"])
        return .redirect(to: paths.settings + "?password=changed#password")
    }

    /// A new face (``AvatarUploads``), then the profile change that records it, which every open page showing the
    /// person applies live.
    private func setAvatar(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        func refused(_ message: String, _ status: HTTPStatus) async throws -> Response {
            try await settingsPage(
                signedIn, avatarForm: settingsBuilder(signedIn).avatarForm(error: message, maximumBytes: dependencies.maximumPhotoBytes), status: status
            )
        }
        guard let upload = request.form.upload("avatar"), upload.size > 0 else {
            return try await refused("Choose a photo (\(ImageFormat.acceptedNames)).", .unprocessableContent)
        }
        let avatar: NewImage
        do {
            avatar = try await AvatarUploads(images: dependencies.images, media: dependencies.media, logger: dependencies.logger)
                .avatar(for: signedIn.user.id, upload: upload.path, at: pages.clock.now, requestID: request.id.description)
        } catch {
            return try await refused(error.message, error.status)
        }
        let change = ProfileChange(userID: signedIn.user.id, avatar: avatar)
        switch await dependencies.events.send(.updatingProfile(change), requestID: request.id.description) {
        case .profileUpdated:
            return .redirect(to: paths.settings + "?avatar=changed#avatar")
        case .profileUpdateFailed(_, let reason):
            return try await refused(reason.message, reason.httpStatus)
        default:
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
    }
}
