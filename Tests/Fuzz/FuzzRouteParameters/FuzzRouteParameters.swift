// libFuzzer entry: a decoded path matched against Parlor's routes, the ids its parameters carry read the way
// the chat routes read them, and the path as the access log writes it.
@testable import MicroHTTP

private let router: Router = {
    var router = Router()
    let patterns = [
        "/", "/healthz", "/public/{path...}", "/signup", "/signin", "/signout", "/chats", "/chats/new", "/chats/new/suggestions",
        "/chats/{id}", "/chats/{id}/messages", "/chats/{id}/messages/{message}", "/chats/{id}/read", "/events", "/settings",
        "/gallery", "/images/{id}", "/join/{code:secret}",
    ]
    for pattern in patterns {
        router.get(pattern) { _ in .text(pattern) }
        router.post(pattern) { _ in .text(pattern) }
    }
    return router
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouteParameters(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // Any path, as the access log writes it: one under a route with a secret shows that route's pattern alone.
    let logged = router.loggedPath(String(decoding: bytes, as: UTF8.self))
    if String(decoding: bytes, as: UTF8.self).hasPrefix("/join/") { precondition(logged == "/join/{code}") }
    guard let path = String(validating: bytes, as: UTF8.self), RequestPath.problem(path) == nil
    else { return 0 }
    for method in [HTTPMethod.get, .head, .post, .delete] {
        switch router.match(method, path: path) {
        case .found(_, let parameters):
            for (name, value) in parameters where name != "path" {
                precondition(!value.isEmpty && !value.contains("/"))
                // As the routes read an id: a positive Int64 or "no such chat", never a trap.
                if let id = Int64(value), id > 0 { precondition(String(id).utf8.count <= value.utf8.count) }
            }
        case .methodNotAllowed(let allowed):
            precondition(!allowed.isEmpty)
        case .notFound:
            break
        }
    }
    return 0
}
