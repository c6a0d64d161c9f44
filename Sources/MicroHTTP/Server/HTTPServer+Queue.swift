// Turning a Response value into a libmicrohttpd response on a connection.
import ByteOutput
import CMicroHTTPD
import Logging

extension HTTPServer {
    /// The router's page for `error`.
    func errorResponse(_ error: HTTPError, id: String) -> Response {
        router.errorResponder(error, id)
    }

    /// Queues `response` and writes the request's log line. Called on the connection's
    /// thread, or from any thread while the connection is suspended.
    func queue(_ response: Response, on connection: ConnectionHandle, id: String, method: HTTPMethod?,
               path: String?, started: ContinuousClock.Instant) -> MHD_Result {
        var status = response.status
        var result: MHD_Result
        if case .prepared(let prepared) = response.body {
            result = MHD_queue_response(connection.raw, UInt32(prepared.status.code), prepared.raw)
        } else if let built = makeLibraryResponse(response, connection) {
            result = MHD_queue_response(connection.raw, UInt32(status.code), built)
            MHD_destroy_response(built)
        } else {
            logger.error("response could not be built (a header with a line break?)", metadata: ["request": "\(id)"])
            status = .internalServerError
            let fallback = errorResponse(HTTPError(.internalServerError, "Something went wrong on our side."), id: id)
            guard let built = makeLibraryResponse(fallback, connection) else { return .NO }
            result = MHD_queue_response(connection.raw, UInt32(status.code), built)
            MHD_destroy_response(built)
        }
        logger.info("\(method?.rawValue ?? "-") \(path ?? "-") \(status.code)", metadata: [
            "request": "\(id)",
            "ms": "\(Self.milliseconds(since: started))",
        ])
        return result
    }

    private func makeLibraryResponse(_ response: Response, _ connection: ConnectionHandle) -> OpaquePointer? {
        let built: OpaquePointer?
        switch response.body {
        case .empty, .prepared:
            built = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case .bytes(let buffer):
            let storage = buffer.finishedStorage
            let retained = Unmanaged.passRetained(storage as AnyObject).toOpaque()  // released by Callbacks.releaseStorage
            built = MHD_create_response_from_buffer_with_free_callback_cls(
                storage.byteCount, UnsafeMutableRawPointer(mutating: storage.baseAddress), Callbacks.releaseStorage, retained)
            if built == nil { Unmanaged<AnyObject>.fromOpaque(retained).release() }
        case .file(let file):
            guard let descriptor = file.take() else { return nil }
            built = MHD_create_response_from_fd64(file.size, descriptor)  // closes the descriptor when done
        case .eventStream(let stream):
            let retained = Unmanaged.passRetained(stream).toOpaque()  // released by Callbacks.eventStreamEnded
            built = MHD_create_response_from_callback(parlor_mhd_size_unknown, 4096, Callbacks.eventStreamRead,
                                                      retained, Callbacks.eventStreamEnded)
            if built == nil {
                Unmanaged<EventStream>.fromOpaque(retained).release()
            } else {
                let preamble = "retry: \(configuration.eventStreamRetryMilliseconds)\n: connected\n\n"
                stream.attach(connection, queueLimit: configuration.eventStreamQueueLimit, preamble: Array(preamble.utf8))
                streams.add(stream)
            }
        }
        guard let built else { return nil }
        for field in response.headers where MHD_add_response_header(built, field.name, field.value) != .YES {
            MHD_destroy_response(built)
            return nil
        }
        return built
    }

    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        let whole = micros / 1000, fraction = micros % 1000
        return "\(whole)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
    }
}
