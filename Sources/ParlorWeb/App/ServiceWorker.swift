import Foundation
import MicroHTTP
import ParlorViews

/// `/sw.js`: Parlor's service worker (`Public/js/sw.js`), served at the top of the base path so that its scope is
/// every page of Parlor. It shows Web Push notifications and opens the chat a click asks for; it caches nothing,
/// so a page behaves the same with it or without it. Read once at start; never cached by the browser's HTTP
/// cache, so a new version is picked up at the next visit.
public struct ServiceWorker: Sendable {
    let prepared: PreparedResponse

    public init(folder: String, paths: Paths) throws {
        let script = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent("js/sw.js"))
        var headers = SecurityHeaders.all
        headers.add("Content-Type", "text/javascript; charset=utf-8")
        headers.add("Cache-Control", "no-cache")
        headers.add("Service-Worker-Allowed", paths.basePath + "/")
        prepared = try PreparedResponse(headers: headers, body: .init(script))
    }

    public func register(on router: inout Router) {
        router.get("/sw.js") { [prepared] _ in .prepared(prepared) }
    }
}
