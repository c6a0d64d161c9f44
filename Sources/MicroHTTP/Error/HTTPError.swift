/// An error that a handler throws to answer with a status and a message a person can read.
///
/// The `message` is shown on the error page (HTML-escaped); `detail` goes to the log only.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    /// The response status.
    public let status: HTTPStatus
    /// A short message for the person who made the request.
    public let message: String
    /// Extra response headers (for example `Allow` on a 405).
    public let headers: HTTPHeaders
    /// Context for the log, never sent to the client.
    public let detail: String?

    /// Creates an error answered with `status` and `message`.
    public init(_ status: HTTPStatus, _ message: String? = nil, headers: HTTPHeaders = [:], detail: String? = nil) {
        self.status = status
        self.message = message ?? status.reasonPhrase
        self.headers = headers
        self.detail = detail
    }

    public var description: String {
        "HTTPError(\(status.code), \(message)\(detail.map { ", \($0)" } ?? ""))"
    }
}
