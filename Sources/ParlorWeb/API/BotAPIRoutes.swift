import Foundation
import Logging
import MicroHTTP
import ParlorBots
import ParlorDomain
import ParlorEvents
import ParlorLive
import ParlorTemplates
import ParlorViews

/// The API bots post through, with the key an administrator was shown once (`Authorization: Bearer …`): the rooms
/// the bot is in, a room's messages (newest first, with a cursor to older ones), a new message, an edit or deletion
/// of its own, a reaction, how far it has read, a direct chat with a person. JSON in, JSON out, refusals included
/// (`{"error": "…"}`, 4xx); each request asks the store whether the bot is in the room at that moment, and changes go
/// through the event router like a person's. Posting, reading and direct chats are ``BotActions``, which Parlor Bot uses too.
public struct BotAPIRoutes: Sendable {
    public struct Dependencies: Sendable {
        let pages: WebPages
        let events: EventRouter
        let store: any ChatReads & AdministrationReads
        let live: EventHandler
        /// Photos bots post: checked and kept as a person's are, processed by the photo worker.
        let photos: PhotoIntake
        let maximumPhotoBytes: Int
        let limits: BotLimits
        let metrics: ParlorMetrics
        let logger: Logger

        public init(
            pages: WebPages, events: EventRouter, store: any ChatReads & AdministrationReads, live: EventHandler, photos: PhotoIntake, maximumPhotoBytes: Int,
            limits: BotLimits, metrics: ParlorMetrics, logger: Logger
        ) {
            self.pages = pages
            self.events = events
            self.store = store
            self.live = live
            self.photos = photos
            self.maximumPhotoBytes = maximumPhotoBytes
            self.limits = limits
            self.metrics = metrics
            self.logger = logger
        }
    }

    let dependencies: Dependencies
    /// What each key has left of its limits.
    let budgets: BotBudgets
    private var store: any ChatReads & AdministrationReads { dependencies.store }
    private var events: EventRouter { dependencies.events }
    private var pages: WebPages { dependencies.pages }

    /// The most messages one page of the list holds, and how many it holds unless asked.
    static let pageLimit = 100
    static let defaultPage = 50

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
        budgets = BotBudgets(dependencies.limits) { [metrics = dependencies.metrics] kind in metrics.botLimited(kind.rawValue) }
    }

    /// An API failure: its status and words.
    struct Failure: Error {
        let status: HTTPStatus
        let message: String
        /// Seconds to wait, for a 429.
        var retryAfter: Int?

        static let noRoom = Failure(status: .notFound, message: "There is no such room, or this bot is not in it.")
        static let noMessage = Failure(status: .notFound, message: "There is no such message in this room.")

        init(status: HTTPStatus, message: String, retryAfter: Int? = nil) {
            self.status = status
            self.message = message
            self.retryAfter = retryAfter
        }

        /// The API's JSON answer for this failure.
        func response(_ requestID: String) -> Response {
            var response = BotAPI.error(message, status: status, requestID: requestID)
            if let retryAfter { response.headers.replace("Retry-After", with: String(retryAfter)) }
            return response
        }

        init(_ refusal: Refusal) {
            switch refusal {
            case .notFound: self = .noMessage
            case .notYourMessage: self.init(status: .forbidden, message: "A bot changes only its own messages.")
            default: self.init(status: refusal.httpStatus, message: refusal.message)
            }
        }

        init(_ error: BotRequestError) {
            let status: HTTPStatus = switch error {
            case .tooLarge: .contentTooLarge
            case .notUTF8: .unsupportedMediaType
            default: .badRequest
            }
            self.init(status: status, message: error.message)
        }

        init(_ failure: BotActions.Failure) {
            switch failure {
            case .noRoom: self = .noRoom
            case .refused(let refusal): self.init(refusal)
            }
        }
    }

    public func register(on router: inout Router) {
        let json = "application/json"
        router.errorResponders.append((router.mountPath + "/api/", { error, requestID in
            BotAPI.error(error.message, status: error.status, requestID: requestID)
        }))
        router.add(.get, "/api/rooms", api { [self] _, bot in
            let rooms = try await store.chatList(for: bot.user.id).filter(\.heading.isRoom)
            return BotAPI.json(["rooms": rooms.map { BotAPI.Room(id: $0.chatID.rawValue, name: $0.heading.name ?? "", kind: $0.heading.kind.rawValue) }])
        })
        router.add(.get, "/api/rooms/{id}/messages", api { [self] request, bot in try await list(request, bot) })
        router.add(.post, "/api/rooms/{id}/messages", bodyLimit: BotRequests.maximumBytes, rawBody: json, api(spending: .message) { [self] request, bot in
            try await post(request, bot)
        })
        // A message with a photo: multipart/form-data, the file as "photo", its words as "text" (and "replyTo", "token").
        // The key and the room are checked on the head, before a byte of the photo is stored.
        router.post(
            "/api/rooms/{id}/photos", bodyLimit: dependencies.maximumPhotoBytes + 64 * 1024, uploads: UploadLimits(files: 1, fields: 4),
            admission: { [self] request in try await photoAdmission(request) }, api { [self] request, bot in try await postPhoto(request, bot) }
        )
        router.add(.patch, "/api/rooms/{id}/messages/{message}", bodyLimit: BotRequests.maximumBytes, rawBody: json, api(spending: .message) { [self] request, bot in
            let (chat, message) = try await ownMessage(request, bot)
            let edit = try Self.decode(BotRequests.Edit.self, request)
            switch await events.send(.editing(MessageEdit(messageID: message.id, editorID: bot.user.id, body: edit.text, editedAt: pages.clock.now)),
                                     requestID: request.id.description) {
            case .edited(let edited):
                var writer = writer(for: bot)
                return BotAPI.json(["message": try await writer.body(edited, chat: chat, store: store)])
            case .failedEditing(_, let reason): throw Failure(reason)
            default: throw Failure(.unavailable)
            }
        })
        router.add(.delete, "/api/rooms/{id}/messages/{message}", api { [self] request, bot in
            let (_, message) = try await ownMessage(request, bot)
            switch await events.send(.deleting(MessageDeletion(messageID: message.id, requesterID: bot.user.id, deletedAt: pages.clock.now)),
                                     requestID: request.id.description) {
            case .deleted: return Response(status: .noContent)
            case .failedDeleting(_, let reason): throw Failure(reason)
            default: throw Failure(.unavailable)
            }
        })
        router.add(.post, "/api/rooms/{id}/messages/{message}/reactions", bodyLimit: BotRequests.maximumBytes, rawBody: json, api(spending: .message) { [self] request, bot in
            let chat = try await room(request, bot)
            let message = try await message(request, in: chat)
            let asked = try Self.decode(BotRequests.Reaction.self, request)
            switch await events.send(.reacting(ReactionToggle(messageID: message.id, userID: bot.user.id, text: asked.reaction, at: pages.clock.now)),
                                     requestID: request.id.description) {
            case .reacted(let reactions):
                return BotAPI.json(["reactions": reactions.counts.map { count in
                    BotAPI.ReactionBody(reaction: count.text, count: count.people.count, people: count.names)
                }])
            case .failedReacting(_, let reason): throw Failure(reason)
            default: throw Failure(.unavailable)
            }
        })
        router.add(.post, "/api/rooms/{id}/read", bodyLimit: BotRequests.maximumBytes, rawBody: json, api { [self] request, bot in
            let chat = try Self.chatID(request)
            let asked = try Self.decode(BotRequests.Read.self, request)
            let moved = try await actions(bot) { try await $0.markRead(chat, upTo: MessageID(asked.upTo), requestID: request.id.description) }
            return BotAPI.json(["moved": moved])
        })
        router.add(.post, "/api/direct", bodyLimit: BotRequests.maximumBytes, rawBody: json, api(spending: .directChat) { [self] request, bot in
            let asked = try Self.decode(BotRequests.Direct.self, request)
            let handle = asked.handle.hasPrefix("@") ? String(asked.handle.dropFirst()) : asked.handle
            let chat = try await actions(bot) { try await $0.directChat(with: handle, requestID: request.id.description) }
            return BotAPI.json(["room": BotAPI.Room(id: chat.rawValue, name: "", kind: RoomKind.direct.rawValue)])
        })
    }

    /// Runs one of the API's ``BotActions`` for `bot`, its refusals in the API's words.
    private func actions<Value>(_ bot: Bot, _ action: (BotActions) async throws -> Value) async throws -> Value {
        do {
            return try await action(BotActions(bot: bot.user, router: events, store: store, clock: pages.clock))
        } catch let failure as BotActions.Failure {
            throw Failure(failure)
        }
    }

    /// Wraps a handler for a bot with a valid key, within its limit of `spending` when given; every failure becomes JSON.
    private func api(spending kind: BotBudgets.Kind? = nil, _ handler: @escaping @Sendable (Request, Bot) async throws -> Response) -> AsyncHandler {
        { [self] request in
            do {
                guard let bot = try await bot(request) else {
                    return BotAPI.error("Send the bot's key as \"Authorization: Bearer …\".", status: .unauthorized, requestID: request.id.description)
                }
                if let kind { try budgets.spend(kind, of: bot.user.id) }
                if request.method != .get {
                    // A change waits while the open pages of its room are far behind, as a person's does.
                    await dependencies.live.room(for: try? Self.chatID(request))
                }
                return try await handler(request, bot)
            } catch let failure as Failure {
                return failure.response(request.id.description)
            } catch let error as HTTPError {
                return BotAPI.error(error.message, status: error.status, requestID: request.id.description)
            } catch {
                dependencies.logger.error("bot API request failed", metadata: ["request": "\(request.id)", "error": "\(String(describing: error))"])
                return BotAPI.error(Refusal.unavailable.message, status: .serviceUnavailable, requestID: request.id.description)
            }
        }
    }

    /// The bot whose key the request carries; nil without one, or with one that opens nothing.
    private func bot(_ request: Request) async throws -> Bot? {
        guard let field = request.headers["Authorization"], field.utf8.count <= 200 else { return nil }
        let parts = field.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let key = parts[1].trimmingCharacters(in: .whitespaces)
        guard (20...128).contains(key.utf8.count) else { return nil }
        return try await store.bot(keyHash: Sodium.hash(key))
    }

    static func chatID(_ request: Request) throws -> ChatID {
        guard let raw = request.parameters["id"], raw.utf8.count <= 16, let id = Int64(raw), id > 0 else { throw Failure.noRoom }
        return ChatID(id)
    }

    /// The room the URL names, when the bot is in it now.
    private func room(_ request: Request, _ bot: Bot) async throws -> ChatID {
        let chat = try Self.chatID(request)
        guard try await store.membership(chat, bot.user.id) != nil else { throw Failure.noRoom }
        return chat
    }

    private func message(_ request: Request, in chat: ChatID) async throws -> Message {
        guard let raw = request.parameters["message"], raw.utf8.count <= 16, let id = Int64(raw), id > 0,
              let message = try await store.message(MessageID(id)), message.chatID == chat
        else { throw Failure.noMessage }
        return message
    }

    /// The message the URL names, in a room the bot is in, and the bot's own.
    private func ownMessage(_ request: Request, _ bot: Bot) async throws -> (ChatID, Message) {
        let chat = try await room(request, bot)
        let message = try await message(request, in: chat)
        guard message.senderID == bot.user.id else { throw Failure(.notYourMessage) }
        return (chat, message)
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, _ request: Request) throws -> Value {
        do {
            return try BotRequests.decode(type, from: request.body)
        } catch {
            throw Failure(error)
        }
    }

    private func list(_ request: Request, _ bot: Bot) async throws -> Response {
        let chat = try await room(request, bot)
        var before: MessageID?
        if let raw = request.query["before"] {
            guard raw.utf8.count <= 16, let id = Int64(raw), id > 0 else {
                throw Failure(status: .badRequest, message: "\"before\" is the id of a message.")
            }
            before = MessageID(id)
        }
        var limit = Self.defaultPage
        if let raw = request.query["limit"] {
            guard raw.utf8.count <= 4, let number = Int(raw), (1...Self.pageLimit).contains(number) else {
                throw Failure(status: .badRequest, message: "\"limit\" is a whole number from 1 to \(Self.pageLimit).")
            }
            limit = number
        }
        let page = try await store.messages(in: chat, before: before, limit: limit)
        var writer = writer(for: bot)
        var messages: [BotAPI.MessageBody] = []
        for message in page.messages.reversed() {
            messages.append(try await writer.body(message, chat: chat, store: store))
        }
        let older = page.hasOlder ? page.messages.first.map { "\(pages.paths.basePath)/api/rooms/\(chat)/messages?before=\($0.id)&limit=\(limit)" } : nil
        struct Listing: Encodable {
            let messages: [BotAPI.MessageBody]
            let older: String?
        }
        return BotAPI.json(Listing(messages: messages, older: older))
    }

    private func post(_ request: Request, _ bot: Bot) async throws -> Response {
        // Whether the bot is in the room is asked by the action.
        let chat = try Self.chatID(request)
        let asked = try Self.decode(BotRequests.NewMessage.self, request)
        let message: Message
        do {
            message = try await BotActions(bot: bot.user, router: events, store: store, clock: pages.clock).post(
                asked.text, in: chat, replyTo: asked.replyTo.map { MessageID($0) },
                token: asked.token.map { "api-" + $0 } ?? "api-" + UUID().uuidString, requestID: request.id.description
            )
        } catch BotActions.Failure.refused(.notFound) {
            // The router's "not found" for a new message is the message it replies to.
            throw Failure(status: .notFound, message: "There is no such message to reply to in this room.")
        } catch let failure as BotActions.Failure {
            throw Failure(failure)
        }
        var writer = writer(for: bot)
        return BotAPI.json(["message": try await writer.body(message, chat: chat, store: store)], status: .created)
    }

    /// A photo's head: a bot's key, for a room it is in; anything else is refused before its body is stored.
    private func photoAdmission(_ request: Request) async throws -> Response? {
        guard let bot = try await bot(request) else {
            return BotAPI.error("Send the bot's key as \"Authorization: Bearer …\".", status: .unauthorized, requestID: request.id.description)
        }
        do {
            _ = try await room(request, bot)
            // Counted on the head: a bot past its limit sends no byte of the photo to disk.
            try budgets.spend(.message, of: bot.user.id)
            return nil
        } catch let failure as Failure {
            return failure.response(request.id.description)
        }
    }

    private func postPhoto(_ request: Request, _ bot: Bot) async throws -> Response {
        let chat = try Self.chatID(request)
        let form = request.form
        let text = form["text"] ?? ""
        var replyTo: MessageID?
        if let raw = form["replyTo"], !raw.isEmpty {
            guard raw.utf8.count <= 16, let id = Int64(raw), (1...BotRequests.maximumID).contains(id) else { throw Failure(BotRequestError.invalidField("replyTo")) }
            replyTo = MessageID(id)
        }
        let token = form["token"] ?? ""
        guard token.utf8.count <= 100 else { throw Failure(BotRequestError.invalidField("token")) }
        guard let upload = form.upload("photo"), upload.size > 0 else {
            throw Failure(status: .badRequest, message: "Send the photo as the file field \"photo\" (\(ImageFormat.acceptedNames)).")
        }
        let photo: NewPhoto
        do {
            photo = try await dependencies.photos.accept(upload: upload.path)
        } catch {
            dependencies.logger.info("photo refused", metadata: ["request": "\(request.id)", "why": "\(error)"])
            throw Failure(status: error.httpStatus, message: error.message)
        }
        let message: Message
        do {
            message = try await actions(bot) { actions in
                try await actions.post(
                    text, in: chat, replyTo: replyTo, token: token.isEmpty ? "api-" + UUID().uuidString : "api-" + token, photo: photo,
                    requestID: request.id.description
                )
            }
        } catch {
            dependencies.photos.drop(photo)
            throw error
        }
        await dependencies.photos.start(message, original: photo.original)
        var writer = writer(for: bot)
        return BotAPI.json(["message": try await writer.body(message, chat: chat, store: store)], status: .created)
    }

    /// How this request writes messages for `bot`: its cell builder and the templates, made once.
    private func writer(for bot: Bot) -> MessageWriter {
        let context = ViewerContext(viewer: bot.user, now: pages.clock.now, basePath: pages.paths.basePath, cache: pages.dateLabels)
        return MessageWriter(cells: MessageCellBuilder(context: context), templates: pages.templates.current, senders: [bot.user.id: bot.user])
    }
}

/// Writes messages as the API answers them, for one request: each sender read once, the text drawn as the cell draws it.
struct MessageWriter {
    let cells: MessageCellBuilder
    let templates: TemplateSet
    var senders: [UserID: User]

    mutating func body(_ message: Message, chat: ChatID, store: any ChatReads) async throws -> BotAPI.MessageBody {
        let sender: User
        if let known = senders[message.senderID] {
            sender = known
        } else {
            sender = try await store.user(message.senderID) ?? User(id: message.senderID, handle: "", displayName: "")
            senders[message.senderID] = sender
        }
        let html = templates.render(cells.html(message), capacity: 1024).string
        return BotAPI.MessageBody(
            id: message.id.rawValue, room: chat.rawValue, sender: BotAPI.Person(sender), text: message.isDeleted ? "" : message.body, html: html,
            createdAt: BotAPI.date(message.createdAt), editedAt: message.editedAt.map(BotAPI.date), deleted: message.isDeleted,
            replyTo: message.replyTo?.rawValue,
            photo: message.photo.map { BotAPI.Photo(id: $0.id.rawValue, state: $0.state.rawValue, width: $0.width, height: $0.height) }
        )
    }
}
