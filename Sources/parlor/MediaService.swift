import Clocks
import Foundation
import Logging
import ParlorDomain
import ParlorImages

/// The media folder's upkeep, once serving has started (a large folder does not hold up the first
/// request): files no image names (a crash between file and row, a deleted photo) are swept, then again
/// every hour, until cancelled.
struct MediaService {
    let media: MediaFolder
    let store: any ImageStore
    let logger: Logger
    /// Times the hour between sweeps.
    var timer = AnyClock(ContinuousClock())

    func run() async {
        while !Task.isCancelled {
            await sweep()
            do { try await timer.sleep(for: .seconds(3_600)) } catch { return }
        }
    }

    /// Removes media files no image names (what a crash between writing files and recording their image
    /// left), and originals no pending photo names.
    func sweep() async {
        do {
            // File ages are the file system's, so the real time, not the injected clock.
            let swept = media.sweep(keeping: try await store.imageHashes(), now: Date())
                + media.sweepOriginals(keeping: Set(try await store.pendingPhotos().map(\.original)), now: Date())
            if swept > 0 { logger.notice("media files without an image removed", metadata: ["count": "\(swept)"]) }
        } catch {
            logger.error("media files not swept", metadata: ["error": "\(error)"])
        }
    }
}
