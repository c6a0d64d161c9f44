import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorViews

/// Sending, editing and reading messages. Each POST becomes one event for the router. Without
/// JavaScript the answer is a 303 back to the conversation (or the page again with the error in the
/// composer); Parlor's script asks for a short answer instead and sees the result on its event stream.
public struct MessageRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let chats: ChatPages
        let events: EventRouter
        let store: any ChatReads
        let photos: PhotoIntake
        /// The largest photo a message may carry.
        let maximumPhotoBytes: Int
        let logger: Logger

        public init(
            gate: SignInGate, chats: ChatPages, events: EventRouter, store: any ChatReads, photos: PhotoIntake, maximumPhotoBytes: Int, logger: Logger
        ) {
            self.gate = gate
            self.chats = chats
            self.events = events
            self.store = store
            self.photos = photos
            self.maximumPhotoBytes = maximumPhotoBytes
            self.logger = logger
        }
    }

    /// Room for 4,000 characters of four bytes each, percent-encoded, and the other fields.
    static let messageBodyLimit = 64 * 1024
    /// A message with a photo: the photo, and its fields (csrf, body, token, replyTo) with room to spare.
    static let messageParts = UploadLimits(files: 1, fields: 8)

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var chats: ChatPages { dependencies.chats }
    private var events: EventRouter { dependencies.events }
    private var store: any ChatReads { dependencies.store }
    private var photos: PhotoIntake { dependencies.photos }
    private var maximumPhotoBytes: Int { dependencies.maximumPhotoBytes }
    private var logger: Logger { dependencies.logger }
    private var paths: Paths { chats.pages.paths }
    private var clock: any WallClock { chats.pages.clock }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        // A photo goes to disk as it arrives; 413 before the body when Content-Length says more than a photo.
        // The conversation again, with the text kept (when the body was read) and a fresh token: nothing sent.
        let forgedSend: @Sendable (Request, SignedIn) async throws -> Response = { [chats] request, signedIn in
            let draft = ComposerDraft(text: request.form["body"] ?? "", errorMessage: SignInGate.forgedFormMessage, token: ChatPages.newToken())
            return try await chats.chatsPage(signedIn, chat: try ChatPages.chatID(request), draft: draft)
        }
        router.post(
            "/rooms/{id}/messages", bodyLimit: maximumPhotoBytes + Self.messageBodyLimit, uploads: Self.messageParts,
            admission: gate.uploadAdmission(refused: forgedSend), gate.signedIn(refused: forgedSend) { [self] request, signedIn in
                try await sendMessage(request, signedIn)
            }
        )
        router.post("/rooms/{id}/messages/{message}", bodyLimit: Self.messageBodyLimit, gate.signedIn { [self] request, signedIn in
            try await editMessage(request, signedIn)
        })
        router.post("/rooms/{id}/messages/{message}/delete", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            try await deleteMessage(request, signedIn)
        })
        router.post("/rooms/{id}/read", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            let chat = try ChatPages.chatID(request)
            let upTo = request.form["upTo"].flatMap(Int64.init).map { MessageID($0) }
            guard try await store.membership(chat, signedIn.user.id) != nil else { throw ChatPages.noSuchChat }
            await events.send(.userReads(ReadReport(chatID: chat, readerID: signedIn.user.id, upTo: upTo)), requestID: request.id.description)
            return request.isFromScript ? Response(status: .noContent) : .redirect(to: paths.chat(chat))
        })
    }

    private func sendMessage(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let chat = try ChatPages.chatID(request)
        let body = request.form["body"] ?? ""
        // A form without a token still sends once; a token is at most 64 characters of its own alphabet.
        var token = request.form["token"] ?? ""
        if token.isEmpty || token.utf8.count > 64 || !token.utf8.allSatisfy(Self.isTokenByte) { token = ChatPages.newToken() }
        let replyTo = request.form["replyTo"].flatMap(Int64.init).map { MessageID($0) }
        // Not sent: the script gets the reason; a page, the composer again with the text, the reply and the
        // same token, so a retry after an unclear failure can never store the message twice.
        func refused(_ message: String, _ status: HTTPStatus) async throws -> Response {
            if request.isFromScript { return .text(message, status: status) }
            var replied: Message?
            if let replyTo { replied = try await store.message(replyTo) }
            let draft = ComposerDraft(text: body, errorMessage: message, token: token, replyTo: replied)
            return try await chats.chatsPage(signedIn, chat: chat, draft: draft, status: status)
        }
        // A photo is checked by its bytes and header before anything is stored; refused, the text stays.
        var photo: NewPhoto?
        if let upload = request.form.upload("photo"), upload.size > 0 || !upload.filename.isEmpty {
            guard try await store.membership(chat, signedIn.user.id) != nil else { throw ChatPages.noSuchChat }
            do {
                photo = try await photos.accept(upload: upload.path)
            } catch {
                logger.info("photo refused", metadata: ["request": "\(request.id)", "why": "\(error)"])
                return try await refused(error.message, error.httpStatus)
            }
        }
        let outgoing = OutgoingMessage(
            chatID: chat, senderID: signedIn.user.id, body: body, replyTo: replyTo, token: token, createdAt: clock.now, photo: photo
        )
        let result = await events.send(.sending(outgoing), requestID: request.id.description)
        if let photo {
            if case .sent(let message, _) = result { await photos.start(message, original: photo.original) } else { photos.drop(photo) }
        }
        switch result {
        case .sent(let message, _):
            if request.isFromScript { return Response(status: .noContent) }
            return .redirect(to: paths.chat(chat) + "#message-\(message.id)")
        case .failedSending(_, let reason):
            if reason == .notFound { throw ChatPages.noSuchChat }
            return try await refused(reason.message, reason.httpStatus)
        default:
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
    }

    private func editMessage(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let chat = try ChatPages.chatID(request)
        guard let raw = request.parameters["message"], let id = Int64(raw),
              let original = try await store.message(MessageID(id)), original.chatID == chat,
              try await store.membership(chat, signedIn.user.id) != nil
        else { throw ChatPages.noSuchChat }
        let body = request.form["body"] ?? ""
        let edit = MessageEdit(messageID: original.id, editorID: signedIn.user.id, body: body, editedAt: clock.now)
        switch await events.send(.editing(edit), requestID: request.id.description) {
        case .edited(let message):
            if request.isFromScript { return Response(status: .noContent) }
            return .redirect(to: paths.chat(chat) + "#message-\(message.id)")
        case .failedEditing(_, let reason):
            if request.isFromScript { return .text(reason.message, status: reason.httpStatus) }
            let draft = ComposerDraft(text: body, errorMessage: reason.message, token: ChatPages.newToken(), editing: original)
            return try await chats.chatsPage(signedIn, chat: chat, draft: draft, status: reason.httpStatus)
        default:
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
    }

    private func deleteMessage(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let chat = try ChatPages.chatID(request)
        // The message must be in the chat of the path; the store checks membership and ownership.
        guard let raw = request.parameters["message"], let id = Int64(raw), id > 0,
              let original = try await store.message(MessageID(id)), original.chatID == chat
        else { throw ChatPages.noSuchChat }
        let deletion = MessageDeletion(messageID: original.id, requesterID: signedIn.user.id, deletedAt: clock.now)
        switch await events.send(.deleting(deletion), requestID: request.id.description) {
        case .deleted(let message):
            if request.isFromScript { return Response(status: .noContent) }
            return .redirect(to: paths.chat(chat) + "#message-\(message.id)")
        case .failedDeleting(_, let reason) where reason != .notFound:
            throw HTTPError(reason.httpStatus, reason.message)
        default:
            throw ChatPages.noSuchChat
        }
    }

    /// Letters, digits, `-` and `_`: what Parlor's tokens are made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
    }
}
