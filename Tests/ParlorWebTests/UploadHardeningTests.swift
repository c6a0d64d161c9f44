import Foundation
import HTTPTestSupport
import MicroHTTP
import ParlorWeb
import Testing

/// Uploads cost nothing until Parlor knows who sends them, and the address behind a proxy is read from the
/// whole forwarded chain.
@Suite struct UploadHardeningTests {
    static func uploads(_ parlor: RunningParlor) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: parlor.folder.appendingPathComponent("uploads").path)) ?? []
    }

    /// A multipart head and a body of `parts` one-byte photos.
    static func flood(_ target: String, parts: Int, headers: [String] = []) -> (head: String, body: [UInt8]) {
        let boundary = "----parlorFlood"
        let part = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.gif\"\r\n\r\nx\r\n".utf8)
        var body: [UInt8] = []
        body.reserveCapacity(part.count * parts + 32)
        for _ in 0..<parts { body += part }
        body += Array("--\(boundary)--\r\n".utf8)
        var head = "POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\n"
        for field in headers { head += field + "\r\n" }
        return (head + "Content-Length: \(body.count)\r\n\r\n", body)
    }

    @Test func aSignedOutTenThousandPartUploadLeavesNoFileAndIsAnsweredWithinASecond() async throws {
        try await RunningParlor.with { parlor in
            let (_, _, chat) = try await ConversationTests.anaAndBen(parlor)
            let (head, body) = Self.flood(chat + "/messages", parts: 10_000)
            // The best of three, as in UploadAdmissionTests: the suite's start can hold any task back.
            var fastest = Duration.seconds(60)
            for _ in 0..<3 where fastest >= .seconds(1) {
                let client = try RawClient(port: parlor.port)
                let started = ContinuousClock.now
                try client.send(head)
                try client.send(Array(body.prefix(body.count / 2)))
                #expect(Self.uploads(parlor).isEmpty)
                try client.send(Array(body.dropFirst(body.count / 2)))
                let response = try await client.readResponse()
                fastest = min(fastest, ContinuousClock.now - started)
                #expect(response.status == 403 && response.text.contains("Your session has ended"))
                #expect(Self.uploads(parlor).isEmpty)
            }
            #expect(fastest < .seconds(1), "answered in \(fastest) at best")
        }
    }

    @Test func aSignedInUploadWithoutTheTokenInItsHeadStoresNothingAndShowsTheConversationWithTheReason() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ana.get(chat)
            // The form's own csrf field is right, but it is in the body: the head carries no token.
            let forged = try await ana.postFile(
                chat + "/messages?x=1", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                fields: [("body", "Hello"), ("token", ana.composerToken)]
            )
            #expect(forged.status == 403 && forged.text.contains("This form was out of date"))
            #expect(forged.text.contains("composer-"), "the conversation again, with the composer")
            let wrongHeader = try await ana.postFile(
                chat + "/messages?x=1", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                fields: [("body", "Hello")], headers: ["X-Parlor-CSRF: not-the-token", "X-Parlor-Script: 1"]
            )
            #expect(wrongHeader.status == 403)
            let foreign = try await ana.postFile(
                chat + "/messages", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                fields: [("body", "Hello")], headers: ["Origin: http://evil.example"]
            )
            #expect(foreign.status == 403)
            #expect(Self.uploads(parlor).isEmpty)
            #expect(try await MessagePhotoTests.messages(parlor, in: chat).allSatisfy { $0.photo == nil }, "nothing sent")
            // The script's way: the token in X-Parlor-CSRF.
            try await ana.get(chat)
            let scripted = try await ana.postFile(
                chat + "/messages?x=1", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                fields: [("body", "Hello"), ("token", ana.composerToken)], headers: ["X-Parlor-CSRF: \(ana.csrf)", "X-Parlor-Script: 1"]
            )
            #expect(scripted.status == 202 || scripted.status == 200 || scripted.status == 204, "\(scripted.status) \(scripted.text)")
            #expect(try await MessagePhotoTests.messages(parlor, in: chat).contains { $0.photo != nil })
        }
    }

    @Test func aMessageWithTwoPhotosIs413AndNothingIsSent() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ana.get(chat)
            let (head, body) = Self.flood(chat + "/messages?csrf=" + Visitor.encode(ana.csrf), parts: 2, headers: ana.cookieHeader)
            let client = try RawClient(port: parlor.port)
            try client.send(Array(head.utf8) + body)
            let response = try await client.readResponse()
            #expect(response.status == 413 && response.text.contains("more files or fields"))
            #expect(Self.uploads(parlor).isEmpty)
            #expect(try await MessagePhotoTests.messages(parlor, in: chat).allSatisfy { $0.photo == nil })
        }
    }

    @Test func aClientCannotReachMetricsByWritingItsOwnForwardedLineBeforeTheProxysOwn() async throws {
        try await RunningParlor.with(configure: {
            $0.trustedProxies = ["127.0.0.1"]
            $0.metricsAddresses = ["127.0.0.6"]
        }, metrics: ParlorMetrics(exposition: { Array("parlor_up 1\n".utf8) })) { parlor in
            // HAProxy's option forwardfor adds a line of its own after the client's.
            let spoofed = try await RawClient(port: parlor.port).exchange(
                "GET", "/metrics", headers: ["X-Forwarded-For: 127.0.0.6", "X-Forwarded-For: 198.51.100.7"]
            )
            #expect(spoofed.status == 404)
            let joined = try await RawClient(port: parlor.port).exchange("GET", "/metrics", headers: ["X-Forwarded-For: 127.0.0.6, 198.51.100.7"])
            #expect(joined.status == 404)
            let real = try await RawClient(port: parlor.port).exchange("GET", "/metrics", headers: ["X-Forwarded-For: 198.51.100.7", "X-Forwarded-For: 127.0.0.6"])
            #expect(real.status == 200, "the proxy's own line names the metrics address")
        }
    }
}
