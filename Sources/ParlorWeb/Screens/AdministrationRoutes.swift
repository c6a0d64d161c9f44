import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorImages
import ParlorViews

/// The Administration page and its forms: who may join and how, the join link, who may create rooms, people's roles,
/// deactivation. Each request asks the store whether its person is an active administrator at that moment (and the
/// router asks again when it applies the change); anyone else gets 403. Every change goes through the router.
public struct AdministrationRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let events: EventRouter
        let store: any ChatReads
        let administration: any AdministrationReads
        /// Bots' faces: the image service, the media folder, the most bytes of an upload.
        let avatars: (images: any ImageService, media: MediaFolder, maximumBytes: Int)
        let logger: Logger

        public init(
            gate: SignInGate, pages: WebPages, events: EventRouter, store: any ChatReads, administration: any AdministrationReads,
            avatars: (images: any ImageService, media: MediaFolder, maximumBytes: Int), logger: Logger
        ) {
            self.gate = gate
            self.pages = pages
            self.events = events
            self.store = store
            self.administration = administration
            self.avatars = avatars
            self.logger = logger
        }
    }

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var pages: WebPages { dependencies.pages }
    private var administration: any AdministrationReads { dependencies.administration }

    /// The most people the page lists at once (a search finds the others), and rooms.
    static let peopleShown = 200
    static let roomsShown = 500

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.get("/admin", administrators { [self] request, signedIn in try await page(request, signedIn) })
        router.post("/admin/signup", bodyLimit: 4 * 1024, administrators { [self] request, signedIn in
            guard let policy = request.form["policy"].flatMap(SignUpPolicy.init(rawValue:)) else {
                return try await page(request, signedIn, error: "Choose who can create an account.", status: .unprocessableContent)
            }
            return try await change(.changingSettings(SettingsChange(signUpPolicy: policy, by: signedIn.user.id)), request, signedIn) {
                log("sign-up policy changed", request, signedIn, ["policy": "\(policy.rawValue)"])
                return .redirect(to: pages.paths.administration)
            }
        })
        router.post("/admin/rooms", bodyLimit: 4 * 1024, administrators { [self] request, signedIn in
            let only = request.form["onlyAdministrators"] == "1"
            return try await change(.changingSettings(SettingsChange(onlyAdministratorsCreateRooms: only, by: signedIn.user.id)), request, signedIn) {
                log("room creation changed", request, signedIn, ["administratorsOnly": "\(only)"])
                return .redirect(to: pages.paths.administration)
            }
        })
        router.post("/admin/join-link", bodyLimit: 4 * 1024, administrators { [self] request, signedIn in
            guard let days = Self.optionalNumber(request.form["days"], upTo: JoinLink.maximumDays),
                  let uses = Self.optionalNumber(request.form["uses"], upTo: JoinLink.maximumUses)
            else {
                let message = "Leave the days and uses empty, or give whole numbers up to \(JoinLink.maximumDays) days and \(JoinLink.maximumUses) uses."
                return try await page(request, signedIn, error: message, status: .unprocessableContent)
            }
            let link = JoinLinks.make(now: pages.clock.now, days: days, uses: uses)
            return try await change(.replacingJoinLink(link, by: signedIn.user.id), request, signedIn) {
                log("join link replaced", request, signedIn, [:])
                return .redirect(to: pages.paths.administration)
            }
        })
        router.post("/admin/people/{person}/role", bodyLimit: 4 * 1024, administrators { [self] request, signedIn in
            let person = try Self.person(request)
            guard let role = request.form["role"].flatMap(Role.init(rawValue:)) else {
                return try await page(request, signedIn, error: "Choose member or administrator.", status: .unprocessableContent)
            }
            return try await change(.changingRole(RoleChange(person: person, role: role, by: signedIn.user.id)), request, signedIn, missing: "That person does not exist.") {
                log("role changed", request, signedIn, ["person": "\(person)", "role": "\(role.rawValue)"])
                return .redirect(to: pages.paths.administration + "#people")
            }
        })
        router.post("/admin/bots", bodyLimit: 8 * 1024, administrators { [self] request, signedIn in
            let draft = AdministrationBuilder.BotDraft(
                name: request.form["name"] ?? "", handle: request.form["handle"] ?? "", webhook: (request.form["webhook"] ?? "").trimmingCharacters(in: .whitespaces)
            )
            let key = Sodium.randomToken()
            let new = NewUser(
                handle: draft.handle, displayName: draft.name, isBot: true,
                bot: BotCredential(keyHash: Sodium.hash(key), webhookURL: draft.webhook.isEmpty ? nil : draft.webhook)
            )
            switch await dependencies.events.send(.signingUp(new), requestID: request.id.description) {
            case .signedUp(let bot):
                log("bot created", request, signedIn, ["bot": "\(bot.id)"])
                return try await page(request, signedIn, newKey: (bot.handle, key), status: .created)
            case .signUpFailed(_, let reason):
                return try await page(request, signedIn, error: reason.message, draft: draft, status: reason.httpStatus)
            default:
                return try await page(request, signedIn, error: Refusal.unavailable.message, draft: draft, status: .serviceUnavailable)
            }
        })
        router.post("/admin/bots/{person}/key", bodyLimit: 4 * 1024, administrators { [self] request, signedIn in
            let id = try Self.person(request)
            guard let bot = try await administration.bot(id) else { throw HTTPError(.notFound, "That bot does not exist.") }
            let key = Sodium.randomToken()
            return try await change(.replacingBotKey(bot: id, keyHash: Sodium.hash(key), by: signedIn.user.id), request, signedIn, missing: "That bot does not exist.") {
                log("bot key replaced", request, signedIn, ["bot": "\(id)"])
                return try await page(request, signedIn, newKey: (bot.user.handle, key))
            }
        })
        // A bot's face, uploaded by an administrator as a person uploads their own (to disk as it arrives).
        router.post(
            "/admin/bots/{person}/avatar", bodyLimit: dependencies.avatars.maximumBytes + 64 * 1024, uploads: UploadLimits(files: 1, fields: 4),
            admission: gate.uploadAdmission(), administrators { [self] request, signedIn in
                let id = try Self.person(request)
                guard let bot = try await administration.bot(id) else { throw HTTPError(.notFound, "That bot does not exist.") }
                guard let upload = request.form.upload("avatar"), upload.size > 0 else {
                    return try await page(request, signedIn, error: "Choose a photo (\(ImageFormat.acceptedNames)) for \(bot.user.displayName).", status: .unprocessableContent)
                }
                let avatar: NewImage
                do {
                    avatar = try await AvatarUploads(images: dependencies.avatars.images, media: dependencies.avatars.media, logger: dependencies.logger)
                        .avatar(for: id, upload: upload.path, at: pages.clock.now, requestID: request.id.description)
                } catch let refused as AvatarUploads.Refused {
                    return try await page(request, signedIn, error: refused.message, status: refused.status)
                }
                switch await dependencies.events.send(.updatingProfile(ProfileChange(userID: id, avatar: avatar)), requestID: request.id.description) {
                case .profileUpdated:
                    log("bot photo changed", request, signedIn, ["bot": "\(id)"])
                    return .redirect(to: pages.paths.administration + "#bots")
                case .profileUpdateFailed(_, let reason):
                    return try await page(request, signedIn, error: reason.message, status: reason.httpStatus)
                default:
                    throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
                }
            }
        )
        for deactivating in [true, false] {
            router.post("/admin/people/{person}/\(deactivating ? "deactivate" : "reactivate")", bodyLimit: 4 * 1024, administrators { [self] request, signedIn in
                let change = AccountChange(person: try Self.person(request), by: signedIn.user.id, deactivating: deactivating)
                switch await dependencies.events.send(.changingAccount(change), requestID: request.id.description) {
                case .accountChanged(let state):
                    log(deactivating ? "account deactivated" : "account reactivated", request, signedIn, ["person": "\(change.person)"])
                    return .redirect(to: pages.paths.administration + (state.user.isBot ? "#bots" : "#people"))
                case .accountChangeFailed(_, .notFound):
                    throw HTTPError(.notFound, deactivating ? "That person does not exist or is deactivated already." : "That person is not deactivated.")
                case .accountChangeFailed(_, let refusal):
                    return try await page(request, signedIn, error: refusal.message, status: refusal.httpStatus)
                default:
                    return try await page(request, signedIn, error: Refusal.unavailable.message, status: .serviceUnavailable)
                }
            })
        }
    }

    /// Sends an administrator's command; `done` answers once it is stored. A refusal re-renders the page with its
    /// message (`missing` as 404 for nobody or no bot); an administrator made a member meanwhile gets 403.
    private func change(
        _ command: AccountEvent, _ request: Request, _ signedIn: SignedIn, missing: String = "That does not exist.",
        done: () async throws -> Response
    ) async throws -> Response {
        switch await dependencies.events.send(command, requestID: request.id.description) {
        case .refused(.notFound): throw HTTPError(.notFound, missing)
        case .refused(.administratorsOnly): throw HTTPError(.forbidden, Refusal.administratorsOnly.message)
        case .refused(let refusal): return try await page(request, signedIn, error: refusal.message, status: refusal.httpStatus)
        default: return try await done()
        }
    }

    /// Wraps a handler for administrators: anyone else (a member, an administrator made a member a moment ago)
    /// gets 403 and nothing changes.
    private func administrators(_ handler: @escaping @Sendable (Request, SignedIn) async throws -> Response) -> AsyncHandler {
        gate.signedIn { [administration] request, signedIn in
            guard try await administration.account(signedIn.user.id)?.isActiveAdministrator == true else {
                throw HTTPError(.forbidden, Refusal.administratorsOnly.message)
            }
            return try await handler(request, signedIn)
        }
    }

    private func page(
        _ request: Request, _ signedIn: SignedIn, error: String? = nil, draft: AdministrationBuilder.BotDraft = .init(),
        newKey: (handle: String, key: String)? = nil, status: HTTPStatus = .ok
    ) async throws -> Response {
        var query = (request.query["q"] ?? "").trimmingCharacters(in: .whitespaces)
        if query.hasPrefix("@") { query.removeFirst() }
        if query.count > 50 || query.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { query = "" }
        let settings = try await administration.settings()
        let people = try await administration.accounts(matching: query, limit: Self.peopleShown)
        let rooms = try await administration.rooms(limit: Self.roomsShown)
        let origin = gate.origin(request)
        let site = origin.host.map { (origin.isHTTPS ? "https://" : "http://") + $0 } ?? ""
        let context = pages.context(signedIn)
        let layout = PageBuilder(context: context).layout(
            title: "Administration", unreadTotal: try await dependencies.store.unreadTotal(for: signedIn.user.id)
        )
        let page = AdministrationBuilder(context: context).page(
            settings, people: people, query: query, rooms: rooms, bots: try await administration.bots(), origin: site, layout: layout, error: error,
            draft: draft, newKey: newKey
        )
        // Never stored (no-store), and its address goes to this site only (Referrer-Policy: same-origin, as every page):
        // `no-referrer` would make the browser send `Origin: null` with the page's forms, which are then refused.
        return pages.page(page, status: status)
    }

    private func log(_ message: Logger.Message, _ request: Request, _ signedIn: SignedIn, _ metadata: Logger.Metadata) {
        var metadata = metadata
        metadata["request"] = "\(request.id)"
        metadata["administrator"] = "\(signedIn.user.id)"
        dependencies.logger.notice(message, metadata: metadata)
    }

    /// The person a URL names; 404 for anything that is no id.
    private static func person(_ request: Request) throws -> UserID {
        guard let raw = request.parameters["person"], raw.utf8.count <= 19, let id = Int64(raw), id > 0 else {
            throw HTTPError(.notFound, "That person does not exist.")
        }
        return UserID(id)
    }

    /// An empty field: .some(nil); a whole number from 1 to `limit`: that; anything else: nil.
    static func optionalNumber(_ field: String?, upTo limit: Int) -> Int?? {
        let text = (field ?? "").trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return .some(nil) }
        guard text.utf8.count <= 6, let number = Int(text), (1...limit).contains(number) else { return nil }
        return .some(number)
    }
}
