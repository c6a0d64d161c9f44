// The one place where libmicrohttpd's raw pointers are vouched for across threads.
import CMicroHTTPD

/// A libmicrohttpd connection pointer. libmicrohttpd allows `MHD_queue_response` and
/// `MHD_resume_connection` from any thread while the connection is suspended, which is the
/// only time Parlor uses this handle off the connection's own thread.
struct ConnectionHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// A running daemon pointer; only `HTTPServer` holds one, under its mutex.
struct DaemonHandle: @unchecked Sendable {
    let raw: OpaquePointer
}

/// The one checked door for libmicrohttpd calls that can fail: `MHD_NO` or a null result
/// becomes a typed error naming the call.
enum MHD {
    /// Calls `body` and throws ``MicroHTTPError/libraryRefused(_:)`` when it answers `MHD_NO`.
    static func check(_ what: @autoclosure () -> String, _ body: () -> MHD_Result) throws(MicroHTTPError) {
        guard body() == .YES else { throw .libraryRefused(what()) }
    }

    /// Calls `body` and throws when it returns null.
    static func make<Pointer>(_ what: StaticString, _ body: () -> Pointer?) throws(MicroHTTPError) -> Pointer {
        guard let result = body() else { throw .libraryRefused("\(what)") }
        return result
    }
}
