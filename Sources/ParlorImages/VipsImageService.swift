import BoundedWork
import CVips
import Foundation
import ParlorDomain

/// Images processed by libvips on threads of their own: at most `concurrency` at a time and `queueLimit`
/// waiting, past which an upload is refused as busy (the caller answers 503 and keeps nothing).
///
/// For each upload: the format by the file's first bytes; the header alone (no pixel decoded) against the
/// limits; then each version straight from the file, shrunk on load where the format allows, turned upright
/// by its EXIF orientation, never enlarged, and encoded without any metadata, as WebP unless the original
/// format is smaller. A file cut short is refused, not shown half grey.
public final class VipsImageService: ImageService {
    public let limits: ImageLimits
    private let work: BoundedWorkQueue

    /// Nil when libvips cannot start.
    public init?(limits: ImageLimits = ImageLimits(), concurrency: Int = 2, queueLimit: Int = 16) {
        guard Vips.start() else { return nil }
        self.limits = limits
        work = BoundedWorkQueue(label: "parlor.images", concurrency: concurrency, waitingLimit: queueLimit)
    }

    /// Images being processed and waiting now.
    public var load: (running: Int, waiting: Int) { work.load }

    public func process(file path: String, for purpose: ImagePurpose) async throws(ImageRefusal) -> ProcessedImage {
        let limits = limits
        guard let result = await work.run({ Self.process(path, purpose, limits) }) else { throw .busy }
        return try result.get()
    }

    /// The header alone, on the caller's thread: a file's header is a few kilobytes, read in well under a
    /// millisecond, so it does not wait behind whole images on the worker.
    public func inspect(file path: String) async throws(ImageRefusal) -> ImageHeader {
        try Self.header(path, limits).get()
    }

    /// The whole job, on a worker thread.
    static func process(_ path: String, _ purpose: ImagePurpose, _ limits: ImageLimits) -> Result<ProcessedImage, ImageRefusal> {
        let header: ImageHeader
        switch Self.header(path, limits) {
        case .success(let read): header = read
        case .failure(let refusal): return .failure(refusal)
        }
        let format = header.format
        let animated = header.frames > 1 && (format == .gif || format == .webp)
        var versions: [ImageVersion] = []
        for box in purpose.versions {
            var image: OpaquePointer?
            guard parlor_vips_thumbnail(path, animated ? 1 : 0, Int32(box.width), Int32(box.height), box.crop ? 1 : 0, &image) == 0,
                  let image
            else {
                _ = Vips.takeError()
                return .failure(.unreadable)
            }
            defer { Vips.unref(image) }
            guard let encoded = encode(image, original: format, animated: animated) else { return .failure(.unreadable) }
            let outWidth = Int(parlor_vips_width(image))
            let outHeight = Int(parlor_vips_page_height(image))
            versions.append(ImageVersion(
                role: box.role, format: encoded.format, width: outWidth, height: outHeight,
                frames: animated ? max(1, Int(parlor_vips_height(image)) / max(1, outHeight)) : 1, bytes: encoded.bytes
            ))
        }
        return .success(ProcessedImage(original: format, versions: versions))
    }

    /// The format by the first bytes, the size of the file, then the header by the one loader of that
    /// format, against the limits; width and height as they will be once turned upright.
    static func header(_ path: String, _ limits: ImageLimits) -> Result<ImageHeader, ImageRefusal> {
        // libvips reads options in brackets after a file name; Parlor's own upload paths never have any.
        guard !path.contains("["), let file = FileHandle(forReadingAtPath: path) else { return .failure(.unreadable) }
        let size = (try? file.seekToEnd()).map(Int.init) ?? 0
        try? file.seek(toOffset: 0)
        defer { try? file.close() }
        let head = (try? file.read(upToCount: ImageFormat.sniffLength)) ?? Data()
        let format: ImageFormat
        switch ImageFormat.sniff(head) {
        case .success(let sniffed): format = sniffed
        case .failure(let refusal): return .failure(refusal)
        }
        guard size <= limits.maximumBytes else { return .failure(.tooLarge(bytes: limits.maximumBytes)) }
        if format == .jpeg {
            // Before libvips opens it: a progressive JPEG's decoder needs memory for the whole image. Its frame
            // header comes after the metadata segments, so a JPEG alone is read further.
            let rest = (try? file.read(upToCount: JPEGFrame.searchLength - head.count)) ?? Data()
            guard let frame = JPEGFrame.read(head + rest) else { return .failure(.unreadable) }
            if let refusal = limits.check(frame) { return .failure(refusal) }
        }

        // The header: what libvips's loader (one of the four allowed) says of the size.
        guard let header = parlor_vips_header(path) else {
            _ = Vips.takeError()
            return .failure(.unreadable)
        }
        let width = Int(parlor_vips_width(header))
        let pageHeight = Int(parlor_vips_page_height(header))
        let frames = Int(parlor_vips_pages(header))
        let loader = parlor_vips_loader(header).map { String(cString: $0) } ?? ""
        let orientation = Int(parlor_vips_orientation(header))
        Vips.unref(header)
        // The loader must be the one of the format the bytes say: a PNG loader for a PNG, nothing else.
        guard loader.hasPrefix(Self.loaderPrefix(format)) else { return .failure(.unreadable) }
        if let refusal = limits.check(width: width, height: pageHeight, frames: frames) { return .failure(refusal) }
        // EXIF orientations 5 to 8 turn the picture a quarter: its upright width is its stored height.
        let turned = (5...8).contains(orientation)
        return .success(ImageHeader(format: format, width: turned ? pageHeight : width, height: turned ? width : pageHeight, frames: frames))
    }

    /// WebP, or the original format when that is smaller (a flat PNG often is); animations stay WebP.
    static func encode(_ image: OpaquePointer, original: ImageFormat, animated: Bool) -> (format: ImageFormat, bytes: [UInt8])? {
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        guard parlor_vips_webp(image, 82, &bytes, &length) == 0 else {
            _ = Vips.takeError()
            return nil
        }
        guard let webp = WebPMetadata.stripped(Vips.take(bytes, length)) else { return nil }
        guard !animated, original == .jpeg || original == .png else { return (.webp, webp) }
        bytes = nil
        length = 0
        let status = original == .jpeg ? parlor_vips_jpeg(image, 82, &bytes, &length) : parlor_vips_png(image, &bytes, &length)
        guard status == 0 else {
            _ = Vips.takeError()
            return (.webp, webp)
        }
        let other = Vips.take(bytes, length)
        return other.count < webp.count ? (original, other) : (.webp, webp)
    }

    /// The start of the name libvips gives each allowed loader ("jpegload", "pngload", "gifload", "webpload").
    static func loaderPrefix(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "jpegload"
        case .png: "pngload"
        case .gif: "gifload"
        case .webp: "webpload"
        }
    }
}
