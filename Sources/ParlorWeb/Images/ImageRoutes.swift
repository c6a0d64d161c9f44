import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import ParlorImages
import ParlorViews

/// `/images/{id}/{version}` and the image view, to the people who may see the image.
public struct ImageRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let store: any ChatReads & ImageStore
        let media: MediaFolder
        let logger: Logger

        public init(gate: SignInGate, pages: WebPages, store: any ChatReads & ImageStore, media: MediaFolder, logger: Logger) {
            self.gate = gate
            self.pages = pages
            self.store = store
            self.media = media
            self.logger = logger
        }
    }

    let dependencies: Dependencies
    private var pages: WebPages { dependencies.pages }
    private var store: any ChatReads & ImageStore { dependencies.store }

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.get("/images/{id}/{version}", dependencies.gate.signedIn { [self] request, signedIn in
            try await imageFile(request, signedIn)
        })
        router.get("/images/{id}", dependencies.gate.signedIn { [self] request, signedIn in
            try await imagePage(request, signedIn)
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
        let context = pages.context(signedIn)
        let chatURL = pages.paths.chat(message.chatID) + "#message-\(message.id)"
        let altText = sender.id == signedIn.user.id ? "Your photo" : "Photo from \(sender.displayName)"
        // Previous and next only for a member now: someone taken out of the room still sees their own photo, but
        // not what was sent around it since.
        let around = try await store.membership(message.chatID, signedIn.user.id) == nil ? PhotosAround(previous: nil, next: nil)
            : try await store.photosAround(message.id, in: message.chatID)
        let detail = ImageDetailBuilder(paths: pages.paths).detail(
            photo: image, pendingSize: (photo.width, photo.height), altText: altText, chatURL: chatURL, around: around
        )
        let unread = try await store.unreadTotal(for: signedIn.user.id)
        let layout = PageBuilder(context: context).layout(title: altText, unreadTotal: unread)
        return pages.page(ImagePageViewModel(layout: layout, image: detail))
    }

    /// One version's file, if the viewer may see the image (404 otherwise, whatever the id). An image never
    /// changes, so a browser keeps it for a year without asking again.
    private func imageFile(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        guard let raw = request.parameters["id"], let number = Int64(raw), number > 0,
              let role = request.parameters["version"].flatMap(ImageRole.init(rawValue:))
        else { throw Self.noSuchImage }
        guard let image = try await store.image(ImageID(number), visibleTo: signedIn.user.id), let version = image.version(role),
              let path = try? dependencies.media.file(hash: version.hash, format: version.format)
        else { throw Self.noSuchImage }
        let filename = "\(image.purpose.storedName)-\(number)-\(role.rawValue).\(version.format.fileExtension)"
        var headers: HTTPHeaders = [
            "Cache-Control": "private, max-age=31536000, immutable",
            "ETag": "\"\(version.hash)\"",
            "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; sandbox",
            // "Download" saves the file under its name; otherwise the browser shows it.
            "Content-Disposition": "\(request.query["download"] == "1" ? "attachment" : "inline"); filename=\"\(filename)\"",
        ]
        if request.headers["If-None-Match"] == "\"\(version.hash)\"" { return Response(status: .notModified, headers: headers) }
        guard let body = FileBody.open(path: path) else {
            dependencies.logger.error("image file missing", metadata: ["request": "\(request.id)", "image": "\(number)", "version": "\(role.rawValue)"])
            throw Self.noSuchImage
        }
        headers.add("Content-Type", MediaType.forFile(named: filename[...]))
        return Response(status: .ok, headers: headers, body: .file(body))
    }
}
