import CVips
import Foundation
import ParlorDomain
import Testing
@testable import ParlorImages

/// Real libvips on files these tests make with libvips itself (and a few byte by byte).
@Suite struct VipsImageServiceTests {
    let service = VipsImageService(concurrency: 2, queueLimit: 8)!

    // MARK: Orientation and metadata

    @Test(arguments: 1...8)
    func everyExifOrientationComesOutUprightWithNoMetadataLeft(orientation: Int) async throws {
        // Upright: 60x40, the top-left quarter white, the rest black. Stored so that the orientation
        // turns it upright again, with the orientation in its EXIF.
        let upright = Picture.quarters(width: 60, height: 40)
        let stored = upright.transformed(Picture.inverse(orientation))
        let file = try TestFile(Codec.jpeg(stored, orientation: orientation))
        #expect(try Codec.decode(file.bytes).exifOrientation == orientation, "the test file says its orientation")
        let header = try await service.inspect(file: file.path)
        #expect((header.format, header.width, header.height, header.frames) == (.jpeg, 60, 40, 1), "the header alone gives the upright size")
        let processed = try await service.process(file: file.path, for: .message)
        for version in processed.versions {
            let decoded = try Codec.decode(version.bytes)
            #expect((decoded.picture.width, decoded.picture.height) == (60, 40), "never enlarged, upright: \(version.role)")
            #expect((version.width, version.height) == (60, 40))
            #expect(decoded.picture.brightness(x: 0..<30, y: 0..<20) > 200, "orientation \(orientation): top-left is white")
            #expect(decoded.picture.brightness(x: 30..<60, y: 20..<40) < 60, "orientation \(orientation): bottom-right is black")
            #expect(decoded.exifOrientation == nil && !decoded.hasExif, "no EXIF leaves the server")
            #expect(!version.bytes.contains(subsequence: Array("Exif".utf8)))
        }
    }

    @Test func everyEncoderLeavesTheExifOfItsInputBehind() throws {
        // A picture that carries EXIF (its orientation) into each of Parlor's encoders.
        let withExif = try Codec.decode(Codec.jpeg(Picture.quarters(width: 40, height: 30), orientation: 6))
        #expect(withExif.hasExif)
        let image = try Codec.image(withExif.picture)
        defer { Vips.unref(image) }
        parlor_vips_set_orientation(image, 6)
        #expect(try Codec.encoded { parlor_vips_jpeg_keeping(image, $0, $1) }.contains(subsequence: Array("Exif".utf8)), "kept when asked")
        let encoded = [
            try Codec.encoded { parlor_vips_jpeg(image, 82, $0, $1) },
            try Codec.encoded { parlor_vips_png(image, $0, $1) },
            try WebPMetadata.stripped(Codec.encoded { parlor_vips_webp(image, 82, $0, $1) }) ?? [],
        ]
        for bytes in encoded {
            let decoded = try Codec.decode(bytes)
            #expect(!decoded.hasExif && decoded.exifOrientation == nil)
            #expect(!bytes.contains(subsequence: Array("Exif".utf8)))
        }
    }

    @Test func aLargePhotoIsShrunkToItsDisplaySizeAndThumbnailKeepingItsShape() async throws {
        let file = try TestFile(Codec.jpeg(Picture.quarters(width: 2400, height: 1600), orientation: 1))
        let processed = try await service.process(file: file.path, for: .message)
        #expect(processed.original == .jpeg)
        #expect(processed.version(.display).map { ($0.width, $0.height) } ?? (0, 0) == (1200, 800))
        #expect(processed.version(.thumbnail).map { ($0.width, $0.height) } ?? (0, 0) == (320, 213))
        for version in processed.versions {
            let decoded = try Codec.decode(version.bytes)
            #expect((decoded.picture.width, decoded.picture.height) == (version.width, version.height), "the size written is the size encoded")
        }
    }

    @Test func anAvatarIsCroppedToSquares() async throws {
        let file = try TestFile(Codec.jpeg(Picture.quarters(width: 800, height: 600), orientation: 1))
        let processed = try await service.process(file: file.path, for: .avatar)
        #expect(processed.versions.map { [$0.width, $0.height] } == [[512, 512], [96, 96]])
    }

    // MARK: Animations

    @Test func anAnimatedGIFStaysAnimated() async throws {
        let file = try TestFile(Codec.animatedGIF(frames: 3, width: 40, height: 30))
        let processed = try await service.process(file: file.path, for: .message)
        let display = try #require(processed.version(.display))
        #expect(processed.original == .gif && display.format == .webp)
        #expect(display.frames == 3 && display.width == 40 && display.height == 30)
    }

    @Test func anAnimationPastTheLimitOfFramesTimesPixelsIsRefused() async throws {
        let strict = VipsImageService(limits: ImageLimits(maximumAnimationPixels: 40 * 30 * 2))!
        let file = try TestFile(Codec.animatedGIF(frames: 3, width: 40, height: 30))
        await #expect(throws: ImageRefusal.tooLongAnimation) { try await strict.process(file: file.path, for: .message) }
    }

    // MARK: Refusals

    @Test func aTruncatedJPEGIsRefusedNotShownHalfGrey() async throws {
        let whole = try Codec.jpeg(Picture.quarters(width: 400, height: 400), orientation: 1)
        let file = try TestFile(Array(whole.prefix(whole.count / 2)))
        await #expect(throws: ImageRefusal.unreadable) { try await service.process(file: file.path, for: .message) }
    }

    @Test func aPNGWhoseHeaderClaims50000By50000IsRefusedFromItsHeader() async throws {
        // The file has a few bytes of pixel data: only its header can say it is too large, so this refusal
        // (not "unreadable") shows the header was checked before any decoding was tried.
        let file = try TestFile(Codec.pngClaiming(width: 50_000, height: 50_000))
        await #expect(throws: ImageRefusal.tooManyPixels(megapixels: 40)) { try await service.process(file: file.path, for: .message) }
        await #expect(throws: ImageRefusal.tooManyPixels(megapixels: 40)) { try await service.inspect(file: file.path) }
    }

    @Test func aProgressiveJPEGIsMadeWhenItsCoefficientsFitAndRefusedFromItsHeaderWhenNot() async throws {
        let small = try TestFile(Codec.progressiveJPEG(Picture.quarters(width: 400, height: 300)))
        #expect(JPEGFrame.read(small.bytes)?.isProgressive == true, "the test file is progressive")
        let processed = try await service.process(file: small.path, for: .message)
        #expect(processed.version(.display).map { ($0.width, $0.height) } ?? (0, 0) == (400, 300))

        // 36 megapixels, within the pixel limit; progressive 4:4:4 needs 216 MB of coefficients.
        let huge = try TestFile(Codec.jpegHeader(marker: 0xC2, width: 6_000, height: 6_000, sampling: [0x11, 0x11, 0x11]))
        let frame = try #require(JPEGFrame.read(huge.bytes))
        #expect(frame.isProgressive && frame.width == 6_000 && frame.coefficientBytes == 216_000_000, "the frame, not the EXIF thumbnail's")
        await #expect(throws: ImageRefusal.progressiveTooLarge) { try await service.inspect(file: huge.path) }
        await #expect(throws: ImageRefusal.progressiveTooLarge) { try await service.process(file: huge.path, for: .message) }
        // The same size in 4:2:0 needs 108 MB, within the bound: it gets as far as libvips (which finds no pixels).
        let camera = try TestFile(Codec.jpegHeader(marker: 0xC2, width: 6_000, height: 6_000, sampling: [0x22, 0x11, 0x11]))
        #expect(JPEGFrame.read(camera.bytes)?.coefficientBytes == 108_000_000)
        await #expect(throws: ImageRefusal.unreadable) { try await service.inspect(file: camera.path) }
        // Baseline: decoded in strips, never refused for this.
        let baseline = try TestFile(Codec.jpegHeader(marker: 0xC0, width: 6_000, height: 6_000, sampling: [0x11, 0x11, 0x11]))
        #expect(JPEGFrame.read(baseline.bytes)?.isProgressive == false)
        await #expect(throws: ImageRefusal.unreadable) { try await service.inspect(file: baseline.path) }
        // A segment that claims more bytes than there are: no frame.
        #expect(JPEGFrame.read(Array(huge.bytes.prefix(20))) == nil)
        #expect(ImageRefusal.progressiveTooLarge.message.contains("standard JPEG"))
    }

    @Test func inspectingRefusesWhatProcessingWouldBeforeAnyPixelAndSaysTheFramesOfAnAnimation() async throws {
        let svg = try TestFile(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8))
        await #expect(throws: ImageRefusal.notAnImage(kind: "an SVG drawing or another XML file")) { try await service.inspect(file: svg.path) }
        let empty = try TestFile([])
        await #expect(throws: ImageRefusal.empty) { try await service.inspect(file: empty.path) }
        let gif = try TestFile(Codec.animatedGIF(frames: 3, width: 40, height: 30))
        let header = try await service.inspect(file: gif.path)
        #expect((header.format, header.width, header.height, header.frames) == (.gif, 40, 30, 3))
        #expect(header.fitted(width: 320, height: 320) == (40, 30), "a small picture is never enlarged")
        #expect(ImageHeader(format: .jpeg, width: 4000, height: 3000, frames: 1).fitted(width: 320, height: 320) == (320, 240))
        #expect(ImageHeader(format: .jpeg, width: 3000, height: 4000, frames: 1).fitted(width: 320, height: 320) == (240, 320))
        #expect(ImageHeader(format: .png, width: 40_000, height: 1, frames: 1).fitted(width: 320, height: 320) == (320, 1), "never zero")
    }

    @Test func aGIFWithHTMLAppendedComesOutWithoutIt() async throws {
        let html = Array("<html><script>alert(1)</script></html>".utf8)
        let file = try TestFile(Codec.animatedGIF(frames: 1, width: 20, height: 20) + html)
        let processed = try await service.process(file: file.path, for: .message)
        for version in processed.versions { #expect(!version.bytes.contains(subsequence: Array("<script".utf8))) }
    }

    @Test func whatIsNotAPhotoIsRefusedByItsBytesWhateverItsName() async throws {
        let svg = try TestFile(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8), name: "photo.png")
        await #expect(throws: ImageRefusal.notAnImage(kind: "an SVG drawing or another XML file")) {
            try await service.process(file: svg.path, for: .message)
        }
        let script = try TestFile(Array("<script>document.location='https://evil.example'</script>".utf8), name: "holiday.jpg")
        await #expect(throws: ImageRefusal.notAnImage(kind: "an HTML page or script")) { try await service.process(file: script.path, for: .message) }
        let pdf = try TestFile(Array("%PDF-1.7\n".utf8))
        await #expect(throws: ImageRefusal.notAnImage(kind: "a PDF document")) { try await service.process(file: pdf.path, for: .message) }
        let empty = try TestFile([])
        await #expect(throws: ImageRefusal.empty) { try await service.process(file: empty.path, for: .message) }
        // A PNG behind a JPEG's first bytes: the loader libvips picks must be the one the bytes named.
        let png = try Codec.png(Picture.quarters(width: 20, height: 20))
        let polyglot = try TestFile([0xFF, 0xD8, 0xFF] + png)
        await #expect(throws: ImageRefusal.unreadable) { try await service.process(file: polyglot.path, for: .message) }
    }

    @Test func aFileOverTheSizeLimitIsRefusedBeforeItIsRead() async throws {
        let file = try TestFile([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 26_000_000))
        await #expect(throws: ImageRefusal.tooLarge(bytes: 25_000_000)) { try await service.process(file: file.path, for: .message) }
    }

    @Test func refusalsSayWhatIsAccepted() {
        for refusal in [ImageRefusal.empty, .notAnImage(kind: "a PDF document"), .notAnImage(kind: nil)] {
            #expect(refusal.message.contains("JPEG, PNG, WebP or GIF"))
        }
    }
}

// MARK: - Making and reading test files

/// 8-bit RGB pixels, row by row.
struct Picture: Equatable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    static func quarters(width: Int, height: Int) -> Picture {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height / 2 {
            for x in 0..<width / 2 { for band in 0..<3 { pixels[(y * width + x) * 3 + band] = 255 } }
        }
        return Picture(width: width, height: height, pixels: pixels)
    }

    /// The orientation that undoes `orientation`: 6 and 8 undo each other, the rest undo themselves.
    static func inverse(_ orientation: Int) -> Int { orientation == 6 ? 8 : orientation == 8 ? 6 : orientation }

    /// What a viewer shows of a picture stored with this EXIF orientation.
    func transformed(_ orientation: Int) -> Picture {
        let swaps = orientation >= 5
        let outWidth = swaps ? height : width, outHeight = swaps ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                let (sx, sy): (Int, Int) = switch orientation {
                case 2: (width - 1 - x, y)
                case 3: (width - 1 - x, height - 1 - y)
                case 4: (x, height - 1 - y)
                case 5: (y, x)
                case 6: (y, height - 1 - x)
                case 7: (width - 1 - y, height - 1 - x)
                case 8: (width - 1 - y, x)
                default: (x, y)
                }
                for band in 0..<3 { out[(y * outWidth + x) * 3 + band] = pixels[(sy * width + sx) * 3 + band] }
            }
        }
        return Picture(width: outWidth, height: outHeight, pixels: out)
    }

    func brightness(x: Range<Int>, y: Range<Int>) -> Double {
        var sum = 0, count = 0
        for row in y { for column in x { sum += Int(pixels[(row * width + column) * 3]); count += 1 } }
        return Double(sum) / Double(max(1, count))
    }
}

enum Codec {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func image(_ picture: Picture) throws -> OpaquePointer {
        _ = Vips.start()
        guard let image = picture.pixels.withUnsafeBytes({ parlor_vips_from_pixels($0.baseAddress, $0.count, Int32(picture.width), Int32(picture.height), 3) })
        else { throw Failure(description: Vips.takeError()) }
        return image
    }

    static func encoded(_ body: (UnsafeMutablePointer<UnsafeMutableRawPointer?>, UnsafeMutablePointer<Int>) -> Int32) throws -> [UInt8] {
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        guard body(&bytes, &length) == 0 else { throw Failure(description: Vips.takeError()) }
        return Vips.take(bytes, length)
    }

    static func jpeg(_ picture: Picture, orientation: Int) throws -> [UInt8] {
        let image = try image(picture)
        defer { Vips.unref(image) }
        parlor_vips_set_orientation(image, Int32(orientation))
        return try encoded { parlor_vips_jpeg_keeping(image, $0, $1) }
    }

    static func progressiveJPEG(_ picture: Picture) throws -> [UInt8] {
        let image = try image(picture)
        defer { Vips.unref(image) }
        return try encoded { parlor_vips_jpeg_progressive(image, $0, $1) }
    }

    /// A JPEG's start as a camera writes it, with a frame header claiming `width` x `height` and the
    /// sampling of each component; an EXIF segment holding a small frame header of its own comes first.
    static func jpegHeader(marker: UInt8, width: Int, height: Int, sampling: [UInt8]) -> [UInt8] {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        func frame(_ marker: UInt8, _ width: Int, _ height: Int, _ sampling: [UInt8]) -> [UInt8] {
            var payload: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(sampling.count)]
            for (index, factors) in sampling.enumerated() { payload += [UInt8(index + 1), factors, 0] }
            return segment(marker, payload)
        }
        let exif = segment(0xE1, Array("Exif".utf8) + [0, 0, 0xFF, 0xD8] + frame(0xC0, 160, 120, [0x11]))
        return [0xFF, 0xD8] + exif + frame(marker, width, height, sampling) + [0xFF, 0xDA, 0x00, 0x02]
    }

    static func png(_ picture: Picture) throws -> [UInt8] {
        let image = try image(picture)
        defer { Vips.unref(image) }
        return try encoded { parlor_vips_png(image, $0, $1) }
    }

    /// Frames of one colour each, stacked and saved as a GIF animation.
    static func animatedGIF(frames: Int, width: Int, height: Int) throws -> [UInt8] {
        var pixels: [UInt8] = []
        for frame in 0..<frames {
            let level = UInt8(40 + frame * 60 % 200)
            pixels += [UInt8](repeating: level, count: width * height * 3)
        }
        let image = try image(Picture(width: width, height: height * frames, pixels: pixels))
        defer { Vips.unref(image) }
        if frames > 1 { parlor_vips_set_pages(image, Int32(height), 100) }
        return try encoded { parlor_vips_gif_keeping(image, $0, $1) }
    }

    /// A PNG whose header claims `width` x `height` and whose data is a few bytes.
    static func pngClaiming(width: UInt32, height: UInt32) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// Decoded pixels (as RGB) and what metadata the encoded bytes carry.
    static func decode(_ bytes: [UInt8]) throws -> (picture: Picture, exifOrientation: Int?, hasExif: Bool) {
        _ = Vips.start()
        guard let image = bytes.withUnsafeBytes({ parlor_vips_from_bytes($0.baseAddress, $0.count) }) else {
            throw Failure(description: Vips.takeError())
        }
        defer { Vips.unref(image) }
        let hasExif = parlor_vips_has(image, "exif-data") != 0
        let orientation = parlor_vips_has(image, "orientation") != 0 && hasExif ? Int(parlor_vips_orientation(image)) : nil
        var size = 0
        guard let raw = parlor_vips_pixels(image, &size) else { throw Failure(description: Vips.takeError()) }
        defer { parlor_vips_free(raw) }
        let width = Int(parlor_vips_width(image)), height = Int(parlor_vips_height(image)), bands = Int(parlor_vips_bands(image))
        let all = Array(UnsafeRawBufferPointer(start: raw, count: size))
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            for band in 0..<3 { rgb[index * 3 + band] = all[index * bands + min(band, bands - 1)] }
        }
        return (Picture(width: width, height: height, pixels: rgb), orientation, hasExif)
    }
}

/// A file in a folder of its own, removed when the test is done with it.
final class TestFile {
    let folder: URL
    let path: String
    let bytes: [UInt8]

    init(_ bytes: [UInt8], name: String = "upload") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent(name).path
        self.bytes = bytes
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<$0 + subsequence.count]) == subsequence }
    }
}

@Suite struct WebPMetadataTests {
    static func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        let size = UInt32(payload.count)
        return Array(fourCC.utf8) + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: size >> $0) } + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    static func webp(_ chunks: [UInt8]) -> [UInt8] {
        let size = UInt32(chunks.count + 4)
        return Array("RIFF".utf8) + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: size >> $0) } + Array("WEBP".utf8) + chunks
    }

    @Test func exifXMPAndICCChunksGoAndTheirFlagsWithThem() throws {
        let vp8x = Self.chunk("VP8X", [0x20 | 0x10 | 0x08 | 0x04, 0, 0, 0, 9, 0, 0, 9, 0, 0])
        let image = Self.chunk("VP8 ", [1, 2, 3])
        let input = Self.webp(vp8x + Self.chunk("ICCP", [7, 7]) + image + Self.chunk("EXIF", Array("Exif\0\0GPS".utf8)) + Self.chunk("XMP ", [1]))
        let output = try #require(WebPMetadata.stripped(input))
        var expectedHeader = vp8x
        expectedHeader[8] = 0x10  // the alpha flag stays
        #expect(output == Self.webp(expectedHeader + image))
    }

    @Test func malformedContainersAreNotTrusted() {
        #expect(WebPMetadata.stripped([]) == nil)
        #expect(WebPMetadata.stripped(Array("RIFF\0\0\0\0WEBX".utf8)) == nil)
        // A chunk that claims more bytes than there are.
        #expect(WebPMetadata.stripped(Self.webp(Array("VP8 ".utf8) + [0xFF, 0xFF, 0xFF, 0x7F, 1, 2])) == nil)
        #expect(WebPMetadata.stripped(Self.webp([1, 2, 3])) == nil, "a chunk header cut short")
    }
}

@Suite struct InMemoryImageServiceTests {
    @Test func itRefusesByTheSameBytesAndSizeAsTheRealOne() async throws {
        let service = InMemoryImageService(limits: ImageLimits(maximumBytes: 100))
        let svg = try TestFile(Array("<svg/>".utf8))
        await #expect(throws: ImageRefusal.notAnImage(kind: "an SVG drawing or another XML file")) { try await service.process(file: svg.path, for: .message) }
        let big = try TestFile([0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0, count: 200))
        await #expect(throws: ImageRefusal.tooLarge(bytes: 100)) { try await service.process(file: big.path, for: .message) }
        let gif = try TestFile(Array("GIF89a".utf8) + [1, 2, 3])
        let processed = try await service.process(file: gif.path, for: .avatar)
        #expect(processed.original == .gif && processed.versions.map(\.role) == [.avatar, .avatarSmall])
    }
}
