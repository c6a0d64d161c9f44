// libFuzzer entry: message text split into plain runs and links.
@testable import ParlorViews

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinkifier(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let segments = Linkifier.segments(text)
    // Nothing is lost or added, and only http and https become links.
    precondition(segments.map(\.text).joined() == text)
    for case let url? in segments.map(\.url) {
        let lowered = url.lowercased()
        precondition(lowered.hasPrefix("http://") || lowered.hasPrefix("https://"))
    }
    // ASCII text takes a byte-by-byte path: it must split exactly as the general one.
    precondition(segments == Linkifier.generalSegments(text))
    return 0
}
