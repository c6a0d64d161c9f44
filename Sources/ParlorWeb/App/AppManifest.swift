import Foundation
import MicroHTTP
import ParlorViews

/// `/manifest.webmanifest`: what a browser needs to install Parlor as an app: its name, icons at the sizes
/// browsers ask for (192 and 512 px, and one with room around it for masks), colours, and where it starts,
/// under the base path Parlor is served at. The same bytes for everyone (browsers fetch it without cookies),
/// prepared once.
public struct AppManifest: Sendable {
    let paths: Paths

    public init(paths: Paths) {
        self.paths = paths
    }

    /// The theme colour: the accent of the light theme, as the page's `theme-color` says too.
    public static let themeColor = "#2f5d8a"
    static let backgroundColor = "#fbfaf7"

    /// The manifest, as JSON with its keys in order.
    public var json: Data {
        let icon = { (file: String, size: Int, purpose: String) -> [String: String] in
            ["src": "\(paths.basePath)/public/img/\(file)", "sizes": "\(size)x\(size)", "type": "image/png", "purpose": purpose]
        }
        let manifest: [String: Any] = [
            "name": PageBuilder.productName, "short_name": PageBuilder.productName, "id": "\(paths.basePath)/chats",
            "start_url": "\(paths.basePath)/chats", "scope": "\(paths.basePath)/", "display": "standalone",
            "background_color": Self.backgroundColor, "theme_color": Self.themeColor,
            "icons": [icon("icon-192.png", 192, "any"), icon("icon-512.png", 512, "any"), icon("icon-maskable-512.png", 512, "maskable")],
        ]
        return (try? JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    public func register(on router: inout Router) throws {
        var headers = SecurityHeaders.all
        headers.add("Content-Type", "application/manifest+json")
        headers.add("Cache-Control", "public, max-age=3600")
        let prepared = try PreparedResponse(headers: headers, body: .init(json))
        router.get("/manifest.webmanifest") { _ in .prepared(prepared) }
    }
}
