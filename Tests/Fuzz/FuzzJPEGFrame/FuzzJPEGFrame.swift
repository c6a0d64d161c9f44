// libFuzzer entry: a JPEG's segments walked to its frame header, and the memory a progressive one would need,
// from bytes an upload starts with.
import ParlorDomain

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let frame = JPEGFrame.read(bytes) else { return 0 }
    precondition(size >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8, "a frame only after the start-of-image marker")
    precondition((1...65_535).contains(frame.width) && (1...65_535).contains(frame.height))
    precondition((1...4).contains(frame.sampling.count))
    precondition(frame.coefficientBytes > 0)
    _ = ImageLimits().check(frame)
    // The same frame from the same bytes with anything after them.
    precondition(JPEGFrame.read(Array(bytes) + [0xFF, 0xD9]) == frame)
    return 0
}
