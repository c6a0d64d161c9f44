/// The image formats Parlor accepts, known by the file's own first bytes: never by the name or the type a
/// client claims.
public enum ImageFormat: String, Hashable, Sendable, CaseIterable {
    case jpeg, png, gif, webp

    /// How many leading bytes ``sniff(_:)`` needs at most.
    public static let sniffLength = 16

    /// The format of a file that starts with `head`, or why it is not accepted: SVG, HTML, PDF and anything
    /// else are refused with a sentence that names what is.
    public static func sniff(_ head: some Collection<UInt8>) -> Result<ImageFormat, ImageRefusal> {
        let bytes = Array(head.prefix(sniffLength))
        if bytes.isEmpty { return .failure(.empty) }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .success(.jpeg) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .success(.png) }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .success(.gif) }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return .success(.webp) }
        return .failure(.notAnImage(kind: Self.otherKind(bytes)))
    }

    /// What a refused file looks like it is, for the message ("an SVG drawing"); nil when unknown.
    static func otherKind(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: Array("%PDF".utf8)) { return "a PDF document" }
        // Text formats may start with a byte-order mark and white space.
        var text = bytes[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let lowered = String(decoding: text, as: UTF8.self).lowercased()
        if lowered.hasPrefix("<svg") || lowered.hasPrefix("<?xml") { return "an SVG drawing or another XML file" }
        if lowered.hasPrefix("<!doctype") || lowered.hasPrefix("<html") || lowered.hasPrefix("<script") || lowered.hasPrefix("<") {
            return "an HTML page or script"
        }
        return nil
    }

    /// "JPEG, PNG, WebP or GIF": what the messages name.
    public static let acceptedNames = "JPEG, PNG, WebP or GIF"
}

/// Why an image was not taken, in words for the person who sent it.
public enum ImageRefusal: Error, Hashable, Sendable {
    case empty
    /// Not one of the accepted formats; `kind` says what it seems to be, when that is known.
    case notAnImage(kind: String?)
    case tooLarge(bytes: Int)
    case tooManyPixels(megapixels: Int)
    case tooLongAnimation
    /// A progressive JPEG whose decoding would need more memory than Parlor gives one photo.
    case progressiveTooLarge
    /// The file claims a format but cannot be read as one (damaged, cut short, not what it says).
    case unreadable
    /// Too many images are being processed; nothing was kept.
    case busy

    public var message: String {
        switch self {
        case .empty: "That file is empty. Choose a photo (\(ImageFormat.acceptedNames))."
        case .notAnImage(let kind):
            (kind.map { "That file is \($0), not a photo. " } ?? "That file is not a photo Parlor can show. ")
                + "Choose a \(ImageFormat.acceptedNames) image."
        case .tooLarge(let bytes): "Photos can be at most \(bytes / 1_000_000) MB."
        case .tooManyPixels(let megapixels): "Photos can have at most \(megapixels) megapixels."
        case .tooLongAnimation: "That animation has too many frames for its size. Send a shorter or smaller one."
        case .progressiveTooLarge: "That progressive JPEG is too large to open safely. Send it smaller, or saved as a standard JPEG."
        case .unreadable: "That image could not be read; it may be damaged or cut short. Try another copy."
        case .busy: "Parlor is busy with other photos. Please try again in a moment."
        }
    }
}
