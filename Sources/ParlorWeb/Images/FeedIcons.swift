import Foundation
import Logging
import ParlorDomain
import ParlorImages

/// Feeds' icons made into avatars by the same image service as people's faces: known by their bytes,
/// checked by their header, squared and shrunk, written to the media folder by hash.
public struct FeedIcons: FeedIconMaker {
    let images: any ImageService
    let media: MediaFolder
    let logger: Logger

    public init(images: any ImageService, media: MediaFolder, logger: Logger) {
        self.images = images
        self.media = media
        self.logger = logger
    }

    public func icon(from bytes: [UInt8]) async -> [StoredImageVersion]? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-feed-icon-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            let processed = try await images.process(file: file, for: .feedIcon)
            return try media.store(processed.versions)
        } catch {
            logger.info("feed icon not made", metadata: ["why": "\(error)"])
            return nil
        }
    }
}
