// libFuzzer entry: a query string, split at '&' and '=' as libmicrohttpd does, '+' read as a space, each
// piece percent-decoded by Parlor's unescape callback and kept only when it is valid UTF-8.
import CMicroHTTPD
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let query = UnsafeBufferPointer(start: data, count: size).prefix { $0 != 0 }
    var items = QueryCollection()
    for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
        let equals = pair.firstIndex(of: UInt8(ascii: "="))
        let name = decode(equals.map { pair[..<$0] } ?? pair[...])
        let value = equals.map { decode(pair[pair.index(after: $0)...]) } ?? ""
        guard let name, let value else {
            items.valid = false
            break
        }
        items.items.append(name, value)
    }
    if items.valid {
        for item in items.items { precondition(items.items[item.name] != nil) }
    }
    return 0
}

private func decode(_ piece: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
    var bytes = piece.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
    let length = bytes.count
    bytes.append(0)
    return bytes.withUnsafeMutableBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { text in
            precondition(parlor_mhd_unescape(nil, nil, text.baseAddress!) <= length)
            return String(validatingCString: text.baseAddress!)
        }
    }
}
