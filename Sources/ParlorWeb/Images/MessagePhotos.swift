import Foundation
import ParlorDomain
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

/// Photos in messages, after the request: the message is stored with its photo pending (the upload kept
/// in the media folder as its original), and the image worker makes the versions off the request, then
/// sends the result through the event router like any other change. Every open page showing the message
/// redraws its cell then.
extension ParlorApp {
    /// Checks an upload by its bytes and header (no pixel decoded), takes a slot, and keeps the file as
    /// the original of a pending photo. The caller gives the slot back with ``startPhoto(_:)`` or
    /// ``dropPhoto(_:)``.
    func acceptPhoto(upload path: String) async throws(ImageRefusal) -> NewPhoto {
        let header = try await images.inspect(file: path)
        guard photoSlots.take() else { throw .busy }
        do {
            let original = try media.keepOriginal(upload: path, format: header.format)
            let box = header.fitted(width: 320, height: 320)
            return NewPhoto(original: original, width: box.width, height: box.height)
        } catch {
            photoSlots.give()
            logger.error("media folder refused an upload", metadata: ["error": "\(error)"])
            throw .busy
        }
    }

    /// The message was not stored: its original goes, and its slot.
    func dropPhoto(_ photo: NewPhoto) {
        media.removeOriginal(photo.original)
        photoSlots.give()
    }

    /// Processes a stored message's photo in the background, then gives its slot back.
    func startPhoto(_ message: Message, original: String) {
        guard let photo = message.photo else {
            // A retry of a message stored before without a photo: the second upload is not needed.
            media.removeOriginal(original)
            photoSlots.give()
            return
        }
        Task { [self] in
            await processPhoto(PendingPhoto(imageID: photo.id, original: original))
            photoSlots.give()
        }
    }

    /// Photos left pending by the last run, oldest first, one after the other; one whose upload is gone
    /// fails visibly. Run once in the background after start.
    public func resumePhotos() async {
        do {
            let pending = try await store.pendingPhotos()
            if !pending.isEmpty { logger.notice("resuming photos", metadata: ["count": "\(pending.count)"]) }
            for photo in pending where !Task.isCancelled { await processPhoto(photo) }
        } catch {
            logger.error("pending photos not read", metadata: ["error": "\(error)"])
        }
    }

    /// Versions made and written, then recorded (or the failure recorded), then the original removed: a
    /// crash at any point leaves the photo pending with its original, and the next start resumes it.
    func processPhoto(_ pending: PendingPhoto) async {
        var versions: [StoredImageVersion]?
        if let path = media.original(pending.original), FileManager.default.fileExists(atPath: path) {
            versions = await makeVersions(path, pending.imageID)
        } else {
            logger.error("photo upload missing", metadata: ["image": "\(pending.imageID)"])
        }
        let result = PhotoResult(imageID: pending.imageID, versions: versions)
        guard case .photoProcessed = await events.send(.processingPhoto(result)) else {
            // Its message was deleted meanwhile (nothing to keep), or the store failed (kept for the next start).
            if let still = try? await store.pendingPhotos(), !still.contains(where: { $0.imageID == pending.imageID }) {
                media.removeOriginal(pending.original)
            }
            return
        }
        media.removeOriginal(pending.original)
    }

    /// The versions, their files written; nil when the photo cannot be processed. While the worker is full
    /// (avatars share it) the photo waits its turn, for a minute at most.
    private func makeVersions(_ path: String, _ id: ImageID) async -> [StoredImageVersion]? {
        for _ in 0..<240 {
            do {
                let processed = try await images.process(file: path, for: .message)
                return try media.store(processed.versions)
            } catch ImageRefusal.busy {
                try? await Task.sleep(for: .milliseconds(250))
            } catch {
                logger.info("photo not processed", metadata: ["image": "\(id)", "why": "\(error)"])
                return nil
            }
        }
        logger.error("photo waited too long for the image worker", metadata: ["image": "\(id)"])
        return nil
    }
}
