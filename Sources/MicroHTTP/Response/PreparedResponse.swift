import ByteOutput
import CMicroHTTPD

/// A response built once and queued many times: the fastest way to answer with fixed bytes
/// (a placeholder page, a health check). libmicrohttpd reference-counts it across threads.
public final class PreparedResponse: @unchecked Sendable {
    let raw: OpaquePointer
    /// The status it is sent with.
    public let status: HTTPStatus
    /// The header fields it was prepared with.
    let headers: HTTPHeaders
    /// The body, kept alive: libmicrohttpd reads it in place.
    let body: OutputBuffer

    /// Prepares `body` with its header fields. Throws if a header is not acceptable.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders, body: OutputBuffer) throws(MicroHTTPError) {
        self.status = status
        self.headers = headers
        self.body = body
        let storage = body.finishedStorage
        let response = try MHD.make("MHD_create_response_from_buffer") {
            MHD_create_response_from_buffer(storage.byteCount, UnsafeMutableRawPointer(mutating: storage.baseAddress), .RESPMEM_PERSISTENT)
        }
        do {
            try response.addHeaders(headers)
        } catch {
            MHD_destroy_response(response)
            throw error
        }
        raw = response
    }

    deinit { MHD_destroy_response(raw) }
}

extension OpaquePointer {
    /// Adds header fields to this `MHD_Response`; a field with a line break is refused.
    func addHeaders(_ headers: HTTPHeaders) throws(MicroHTTPError) {
        for field in headers {
            try MHD.check("MHD_add_response_header(\(field.name))") { MHD_add_response_header(self, field.name, field.value) }
        }
    }
}
