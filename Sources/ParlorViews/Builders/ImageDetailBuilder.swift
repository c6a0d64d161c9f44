import ParlorDomain

/// Where an image is in its life, as the image service reports it.
public enum ImageState: Hashable, Sendable {
    case loading
    case loaded
    case failed(reason: String)
}

/// Builds the image detail screen.
public struct ImageDetailBuilder: Sendable {
    public let paths: Paths

    public init(paths: Paths) {
        self.paths = paths
    }

    /// `size` is the display version's (or, while loading, the size it will have); `retryURL` is where
    /// "Try again" goes when it failed (this page again when nil).
    public func detail(
        _ id: ImageID, state: ImageState, altText: String, backURL: String, size: (width: Int, height: Int)? = nil, retryURL: String? = nil
    ) -> ImageDetailViewModel {
        var failure: String?
        if case .failed(let reason) = state { failure = reason }
        return ImageDetailViewModel(
            domID: "image-\(id)",
            isLoading: state == .loading,
            imageURL: state == .loaded ? paths.imageFile(id) : nil,
            altText: altText,
            failureMessage: failure,
            retryURL: failure == nil ? nil : retryURL ?? paths.image(id),
            backURL: backURL,
            size: size.map { ImageSizeViewModel(width: $0.width, height: $0.height) },
            placeholderURL: state == .loading && size != nil ? paths.photoPlaceholder : nil
        )
    }

    /// A message's photo as the image view shows it: loading while it is processed (the page reloads to
    /// look again), the display version once ready, and why it failed with the way back to the chat.
    /// `around`: the chat's photos before and after it, for previous and next.
    public func detail(
        photo: StoredImage, pendingSize: (width: Int, height: Int)?, altText: String, chatURL: String,
        around: PhotosAround = PhotosAround(previous: nil, next: nil)
    ) -> ImageDetailViewModel {
        switch photo.state {
        case .pending:
            return detail(photo.id, state: .loading, altText: altText, backURL: chatURL, size: pendingSize)
        case .ready:
            let display = photo.version(.display)
            // Photos sent before Parlor kept a full-size version offer their largest one.
            let original = photo.version(.full) ?? display
            let originalURL = original.map { paths.imageFile(photo.id, $0.role) }
            return ImageDetailViewModel(
                domID: "image-\(photo.id)", isLoading: false, imageURL: paths.imageFile(photo.id), altText: altText, failureMessage: nil,
                retryURL: nil, backURL: chatURL, size: display.map { ImageSizeViewModel(width: $0.width, height: $0.height) },
                originalURL: originalURL, downloadURL: originalURL.map { $0 + "?download=1" },
                originalSize: original.map { "\($0.width) × \($0.height)" },
                previousURL: around.previous.map { paths.image($0) }, nextURL: around.next.map { paths.image($0) }
            )
        case .failed:
            return detail(
                photo.id, state: .failed(reason: "This photo could not be processed. Ask for it again, or send another copy."), altText: altText,
                backURL: chatURL, retryURL: chatURL
            )
        }
    }
}
