// libFuzzer entry: a multipart/form-data upload. The first line is the Content-Type field's value (also read as
// a raw-body route reads it), the rest the body.
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipartForm(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let lineEnd = input.firstIndex(of: UInt8(ascii: "\n")) ?? input.endIndex
    let contentType = String(decoding: input[..<lineEnd], as: UTF8.self)
    let body = lineEnd < input.endIndex ? Array(input[(lineEnd + 1)...]) : []
    // The same field as a raw-body route reads it: JSON (in UTF-8 if a charset is named) or a 415, never a trap.
    if FormParser.isRawBody(contentType: contentType, of: "application/json") {
        precondition(contentType[...].trimmingSpaces.lowercased().hasPrefix("application/json"))
    }
    guard let kind = FormParser.kind(contentType: contentType) else { return 0 }
    do {
        let form = try FormParser.parse(body, as: kind)
        var total = 0
        for file in form.files { total += file.bytes.count }
        for field in form.fields { total += field.value.utf8.count }
        precondition(total <= body.count)
    } catch {
        // Refused with 400.
    }
    return 0
}
