// libFuzzer entry: the part of an upload read once its head is admitted, with the route's limits on parts.
// The first byte chooses the limits (0-3 files, 0-7 fields), the second the size of the pieces, the first line
// after them is the boundary, the rest the body, its part heads in any order. The writer is never asked to
// begin a file past the limit; a body the whole-body parser reads within the limits streams the same; one it
// reads with more parts than the limits is refused.
@testable import MicroHTTP

/// Counts what it is asked to do and traps on a file begun past the limit.
struct CountingWriter: UploadWriter {
    let limit: Int
    var begun = 0
    var finished = 0

    mutating func begin(fieldName: String, filename: String, contentType: String?) throws(FormParser.Failure) {
        precondition(begun < limit, "a file begun past the route's limit of \(limit)")
        begun += 1
    }

    mutating func write(_ bytes: ArraySlice<UInt8>) throws(FormParser.Failure) {
        precondition(begun > finished, "bytes written outside a file")
    }

    mutating func end() throws(FormParser.Failure) { finished += 1 }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUploadAdmission(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 2 else { return 0 }
    let input = UnsafeBufferPointer(start: data, count: size)
    let limits = UploadLimits(files: Int(input[0] & 0x03), fields: Int(input[0] >> 2 & 0x07))
    let piece = Int(input[1]) % 61 + 1
    let rest = input[2...]
    let lineEnd = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
    let boundary = Array(rest[rest.startIndex..<lineEnd])
    guard !boundary.isEmpty, boundary.count <= 200 else { return 0 }
    let body = lineEnd < rest.endIndex ? Array(rest[(lineEnd + 1)...]) : []

    var stream = MultipartStream(boundary: boundary, writer: CountingWriter(limit: limits.files), limits: limits, fieldLimit: .max, headLimit: .max)
    var failure: FormParser.Failure?
    do {
        var start = 0
        while start < body.count {
            try stream.feed(body[start..<min(body.count, start + piece)])
            start += piece
        }
        try stream.finish()
    } catch {
        failure = error
    }
    precondition(stream.writer.begun <= limits.files && Array(stream.fields).count <= limits.fields)
    if let whole = try? FormParser.multipart(body, boundary: boundary) {
        let withinLimits = whole.files.count <= limits.files && Array(whole.fields).count <= limits.fields
        if withinLimits {
            precondition(failure == nil, "refused \(String(describing: failure)) a form within the limits")
            precondition(stream.writer.finished == whole.files.count && Array(stream.fields) == Array(whole.fields))
        } else {
            precondition(failure == .tooManyParts, "a form past the limits ended with \(String(describing: failure))")
        }
    }
    return 0
}
