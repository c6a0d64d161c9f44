import Foundation
import MicroHTTP
import ParlorDomain
import ParlorImages
import ParlorViews

/// `/images/{id}/{version}`, to the people who may see the image, and the photo a person sets in Settings.
extension ParlorApp {
    func registerImageRoutes(on router: inout Router) {
        router.get("/images/{id}/{version}", signedIn { [self] request, signedIn in
            try await imageFile(request, signedIn)
        })
        router.get("/images/{id}", signedIn { [self] request, signedIn in
            try await imagePage(request, signedIn)
        })
        // The upload goes to disk as it arrives; 413 before the body when Content-Length says more.
        router.post(
            "/settings/avatar", bodyLimit: configuration.imageLimits.maximumBytes + 64 * 1024, uploads: UploadLimits(files: 1, fields: 4),
            admission: uploadAdmission(), signedIn { [self] request, signedIn in try await setAvatar(request, signedIn) }
        )
        router.post("/settings/avatar/remove", bodyLimit: 4 * 1024, signedIn { [self] request, signedIn in
            let change = ProfileChange(userID: signedIn.user.id, removesAvatar: true)
            guard case .profileUpdated = await events.send(.updatingProfile(change), requestID: request.id.description) else {
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
            return .redirect(to: paths.settings + "?avatar=removed#avatar")
        })
    }

    static let noSuchImage = HTTPError(.notFound, "There is no such image, or it is not yours to see.")

    /// The image view: a message's photo loading, shown, or failed, with the way back to its chat; the same
    /// 404 as for no image to anyone who may not see it. The script opens it as a dialog.
    private func imagePage(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        guard let raw = request.parameters["id"], let number = Int64(raw), number > 0,
              let image = try await store.image(ImageID(number), visibleTo: signedIn.user.id),
              let messageID = image.messageID, let message = try await store.message(messageID), let photo = message.photo,
              let sender = try await store.user(message.senderID)
        else { throw Self.noSuchImage }
        let context = context(signedIn)
        let chatURL = paths.chat(message.chatID) + "#message-\(message.id)"
        let altText = sender.id == signedIn.user.id ? "Your photo" : "Photo from \(sender.displayName)"
        let detail = ImageDetailBuilder(paths: paths).detail(
            photo: image, pendingSize: (photo.width, photo.height), altText: altText, chatURL: chatURL
        )
        let unread = try await store.unreadTotal(for: signedIn.user.id)
        let layout = PageBuilder(context: context).layout(title: altText, unreadTotal: unread)
        return page(ImagePageViewModel(layout: layout, image: detail))
    }

    /// One version's file, if the viewer may see the image (404 otherwise, whatever the id). An image never
    /// changes, so a browser keeps it for a year without asking again.
    private func imageFile(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        guard let raw = request.parameters["id"], let number = Int64(raw), number > 0,
              let role = request.parameters["version"].flatMap(ImageRole.init(rawValue:))
        else { throw Self.noSuchImage }
        guard let image = try await store.image(ImageID(number), visibleTo: signedIn.user.id), let version = image.version(role),
              let path = try? media.file(hash: version.hash, format: version.format)
        else { throw Self.noSuchImage }
        let filename = "\(image.purpose.storedName)-\(number)-\(role.rawValue).\(version.format.fileExtension)"
        var headers: HTTPHeaders = [
            "Cache-Control": "private, max-age=31536000, immutable",
            "ETag": "\"\(version.hash)\"",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
            "Content-Disposition": "inline; filename=\"\(filename)\"",
        ]
        if request.headers["If-None-Match"] == "\"\(version.hash)\"" { return Response(status: .notModified, headers: headers) }
        guard let body = FileBody.open(path: path) else {
            logger.error("image file missing", metadata: ["request": "\(request.id)", "image": "\(number)", "version": "\(role.rawValue)"])
            throw Self.noSuchImage
        }
        headers.add("Content-Type", MediaType.forFile(named: filename[...]))
        return Response(status: .ok, headers: headers, body: .file(body))
    }

    /// A new face: processed (accepted by its bytes, upright, stripped, squared), its files written, then the
    /// profile change that records it, which every open page showing the person applies live.
    private func setAvatar(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        func refused(_ message: String, _ status: HTTPStatus) async throws -> Response {
            try await settingsPage(signedIn, avatarForm: settingsBuilder(signedIn).avatarForm(error: message, maximumBytes: configuration.imageLimits.maximumBytes), status: status)
        }
        guard let upload = request.form.upload("avatar"), upload.size > 0 else {
            return try await refused("Choose a photo (\(ImageFormat.acceptedNames)).", .unprocessableContent)
        }
        let processed: ProcessedImage
        do {
            processed = try await images.process(file: upload.path, for: .avatar)
        } catch {
            logger.info("photo refused", metadata: ["request": "\(request.id)", "why": "\(error)"])
            return try await refused(error.message, Self.status(for: error))
        }
        let versions: [StoredImageVersion]
        do {
            versions = try media.store(processed.versions)
        } catch {
            logger.error("media folder refused a write", metadata: ["request": "\(request.id)", "error": "\(error)"])
            return try await refused(Refusal.unavailable.message, .serviceUnavailable)
        }
        let change = ProfileChange(
            userID: signedIn.user.id, avatar: NewImage(ownerID: signedIn.user.id, purpose: .avatar, versions: versions, createdAt: clock.now)
        )
        switch await events.send(.updatingProfile(change), requestID: request.id.description) {
        case .profileUpdated:
            return .redirect(to: paths.settings + "?avatar=changed#avatar")
        case .profileUpdateFailed(_, let reason):
            return try await refused(reason.message, Self.status(for: reason))
        default:
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
    }

    static func status(for refusal: ImageRefusal) -> HTTPStatus {
        switch refusal {
        case .busy: .serviceUnavailable
        case .tooLarge: .contentTooLarge
        default: .unprocessableContent
        }
    }
}
