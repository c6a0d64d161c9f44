import Foundation
import HTTPTestSupport
import Synchronization
import Testing
@testable import MicroHTTP

/// Routes that stream uploads get their files on disk, written as the bytes arrived, and the files are
/// gone once the response is sent, whatever happened.
@Suite struct StreamedUploadTests {
    static let boundary = "----parlorUpload42"

    static func multipart(fields: [(String, String)], file: [UInt8]) -> [UInt8] {
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"../../etc/passwd.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
        return body + file + Array("\r\n--\(boundary)--\r\n".utf8)
    }

    /// What the handler saw: the fields, the upload and its bytes read back from disk.
    final class Seen: Sendable {
        let value = Mutex<(caption: String?, upload: FormData.Upload?, bytes: [UInt8])?>(nil)
    }

    static func router(_ seen: Seen) -> Router {
        var router = Router()
        router.post("/upload", bodyLimit: 8_000_000, uploads: UploadLimits(files: 1, fields: 4), admission: { _ in nil }) { request in
            let upload = request.form.upload("photo")
            let bytes = upload.flatMap { FileManager.default.contents(atPath: $0.path) }.map(Array.init) ?? []
            seen.value.withLock { $0 = (request.form["caption"], upload, bytes) }
            return .text("stored \(upload?.size ?? -1)")
        }
        return router
    }

    static func files(in folder: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] }

    @Test func aLargeFileArrivesOnDiskByteForByteAndIsGoneAfterTheResponse() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-uploads-\(UUID().uuidString)").path
        let seen = Seen()
        let file = (0..<5_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        try await withServer(Self.router(seen), configure: { $0.uploadFolder = folder }) { _, port in
            let body = Self.multipart(fields: [("caption", "Beach, day two")], file: file)
            let client = try RawClient(port: port)
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=\(Self.boundary)\r\nContent-Length: \(body.count)\r\n\r\n")
            // In pieces, as a slow phone would send it.
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + 700_001)
                try client.send(Array(body[offset..<end]))
                offset = end
            }
            let response = try await client.readResponse()
            #expect(response.status == 200 && response.text == "stored 5000000")
            let (caption, upload, bytes) = try #require(seen.value.withLock { $0 })
            #expect(caption == "Beach, day two")
            #expect(upload?.filename == "../../etc/passwd.jpg" && upload?.contentType == "image/jpeg", "reported as sent, untrusted")
            #expect(upload.map { $0.path.hasPrefix(folder + "/") && !$0.path.contains("passwd") } == true, "stored under a name of the server's own")
            #expect(bytes == file)
            #expect(await eventually { Self.files(in: folder).isEmpty }, "removed once answered: \(Self.files(in: folder))")
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test func aFormThatNeverClosesIs400AndLeavesNoFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-uploads-\(UUID().uuidString)").path
        let seen = Seen()
        try await withServer(Self.router(seen), configure: { $0.uploadFolder = folder }) { _, port in
            let body = Array(Self.multipart(fields: [], file: [1, 2, 3, 4]).dropLast(20))
            let response = try await RawClient(port: port).exchange(
                "POST", "/upload", headers: ["Content-Type: multipart/form-data; boundary=\(Self.boundary)"], body: String(decoding: body, as: UTF8.self))
            #expect(response.status == 400)
            #expect(await eventually { Self.files(in: folder).isEmpty })
        }
        #expect(seen.value.withLock { $0 } == nil, "the handler never ran")
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test func aRouteThatStreamsUploadsTakesAnUrlencodedFormOnlyWithinTheUsualLimit() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen)) { _, port in
            let large = try await RawClient(port: port).exchange(
                "POST", "/upload", headers: ["Content-Type: application/x-www-form-urlencoded"], body: "caption=" + String(repeating: "a", count: 100_000))
            #expect(large.status == 413, "in memory, so no more than the 64 KiB of any form")
            let text = try await RawClient(port: port).exchange(
                "POST", "/upload", headers: ["Content-Type: text/plain"], body: "caption")
            #expect(text.status == 415)
        }
        #expect(seen.value.withLock { $0 } == nil)
        try await withServer(Self.router(seen)) { _, port in
            let small = try await RawClient(port: port).exchange(
                "POST", "/upload", headers: ["Content-Type: application/x-www-form-urlencoded"], body: "caption=hello")
            #expect(small.status == 200)
        }
        #expect(seen.value.withLock { $0?.caption } == "hello", "a small form without a file reaches the handler")
    }

    @Test func anUploadOverTheLimitIs413BeforeItIsRead() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen)) { _, port in
            let client = try RawClient(port: port)
            try client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=\(Self.boundary)\r\nContent-Length: 26000000\r\n\r\n")
            #expect(try await client.readResponse().status == 413)
        }
    }
}
