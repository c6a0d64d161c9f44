import Foundation

/// One version of a stored image: its file is named by `hash`, the BLAKE2b of its bytes, in the media folder.
public struct StoredImageVersion: Hashable, Sendable {
    public let role: ImageRole
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    /// Lower-case hexadecimal; the file's name and its ETag.
    public let hash: String
    public let byteCount: Int

    public init(role: ImageRole, format: ImageFormat, width: Int, height: Int, hash: String, byteCount: Int) {
        self.role = role
        self.format = format
        self.width = width
        self.height = height
        self.hash = hash
        self.byteCount = byteCount
    }
}

/// An image about to be stored, its files already written.
public struct NewImage: Hashable, Sendable {
    public let ownerID: UserID
    public let purpose: ImagePurpose
    public let versions: [StoredImageVersion]
    public let createdAt: Date

    public init(ownerID: UserID, purpose: ImagePurpose, versions: [StoredImageVersion], createdAt: Date) {
        self.ownerID = ownerID
        self.purpose = purpose
        self.versions = versions
        self.createdAt = createdAt
    }
}

/// An image as stored. Its content never changes: a new picture is a new image.
public struct StoredImage: Hashable, Sendable {
    public let id: ImageID
    public let ownerID: UserID
    public let purpose: ImagePurpose
    public let versions: [StoredImageVersion]
    /// Avatars are stored ready; a message's photo is pending until the worker has made its versions.
    public let state: PhotoState
    /// The message a photo came with.
    public let messageID: MessageID?

    public init(
        id: ImageID, ownerID: UserID, purpose: ImagePurpose, versions: [StoredImageVersion], state: PhotoState = .ready, messageID: MessageID? = nil
    ) {
        self.id = id
        self.ownerID = ownerID
        self.purpose = purpose
        self.versions = versions
        self.state = state
        self.messageID = messageID
    }

    public func version(_ role: ImageRole) -> StoredImageVersion? { versions.first { $0.role == role } }
}

/// Where images are recorded, beside the chats.
public protocol ImageStore: Sendable {
    /// The image, if `viewer` may see it: their own, or the avatar of someone they share a chat with.
    /// Anyone else gets nil, the same answer as for no image, so ids cannot be probed.
    func image(_ id: ImageID, visibleTo viewer: UserID) async throws -> StoredImage?
    /// The hash of every version of every image: the media files that must stay.
    func imageHashes() async throws -> Set<String>
    /// Messages' photos still to process, oldest first: the image worker resumes them at start.
    func pendingPhotos() async throws -> [PendingPhoto]
    /// The original a message's photo is still to be processed from: nil once it is processed, failed or gone.
    /// A retried send is told apart by it: its upload is not the one its message keeps.
    func pendingOriginal(of image: ImageID) async throws -> String?
    /// The photos sent just before and just after `message` in its chat (deleted ones are gone), for the image
    /// view's previous and next.
    func photosAround(_ message: MessageID, in chat: ChatID) async throws -> PhotosAround
}

/// The photos on either side of one in its chat.
public struct PhotosAround: Hashable, Sendable {
    public let previous: ImageID?
    public let next: ImageID?

    public init(previous: ImageID?, next: ImageID?) {
        self.previous = previous
        self.next = next
    }
}

extension ImagePurpose {
    /// How the store names it.
    public var storedName: String {
        switch self {
        case .message: "message"
        case .avatar: "avatar"
        case .feedIcon: "feedIcon"
        case .linkPreview: "linkPreview"
        }
    }

    public init?(storedName: String) {
        switch storedName {
        case "message": self = .message
        case "avatar": self = .avatar
        case "feedIcon": self = .feedIcon
        case "linkPreview": self = .linkPreview
        default: return nil
        }
    }
}
