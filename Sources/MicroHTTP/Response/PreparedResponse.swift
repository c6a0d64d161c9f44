import ByteOutput
import CMicroHTTPD

/// A response built once and queued many times: the fastest way to answer with fixed bytes
/// (a placeholder page, a health check). libmicrohttpd reference-counts it across threads.
public final class PreparedResponse: @unchecked Sendable {
    let raw: OpaquePointer
    /// The status it is sent with.
    public let status: HTTPStatus
    private let bytes: OutputBuffer  // kept alive: libmicrohttpd reads it in place

    /// Prepares `body` with its header fields. Throws if a header is not acceptable.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders, body: OutputBuffer) throws(MicroHTTPError) {
        self.status = status
        self.bytes = body
        let storage = body.finishedStorage
        guard let response = MHD_create_response_from_buffer(
            storage.byteCount, UnsafeMutableRawPointer(mutating: storage.baseAddress), .RESPMEM_PERSISTENT)
        else { throw .libraryRefused("MHD_create_response_from_buffer") }
        raw = response
        for field in headers {
            guard MHD_add_response_header(response, field.name, field.value) == .YES else {
                MHD_destroy_response(response)
                throw .libraryRefused("MHD_add_response_header(\(field.name))")
            }
        }
    }

    deinit { MHD_destroy_response(raw) }
}
