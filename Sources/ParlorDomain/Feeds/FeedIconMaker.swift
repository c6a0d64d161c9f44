/// Makes a feed's icon into an image Parlor serves: the web front's image service and media folder in
/// `parlor serve`, a stand-in in tests. Never touches the store.
public protocol FeedIconMaker: Sendable {
    /// The versions of the icon in `bytes`, written to the media folder; nil when they are not an image
    /// Parlor reads (a format it refuses, too large, broken).
    func icon(from bytes: [UInt8]) async -> [StoredImageVersion]?
}
