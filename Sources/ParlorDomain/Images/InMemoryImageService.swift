import Foundation

/// The image service of tests that are about what surrounds processing (routes, storage, live updates):
/// it refuses what the real one refuses by the file's first bytes and its size, and otherwise answers each
/// version as the original bytes at the size it was told. Real processing is tested on libvips itself.
public struct InMemoryImageService: ImageService {
    public let limits: ImageLimits
    /// The width and height every version claims.
    public let size: (width: Int, height: Int)

    public init(limits: ImageLimits = ImageLimits(), size: (width: Int, height: Int) = (64, 48)) {
        self.limits = limits
        self.size = size
    }

    public func inspect(file path: String) async throws(ImageRefusal) -> ImageHeader {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable }
        guard data.count <= limits.maximumBytes else { throw .tooLarge(bytes: limits.maximumBytes) }
        let format = try ImageFormat.sniff(data).get()
        if format == .jpeg, let frame = JPEGFrame.read(data.prefix(JPEGFrame.searchLength)), let refusal = limits.check(frame) { throw refusal }
        return ImageHeader(format: format, width: size.width, height: size.height, frames: 1)
    }

    public func process(file path: String, for purpose: ImagePurpose) async throws(ImageRefusal) -> ProcessedImage {
        let format = try await inspect(file: path).format
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable }
        return ProcessedImage(original: format, versions: purpose.versions.map { box in
            ImageVersion(role: box.role, format: format, width: min(size.width, box.width), height: min(size.height, box.height), bytes: Array(data))
        })
    }
}
