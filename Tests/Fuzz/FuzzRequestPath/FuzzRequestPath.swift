// libFuzzer entry: a request path as libmicrohttpd hands it over, percent-decoded in place by Parlor's
// unescape callback, then checked for dot segments before routing.
import CMicroHTTPD
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestPath(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // A request line holds no NUL: libmicrohttpd's C string ends at the first one.
    var bytes = Array(UnsafeBufferPointer(start: data, count: size).prefix { $0 != 0 })
    let length = bytes.count
    bytes.append(0)
    bytes.withUnsafeMutableBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { text in
            let decoded = parlor_mhd_unescape(nil, nil, text.baseAddress!)
            precondition(decoded <= length, "decoding never grows the path")
            precondition(text[decoded] == 0)
            // A %00 becomes 0xFF, never a NUL that would cut the path short.
            precondition(!text[..<decoded].contains(0))
            if let path = String(validatingCString: text.baseAddress!) {
                if RequestPath.problem(path) == nil {
                    // Checked on bytes: a slash followed by a combining mark is still a slash.
                    precondition(path.utf8.first == UInt8(ascii: "/"))
                    let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
                    precondition(!segments.contains { $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) })
                }
            }
        }
    }
    return 0
}
