// libFuzzer entry: the first bytes of an upload, which decide whether it is a photo at all, and the header
// numbers checked against the limits before any arithmetic.
import ParlorDomain

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageSniffing(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    switch ImageFormat.sniff(bytes) {
    case .success(let format):
        precondition(size >= 3, "a format needs its magic number")
        precondition(ImageFormat.sniff(Array(bytes.prefix(ImageFormat.sniffLength))) == .success(format), "only the first bytes count")
    case .failure(let refusal):
        precondition(!refusal.message.isEmpty)
        if size == 0 { precondition(refusal == .empty) }
    }
    // Three numbers as a header would give them, whatever their size: a refusal or nil, never a trap.
    if size >= 24 {
        func number(_ at: Int) -> Int { (0..<8).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        _ = ImageLimits().check(width: number(0), height: number(8), frames: number(16))
    }
    return 0
}
