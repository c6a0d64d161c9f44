/// libvips 8.14 writes an EXIF chunk into every WebP it encodes, "strip" or not (rebuilt from the image's
/// own size and resolution). Parlor removes the metadata chunks from the RIFF container itself: EXIF,
/// XMP and ICC profile (the pixels are sRGB by then), and clears their flags in the VP8X header.
enum WebPMetadata {
    private static let dropped: Set<[UInt8]> = [Array("EXIF".utf8), Array("XMP ".utf8), Array("ICCP".utf8)]

    /// The same WebP without metadata chunks; nil when the bytes are not a well-formed WebP container.
    static func stripped(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 12, Array(bytes[0..<4]) == Array("RIFF".utf8), Array(bytes[8..<12]) == Array("WEBP".utf8) else { return nil }
        var chunks: [UInt8] = []
        chunks.reserveCapacity(bytes.count)
        var offset = 12
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else { return nil }
            let fourCC = Array(bytes[offset..<offset + 4])
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let padded = size + size % 2
            guard padded <= bytes.count - offset - 8 else { return nil }
            let end = offset + 8 + padded
            if !dropped.contains(fourCC) {
                var chunk = Array(bytes[offset..<end])
                if fourCC == Array("VP8X".utf8), chunk.count > 8 { chunk[8] &= ~UInt8(0x20 | 0x08 | 0x04) }
                chunks += chunk
            }
            offset = end
        }
        let riffSize = UInt32(truncatingIfNeeded: chunks.count + 4)
        return Array("RIFF".utf8) + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: riffSize >> $0) } + Array("WEBP".utf8) + chunks
    }
}
