// Turning a Response value into a libmicrohttpd response on a connection.
import ServerSentEvents
import ByteOutput
import CMicroHTTPD
import Logging

extension HTTPServer {
    /// The router's page for `error`.
    func errorResponse(_ error: HTTPError, id: RequestID, path: String = "") -> Response {
        if let responder = router.errorResponders.first(where: { path.hasPrefix($0.prefix) }) { return responder.respond(error, id.description) }
        return router.errorResponder(error, id.description)
    }

    /// Queues `response` and writes the request's log line. Called on the connection's
    /// thread, or from any thread while the connection is suspended.
    func queue(_ response: Response, on connection: ConnectionHandle, id: RequestID, method: HTTPMethod,
               path: String, route: String, started: ContinuousClock.Instant) -> MHD_Result {
        var response = response
        // A prepared response that already carries the common fields keeps its shared fast path.
        var prepared: HTTPHeaders = [:]
        if case .prepared(let body) = response.body { prepared = body.headers }
        for field in router.commonHeaders where !response.headers.contains(field.name) && !prepared.contains(field.name) {
            response.headers.add(field.name, field.value)
        }
        var status = response.status
        var result: MHD_Result
        if case .prepared(let prepared) = response.body, response.headers.count == 0 {
            result = MHD_queue_response(connection.raw, UInt32(status.code), prepared.raw)
        } else {
            do {
                let built = try makeLibraryResponse(response, connection)
                result = MHD_queue_response(connection.raw, UInt32(status.code), built)
                MHD_destroy_response(built)
            } catch {
                logger.error("response could not be built", metadata: ["request": "\(id)", "error": "\(error)"])
                status = .internalServerError
                let fallback = errorResponse(HTTPError(.internalServerError, "Something went wrong on our side."), id: id)
                guard let built = try? makeLibraryResponse(fallback, connection) else { return .NO }
                result = MHD_queue_response(connection.raw, UInt32(status.code), built)
                MHD_destroy_response(built)
            }
        }
        logger.info("\(method.rawValue.escapedForLog) \(path.escapedForLog) \(status.code)", metadata: [
            "request": "\(id)",
            "ms": "\(Self.milliseconds(since: started))",
        ])
        if let observer {
            observer.answered(method: method, route: route, status: Int(status.code), seconds: (ContinuousClock.now - started).seconds)
        }
        return result
    }

    private func makeLibraryResponse(_ response: Response, _ connection: ConnectionHandle) throws(MicroHTTPError) -> OpaquePointer {
        let built: OpaquePointer
        switch response.body {
        case .empty:
            built = try MHD.make("MHD_create_response_from_buffer") { MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) }
        case .bytes(let buffer):
            built = try makeBufferResponse(buffer)
        case .prepared(let prepared):
            // Fields added to a prepared response cannot go on the shared libmicrohttpd
            // response: this request gets its own, over the same bytes.
            built = try makeBufferResponse(prepared.body)
            do {
                try built.addHeaders(prepared.headers)
            } catch {
                MHD_destroy_response(built)
                throw error
            }
        case .file(let file):
            guard let descriptor = file.take() else { throw .libraryRefused("a file body sent twice") }
            built = try MHD.make("MHD_create_response_from_fd64") {
                MHD_create_response_from_fd64(file.size, descriptor)  // closes the descriptor when done
            }
        case .eventStream(let stream):
            let retained = Unmanaged.passRetained(stream)  // released by Callbacks.eventStreamEnded
            do {
                built = try MHD.make("MHD_create_response_from_callback") {
                    MHD_create_response_from_callback(parlor_mhd_size_unknown, 4096, Callbacks.eventStreamRead,
                                                      retained.toOpaque(), Callbacks.eventStreamEnded)
                }
            } catch {
                retained.release()
                throw error
            }
            let preamble = "retry: \(configuration.eventStreamRetryMilliseconds)\n: connected\n\n"
            stream.attach(
                connection, queueLimit: configuration.eventStreamQueueLimit, preamble: Array(preamble.utf8), ring: eventRing, resumer: resumer
            )
            streams.add(stream)
        }
        do {
            try built.addHeaders(response.headers)
        } catch {
            MHD_destroy_response(built)
            throw error
        }
        return built
    }

    /// A response that sends `buffer` in place and releases it when libmicrohttpd is done.
    private func makeBufferResponse(_ buffer: OutputBuffer) throws(MicroHTTPError) -> OpaquePointer {
        let storage = buffer.finishedStorage
        let retained = Unmanaged.passRetained(storage as AnyObject)  // released by Callbacks.releaseStorage
        do {
            return try MHD.make("MHD_create_response_from_buffer_with_free_callback_cls") {
                MHD_create_response_from_buffer_with_free_callback_cls(
                    storage.byteCount, UnsafeMutableRawPointer(mutating: storage.baseAddress), Callbacks.releaseStorage,
                    retained.toOpaque())
            }
        } catch {
            retained.release()
            throw error
        }
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let whole = micros / 1000, fraction = micros % 1000
        return "\(whole)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }
}
