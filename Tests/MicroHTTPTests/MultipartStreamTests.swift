import Testing
@testable import MicroHTTP

/// The streamed multipart parser reads what the whole-body parser reads, however the body is split.
@Suite struct MultipartStreamTests {
    static let boundary = Array("----parlor7MA4YWxkTrZu0gW".utf8)

    static func body(_ parts: [(head: String, content: [UInt8])]) -> [UInt8] {
        var body = Array("preamble to ignore\r\n".utf8)
        for part in parts {
            body += Array("--".utf8) + boundary + Array("\r\n\(part.head)\r\n\r\n".utf8) + part.content + Array("\r\n".utf8)
        }
        return body + Array("--".utf8) + boundary + Array("--\r\nepilogue".utf8)
    }

    static let form = body([
        ("Content-Disposition: form-data; name=\"csrf\"", Array("tok-123".utf8)),
        ("Content-Disposition: form-data; name=\"body\"", Array("Café at noon?\r\n-- not a boundary --".utf8)),
        ("Content-Disposition: form-data; name=\"photo\"; filename=\"beach.jpg\"\r\nContent-Type: image/jpeg",
         [0xFF, 0xD8, 0xFF] + Array("\r\n--".utf8) + (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31) } + Array("\r\n-".utf8)),
    ])

    static func streamed(_ body: [UInt8], pieces: Int) throws(FormParser.Failure) -> FormData {
        var stream = MultipartStream(boundary: boundary, writer: MemoryUploadWriter())
        let size = max(1, body.count / pieces)
        var start = 0
        while start < body.count {
            try stream.feed(body[start..<min(body.count, start + size)])
            start += size
        }
        try stream.finish()
        return FormData(fields: stream.fields, files: stream.writer.files)
    }

    @Test(arguments: [1, 2, 3, 7, 64, 5_100])
    func anyWayTheBodyIsSplitReadsAsTheWholeBody(pieces: Int) throws {
        let whole = try FormParser.multipart(Self.form, boundary: Self.boundary)
        #expect(whole.fields["body"] == "Café at noon?\r\n-- not a boundary --" && whole.files.first?.bytes.count == 5_010)
        #expect(try Self.streamed(Self.form, pieces: pieces) == whole)
    }

    @Test func byteByByteToo() throws {
        #expect(try Self.streamed(Self.form, pieces: Self.form.count) == (try FormParser.multipart(Self.form, boundary: Self.boundary)))
    }

    @Test func aFormThatNeverClosesIsMalformed() {
        let cut = Array(Self.form.dropLast(30))
        #expect(throws: FormParser.Failure.malformed) { try Self.streamed(cut, pieces: 3) }
    }

    @Test func textFieldsAreBoundedAndFilesAreNot() throws {
        let big = Self.body([("Content-Disposition: form-data; name=\"body\"", [UInt8](repeating: 0x61, count: 70_000))])
        #expect(throws: FormParser.Failure.tooLarge) { try Self.streamed(big, pieces: 10) }
        let file = Self.body([("Content-Disposition: form-data; name=\"f\"; filename=\"a\"", [UInt8](repeating: 0x61, count: 200_000))])
        #expect(try Self.streamed(file, pieces: 10).files.first?.bytes.count == 200_000)
        let head = Self.body([("Content-Disposition: form-data; name=\"" + String(repeating: "n", count: 10_000) + "\"", [])])
        #expect(throws: FormParser.Failure.tooLarge) { try Self.streamed(head, pieces: 1) }
    }

    @Test func aFieldThatIsNotUTF8IsRefusedAsTheWholeBodyParserRefusesIt() {
        let bad = Self.body([("Content-Disposition: form-data; name=\"body\"", [0xC3, 0x28])])
        #expect(throws: FormParser.Failure.invalidUTF8) { try Self.streamed(bad, pieces: 2) }
        #expect(throws: FormParser.Failure.invalidUTF8) { try FormParser.multipart(bad, boundary: Self.boundary) }
    }
}
