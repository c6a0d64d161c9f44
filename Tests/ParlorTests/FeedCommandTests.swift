import Foundation
import HTTPTestSupport
import Testing

/// `parlor feed parse FILE` and `parlor feed check URL`, as people run them to see what a subscription would post.
@Suite struct FeedCommandTests {
    static func run(_ arguments: [String], in folder: String) async throws -> (status: Int32?, output: String, errors: String) {
        let output = folder + "/out-\(UUID().uuidString).json"
        let child = try ChildProcess(executable: ServeCommandTests.executable.path, arguments: arguments, output: output)
        let status = await child.waitForExit(within: 30)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (status, printed, child.readErrors())
    }

    @Test(.timeLimit(.minutes(1))) func itPrintsExactlyWhatParlorReadsAndRefusesWhatItCannot() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-feed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let feed = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Notes &amp; more</title><link href="/"/>
            <entry><id>n-1</id><title>One "quoted"</title><link href="/n/1"/><updated>2026-11-20T13:05:00Z</updated>
            <content type="html">&lt;p&gt;Line&lt;/p&gt;&lt;p&gt;two&lt;/p&gt;</content></entry>
            <entry><title>Undated</title><summary>no link</summary></entry>
            </feed>
            """
        try Data(feed.utf8).write(to: URL(fileURLWithPath: folder + "/notes.xml"))
        let parsed = try await Self.run(["feed", "parse", folder + "/notes.xml", "--url", "https://notes.example/feed.xml"], in: folder)
        #expect(parsed.status == 0, "\(parsed.errors)")
        let expected = #"{"title": "Notes & more", "link": "https://notes.example/", "items": [{"key": "n-1", "title": "One \"quoted\"", "link": "https://notes.example/n/1", "date": "2026-11-20T13:05:00Z", "text": "Line\ntwo"}, {"key": "hash:"#
        #expect(parsed.output.hasPrefix(expected), "\(parsed.output)")
        #expect(parsed.output.hasSuffix(#"", "title": "Undated", "link": null, "date": null, "text": "no link"}]}"# + "\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(parsed.output.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["title", "link", "items"])

        try Data("<rss><channel><title>Cut".utf8).write(to: URL(fileURLWithPath: folder + "/cut.xml"))
        let cut = try await Self.run(["feed", "parse", folder + "/cut.xml"], in: folder)
        #expect(cut.status == 65 && cut.errors.contains("not well-formed (it breaks off at line") && cut.output.isEmpty)
        let missing = try await Self.run(["feed", "parse", folder + "/none.xml"], in: folder)
        #expect(missing.status == 66 && missing.errors.contains("cannot be read"))
    }

    @Test(.timeLimit(.minutes(1))) func checkFetchesAsThePollerDoesAndSaysWhyItCannot() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-feed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = try ScriptedServer { path, _ in
            switch path {
            case "/": .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array(#"<html><head><link rel="alternate" type="application/atom+xml" href="/atom"></head></html>"#.utf8))
            case "/atom": .answer(status: "200 OK", body: Array(#"<feed xmlns="http://www.w3.org/2005/Atom"><title>Site</title><entry><id>e1</id><title>Hi</title></entry></feed>"#.utf8))
            case "/html": .answer(status: "200 OK", headers: ["Content-Type: text/plain"], body: Array("just text".utf8))
            default: .answer(status: "410 Gone")
            }
        }
        defer { server.stop() }
        let allowed = ["--feed-port", "\(server.port)", "--feed-allow-loopback"]
        let page = try await Self.run(["feed", "check", server.url("/")] + allowed, in: folder)
        #expect(page.status == 0, "\(page.errors)")
        #expect(page.output == #"{"title": "Site", "link": null, "items": [{"key": "e1", "title": "Hi", "link": null, "date": null, "text": ""}]}"# + "\n")
        let gone = try await Self.run(["feed", "check", server.url("/gone")] + allowed, in: folder)
        #expect(gone.status == 69 && gone.errors.contains("the server answered 410"))
        let text = try await Self.run(["feed", "check", server.url("/html")] + allowed, in: folder)
        #expect(text.status == 65 && text.output.isEmpty)
        let loopback = try await Self.run(["feed", "check", server.url("/")], in: folder)
        #expect(loopback.status == 69 && loopback.errors.contains("not one Parlor fetches feeds from"))
        let private10 = try await Self.run(["feed", "check", "http://10.0.0.1/feed.xml"], in: folder)
        #expect(private10.status == 69 && private10.errors.contains("private or reserved network"))
        let ftp = try await Self.run(["feed", "check", "ftp://example.org/feed"], in: folder)
        #expect(ftp.status == 64)
        #expect(server.received.allSatisfy { $0.path != "/gone" || $0.headers["user-agent"] != nil })
    }
}
