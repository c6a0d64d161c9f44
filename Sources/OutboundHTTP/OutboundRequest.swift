import Foundation

/// A request Parlor sends to an address someone gave it, as ``OutboundClient`` takes it.
public struct OutboundRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    public var method: Method
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?

    public init(_ method: Method = .get, _ url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// What a server answered, read within the client's limits.
public struct OutboundResponse: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    /// The body (inflated, when the client inflates): whole for a 2xx answer, at most ``OutboundClient/otherBodyLimit``
    /// bytes of any other.
    public let body: [UInt8]
    /// Where the answer came from, after the redirects the client followed.
    public let url: String

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The first value of the header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of the header `name` (any case), in order.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// `Content-Type`'s media type, lowercased, without its parameters.
    public var mediaType: String? {
        guard let type = header("Content-Type")?.split(separator: ";").first else { return nil }
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }

    public var isSuccess: Bool { (200...299).contains(status) }
}
