/// Why an outbound request got no answer Parlor reads: the address was refused, or the exchange failed.
public enum OutboundError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Not an address of an accepted scheme (http, https), or one with a user name.
    case invalidAddress
    case portNotAllowed(Int)
    case hostNotFound(String)
    /// The host resolves to an address Parlor does not send to (private, loopback, link-local…).
    case addressNotPublic(String)
    case tooManyRedirects
    case timedOut
    /// A body (inflated) longer than the request allows.
    case tooLarge(bytes: Int)
    case connectionFailed
    /// Parlor is stopping.
    case cancelled

    /// Whether the address itself was refused (nothing was sent), rather than the exchange failing.
    public var isRefusedAddress: Bool {
        switch self {
        case .invalidAddress, .portNotAllowed, .hostNotFound, .addressNotPublic: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .invalidAddress: "the address is not an http or https address"
        case .portNotAllowed(let port): "port \(port) is not one Parlor sends requests to"
        case .hostNotFound(let host): "\(host) could not be found"
        case .addressNotPublic(let host): "\(host) is on a private or reserved network"
        case .tooManyRedirects: "the server redirected too many times"
        case .timedOut: "the server took too long to answer"
        case .tooLarge(let bytes): "the answer is larger than \(bytes) bytes"
        case .connectionFailed: "the server could not be reached"
        case .cancelled: "the request was interrupted"
        }
    }
}
