// How one request travels through libmicrohttpd's access callback: the first call (head
// parsed), the body calls, and the last call, where the handler runs.
import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

extension HTTPServer {
    func access(_ connection: ConnectionHandle, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
                version: UnsafePointer<CChar>, upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                context slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        // The raw target's check (shim.h) leaves a mark instead of a context when the path has an encoded slash.
        let marked = Callbacks.isEncodedSlashMark(slot.pointee)
        guard let existing = slot.pointee, !marked else {
            return begin(connection, url: url, method: method, version: version, encodedSlash: marked, slot: slot)
        }
        let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
        if let decision = context.admission {
            // libmicrohttpd calls the first call again once a connection suspended in it is resumed.
            context.admission = nil
            return admitted(context, connection, decision.decided ?? .refused(errorResponse(HTTPError(.internalServerError), id: context.id, path: context.path)))
        }
        if uploadSize.pointee > 0 {
            let size = uploadSize.pointee
            uploadSize.pointee = 0
            return receiveBody(context, upload, size)
        }
        return respond(context, connection)
    }

    /// First call: the request head is parsed. Never answer here unless refusing the body:
    /// libmicrohttpd would then close the connection instead of keeping it alive.
    private func begin(_ connection: ConnectionHandle, url: UnsafePointer<CChar>, method methodText: UnsafePointer<CChar>,
                       version: UnsafePointer<CChar>, encodedSlash: Bool, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let method = HTTPMethod(String(cString: methodText))
        let path = String(validatingCString: url)
        // A path that is no UTF-8 is refused below; its repaired spelling still says whose refusal it is (the API's JSON).
        let context = RequestContext(id: requestIDs.next(), method: method, path: path ?? String(cString: url), connection: connection)
        context.loggedPath = router.loggedPath(context.path)
        slot.pointee = Unmanaged.passRetained(context).toOpaque()  // released in Callbacks.requestCompleted
        requestsInFlight.add(1, ordering: .relaxed)

        switch routing(method, path: path, encodedSlash: encodedSlash) {
        case .success(let (route, parameters)):
            context.route = route
            context.parameters = parameters
        case .failure(let refusal):
            context.refusal = refusal
        }
        context.bodyLimit = context.route?.bodyLimit ?? configuration.defaultBodyLimit

        let conn = connection.raw
        let framing = RequestFraming.survey(conn, method: methodText)
        if let problem = framing.problem(http11: strcmp(version, "HTTP/1.1") == 0) {
            // Answered before the body is read: libmicrohttpd reads no further on this connection, and
            // `Connection: close` ends it even when the request had no body.
            logger.notice("framing refused", metadata: ["request": "\(context.id)", "why": "\(problem)"])
            var response = errorResponse(HTTPError(.badRequest, problem), id: context.id, path: context.path)
            response.headers.replace("Connection", with: "close")
            return queue(response, on: connection, id: context.id, method: method, path: context.loggedPath, route: context.routeLabel, started: context.started)
        }
        let contentLength = framing.contentLength
        if let length = contentLength, length > context.bodyLimit {
            // Refused before a byte of the body is read; libmicrohttpd closes the connection after.
            let error = HTTPError.bodyTooLarge(limit: context.bodyLimit)
            return queue(errorResponse(error, id: context.id, path: context.path), on: connection, id: context.id,
                         method: method, path: context.loggedPath, route: context.routeLabel, started: context.started)
        }
        _ = withUnsafeMutablePointer(to: &context.headers) {
            MHD_get_connection_values(conn, .HEADER_KIND, Callbacks.collectField, $0)
        }
        if context.refusal == nil, let repeated = context.headers.repeatedSingleton {
            context.refusal = HTTPError.repeatedField(repeated)
        }
        if let wanted = context.route?.rawBodyType {
            // A route with a raw body takes that and nothing else: a form or another charset is told so before it is read.
            if context.refusal == nil, context.headers["Content-Type"] != nil, !context.takesRawBody {
                context.refusal = HTTPError.unsupportedBody(wanted: wanted)
            }
        } else if let type = context.headers["Content-Type"] {
            context.formKind = FormParser.kind(contentType: type)
        }
        if context.route?.streamsUploads == true, case .multipart? = context.formKind {
            // Nothing is stored before the head is admitted; a refused one reads at most a small body into nothing.
            context.drainable = contentLength.map { $0 <= configuration.refusedBodyDrainLimit } == true
                && context.headers["Expect"]?.lowercased() != "100-continue"
            if let refusal = context.refusal {
                context.refusal = nil
                return admitted(context, connection, .refused(errorResponse(refusal, id: context.id, path: context.path)))
            }
            return admit(context, connection)
        }
        if context.route?.streamsUploads == true {
            // Its large limit is for files on disk: any other body is held in memory, so within the usual limit.
            context.bodyLimit = min(context.bodyLimit, configuration.defaultBodyLimit)
            if let length = contentLength, length > context.bodyLimit {
                let error = HTTPError.formTooLargeWithoutFile(limit: context.bodyLimit)
                return queue(errorResponse(error, id: context.id, path: context.path), on: connection, id: context.id,
                             method: method, path: context.loggedPath, route: context.routeLabel, started: context.started)
            }
        }
        if context.refusal == nil, context.formKind != nil, let length = contentLength, length > 0 {
            // Memory only for a body that will be kept: a form for a route that will run.
            context.body.reserveCapacity(length)
        }
        return .YES
    }

    /// A multipart body for a route that streams uploads: a slot among the uploads in progress, then the
    /// route's admission on the head, with the connection suspended until it has decided (libmicrohttpd reads
    /// no body meanwhile, and answers `Expect: 100-continue` only once it is admitted).
    private func admit(_ context: RequestContext, _ connection: ConnectionHandle) -> MHD_Result {
        guard let head = makeRequest(context, connection, form: FormData()) else {
            let error = HTTPError.queryNotUTF8
            return admitted(context, connection, .refused(errorResponse(error, id: context.id, path: context.path)))
        }
        let address = ClientAddress.resolve(
            peer: head.peerAddress ?? "unknown", forwardedFor: head.headers.values(for: "X-Forwarded-For"), trusted: configuration.trustedProxies
        ) ?? "unknown"
        guard let place = uploadSlots.take(for: address) else {
            logger.notice("upload refused: too many in progress", metadata: ["request": "\(context.id)", "in-progress": "\(uploadSlots.count)"])
            let error = HTTPError.tooManyUploads
            return admitted(context, connection, .refused(errorResponse(error, id: context.id, path: context.path)))
        }
        context.uploadSlot = place
        guard let admission = context.route?.admission else { return admitted(context, connection, .admitted) }
        let decision = AdmissionDecision()
        context.admission = decision
        return suspended(context, connection) { [self] reply in
            var outcome = AdmissionDecision.Outcome.admitted
            do {
                if let refusal = try await admission(head) { outcome = .refused(refusal) }
            } catch {
                outcome = .refused(failure(error, id: reply.id))
            }
            reply.answerOnce {
                decision.decide(outcome)
                resume(reply.connection)
            }
        }
    }

    /// Suspends the connection and runs `work` off its thread; `work` answers through the reply, unless
    /// shutdown answered it first (or had already begun, when it is answered with 503 at once).
    private func suspended(
        _ context: RequestContext, _ connection: ConnectionHandle, _ work: @escaping @Sendable (PendingReply) async -> Void
    ) -> MHD_Result {
        let reply = PendingReply(context)
        // Suspend first: whoever later answers (the work, or shutdown) may then resume.
        MHD_suspend_connection(connection.raw)
        guard pendingReplies.add(reply) else {
            reply.answerOnce { answerShuttingDown(reply) }
            return .YES
        }
        suspendedWork.add(1, ordering: .relaxed)
        Task {
            await work(reply)
            pendingReplies.remove(reply)
            suspendedWork.subtract(1, ordering: .releasing)
        }
        return .YES
    }

    /// The admission's decision, on the connection's thread: files go to disk as they arrive, or the refusal
    /// is answered, at once or after a small body read into nothing.
    private func admitted(_ context: RequestContext, _ connection: ConnectionHandle, _ outcome: AdmissionDecision.Outcome) -> MHD_Result {
        switch outcome {
        case .admitted:
            guard case .multipart(let boundary)? = context.formKind else { return .YES }
            context.uploads = MultipartStream(
                boundary: boundary, writer: FileUploadWriter(folder: configuration.uploadFolder, prefix: "r\(context.id)"),
                limits: context.route?.uploads ?? .unlimited
            )
            return .YES
        case .refused(let response):
            context.uploadSlot = nil
            if context.drainable {
                context.refusedWith = response
                context.bodyLimit = min(context.bodyLimit, configuration.refusedBodyDrainLimit)
                return .YES
            }
            // libmicrohttpd reads no more of this connection and closes it after the answer.
            var closing = response
            closing.headers.replace("Connection", with: "close")
            return queue(closing, on: connection, id: context.id, method: context.method, path: context.loggedPath, route: context.routeLabel,
                         started: context.started)
        }
    }

    /// The route of a request's head, or why it has none: a path that is no UTF-8 or not in one spelling ("//", a
    /// slash written as %2F), no route at the address, or none for the method.
    func routing(_ method: HTTPMethod, path: String?, encodedSlash: Bool) -> Result<(Router.Route, [String: String]), HTTPError> {
        guard let path else { return .failure(HTTPError(.badRequest, "The address is not valid UTF-8.")) }
        if let problem = RequestPath.problem(path) { return .failure(HTTPError(.badRequest, problem)) }
        // One spelling per address: "//", or a slash written as %2F, is no address of the server's.
        if encodedSlash || RequestPath.hasEmptySegment(path) { return .failure(HTTPError(.notFound, "There is nothing at this address.")) }
        switch router.match(method, path: path) {
        case .found(let route, let parameters):
            return .success((route, parameters))
        case .notFound:
            return .failure(HTTPError(.notFound, "There is nothing at this address."))
        case .methodNotAllowed(let allowed):
            return .failure(HTTPError(.methodNotAllowed, "This address does not accept \(method).",
                                      headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]))
        }
    }

    /// A piece of the body. A chunked body that outgrows the limit is cut off: libmicrohttpd
    /// cannot answer in the middle of an upload, so the connection is dropped.
    private func receiveBody(_ context: RequestContext, _ upload: UnsafePointer<CChar>?, _ size: Int) -> MHD_Result {
        context.bodyBytes += size
        if context.bodyBytes > context.bodyLimit {
            logger.info("body cut off", metadata: ["request": "\(context.id)", "limit": "\(context.bodyLimit)"])
            return .NO
        }
        guard !context.isRefused, let upload else { return .YES }
        guard context.formKind != nil || context.takesRawBody else {
            context.refusal = HTTPError.unsupportedBody(wanted: context.route?.rawBodyType)
            return .YES
        }
        let bytes = UnsafeRawBufferPointer(start: upload, count: size)
        if context.uploads != nil {
            do {
                try context.uploads?.feed(bytes)
            } catch {
                context.refusal = Self.uploadRefusal(error)
                // What was written is of no use now: gone at once, not when the rest has been read.
                context.uploads?.removeWriterFiles()
                context.uploads = nil
            }
            return .YES
        }
        context.body.append(contentsOf: bytes)
        return .YES
    }

    /// Last call: the whole request is here. Build the value and run the handler.
    private func respond(_ context: RequestContext, _ connection: ConnectionHandle) -> MHD_Result {
        let id = context.id
        if let refusal = context.refusedWith {
            return queue(refusal, on: connection, id: id, method: context.method, path: context.loggedPath, route: context.routeLabel,
                         started: context.started)
        }
        var form = FormData()
        if context.refusal == nil, let stream = context.uploads {
            do {
                try context.uploads?.finish()
                form = FormData(fields: stream.fields, uploads: stream.writer.uploads)
            } catch {
                context.refusal = Self.uploadRefusal(error)
            }
        } else if context.refusal == nil, let kind = context.formKind, !context.body.isEmpty {
            do {
                form = try FormParser.parse(context.body, as: kind)
            } catch .invalidUTF8 {
                context.refusal = HTTPError.formNotUTF8
            } catch {
                context.refusal = HTTPError.formUnreadable
            }
            context.body = []
        }
        guard context.refusal == nil, let route = context.route else {
            let error = context.refusal ?? HTTPError(.notFound)
            return queue(errorResponse(error, id: id, path: context.path), on: connection, id: id, method: context.method,
                         path: context.loggedPath, route: context.routeLabel, started: context.started)
        }
        // A body that is no form (JSON) is handed on as it came.
        let body = context.takesRawBody ? context.body : []
        context.body = []
        guard let request = makeRequest(context, connection, form: form, body: body) else {
            let error = HTTPError.queryNotUTF8
            return queue(errorResponse(error, id: id, path: context.path), on: connection, id: id, method: context.method,
                         path: context.loggedPath, route: context.routeLabel, started: context.started)
        }
        switch route.handler {
        case .sync(let handler):
            let response = run(id: id) { try handler(request) }
            return queue(response, on: connection, id: id, method: context.method, path: context.loggedPath, route: context.routeLabel, started: context.started)
        case .async(let handler):
            return answerLater(context, connection, request, handler)
        case .immediateOrAsync(let immediately, let handler):
            let answer: Response?
            do {
                answer = try immediately(request)
            } catch {
                answer = failure(error, id: id)
            }
            guard let answer else { return answerLater(context, connection, request, handler) }
            return queue(answer, on: connection, id: id, method: context.method, path: context.loggedPath, route: context.routeLabel, started: context.started)
        }
    }

    /// Suspends the connection while `handler` runs on the cooperative pool, and queues its answer.
    private func answerLater(_ context: RequestContext, _ connection: ConnectionHandle, _ request: Request, _ handler: @escaping AsyncHandler)
        -> MHD_Result
    {
        suspended(context, connection) { [self] reply in
            let response = await runAsync(id: reply.id) { try await handler(request) }
            reply.answerOnce {
                _ = queue(response, on: reply.connection, id: reply.id, method: reply.method,
                          path: reply.loggedPath, route: reply.route, started: reply.started)
                resume(reply.connection)
            }
        }
    }

    /// What a person is told when a streamed upload could not be read or kept.
    static func uploadRefusal(_ failure: FormParser.Failure) -> HTTPError {
        switch failure {
        case .invalidUTF8: HTTPError.formNotUTF8
        case .tooLarge: HTTPError(.contentTooLarge, "The form's text fields are too long.")
        case .cannotStore: HTTPError(.serviceUnavailable, "The upload could not be stored just now. Please try again.")
        case .malformed: HTTPError.formUnreadable
        case .tooManyParts: HTTPError(.contentTooLarge, "This form has more files or fields than this address accepts.")
        }
    }

    private func makeRequest(_ context: RequestContext, _ connection: ConnectionHandle, form: FormData, body: [UInt8] = []) -> Request? {
        var query = QueryCollection()
        _ = withUnsafeMutablePointer(to: &query) {
            MHD_get_connection_values(connection.raw, .GET_ARGUMENT_KIND, Callbacks.collectQueryItem, $0)
        }
        guard query.valid else { return nil }
        return Request(id: context.id, method: context.method, path: context.path, query: query.items, headers: context.headers,
                       peer: PeerAddress(parlor_mhd_client_address(connection.raw)), form: form, body: body, parameters: context.parameters)
    }

    private func run(id: RequestID, _ body: () throws -> Response) -> Response {
        do { return try body() } catch { return failure(error, id: id) }
    }

    private func runAsync(id: RequestID, _ body: () async throws -> Response) async -> Response {
        do { return try await body() } catch { return failure(error, id: id) }
    }

    /// A thrown ``HTTPError`` becomes its page; anything else is a 500 whose detail goes to
    /// the log only.
    func failure(_ error: any Error, id: RequestID) -> Response {
        if let error = error as? HTTPError {
            if let detail = error.detail { logger.info("refused", metadata: ["request": "\(id)", "detail": "\(detail.escapedForLog)"]) }
            return errorResponse(error, id: id)
        }
        logger.error("handler failed", metadata: ["request": "\(id)", "error": "\(String(reflecting: error).escapedForLog)"])
        return errorResponse(HTTPError(.internalServerError, "Something went wrong on our side. Please try again."), id: id)
    }
}
