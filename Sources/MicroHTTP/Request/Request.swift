/// An HTTP request, copied out of libmicrohttpd into a plain value so that a handler,
/// synchronous or `async`, may keep it as long as it likes.
public struct Request: Sendable {
    /// A short id unique to this server run, also written on the request's log line.
    public let id: RequestID
    /// The method; HEAD requests reach GET handlers with this still set to HEAD.
    public let method: HTTPMethod
    /// The percent-decoded path, always starting with "/" and free of `.` and `..` segments.
    public let path: String
    /// The decoded query items.
    public let query: QueryItems
    /// The request header fields.
    public let headers: HTTPHeaders
    let peer: PeerAddress?
    /// The form body, when the request carried one.
    public let form: FormData
    /// The body as it came, when it is not a form (`application/json`): at most the route's body limit.
    public let body: [UInt8]
    /// Values captured by the route pattern (`/chats/{id}` gives `parameters["id"]`).
    public internal(set) var parameters: [String: String]

    /// Creates a request by hand, for tests of handlers that need no server.
    public init(
        id: RequestID = .test, method: HTTPMethod = .get, path: String, query: QueryItems = QueryItems(),
        headers: HTTPHeaders = [:], form: FormData = FormData(), body: [UInt8] = [], parameters: [String: String] = [:]
    ) {
        self.init(id: id, method: method, path: path, query: query, headers: headers, peer: nil, form: form, body: body,
                  parameters: parameters)
    }

    init(id: RequestID, method: HTTPMethod, path: String, query: QueryItems, headers: HTTPHeaders,
         peer: PeerAddress?, form: FormData, body: [UInt8] = [], parameters: [String: String]) {
        self.body = body
        self.id = id
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.peer = peer
        self.form = form
        self.parameters = parameters
    }

    /// The peer's IP address as text, as the socket saw it (no proxy headers applied).
    public var peerAddress: String? { peer?.text }

    /// The cookies the request carried.
    public var cookies: Cookies { Cookies(headerValues: headers.values(for: "Cookie")) }

    /// The `Last-Event-ID` a reconnecting event stream sent, if any.
    public var lastEventID: String? { headers["Last-Event-ID"] }
}
