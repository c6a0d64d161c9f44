import Foundation
import HTTPTestSupport
import Testing
@testable import MicroHTTP

/// A temporary site: `public/` with a few files, and a secret beside it that must never leak.
struct TemporarySite: ~Copyable {
    let base: String
    var publicFolder: String { base + "/public" }
    static let secret = "TOP-SECRET-CONTENT"

    init() throws {
        base = NSTemporaryDirectory() + "parlor-static-" + UUID().uuidString
        let files = FileManager.default
        try files.createDirectory(atPath: base + "/public/css", withIntermediateDirectories: true)
        try files.createDirectory(atPath: base + "/public/empty-folder", withIntermediateDirectories: true)
        try "body { color: red; }\n".write(toFile: base + "/public/css/site.css", atomically: true, encoding: .utf8)
        try "console.log('hi')\n".write(toFile: base + "/public/app.js", atomically: true, encoding: .utf8)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: base + "/public/logo.png"))
        try "hidden\n".write(toFile: base + "/public/.env", atomically: true, encoding: .utf8)
        try Self.secret.write(toFile: base + "/secret.txt", atomically: true, encoding: .utf8)
        try files.createSymbolicLink(atPath: base + "/public/escape.txt", withDestinationPath: base + "/secret.txt")
        try files.createSymbolicLink(atPath: base + "/public/escape-dir", withDestinationPath: base)
        try "inside\n".write(toFile: base + "/public/css/real.txt", atomically: true, encoding: .utf8)
        try files.createSymbolicLink(atPath: base + "/public/inside-link.txt", withDestinationPath: base + "/public/css/real.txt")
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }
}

@Suite struct StaticFilesTests {
    static func router(_ site: borrowing TemporarySite) throws -> Router {
        var router = Router()
        try StaticFiles(folder: site.publicFolder).register(on: &router, at: "/public")
        return router
    }

    @Test func filesAreServedWithContentTypeAndValidators() async throws {
        let site = try TemporarySite()
        try await withServer(try Self.router(site)) { _, port in
            let client = try RawClient(port: port)
            let css = try await client.exchange("GET", "/public/css/site.css")
            #expect(css.status == 200)
            #expect(css.text == "body { color: red; }\n")
            #expect(css.header("Content-Type") == "text/css; charset=utf-8")
            #expect(css.header("ETag")?.hasPrefix("\"") == true)
            #expect(css.header("Last-Modified")?.hasSuffix(" GMT") == true)
            #expect(css.header("Cache-Control") == "no-cache")
            #expect(css.header("X-Content-Type-Options") == "nosniff")
            #expect(try await client.exchange("GET", "/public/app.js").header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(try await client.exchange("GET", "/public/logo.png").body == [0x89, 0x50, 0x4E, 0x47])
            #expect(try await client.exchange("GET", "/public/inside-link.txt").text == "inside\n")
        }
    }

    @Test func matchingValidatorsGet304() async throws {
        let site = try TemporarySite()
        try await withServer(try Self.router(site)) { _, port in
            let client = try RawClient(port: port)
            let first = try await client.exchange("GET", "/public/css/site.css")
            let tag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))

            let byTag = try await client.exchange("GET", "/public/css/site.css", headers: ["If-None-Match: \"nope\", \(tag)"])
            #expect(byTag.status == 304)
            #expect(byTag.body.isEmpty)
            #expect(byTag.header("ETag") == tag)

            #expect(try await client.exchange("GET", "/public/css/site.css", headers: ["If-Modified-Since: \(modified)"]).status == 304)
            #expect(try await client.exchange("GET", "/public/css/site.css", headers: ["If-None-Match: \"other\""]).status == 200)
            #expect(try await client.exchange("GET", "/public/css/site.css",
                                        headers: ["If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT"]).status == 200)
            // An ETag that does not match wins over a date that would.
            #expect(try await client.exchange("GET", "/public/css/site.css",
                                        headers: ["If-None-Match: \"other\"", "If-Modified-Since: \(modified)"]).status == 200)
        }
    }

    @Test(arguments: [
        "/public/../secret.txt",
        "/public/%2e%2e/secret.txt",
        "/public/%2E%2E/secret.txt",
        "/public/..%2fsecret.txt",
        "/public/..%2Fsecret.txt",
        "/public/css/..%2f..%2fsecret.txt",
        "/public/..%5csecret.txt",
        "/public/..\\secret.txt",
        "/public/css\\..\\..\\secret.txt",
        "/public/%252e%252e/secret.txt",
        "/public/.%2e/secret.txt",
        "/public//../secret.txt",
        "/public/escape.txt",
        "/public/escape-dir/secret.txt",
        "/public/%00/../secret.txt",
        "/public/css/site.css%00.png",
    ])
    func traversalAttemptsNeverReachOutside(_ target: String) async throws {
        let site = try TemporarySite()
        try await withServer(try Self.router(site)) { _, port in
            let response = try await RawClient(port: port).exchange("GET", target)
            #expect([400, 404].contains(response.status), "\(target) answered \(response.status)")
            #expect(!response.text.contains(TemporarySite.secret))
        }
    }

    @Test func foldersHiddenFilesAndMissingFilesAre404() async throws {
        let site = try TemporarySite()
        try await withServer(try Self.router(site)) { _, port in
            let client = try RawClient(port: port)
            for target in ["/public/css", "/public/css/", "/public/empty-folder", "/public/", "/public/.env", "/public/missing.css"] {
                let response = try await client.exchange("GET", target)
                #expect(response.status == 404, "\(target) answered \(response.status)")
                #expect(!response.text.contains("site.css"))
            }
        }
    }
}
