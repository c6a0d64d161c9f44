import ByteOutput

/// A handler that answers on the connection's own thread: for work that never waits.
public typealias SyncHandler = @Sendable (Request) throws -> Response
/// A handler that may wait (a database call). Its connection is suspended meanwhile, so no
/// server thread is held.
public typealias AsyncHandler = @Sendable (Request) async throws -> Response
/// The first try of a route that can often answer at once: on the connection's own thread, with no hand-over
/// to another thread and back. Nil when it cannot answer without waiting; the route's ``AsyncHandler`` runs then.
public typealias ImmediateHandler = @Sendable (Request) throws -> Response?

/// Maps a method and a path to a handler. HEAD is answered by the GET handler, a known path
/// with another method gets 405 with `Allow`, anything else 404.
public struct Router: Sendable {
    enum Handler: Sendable {
        case sync(SyncHandler)
        case async(AsyncHandler)
        /// The first at once, and when it answers nil, the second.
        case immediateOrAsync(ImmediateHandler, AsyncHandler)
    }

    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: RoutePattern
        let bodyLimit: Int?
        /// Set, multipart files go to disk as they arrive (``FormData/uploads``) instead of into memory, at
        /// most this many parts, once `admission` has taken the head.
        var uploads: UploadLimits?
        var admission: Admission?
        /// Set, a body of this media type (`application/json`) is taken as it came (``Request/body``), besides forms.
        var rawBodyType: String?
        let handler: Handler

        var streamsUploads: Bool { uploads != nil }
    }

    enum Match {
        case found(Route, parameters: [String: String])
        case notFound
        case methodNotAllowed(allowed: [HTTPMethod])
    }

    private(set) var routes: [Route] = [] {
        didSet {
            withSecrets = routes.map(\.pattern).filter(\.carriesSecret)
            // The most specific first, whatever the order of registration; routes alike keep theirs.
            matchOrder = routes.enumerated().sorted { first, second in
                first.element.pattern.specificity.lexicographicallyPrecedes(second.element.pattern.specificity)
                    || (first.element.pattern.specificity == second.element.pattern.specificity && first.offset < second.offset)
            }.map(\.element)
        }
    }
    /// ``routes`` as they are tried: a literal segment before a parameter before the rest of a path, at the first
    /// segment where two patterns differ (`/rooms/new` answers before `/rooms/{id}`, registered in either order).
    private var matchOrder: [Route] = []
    /// The patterns of ``routes`` with a secret in their paths: a request's log line looks at these alone.
    private var withSecrets: [RoutePattern] = []

    /// Renders refusals and failures (404, 405, 413, 500 ...). The default is a small HTML page.
    public var errorResponder: @Sendable (HTTPError, _ requestID: String) -> Response = ErrorPage.response

    /// Renderers of refusals for the paths under a prefix (an API's JSON errors), tried before ``errorResponder``;
    /// the prefix includes the mount path.
    public var errorResponders: [(prefix: String, respond: @Sendable (HTTPError, _ requestID: String) -> Response)] = []

    /// Fields every response carries unless it sets them itself, error pages and static files included
    /// (security headers such as `Content-Security-Policy`).
    public var commonHeaders: HTTPHeaders = [:]

    /// An empty router.
    public init() {}

    /// Adds a synchronous route. `bodyLimit` overrides the server's default body limit.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping SyncHandler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), bodyLimit: bodyLimit, handler: .sync(handler)))
    }

    /// Adds an `async` route. `rawBody` names the one media type whose body the handler reads as it came
    /// (``Request/body``), in UTF-8 when its `Content-Type` names a charset; any other, forms included, is refused
    /// with 415 before the body is read.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, bodyLimit: Int? = nil, rawBody: String? = nil, _ handler: @escaping AsyncHandler) {
        routes.append(Route(method: method, pattern: RoutePattern(pattern), bodyLimit: bodyLimit, rawBodyType: rawBody, handler: .async(handler)))
    }

    public mutating func get(_ pattern: String, _ handler: @escaping SyncHandler) { add(.get, pattern, handler) }
    public mutating func get(_ pattern: String, _ handler: @escaping AsyncHandler) { add(.get, pattern, handler) }
    /// A GET tried at once by `immediately` on the connection's thread; `handler` answers when it gives nil.
    public mutating func get(_ pattern: String, immediately: @escaping ImmediateHandler, _ handler: @escaping AsyncHandler) {
        routes.append(Route(method: .get, pattern: RoutePattern(pattern), bodyLimit: nil, handler: .immediateOrAsync(immediately, handler)))
    }
    public mutating func post(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping SyncHandler) {
        add(.post, pattern, bodyLimit: bodyLimit, handler)
    }
    public mutating func post(_ pattern: String, bodyLimit: Int? = nil, _ handler: @escaping AsyncHandler) {
        add(.post, pattern, bodyLimit: bodyLimit, handler)
    }

    /// A POST whose multipart files are written to the server's upload folder as they arrive, up to
    /// `bodyLimit` bytes in all and `uploads` parts, and given to the handler as ``FormData/uploads``. Nothing
    /// of a multipart body is stored before `admission` has admitted its head (who sends it, from where), and
    /// only while the server's limits on uploads in progress allow; a larger `Content-Length` is refused with
    /// 413 before the body is read. An urlencoded form (no file) is taken as on any route, within the server's
    /// `defaultBodyLimit`.
    public mutating func post(
        _ pattern: String, bodyLimit: Int, uploads: UploadLimits, admission: @escaping Admission, _ handler: @escaping AsyncHandler
    ) {
        routes.append(Route(
            method: .post, pattern: RoutePattern(pattern), bodyLimit: bodyLimit, uploads: uploads, admission: admission, handler: .async(handler)
        ))
    }

    /// The path as the access log shows it: any path under a route whose parameter is a secret (`{code:secret}`),
    /// matched or refused, is shown as that route's pattern, so that no spelling of a join link's code is written.
    func loggedPath(_ path: String) -> String {
        guard path.hasPrefix(mountPath) else { return path }
        let below = path.dropFirst(mountPath.count)
        for pattern in withSecrets where below.hasPrefix(pattern.literalPrefix) {
            return mountPath + pattern.description
        }
        return path
    }

    /// The patterns of the routes whose paths carry a secret, as the log shows them (for a scan of the log).
    public var patternsWithSecrets: [String] {
        withSecrets.map { mountPath + $0.description }
    }

    /// Every route that may change something (any method but GET), as "POST /rooms/{id}/read", below the mount
    /// path: what a test that every change goes one way walks through.
    public var stateChangingRoutes: [String] {
        routes.filter { $0.method != .get && $0.method != .head }.map { "\($0.method) \(mountPath)\($0.pattern.description)" }
    }

    /// Finds the route for a request.
    /// Every route is served below this path ("/chat"; empty: at the root), as a proxy that keeps the
    /// prefix forwards it. Set before the server starts.
    public var mountPath = "" {
        didSet { mountSegments = mountPath.unicodeScalars.split(separator: "/").map { Substring($0) } }
    }
    private var mountSegments: [Substring] = []

    func match(_ method: HTTPMethod, path: String) -> Match {
        // Split on the slash itself, not on characters: a slash followed by a combining mark is one Swift
        // Character, and must still separate segments as it does for RequestPath's byte checks.
        var segments = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: true).map { Substring($0) }
        // Mounted under a prefix: only paths below it are this router's, matched without it.
        if !mountSegments.isEmpty {
            guard segments.starts(with: mountSegments) else { return .notFound }
            segments.removeFirst(mountSegments.count)
        }
        let wanted = method == .head ? HTTPMethod.get : method
        // The routes of the method first, looked at in place (a route is copied only when it answers): the first
        // that matches is the one a single pass would find, and every request pays for its own method's routes only.
        for index in matchOrder.indices where matchOrder[index].method == wanted {
            if let parameters = matchOrder[index].pattern.match(segments) { return .found(matchOrder[index], parameters: parameters) }
        }
        var allowed: [HTTPMethod] = []
        for index in matchOrder.indices where !allowed.contains(matchOrder[index].method) {
            if matchOrder[index].pattern.match(segments) != nil { allowed.append(matchOrder[index].method) }
        }
        if allowed.isEmpty { return .notFound }
        if allowed.contains(.get) { allowed.append(.head) }
        return .methodNotAllowed(allowed: allowed)
    }
}
