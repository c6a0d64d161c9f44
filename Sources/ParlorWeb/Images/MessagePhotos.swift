import Foundation
import Logging
import ParlorDomain
import ParlorImages
import Synchronization

/// How many accepted photos are still being processed, against a limit.
final class PhotoSlots: Sendable {
    private let taken = Mutex(0)
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot; false when all are taken (the upload is refused as busy).
    func take() -> Bool {
        taken.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func give() {
        taken.withLock { $0 = max(0, $0 - 1) }
    }

    var inUse: Int { taken.withLock { $0 } }
}

/// Photos in messages, at the request: checked, kept as the original of a pending photo, and handed to the
/// ``PhotoWorker`` once the message is stored; it makes the versions off the request and sends the result
/// through the event router like any other change. Every open page showing the message redraws its cell then.
public struct PhotoIntake: Sendable {
    let images: any ImageService
    let media: MediaFolder
    let worker: PhotoWorker
    /// Which upload each pending photo keeps.
    let store: any ImageStore
    /// Photos accepted and still being processed.
    let slots: PhotoSlots
    let logger: Logger

    /// At most `limit` photos accepted and not yet processed; past that an upload is refused as busy.
    public init(images: any ImageService, media: MediaFolder, worker: PhotoWorker, store: any ImageStore, limit: Int, logger: Logger) {
        self.images = images
        self.store = store
        self.media = media
        self.worker = worker
        slots = PhotoSlots(limit: limit)
        self.logger = logger
    }

    /// Checks an upload by its bytes and header (no pixel decoded), takes a slot, and keeps the file as
    /// the original of a pending photo. The caller gives the slot back with ``start(_:original:)`` or
    /// ``drop(_:)``.
    func accept(upload path: String) async throws(ImageRefusal) -> NewPhoto {
        let header = try await images.inspect(file: path)
        guard slots.take() else { throw .busy }
        do {
            let original = try media.keepOriginal(upload: path, format: header.format)
            let box = header.fitted(width: 320, height: 320)
            return NewPhoto(original: original, width: box.width, height: box.height)
        } catch {
            slots.give()
            logger.error("media folder refused an upload", metadata: ["error": "\(error)"])
            throw .busy
        }
    }

    /// The message was not stored: its original goes, and its slot.
    func drop(_ photo: NewPhoto) {
        discard(photo.original)
    }

    /// Hands a stored message's photo to the photo worker, which gives its slot back once it is processed.
    /// A retried send (the same token) returns the message its first upload made: this upload is then not its
    /// photo, and goes at once with its slot, whether the first is still processed or long done.
    func start(_ message: Message, original: String) async {
        guard let photo = message.photo else { return discard(original) }
        let kept: String?
        do {
            kept = try await store.pendingOriginal(of: photo.id)
        } catch {
            // Left in place: if it is the photo's upload, the next start processes it; if not, the sweep takes it.
            logger.error("photo not handed to the worker: the store could not say whose upload it is", metadata: ["image": "\(photo.id)", "error": "\(error)"])
            return slots.give()
        }
        guard kept == original else { return discard(original) }
        worker.submit(PendingPhoto(imageID: photo.id, original: original)) { [slots] in slots.give() }
    }

    /// An upload no message keeps: its file goes, and its slot.
    private func discard(_ original: String) {
        media.removeOriginal(original)
        slots.give()
    }
}
