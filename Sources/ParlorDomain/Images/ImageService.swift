/// What an uploaded image becomes. Injected beside the store: a real implementation on libvips
/// (`ParlorImages`), and ``InMemoryImageService`` for tests of everything around it.
public protocol ImageService: Sendable {
    /// The versions `purpose` needs of the image in the file at `path`, or why it was refused. The file is
    /// the upload as it was streamed to disk; it is read, never changed.
    func process(file path: String, for purpose: ImagePurpose) async throws(ImageRefusal) -> ProcessedImage
    /// What the file's header says, checked against the limits, without decoding a pixel: what a request
    /// can afford to wait for before it accepts a photo whose processing comes later.
    func inspect(file path: String) async throws(ImageRefusal) -> ImageHeader
}

/// What an image is for, which decides its versions.
public enum ImagePurpose: Hashable, Sendable {
    /// A photo in a message: a display version within 1200x1200 and a thumbnail within 320x320.
    case message
    /// A person's face: squares of 512 and 96.
    case avatar
    /// A feed's icon, the avatar of what it posts: squares of 256 and 96.
    case feedIcon
    /// The picture of a linked page, on its card under a message: a thumbnail within 320x320.
    case linkPreview

    /// The boxes each version must fit, and whether it is cropped to fill its box.
    public var versions: [(role: ImageRole, width: Int, height: Int, crop: Bool)] {
        switch self {
        // `full`: the photo at its own size up to 4096 px a side (a phone's 12 MP photo whole), without its
        // metadata (where it was taken stays on the phone); what "Original size" and "Download" give.
        case .message: [(.display, 1200, 1200, false), (.thumbnail, 320, 320, false), (.full, 4096, 4096, false)]
        case .avatar: [(.avatar, 512, 512, true), (.avatarSmall, 96, 96, true)]
        case .feedIcon: [(.avatar, 256, 256, true), (.avatarSmall, 96, 96, true)]
        case .linkPreview: [(.thumbnail, 320, 320, false)]
        }
    }
}

public enum ImageRole: String, Hashable, Sendable {
    case display, thumbnail, full, avatar, avatarSmall
}

/// One encoded version, with the size written into `<img width height>` so nothing moves when it loads.
public struct ImageVersion: Hashable, Sendable {
    public let role: ImageRole
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    /// How many frames: more than one for an animation.
    public let frames: Int
    public let bytes: [UInt8]

    public init(role: ImageRole, format: ImageFormat, width: Int, height: Int, frames: Int = 1, bytes: [UInt8]) {
        self.role = role
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
        self.bytes = bytes
    }
}

public struct ProcessedImage: Hashable, Sendable {
    /// The format the upload was in, by its bytes.
    public let original: ImageFormat
    public let versions: [ImageVersion]

    public init(original: ImageFormat, versions: [ImageVersion]) {
        self.original = original
        self.versions = versions
    }

    public func version(_ role: ImageRole) -> ImageVersion? { versions.first { $0.role == role } }
}

/// How big an upload may be; each is a configuration option with these defaults.
public struct ImageLimits: Hashable, Sendable {
    /// Bytes of one file (25 MB).
    public var maximumBytes: Int
    /// Pixels of one frame, read from the header before any is decoded (40 megapixels).
    public var maximumPixels: Int
    /// Frames times pixels of an animation (200 megapixels: 50 frames of 2000x2000, or 500 of 632x632).
    public var maximumAnimationPixels: Int
    /// Memory a progressive JPEG's decoder may need for its coefficients (128 MB: 40 megapixels of a
    /// camera's usual 4:2:0, 21 of 4:4:4). Such a decoder keeps the whole image's coefficients whatever
    /// size is asked for, so shrinking on load does not bound it; past this the photo is refused.
    public var maximumProgressiveBytes: Int

    public init(
        maximumBytes: Int = 25_000_000, maximumPixels: Int = 40_000_000, maximumAnimationPixels: Int = 200_000_000,
        maximumProgressiveBytes: Int = 128_000_000
    ) {
        self.maximumBytes = maximumBytes
        self.maximumPixels = maximumPixels
        self.maximumAnimationPixels = maximumAnimationPixels
        self.maximumProgressiveBytes = maximumProgressiveBytes
    }

    /// Whether a JPEG's frame is within the limits: its pixels, and a progressive one's coefficients.
    public func check(_ frame: JPEGFrame) -> ImageRefusal? {
        if let refusal = check(width: frame.width, height: frame.height, frames: 1) { return refusal }
        guard !frame.isProgressive || frame.coefficientBytes <= maximumProgressiveBytes else { return .progressiveTooLarge }
        return nil
    }

    /// Whether a header's numbers are within the limits: each number is checked before any arithmetic.
    public func check(width: Int, height: Int, frames: Int) -> ImageRefusal? {
        guard width > 0, height > 0, frames > 0 else { return .unreadable }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maximumPixels else { return .tooManyPixels(megapixels: maximumPixels / 1_000_000) }
        let (total, overflowAgain) = pixels.multipliedReportingOverflow(by: frames)
        guard !overflowAgain, total <= maximumAnimationPixels else { return .tooLongAnimation }
        return nil
    }
}
