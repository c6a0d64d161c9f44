/// Where a message's photo is in its life. Stored, so it survives a restart: pending work is resumed (or
/// fails visibly when its upload is gone).
public enum PhotoState: String, Hashable, Sendable {
    /// Uploaded and checked by its header; its versions are being made.
    case pending
    case ready
    /// Could not be processed: the cell says so, for everyone, and keeps the text.
    case failed
}

/// The photo of a message, as its cell shows it: the thumbnail's size (before it is ready, the size it will
/// have, from the upload's header), so the cell never changes height when the picture arrives.
public struct MessagePhoto: Hashable, Sendable {
    public let id: ImageID
    public let state: PhotoState
    public let width: Int
    public let height: Int

    public init(id: ImageID, state: PhotoState, width: Int, height: Int) {
        self.id = id
        self.state = state
        self.width = width
        self.height = height
    }
}

/// A photo that arrives with a message: its upload already moved into the media folder as `original`,
/// checked by its header, and not yet processed.
public struct NewPhoto: Hashable, Sendable {
    /// The upload's file name in the media folder's `originals` folder.
    public let original: String
    /// The thumbnail's size to come, for the placeholder.
    public let width: Int
    public let height: Int

    public init(original: String, width: Int, height: Int) {
        self.original = original
        self.width = width
        self.height = height
    }
}

/// What processing a pending photo came to: its versions (files written), or why it failed.
public struct PhotoResult: Hashable, Sendable {
    public let imageID: ImageID
    /// Nil when the photo could not be processed.
    public let versions: [StoredImageVersion]?

    public init(imageID: ImageID, versions: [StoredImageVersion]?) {
        self.imageID = imageID
        self.versions = versions
    }
}

/// A photo still to process: what the image worker needs, from the store.
public struct PendingPhoto: Hashable, Sendable {
    public let imageID: ImageID
    public let original: String

    public init(imageID: ImageID, original: String) {
        self.imageID = imageID
        self.original = original
    }
}

/// What an upload's header says, read before any pixel is decoded: upright width and height (EXIF
/// orientation applied) of one frame, and how many frames.
public struct ImageHeader: Hashable, Sendable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let frames: Int

    public init(format: ImageFormat, width: Int, height: Int, frames: Int) {
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
    }

    /// The size of the version made to fit `box` without cropping: the ratio kept, never enlarged, at least
    /// one pixel. The header's numbers are already within the limits, so nothing here can overflow.
    public func fitted(width boxWidth: Int, height boxHeight: Int) -> (width: Int, height: Int) {
        guard width > boxWidth || height > boxHeight else { return (width, height) }
        // Compare the ratios crosswise, as whole numbers: width/height against boxWidth/boxHeight.
        if width * boxHeight >= height * boxWidth {
            return (boxWidth, max(1, (height * boxWidth + width / 2) / width))
        }
        return (max(1, (width * boxHeight + height / 2) / height), boxHeight)
    }
}
