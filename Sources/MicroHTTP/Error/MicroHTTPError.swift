/// Failures of the HTTP front itself (not of a request).
public enum MicroHTTPError: Error, Equatable, CustomStringConvertible {
    /// The daemon did not start (port taken, bad address, too few file descriptors...).
    case startFailed(String)
    /// libmicrohttpd answered `MHD_NO` (or nothing) to the named call.
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
