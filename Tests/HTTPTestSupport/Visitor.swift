import Foundation

/// How a visitor's requests reach Parlor when not over a connection: answered in the test's own process by the
/// server's router (the same routes, refusals and pages, without a socket).
public protocol InProcessExchange: Sendable {
    /// Answers one request; `headers` are "Name: value" lines as a client writes them.
    func exchange(_ method: String, _ target: String, headers: [String], body: [UInt8]) async throws -> TestResponse
}

/// A browser without JavaScript, as far as the server can tell: it keeps cookies, posts forms with the
/// token the last page carried, and does not follow redirects (tests look at them).
public final class Visitor {
    public let port: UInt16
    public var cookies: [String: String] = [:]
    /// The `csrf` field of the last page that had one.
    public var csrf = ""
    /// The `token` field of the last composer seen.
    public var composerToken = ""

    /// Where requests go instead of the port, when set; event streams and ``startPost(_:_:)`` always use the port.
    public let inProcess: (any InProcessExchange)?

    public init(port: UInt16, inProcess: (any InProcessExchange)? = nil) {
        self.port = port
        self.inProcess = inProcess
    }

    @discardableResult
    public func get(_ target: String, headers: [String] = []) async throws -> TestResponse {
        try await send("GET", target, headers: headers)
    }

    /// Posts `fields` (plus this visitor's CSRF token unless `csrf` is given).
    @discardableResult
    public func post(_ target: String, _ fields: [(String, String)], csrf: String? = nil, headers: [String] = []) async throws -> TestResponse {
        let all = [("csrf", csrf ?? self.csrf)] + fields
        let body = all.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try await send("POST", target, headers: ["Content-Type: application/x-www-form-urlencoded"] + headers, body: body)
    }

    /// Posts a multipart form with one file, as a browser's file field does: this visitor's CSRF token first (as
    /// Parlor's upload forms have it, never in their action), then `fields`, then the file.
    @discardableResult
    public func postFile(
        _ target: String, field: String, filename: String, contentType: String, bytes: [UInt8], fields: [(String, String)] = [], headers: [String] = []
    ) async throws -> TestResponse
    {
        let boundary = "----parlorTest\(UInt32.random(in: 1...UInt32.max))"
        var body: [UInt8] = []
        for (name, value) in [("csrf", csrf)] + fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"\(filename)\"\r\nContent-Type: \(contentType)\r\n\r\n".utf8)
        body += bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        if let inProcess {
            let fields = ["Content-Type: multipart/form-data; boundary=\(boundary)"] + cookieHeader + headers + ["Content-Length: \(body.count)"]
            let response = try await inProcess.exchange("POST", target, headers: fields, body: body)
            remember(response)
            return response
        }
        let client = try RawClient(port: port, timeout: 40)
        var head = "POST \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\n"
        for header in cookieHeader + headers { head += header + "\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        try client.send(Array(head.utf8) + body)
        let response = try await client.readResponse()
        remember(response)
        return response
    }

    /// Sends a POST without waiting for its answer, which the caller reads from the returned connection:
    /// several visitors' requests can then reach the server at once.
    public func startPost(_ target: String, _ fields: [(String, String)]) throws -> RawClient {
        let all = [("csrf", csrf)] + fields
        let body = all.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        let client = try RawClient(port: port, timeout: 40)
        try client.send(RawClient.request("POST", target, headers: ["Content-Type: application/x-www-form-urlencoded"] + cookieHeader, body: body))
        return client
    }

    public func send(_ method: String, _ target: String, headers: [String] = [], body: String? = nil) async throws -> TestResponse {
        if let inProcess {
            let length = body.map { ["Content-Length: \($0.utf8.count)"] } ?? []
            let response = try await inProcess.exchange(method, target, headers: headers + cookieHeader + length, body: Array((body ?? "").utf8))
            remember(response)
            return response
        }
        let client = try RawClient(port: port, timeout: 40)
        let fields = headers + cookieHeader
        let response = try await client.exchange(method, target, headers: fields, body: body)
        remember(response)
        return response
    }

    /// Opens the event stream of a page; the caller reads it.
    public func openEvents(_ target: String, lastEventID: String? = nil) async throws -> (RawClient, TestResponse) {
        let client = try RawClient(port: port, timeout: 40)
        var fields = ["Accept: text/event-stream"] + cookieHeader
        if let lastEventID { fields.append("Last-Event-ID: \(lastEventID)") }
        try client.send(RawClient.request("GET", target, headers: fields))
        return (client, try await client.readStreamHead())
    }

    /// The `Cookie` field, when this visitor has cookies.
    public var cookieHeader: [String] {
        cookies.isEmpty ? [] : ["Cookie: " + cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")]
    }

    private func remember(_ response: TestResponse) {
        for (name, value) in response.headers where name.lowercased() == "set-cookie" {
            let pair = value.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1)
            let cookieName = String(pair[0])
            let cookieValue = pair.count > 1 ? String(pair[1]) : ""
            if cookieValue.isEmpty || value.contains("Max-Age=0") { cookies[cookieName] = nil } else { cookies[cookieName] = cookieValue }
        }
        let html = response.text
        if let token = Self.field("csrf", in: html) { csrf = token }
        if let token = Self.field("token", in: html) { composerToken = token }
    }

    public static func field(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    public static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: Steps a person takes

    /// Signs up; afterwards this visitor is signed in.
    @discardableResult
    public func signUp(_ handle: String, name: String? = nil, password: String = "correct horse battery") async throws -> TestResponse {
        try await get("/signup")
        return try await post("/signup", [("handle", handle), ("displayName", name ?? handle.capitalized), ("password", password)])
    }

    /// Starts a chat with `handle` and returns its path ("/rooms/3").
    public func startChat(with handle: String) async throws -> String {
        try await get("/chats/new")
        let response = try await post("/chats/new", [("handle", handle)])
        guard response.status == 303, let location = response.header("Location") else {
            throw ClientError(description: "no chat with \(handle): \(response.status) \(response.text)")
        }
        return location
    }

    /// The path of the chat with `name` in this visitor's chat list ("/rooms/1"). Parlor Bot starts its chat
    /// on its own after sign-up, so the list is asked again for up to two seconds.
    public func chat(named name: String) async throws -> String {
        for _ in 0..<100 {
            let list = try await get("/chats").text
            if let nameRange = list.range(of: "<span class=\"chat-list-name\" dir=\"auto\">\(name)</span>"),
               let link = list[..<nameRange.lowerBound].range(of: "<a href=\"/rooms/", options: .backwards)
            {
                let rest = list[link.upperBound...]
                return "/rooms/" + rest.prefix { $0.isNumber }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ClientError(description: "no chat named \(name)")
    }

    /// Opens `chat` and sends `text` from its composer.
    @discardableResult
    public func say(_ text: String, in chat: String, replyTo: String? = nil) async throws -> TestResponse {
        try await get(chat)
        var fields = [("body", text), ("token", composerToken)]
        if let replyTo { fields.append(("replyTo", replyTo)) }
        return try await post(chat + "/messages", fields)
    }
}
