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

/// The one checked door for libmicrohttpd calls that report success as `MHD_Result`.
enum MHD {
    /// Calls `body` and throws ``MicroHTTPError/libraryRefused(_:)`` when it answers `.NO`.
    static func check(_ what: StaticString, _ body: () -> MHD_Result) throws(MicroHTTPError) {
        guard body() == .YES else { throw .libraryRefused("\(what)") }
    }
}

/// Failures of the HTTP front itself (not of a request).
public enum MicroHTTPError: Error, Equatable, CustomStringConvertible {
    /// The daemon did not start (port taken, bad address, too few file descriptors...).
    case startFailed(String)
    /// libmicrohttpd answered .NO to the named call.
    case libraryRefused(String)
    /// The configuration cannot work.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .startFailed(let why): "the HTTP server did not start: \(why)"
        case .libraryRefused(let call): "libmicrohttpd refused \(call)"
        case .invalidConfiguration(let why): "invalid server configuration: \(why)"
        }
    }
}
