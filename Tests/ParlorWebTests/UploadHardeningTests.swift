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

    @Test func aSignedOutTenThousandPartUploadLeavesNoFile() async throws {
        try await RunningParlor.with { parlor in
            let (_, _, chat) = try await ConversationTests.anaAndBen(parlor)
            let (head, body) = Self.flood(chat + "/messages", parts: 10_000)
            // Refused before a part is kept: no upload while the body arrives, nor after. No fixed time is asserted
            // (as in UploadAdmissionTests): a busy machine can hold any answer back past one.
            for _ in 0..<3 {
                let client = try RawClient(port: parlor.port)
                try client.send(head)
                try client.send(Array(body.prefix(body.count / 2)))
                #expect(Self.uploads(parlor).isEmpty)
                try client.send(Array(body.dropFirst(body.count / 2)))
                let response = try await client.readResponse()
                #expect(response.status == 403 && response.text.contains("Your session has ended"))
                #expect(Self.uploads(parlor).isEmpty)
            }
        }
    }

    @Test func anUploadFromAnotherSiteIsRefusedOnItsHeadAndAWrongTokenInItsBodyKeepsNoFile() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            // No token in any URL (proxies log them, browsers keep them): the upload forms carry it as their first field.
            let page = try await ana.get(chat).text
            #expect(page.contains("action=\"\(chat)/messages\" enctype=\"multipart/form-data\"") && !page.contains("csrf="))
            #expect(!(try await ana.get("/settings").text.contains("csrf=")))
            // What the browser says of another site refuses the head: nothing of the body is stored.
            for header in ["Origin: http://evil.example", "Sec-Fetch-Site: cross-site", "Sec-Fetch-Site: same-site"] {
                let foreign = try await ana.postFile(
                    chat + "/messages", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                    fields: [("body", "Hello"), ("token", ana.composerToken)], headers: [header]
                )
                #expect(foreign.status == 403 && foreign.text.contains("This form was out of date"), "\(header)")
                #expect(Self.uploads(parlor).isEmpty, "\(header)")
            }
            // Admitted by the session and the site, then refused by the token in the body: the conversation again with
            // the words kept, and the file that was stored while it arrived is gone.
            try await ana.get(chat)
            let token = ana.csrf
            ana.csrf = "not-the-token"
            let forged = try await ana.postFile(
                chat + "/messages", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                fields: [("body", "Hello from elsewhere"), ("token", ana.composerToken)], headers: ["Sec-Fetch-Site: same-origin"]
            )
            #expect(forged.status == 403 && forged.text.contains("This form was out of date") && forged.text.contains(">Hello from elsewhere</textarea>"))
            #expect(Self.uploads(parlor).isEmpty && MessagePhotoTests.originals(parlor).isEmpty, "no file kept")
            ana.csrf = "not-the-token"  // the refused page gave the real one again
            let wrongHeader = try await ana.postFile(
                chat + "/messages", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                fields: [("body", "Hello")], headers: ["X-Parlor-CSRF: \(token)", "X-Parlor-Script: 1"]
            )
            #expect(wrongHeader.status == 403, "the body's field is what counts once it is there")
            #expect(Self.uploads(parlor).isEmpty && MessagePhotoTests.originals(parlor).isEmpty)
            #expect(try await MessagePhotoTests.messages(parlor, in: chat).allSatisfy { $0.photo == nil }, "nothing sent")

            // The form's way (the token its first field), from this site.
            ana.csrf = token
            try await ana.get(chat)
            let sent = try await ana.postFile(
                chat + "/messages", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: MessagePhotoTests.gif,
                fields: [("body", "Hello"), ("token", ana.composerToken)], headers: ["Sec-Fetch-Site: same-origin", "Origin: http://127.0.0.1"]
            )
            #expect(sent.status == 303, "\(sent.status) \(sent.text.prefix(200))")
            #expect(try await MessagePhotoTests.messages(parlor, in: chat).contains { $0.photo != nil })
        }
    }

    @Test func aMessageWithTwoPhotosIs413AndNothingIsSent() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ana.get(chat)
            let (head, body) = Self.flood(chat + "/messages", parts: 2, headers: ana.cookieHeader)
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
