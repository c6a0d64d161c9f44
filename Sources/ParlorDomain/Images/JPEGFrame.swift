/// What a JPEG's frame header (its SOF segment) says, read by walking the segments from the start of the
/// file: never looking inside one (an EXIF thumbnail in APP1 has a frame header of its own).
public struct JPEGFrame: Hashable, Sendable {
    /// How far into a file its frame header is looked for: past EXIF, XMP and ICC segments of any usual size.
    public static let searchLength = 1 << 20

    /// Progressive (SOF2, SOF6, SOF10, SOF14): decoders keep every coefficient of the whole image until
    /// the last scan, whatever size is asked for.
    public let isProgressive: Bool
    public let width: Int
    public let height: Int
    /// Each component's sampling factors, 1 to 4 each.
    public let sampling: [Sampling]

    public struct Sampling: Hashable, Sendable {
        public let horizontal: Int
        public let vertical: Int
    }

    /// The frame of the JPEG that starts with `bytes`, or nil when no well-formed frame header is found in
    /// them. Every length is checked against what is there before it is used.
    public static func read(_ bytes: some Collection<UInt8>) -> JPEGFrame? {
        let data = Array(bytes)
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= data.count {
            guard data[at] == 0xFF else { return nil }
            let marker = data[at + 1]
            // Fill bytes before a marker.
            if marker == 0xFF {
                at += 1
                continue
            }
            // Markers without a length: TEM, RSTn; SOI again or EOI end the search.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                at += 2
                continue
            }
            if marker == 0xD8 || marker == 0xD9 || marker == 0xDA { return nil }
            let length = Int(data[at + 2]) << 8 | Int(data[at + 3])
            guard length >= 2, at + 2 + length <= data.count else { return nil }
            // SOF0-SOF15 but DHT (C4), JPG (C8) and DAC (CC).
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                return frame(data[(at + 4)..<(at + 2 + length)], progressive: [0xC2, 0xC6, 0xCA, 0xCE].contains(marker))
            }
            at += 2 + length
        }
        return nil
    }

    private static func frame(_ segment: ArraySlice<UInt8>, progressive: Bool) -> JPEGFrame? {
        let s = Array(segment)
        guard s.count >= 6 else { return nil }
        let height = Int(s[1]) << 8 | Int(s[2])
        let width = Int(s[3]) << 8 | Int(s[4])
        let count = Int(s[5])
        guard width > 0, height > 0, (1...4).contains(count), s.count >= 6 + 3 * count else { return nil }
        var sampling: [Sampling] = []
        for index in 0..<count {
            let factors = s[6 + 3 * index + 1]
            let horizontal = Int(factors >> 4), vertical = Int(factors & 0x0F)
            guard (1...4).contains(horizontal), (1...4).contains(vertical) else { return nil }
            sampling.append(Sampling(horizontal: horizontal, vertical: vertical))
        }
        return JPEGFrame(isProgressive: progressive, width: width, height: height, sampling: sampling)
    }

    /// What a decoder holds for a progressive image: two bytes per coefficient, one coefficient per pixel of
    /// each component at its own resolution (blocks rounded up). Width and height are at most 65,535, so
    /// nothing here can overflow.
    public var coefficientBytes: Int {
        let maxH = sampling.map(\.horizontal).max() ?? 1, maxV = sampling.map(\.vertical).max() ?? 1
        // The image in whole MCUs, then each component's share of it.
        let mcuWidth = (width + 8 * maxH - 1) / (8 * maxH), mcuHeight = (height + 8 * maxV - 1) / (8 * maxV)
        return sampling.reduce(0) { total, factors in
            total + mcuWidth * factors.horizontal * mcuHeight * factors.vertical * 64 * 2
        }
    }
}
