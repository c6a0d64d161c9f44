import Foundation
import HTTPTestSupport
import Synchronization
import Testing
@testable import MicroHTTP

/// A route that streams uploads stores nothing of a body before its admission has taken the head, holds at
/// most the parts it declares, and only so many uploads run at once.
@Suite struct UploadAdmissionTests {
    static let boundary = "----parlorAdmission7"

    /// `count` one-byte file parts, as an attacker would send them.
    static func manyFileParts(_ count: Int) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(count * 90)
        let part = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p\"\r\n\r\nx\r\n".utf8)
        for _ in 0..<count { body += part }
        return body + Array("--\(boundary)--\r\n".utf8)
    }

    static func head(_ target: String = "/upload", length: Int, extra: [String] = []) -> String {
        var head = "POST \(target) HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\n"
        for field in extra { head += field + "\r\n" }
        return head + "Content-Length: \(length)\r\n\r\n"
    }

    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parlor-admission-\(UUID().uuidString)").path
    }

    static func files(in folder: String) -> [String] { StreamedUploadTests.files(in: folder) }

    /// What the admission saw, and how often the handler ran.
    final class Seen: Sendable {
        let heads = Mutex<[(token: String?, query: String?)]>([])
        let handled = Atomic<Int>(0)
    }

    /// Admits a head whose `X-Token` is "good"; refuses anything else with 403.
    static func router(_ seen: Seen, limits: UploadLimits = UploadLimits(files: 1, fields: 3)) -> Router {
        var router = Router()
        router.post("/upload", bodyLimit: 30_000_000, uploads: limits, admission: { request in
            seen.heads.withLock { $0.append((request.headers["X-Token"], request.query["csrf"])) }
            guard request.headers["X-Token"] == "good" else { return .text("Sign in first.", status: .forbidden) }
            return nil
        }) { request in
            seen.handled.add(1, ordering: .relaxed)
            return .text("files \(request.form.uploads.count) fields \(Array(request.form.fields).count)")
        }
        return router
    }

    @Test func aRefusedUploadOfTenThousandPartsWritesNoFileNorItsFolder() async throws {
        let folder = Self.folder()
        let seen = Seen()
        try await withServer(Self.router(seen), configure: { $0.uploadFolder = folder }) { _, port in
            let body = Self.manyFileParts(10_000)
            // Refused before a single part is stored: no file while the body arrives, none after, and (below) not even
            // the folder. No fixed time is asserted: a busy machine once took 1.15 s for the answer at best.
            for _ in 0..<3 {
                let client = try RawClient(port: port)
                try client.send(Self.head(length: body.count, extra: ["X-Token: forged"]))
                try client.send(Array(body.prefix(body.count / 2)))
                #expect(Self.files(in: folder).isEmpty, "nothing stored while the body arrives")
                try client.send(Array(body.dropFirst(body.count / 2)))
                let response = try await client.readResponse()
                #expect(response.status == 403 && response.text == "Sign in first.")
                #expect(Self.files(in: folder).isEmpty)
            }
        }
        #expect(seen.handled.load(ordering: .relaxed) == 0)
        #expect(!FileManager.default.fileExists(atPath: folder), "the folder was never even made")
    }

    @Test func aRefusalIsAnsweredAfterTheHeadAloneWhenTheClientWaitsForContinue() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen)) { _, port in
            let client = try RawClient(port: port)
            try client.send(Self.head("/upload?csrf=abc", length: 20_000_000, extra: ["X-Token: forged", "Expect: 100-continue"]))
            let response = try await client.readResponse()
            #expect(response.status == 403, "no 100 Continue: the body is never asked for")
            #expect(response.header("Connection")?.lowercased() == "close")
            let heads = seen.heads.withLock { $0 }
            #expect(heads.count == 1 && heads.first?.token == "forged" && heads.first?.query == "abc", "the admission reads head and query")
        }
    }

    @Test func aBodyLargerThanTheDrainLimitIsRefusedWithoutWaitingForIt() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen), configure: { $0.refusedBodyDrainLimit = 1_000 }) { _, port in
            let client = try RawClient(port: port)
            try client.send(Self.head(length: 5_000_000, extra: ["X-Token: forged"]))
            let response = try await client.readResponse()
            #expect(response.status == 403)
        }
    }

    @Test func anAdmittedUploadIsStoredAndReachesTheHandler() async throws {
        let folder = Self.folder()
        let seen = Seen()
        try await withServer(Self.router(seen), configure: { $0.uploadFolder = folder }) { _, port in
            let body = StreamedUploadTests.multipart(fields: [("caption", "Hello")], file: [1, 2, 3])
                .replacing(Array(StreamedUploadTests.boundary.utf8), with: Array(Self.boundary.utf8))
            let client = try RawClient(port: port)
            try client.send(Self.head(length: body.count, extra: ["X-Token: good", "Expect: 100-continue"]))
            let interim = try await client.readResponse(head: true)
            #expect(interim.status == 100, "admitted, the client is asked for the body")
            try client.send(body)
            let response = try await client.readResponse()
            #expect(response.status == 200 && response.text == "files 1 fields 1")
            #expect(await eventually { Self.files(in: folder).isEmpty })
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test func onePartPastTheRoutesLimitIs413AndTheFilesWrittenAreRemovedAtOnce() async throws {
        let folder = Self.folder()
        let seen = Seen()
        try await withServer(Self.router(seen, limits: UploadLimits(files: 2, fields: 2)), configure: { $0.uploadFolder = folder }) { _, port in
            var body = Self.manyFileParts(3)
            body.removeLast(Array("--\(Self.boundary)--\r\n".utf8).count)
            // A large last part keeps the request open after the third head.
            let tail = Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\n".utf8)
                + [UInt8](repeating: 0x61, count: 1_000) + Array("\r\n--\(Self.boundary)--\r\n".utf8)
            let client = try RawClient(port: port)
            try client.send(Self.head(length: body.count + tail.count, extra: ["X-Token: good"]))
            try client.send(Array(body.prefix(body.count - 10)))
            #expect(await eventually { Self.files(in: folder).count == 2 }, "two files written as they came")
            try client.send(Array(body.suffix(10)))
            // The third head is one too many: both files are gone before the body ends.
            #expect(await eventually { Self.files(in: folder).isEmpty })
            try client.send(tail)
            let response = try await client.readResponse()
            #expect(response.status == 413 && response.text.contains("more files or fields"))
        }
        #expect(seen.handled.load(ordering: .relaxed) == 0)
        try? FileManager.default.removeItem(atPath: folder)
    }

    @Test func tooManyFieldsAre413Too() async throws {
        let seen = Seen()
        try await withServer(Self.router(seen, limits: UploadLimits(files: 1, fields: 2))) { _, port in
            var body: [UInt8] = []
            for index in 0..<3 { body += Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"f\(index)\"\r\n\r\nv\r\n".utf8) }
            body += Array("--\(Self.boundary)--\r\n".utf8)
            let client = try RawClient(port: port)
            try client.send(Array(Self.head(length: body.count, extra: ["X-Token: good"]).utf8) + body)
            #expect(try await client.readResponse().status == 413)
        }
    }

    @Test func uploadsPastTheLimitsPerAddressAndOverallAre503WithRetryAfter() async throws {
        let folder = Self.folder()
        let seen = Seen()
        try await withServer(Self.router(seen), configure: {
            $0.uploadFolder = folder
            $0.uploadsInProgress = 3
            $0.uploadsInProgressPerAddress = 2
            $0.trustedProxies = ["127.0.0.1"]
        }) { server, port in
            // Uploads that started and wait for the rest of their bodies.
            func open(from address: String) throws -> RawClient {
                let client = try RawClient(port: port)
                try client.send(Self.head(length: 1_000, extra: ["X-Token: good", "X-Forwarded-For: \(address)"]))
                try client.send("--\(Self.boundary)\r\n")
                return client
            }
            let first = try open(from: "192.0.2.1")
            let second = try open(from: "192.0.2.1")
            #expect(await eventually { server.uploadSlots.count == 2 })
            // Refused at the head; a small body is read into nothing before the answer.
            let third = try RawClient(port: port)
            try third.send(Array(Self.head(length: 1_000, extra: ["X-Token: good", "X-Forwarded-For: 192.0.2.1"]).utf8) + [UInt8](repeating: 0x2D, count: 1_000))
            let perAddress = try await third.readResponse()
            #expect(perAddress.status == 503 && perAddress.header("Retry-After") == "5", "a third from the same person")
            let other = try open(from: "192.0.2.2")
            #expect(await eventually { server.uploadSlots.count == 3 })
            let fourth = try RawClient(port: port)
            try fourth.send(Self.head(length: 1_000, extra: ["X-Token: good", "X-Forwarded-For: 192.0.2.3", "Expect: 100-continue"]))
            #expect(try await fourth.readResponse().status == 503, "a fourth overall")
            // Slots come back when requests end, however they end.
            first.close()
            second.close()
            other.close()
            #expect(await eventually { server.uploadSlots.count == 0 })
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}

extension Array where Element == UInt8 {
    /// Every occurrence of `old` replaced by `new`.
    func replacing(_ old: [UInt8], with new: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < count {
            if index + old.count <= count, Array(self[index..<(index + old.count)]) == old {
                out += new
                index += old.count
            } else {
                out.append(self[index])
                index += 1
            }
        }
        return out
    }
}
