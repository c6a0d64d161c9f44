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

    public func detail(_ id: ImageID, state: ImageState, altText: String, backURL: String) -> ImageDetailViewModel {
        var failure: String?
        if case .failed(let reason) = state { failure = reason }
        return ImageDetailViewModel(
            domID: "image-\(id)",
            isLoading: state == .loading,
            imageURL: state == .loaded ? paths.imageFile(id) : nil,
            altText: altText,
            failureMessage: failure,
            retryURL: failure == nil ? nil : paths.image(id),
            backURL: backURL
        )
    }
}
