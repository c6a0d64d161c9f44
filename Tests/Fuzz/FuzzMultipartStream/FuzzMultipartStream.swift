// libFuzzer entry: a multipart/form-data upload streamed in pieces. The first byte chooses the size of the
// pieces, the first line after it is the boundary, the rest the body. Whatever it is, the streamed parser
// must read exactly what the whole-body parser reads (or refuse it the same way).
@testable import MicroHTTP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipartStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    let piece = Int(input[0]) % 97 + 1
    let rest = input[1...]
    let lineEnd = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
    let boundary = Array(rest[rest.startIndex..<lineEnd])
    guard !boundary.isEmpty, boundary.count <= 200 else { return 0 }
    let body = lineEnd < rest.endIndex ? Array(rest[(lineEnd + 1)...]) : []

    let whole: Result<FormData, FormParser.Failure>
    do { whole = .success(try FormParser.multipart(body, boundary: boundary)) } catch { whole = .failure(error) }

    var stream = MultipartStream(boundary: boundary, writer: MemoryUploadWriter(), fieldLimit: .max, headLimit: .max)
    let streamed: Result<FormData, FormParser.Failure>
    do {
        var start = 0
        while start < body.count {
            try stream.feed(body[start..<min(body.count, start + piece)])
            start += piece
        }
        try stream.finish()
        streamed = .success(FormData(fields: stream.fields, files: stream.writer.files))
    } catch {
        streamed = .failure(error)
    }
    precondition(streamed == whole, "streamed \(streamed) but whole \(whole)")
    return 0
}
