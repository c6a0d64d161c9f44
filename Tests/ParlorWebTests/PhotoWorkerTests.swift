import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorImages
import ParlorStorage
import Synchronization
import Testing
@testable import parlor

/// The photo worker, a service of its own: a busy image service is waited out with growing pauses, and a
/// test awaits the worker instead of sleeping.
@Suite struct PhotoWorkerTests {
    /// Answers "busy" the first `busyTimes` times it is asked to process, then as the in-memory service does.
    final class BusyAtFirst: ImageService {
        let inner = InMemoryImageService()
        let busyTimes: Int
        let asked = Atomic<Int>(0)

        init(busyTimes: Int) { self.busyTimes = busyTimes }

        func inspect(file path: String) async throws(ImageRefusal) -> ImageHeader { try await inner.inspect(file: path) }

        func process(file path: String, for purpose: ImagePurpose) async throws(ImageRefusal) -> ProcessedImage {
            if asked.add(1, ordering: .relaxed).newValue <= busyTimes { throw .busy }
            return try await inner.process(file: path, for: purpose)
        }
    }

    @Test func aPhotoWaitsOutABusyImageServiceThenIsReady() async throws {
        let images = BusyAtFirst(busyTimes: 3)
        try await RunningParlor.with(images: images) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            #expect(try await MessagePhotoTests.sendPhoto(ana, in: chat, text: "Patience").status == 303)
            await parlor.app.photoWorker.settled()
            #expect(try await MessagePhotoTests.messages(parlor, in: chat).last?.photo?.state == .ready)
            #expect(images.asked.load(ordering: .relaxed) == 4, "three busy answers, then processed")
            #expect(MessagePhotoTests.originals(parlor).isEmpty)
        }
    }

    /// Counts what it is asked to process, held until the test lets it go.
    final class CountingGate: ImageService {
        let gated = GatedImageService()
        let asked = Atomic<Int>(0)

        func inspect(file path: String) async throws(ImageRefusal) -> ImageHeader { try await gated.inspect(file: path) }

        func process(file path: String, for purpose: ImagePurpose) async throws(ImageRefusal) -> ProcessedImage {
            asked.add(1, ordering: .relaxed)
            return try await gated.process(file: path, for: purpose)
        }
    }

    @Test func aPhotoSubmittedAgainWhileQueuedIsMadeOnce() async throws {
        let images = CountingGate()
        try await RunningParlor.with(images: images) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            #expect(try await MessagePhotoTests.sendPhoto(ana, in: chat, text: "Once").status == 303)
            // As if resumed at start while its request submitted it too.
            let store = try SQLiteChatStore(path: parlor.folder.appendingPathComponent("parlor.sqlite").path)
            let pending = try #require(try await store.pendingPhotos().first)
            let doneAgain = Mutex(false)
            parlor.app.photoWorker.submit(pending) { doneAgain.withLock { $0 = true } }
            let givenBack = doneAgain.withLock { $0 }
            #expect(givenBack, "the second is done at once, its slot given back")
            images.gated.open()
            await parlor.app.photoWorker.settled()
            let asked = images.asked.load(ordering: .relaxed)
            #expect(asked == 1)
            #expect(try await MessagePhotoTests.messages(parlor, in: chat).last?.photo?.state == .ready)
        }
    }

    /// `--image-threads` photos are processed at once, never more, whatever waits behind them.
    @Test(arguments: [1, 3])
    func asManyPhotosAreProcessedAtOnceAsTheImageServiceHasThreads(_ workers: Int) async throws {
        let images = GatedImageService()
        try await RunningParlor.with(images: images, configure: { $0.photoWorkers = workers }) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            for index in 0..<5 {
                #expect(try await MessagePhotoTests.sendPhoto(ana, in: chat, text: "Photo \(index)").status == 303)
            }
            // As many as there are workers are being made; the others wait in the worker's queue, not started.
            #expect(await eventually { images.held == workers && parlor.app.photoWorker.waiting == 5 - workers })
            #expect(images.held == workers)
            images.open()
            await parlor.app.photoWorker.settled()
            let photos = try await MessagePhotoTests.messages(parlor, in: chat).compactMap(\.photo)
            #expect(photos.count == 5 && photos.allSatisfy { $0.state == .ready })
        }
    }

    @Test func pausesGrowAndEndWithinAMinute() {
        let pauses = PhotoWorkerBackoff.pauses
        #expect(pauses.first == .milliseconds(50) && pauses.dropFirst().first == .milliseconds(100))
        #expect(pauses.max() == .seconds(2))
        let total = pauses.reduce(Duration.zero, +)
        #expect(total >= .seconds(60) && total < .seconds(62))
    }
}
