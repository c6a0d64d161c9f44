// libFuzzer entry: Cookie header values, one a line.
import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookies(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let cookies = Cookies(headerValues: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    _ = cookies["parlor_session"]
    _ = cookies["parlor_form"]
    precondition(cookies.count <= size)
    return 0
}
