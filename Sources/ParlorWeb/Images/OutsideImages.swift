import Foundation
import Logging
import ParlorDomain
import ParlorImages

/// Pictures Parlor fetched from outside (feeds' icons, linked pages' pictures) made into images it serves, by the same
/// image service as people's faces: known by their bytes, checked by their header, shrunk for their purpose, written
/// to the media folder by hash. Never touches the store.
public struct OutsideImages: FeedIconMaker {
    let images: any ImageService
    let media: MediaFolder
    let logger: Logger

    public init(images: any ImageService, media: MediaFolder, logger: Logger) {
        self.images = images
        self.media = media
        self.logger = logger
    }

    /// The versions `purpose` needs of the picture in `bytes`, written to the media folder; nil when they are not
    /// an image Parlor reads (a format it refuses, too large, broken).
    public func versions(of bytes: [UInt8], for purpose: ImagePurpose) async -> [StoredImageVersion]? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-outside-image-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            let processed = try await images.process(file: file, for: purpose)
            return try media.store(processed.versions)
        } catch {
            logger.info("picture from outside not made", metadata: ["purpose": "\(purpose.storedName)", "why": "\(error)"])
            return nil
        }
    }

    public func keep(_ versions: [StoredImageVersion]) -> Bool {
        media.keep(versions)
    }

    public func icon(from bytes: [UInt8]) async -> [StoredImageVersion]? {
        await versions(of: bytes, for: .feedIcon)
    }
}
