import Foundation
import MicroHTTP
import ParlorViews

/// Links from before rooms (`/chats/{id}` and what is under it) lead to the same place under `/rooms/{id}`:
/// pages and feeds with 301, forms posted from a page loaded before with 308, which keeps the method and body
/// (a photo larger than the body limit here is refused: its page is older than rooms).
public struct OldChatLinks: Sendable {
    let paths: Paths

    public init(paths: Paths) {
        self.paths = paths
    }

    public func register(on router: inout Router) {
        for page in ["/chats/{id}", "/chats/{id}/feeds"] {
            router.get(page) { [paths] request in Self.moved(request, paths, status: .movedPermanently) }
        }
        for form in ["/chats/{id}/messages", "/chats/{id}/messages/{message}", "/chats/{id}/messages/{message}/delete", "/chats/{id}/read",
                     "/chats/{id}/feeds", "/chats/{id}/feeds/{feed}/retry", "/chats/{id}/feeds/{feed}/delete"] {
            router.post(form, bodyLimit: 64 * 1024) { [paths] request in Self.moved(request, paths, status: .permanentRedirect) }
        }
    }

    /// The same path under `/rooms`, with the query it came with. Every part the pattern captured must be a
    /// number (an id): anything else is no chat, and nothing typed in a path reaches the `Location` header.
    static func moved(_ request: Request, _ paths: Paths, status: HTTPStatus) -> Response {
        let numbers = request.parameters.values.allSatisfy { value in
            !value.isEmpty && value.utf8.count <= 19 && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
        guard numbers, request.parameters["id"] != nil, let start = request.path.range(of: "/chats/", options: .backwards)
        else { return .text("There is no such chat.", status: .notFound) }
        var location = paths.basePath + "/rooms/" + request.path[start.upperBound...]
        let query = request.query.map { Paths.queryValue($0.name) + "=" + Paths.queryValue($0.value) }
        if !query.isEmpty { location += "?" + query.joined(separator: "&") }
        return .redirect(to: location, status: status)
    }
}
