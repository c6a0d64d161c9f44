// libFuzzer entry: HTTP dates from conditional request headers.
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let seconds = HTTPDate.parse(text) {
        // Whatever parses is a real date, and reads back as itself.
        precondition(seconds >= 0 && seconds <= HTTPDate.latest)
        precondition(HTTPDate.parse(HTTPDate.format(seconds)) == seconds)
    }
    if size >= 8 {
        // Any time at all formats to a date that parses.
        let raw = UnsafeRawPointer(data).loadUnaligned(as: Int.self)
        precondition(HTTPDate.parse(HTTPDate.format(raw)) != nil)
    }
    return 0
}
