import ByteOutput

/// What a handler answers: a status, header fields and a body.
public struct Response: Sendable {
    /// The body of a response.
    public enum Body: Sendable {
        /// No body.
        case empty
        /// Bytes handed to libmicrohttpd without a copy.
        case bytes(OutputBuffer)
        /// A response built once and sent many times (its own headers included).
        case prepared(PreparedResponse)
        /// A regular file, sent from its descriptor.
        case file(FileBody)
        /// A Server-Sent Events stream that stays open.
        case eventStream(EventStream)
    }

    /// The status.
    public var status: HTTPStatus
    /// Header fields; `Content-Length` is set by the server.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body

    /// Creates a response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Body = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An HTML page.
    public static func html(_ page: OutputBuffer, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: .bytes(page))
    }

    /// Plain text.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: .bytes(OutputBuffer(text.utf8)))
    }

    /// A `303 See Other` to `location`: the answer to a form POST.
    public static func redirect(to location: String, status: HTTPStatus = .seeOther) -> Response {
        Response(status: status, headers: ["Location": location])
    }

    /// A prepared response, sent as it was built.
    public static func prepared(_ prepared: PreparedResponse) -> Response {
        Response(status: prepared.status, body: .prepared(prepared))
    }

    /// An event stream response with the headers browsers and proxies need.
    public static func eventStream(_ stream: EventStream) -> Response {
        Response(
            status: .ok,
            headers: [
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store, no-transform",
                "X-Accel-Buffering": "no",
            ],
            body: .eventStream(stream)
        )
    }

    /// Adds a `Set-Cookie` field.
    public mutating func setCookie(_ cookie: SetCookie) {
        headers.add("Set-Cookie", cookie.headerValue)
    }

    /// A copy with a `Set-Cookie` field added.
    public func settingCookie(_ cookie: SetCookie) -> Response {
        var copy = self
        copy.setCookie(cookie)
        return copy
    }
}
