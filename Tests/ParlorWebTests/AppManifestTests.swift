import Foundation
import HTTPTestSupport
import Testing

/// The web app manifest: served to anyone (browsers fetch it without cookies), under the base path, naming
/// icons that exist at the sizes it says, and linked from every page.
@Suite struct AppManifestTests {
    @Test func theManifestNamesParlorItsStartAndIconsThatExistAtTheirSizes() async throws {
        try await RunningParlor.with(configure: { $0.basePath = "/chat" }) { parlor in
            let stranger = parlor.visitor()
            let response = try await stranger.get("/chat/manifest.webmanifest")
            #expect(response.status == 200 && response.header("Content-Type") == "application/manifest+json")
            let manifest = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(manifest["name"] as? String == "Parlor" && manifest["display"] as? String == "standalone")
            #expect(manifest["start_url"] as? String == "/chat/chats" && manifest["scope"] as? String == "/chat/")
            #expect(manifest["theme_color"] as? String == "#2f5d8a")
            let icons = try #require(manifest["icons"] as? [[String: String]])
            #expect(icons.map { $0["sizes"] } == ["192x192", "512x512", "512x512"] && icons.last?["purpose"] == "maskable")
            for icon in icons {
                let file = try await stranger.get(try #require(icon["src"]))
                #expect(file.status == 200 && file.header("Content-Type") == "image/png", "\(icon)")
                // A PNG's header says its size: width and height, big-endian, at bytes 16 and 20.
                let width = file.body[16..<20].reduce(0) { $0 << 8 | Int($1) }
                let height = file.body[20..<24].reduce(0) { $0 << 8 | Int($1) }
                #expect("\(width)x\(height)" == icon["sizes"], "\(icon)")
            }
            let page = try await stranger.get("/chat/signin")
            #expect(page.text.contains("<link rel=\"manifest\" href=\"/chat/manifest.webmanifest\">"))
            #expect(page.text.contains("<meta name=\"theme-color\" content=\"#2f5d8a\">"))
        }
    }
}
