/// An HTTP request method. Compared by its exact, upper-case token.
public struct HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    /// The token as it appears on the request line, for example "GET".
    public let rawValue: String

    /// Creates a method from its token.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let patch = HTTPMethod("PATCH")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")

    public var description: String { rawValue }
}
