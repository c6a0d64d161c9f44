import BoundedWork
import Foundation
import Logging
import ParlorDomain
import Synchronization

/// Photos in messages made into their versions after the request: a message is stored with its photo
/// pending (the upload kept as its original in the media folder), its photo is queued here, and ``run()``
/// makes the versions, writes their files and sends the result through the event sink like any other
/// change. A crash at any point leaves the photo pending with its original; ``run()`` first resumes what the
/// last run left pending. Run it for as long as Parlor serves (a service of the executable's group).
///
/// The queue is bounded: past ``queueLimit`` a photo is not queued (its message stays pending until the next
/// start). While the image service is full (avatars share it) a photo waits with growing pauses, for a
/// minute at most, then fails visibly.
public final class PhotoWorker: Sendable {
    /// How many photos are processed at once: the image service has its own threads and waiting room; more
    /// here would only wait there.
    public let concurrency: Int
    public let queueLimit: Int
    private let images: any ImageService
    private let media: MediaFolder
    private let store: any ImageStore
    private let events: any EventSink
    private let logger: Logger
    private let queue: WorkerQueue<Job>
    private let progress = Mutex(Progress())

    struct Job: Sendable {
        let photo: PendingPhoto
        let done: @Sendable () -> Void
    }

    private struct Progress {
        /// Whether ``run()`` has queued what the last run left pending.
        var resumed = false
        var submitted = 0
        var finished = 0
        /// Photos queued or under way: one resumed at start and submitted again by its request (the window
        /// between the store's list and the first request) is made once.
        var queued: Set<ImageID> = []
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    public init(
        images: any ImageService, media: MediaFolder, store: any ImageStore, events: any EventSink, logger: Logger,
        concurrency: Int = 4, queueLimit: Int = 1_000, refused: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.images = images
        self.media = media
        self.store = store
        self.events = events
        self.logger = logger
        self.concurrency = max(1, concurrency)
        self.queueLimit = max(1, queueLimit)
        queue = WorkerQueue(high: self.queueLimit, concurrency: self.concurrency, refused: refused)
    }

    /// Queues a stored message's pending photo; `done` runs once it is processed, failed or given up (at once
    /// when the same photo is already queued or under way).
    public func submit(_ photo: PendingPhoto, done: @escaping @Sendable () -> Void = {}) {
        let isNew = progress.withLock { progress -> Bool in
            guard progress.queued.insert(photo.imageID).inserted else { return false }
            progress.submitted += 1
            return true
        }
        guard isNew else { return done() }
        guard queue.submit(Job(photo: photo, done: done)) else {
            logger.error("photo queue full: the photo stays pending until the next start", metadata: ["image": "\(photo.imageID)"])
            return finished(photo.imageID, done)
        }
    }

    /// Photos waiting for a worker now (not those being made).
    public var waiting: Int { queue.waiting }

    /// Resumes the photos the last run left pending, then processes the queue, ``concurrency`` at a time,
    /// until cancelled (graceful shutdown): what is under way then stays pending for the next start.
    public func run() async {
        do {
            let pending = try await store.pendingPhotos()
            if !pending.isEmpty { logger.notice("resuming photos", metadata: ["count": "\(pending.count)"]) }
            for photo in pending { submit(photo) }
        } catch {
            logger.error("pending photos not read", metadata: ["error": "\(error)"])
        }
        release { $0.resumed = true }
        await queue.run { [self] job in
            await process(job.photo)
            finished(job.photo.imageID, job.done)
        }
    }

    /// Returns once ``run()`` has resumed what the last run left pending and every photo submitted so far has
    /// been processed (or given up).
    public func settled() async {
        await withCheckedContinuation { waiter in
            let now = progress.withLock { progress -> Bool in
                if progress.resumed && progress.finished >= progress.submitted { return true }
                progress.waiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    private func finished(_ image: ImageID, _ done: @Sendable () -> Void) {
        done()
        release { progress in
            progress.finished += 1
            progress.queued.remove(image)
        }
    }

    /// Changes the progress, and resumes the waiters once everything is done.
    private func release(_ change: (inout Progress) -> Void) {
        let ready = progress.withLock { progress -> [CheckedContinuation<Void, Never>] in
            change(&progress)
            guard progress.resumed, progress.finished >= progress.submitted else { return [] }
            defer { progress.waiters = [] }
            return progress.waiters
        }
        for waiter in ready { waiter.resume() }
    }

    /// Versions made and written, then recorded (or the failure recorded), then the original removed.
    func process(_ pending: PendingPhoto) async {
        var versions: [StoredImageVersion]?
        if let path = media.original(pending.original), FileManager.default.fileExists(atPath: path) {
            versions = await makeVersions(path, pending.imageID)
            if Task.isCancelled { return }
        } else {
            logger.error("photo upload missing", metadata: ["image": "\(pending.imageID)"])
        }
        let result = PhotoResult(imageID: pending.imageID, versions: versions)
        guard case .photoProcessed = await events.send(.processingPhoto(result), requestID: nil) else {
            // Its message was deleted meanwhile (nothing to keep), or the store failed (kept for the next start).
            do {
                if !(try await store.pendingPhotos()).contains(where: { $0.imageID == pending.imageID }) {
                    media.removeOriginal(pending.original)
                }
            } catch {
                logger.error("photo left pending: the store could not say", metadata: ["image": "\(pending.imageID)", "error": "\(error)"])
            }
            return
        }
        media.removeOriginal(pending.original)
    }

    /// The versions, their files written; nil when the photo cannot be processed.
    private func makeVersions(_ path: String, _ id: ImageID) async -> [StoredImageVersion]? {
        for pause in PhotoWorkerBackoff.pauses + [.zero] {
            do {
                let processed = try await images.process(file: path, for: .message)
                return try media.store(processed.versions)
            } catch ImageRefusal.busy {
                if pause == .zero { break }
                do { try await Task.sleep(for: pause) } catch { return nil }
            } catch {
                logger.info("photo not processed", metadata: ["image": "\(id)", "why": "\(error)"])
                return nil
            }
        }
        logger.error("photo waited too long for the image worker", metadata: ["image": "\(id)"])
        return nil
    }
}

/// How long a photo waits while the image service is full: 50 ms, doubling, at most 2 s each, a minute in all.
public enum PhotoWorkerBackoff {
    public static let pauses: [Duration] = {
        var pauses: [Duration] = []
        var pause = Duration.milliseconds(50)
        var total = Duration.zero
        while total < .seconds(60) {
            pauses.append(pause)
            total += pause
            pause = min(pause * 2, .seconds(2))
        }
        return pauses
    }()
}
