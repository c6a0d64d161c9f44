// One request answered in this process, without a socket: the same router, refusals, forms, streamed uploads,
// admissions, error pages, common fields and log line as over a connection. Tests of routes use it; an event
// stream (which lives on its connection) and what only a socket shows (framing, limits on a slow body, keep-alive)
// are tested over a connection.
import ByteOutput
#if canImport(Glibc)
import Glibc
#endif

/// A request as a client would send it, for ``HTTPServer/answer(_:)``.
public struct InProcessRequest: Sendable {
    public var method: String
    /// The request target as it would be on the request line: a percent-encoded path and an optional query.
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's address as the socket would give it.
    public var peer: String

    public init(method: String, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [], peer: String = "127.0.0.1") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.peer = peer
    }
}

/// What the server would have sent: status, header fields (`Content-Length` included) and the body's bytes.
public struct InProcessResponse: Sendable {
    public let status: Int
    public let headers: HTTPHeaders
    public let body: [UInt8]
}

extension HTTPServer {
    /// Answers `incoming` as a connection's request would be answered, without a socket; the server need not be
    /// started. An event stream is answered with its head alone and ended at once.
    public func answer(_ incoming: InProcessRequest) async -> InProcessResponse {
        let id = requestIDs.next()
        let started = ContinuousClock.now
        let method = HTTPMethod(incoming.method)
        let (rawPath, rawQuery) = Self.split(incoming.target)
        let path = Self.decodedPath(rawPath)
        let shownPath = path ?? String(decoding: rawPath.utf8, as: UTF8.self)
        let loggedPath = router.loggedPath(shownPath)
        var route: Router.Route?
        let response: Response
        switch intake(incoming, method: method, rawPath: rawPath, path: path) {
        case .refused(let error):
            response = errorResponse(error, id: id, path: shownPath)
        case .routed(let matched, let parameters):
            route = matched
            response = await run(matched, parameters: parameters, incoming, id: id, method: method, path: shownPath, rawQuery: rawQuery)
        }
        let answered = finished(response, method: method)
        logger.info("\(method.rawValue.escapedForLog) \(loggedPath.escapedForLog) \(answered.status)", metadata: [
            "request": "\(id)", "ms": "\(Self.milliseconds(since: started))", "transport": "in-process",
        ])
        observer?.answered(method: method, route: route?.pattern.description ?? "unmatched", status: answered.status,
                           seconds: (ContinuousClock.now - started).seconds)
        return answered
    }

    private enum Intake {
        case refused(HTTPError)
        case routed(Router.Route, parameters: [String: String])
    }

    /// The head's checks, in the order a connection's first call makes them.
    private func intake(_ incoming: InProcessRequest, method: HTTPMethod, rawPath: Substring, path: String?) -> Intake {
        switch routing(method, path: path, encodedSlash: Self.hasEncodedSlash(rawPath)) {
        case .failure(let refusal):
            return .refused(refusal)
        case .success(let (route, parameters)):
            let limit = route.bodyLimit ?? configuration.defaultBodyLimit
            if incoming.body.count > limit {
                return .refused(HTTPError.bodyTooLarge(limit: limit))
            }
            if let repeated = incoming.headers.repeatedSingleton {
                return .refused(HTTPError.repeatedField(repeated))
            }
            return .routed(route, parameters: parameters)
        }
    }

    /// The body's reading and the handler, as a connection's later calls run them.
    private func run(
        _ route: Router.Route, parameters: [String: String], _ incoming: InProcessRequest, id: RequestID, method: HTTPMethod, path: String,
        rawQuery: Substring?
    ) async -> Response {
        let type = incoming.headers["Content-Type"]
        let takesRaw = route.rawBodyType.flatMap { wanted in type.map { FormParser.isRawBody(contentType: $0, of: wanted) } } ?? false
        if let wanted = route.rawBodyType, type != nil, !takesRaw {
            return errorResponse(HTTPError.unsupportedBody(wanted: wanted), id: id, path: path)
        }
        let kind = route.rawBodyType == nil ? type.flatMap(FormParser.kind(contentType:)) : nil
        guard let query = Self.query(rawQuery) else {
            return errorResponse(HTTPError.queryNotUTF8, id: id, path: path)
        }
        let peer = PeerAddress(text: incoming.peer)
        func request(_ form: FormData, body: [UInt8] = []) -> Request {
            Request(id: id, method: method, path: path, query: query, headers: incoming.headers, peer: peer, form: form, body: body, parameters: parameters)
        }
        var form = FormData()
        var uploads: MultipartStream<FileUploadWriter>?
        var slot: UploadSlots.Slot?
        defer {
            uploads?.removeWriterFiles()
            withExtendedLifetime(slot) {}
        }
        if route.streamsUploads, case .multipart(let boundary)? = kind {
            switch await streamedUpload(route, boundary: boundary, incoming, head: request(FormData()), id: id, path: path) {
            case .answered(let response):
                return response
            case .read(let read, let stream, let place):
                (form, uploads, slot) = (read, stream, place)
            }
        } else if !incoming.body.isEmpty {
            if route.streamsUploads, incoming.body.count > configuration.defaultBodyLimit {
                let error = HTTPError.formTooLargeWithoutFile(limit: configuration.defaultBodyLimit)
                return errorResponse(error, id: id, path: path)
            }
            if let kind {
                do {
                    form = try FormParser.parse(incoming.body, as: kind)
                } catch .invalidUTF8 {
                    return errorResponse(HTTPError.formNotUTF8, id: id, path: path)
                } catch {
                    return errorResponse(HTTPError.formUnreadable, id: id, path: path)
                }
            } else if !takesRaw {
                return errorResponse(HTTPError.unsupportedBody(wanted: route.rawBodyType), id: id, path: path)
            }
        }
        return await handle(route, request(form, body: takesRaw ? incoming.body : []), id: id)
    }

    private enum Upload {
        case read(FormData, MultipartStream<FileUploadWriter>, UploadSlots.Slot)
        case answered(Response)
    }

    /// A multipart body for a route that streams uploads: a slot among the uploads in progress, the route's admission
    /// on the head, then the files written as a connection's are. The caller removes them once it has answered.
    private func streamedUpload(_ route: Router.Route, boundary: [UInt8], _ incoming: InProcessRequest, head: Request, id: RequestID, path: String)
        async -> Upload
    {
        let address = ClientAddress.resolve(
            peer: incoming.peer, forwardedFor: incoming.headers.values(for: "X-Forwarded-For"), trusted: configuration.trustedProxies
        ) ?? "unknown"
        guard let slot = uploadSlots.take(for: address) else {
            let error = HTTPError.tooManyUploads
            return .answered(errorResponse(error, id: id, path: path))
        }
        if let admission = route.admission {
            do {
                if let refusal = try await admission(head) { return .answered(refusal) }
            } catch {
                return .answered(failure(error, id: id))
            }
        }
        var stream = MultipartStream(
            boundary: boundary, writer: FileUploadWriter(folder: configuration.uploadFolder, prefix: "r\(id)"), limits: route.uploads ?? .unlimited
        )
        do {
            try stream.feed(incoming.body)
            try stream.finish()
            return .read(FormData(fields: stream.fields, uploads: stream.writer.uploads), stream, slot)
        } catch {
            stream.removeWriterFiles()
            return .answered(errorResponse(Self.uploadRefusal(error), id: id, path: path))
        }
    }

    /// The route's handler, as a connection's last call runs it; what it throws becomes its page.
    private func handle(_ route: Router.Route, _ request: Request, id: RequestID) async -> Response {
        do {
            switch route.handler {
            case .sync(let handler): return try handler(request)
            case .async(let handler): return try await handler(request)
            case .immediateOrAsync(let immediately, let handler):
                if let answer = try immediately(request) { return answer }
                return try await handler(request)
            }
        } catch {
            return failure(error, id: id)
        }
    }

    /// The response as bytes, with the fields the server adds: the common ones, `Content-Length`, no body for HEAD.
    private func finished(_ response: Response, method: HTTPMethod) -> InProcessResponse {
        var headers = response.headers
        var body: [UInt8] = []
        switch response.body {
        case .empty:
            break
        case .bytes(let buffer):
            body = buffer.bytes
        case .prepared(let prepared):
            for field in prepared.headers where !headers.contains(field.name) { headers.add(field.name, field.value) }
            body = prepared.body.bytes
        case .file(let file):
            body = Self.read(file)
        case .eventStream(let stream):
            // It lives on a connection; here it ends at once, and whoever listened to it is told.
            stream.close()
            stream.finished()
        }
        for field in router.commonHeaders where !headers.contains(field.name) { headers.add(field.name, field.value) }
        if case .eventStream = response.body {} else { headers.replace("Content-Length", with: "\(body.count)") }
        return InProcessResponse(status: Int(response.status.code), headers: headers, body: method == .head ? [] : body)
    }

    private static func read(_ file: FileBody) -> [UInt8] {
        guard let descriptor = file.take() else { return [] }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(clamping: file.size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + done, $0.count - done) }
            guard count > 0 else { break }
            done += count
        }
        return Array(bytes.prefix(done))
    }

    /// The path and the query of a request target.
    static func split(_ target: String) -> (path: Substring, query: Substring?) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], nil) }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// A slash written as %2F, which the raw target's check marks (shim.h).
    static func hasEncodedSlash(_ path: Substring) -> Bool {
        path.contains("%2F") || path.contains("%2f")
    }

    /// The path percent-decoded as the server's unescape callback does (a `%00` becomes a byte that is no UTF-8);
    /// nil when the result is no UTF-8.
    static func decodedPath(_ path: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = path.utf8[...]
        while let byte = rest.first {
            if byte == UInt8(ascii: "%"), rest.count >= 3, let high = FormParser.hexValue(rest.dropFirst().first!), let low = FormParser.hexValue(rest.dropFirst(2).first!) {
                let value = high * 16 + low
                bytes.append(value == 0 ? 0xFF : value)
                rest = rest.dropFirst(3)
            } else {
                bytes.append(byte)
                rest = rest.dropFirst()
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The query's items, decoded as a form's (`+` a space); nil when one is no UTF-8.
    static func query(_ query: Substring?) -> QueryItems? {
        guard let query, !query.isEmpty else { return QueryItems() }
        return try? FormParser.parse(Array(query.utf8), as: .urlencoded).fields
    }
}
