/// An HTTP status code with its standard reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    /// The numeric code, for example 404.
    public let code: Int

    /// Creates a status from its numeric code.
    public init(_ code: Int) { self.code = code }

    public static let ok = HTTPStatus(200)
    public static let created = HTTPStatus(201)
    public static let noContent = HTTPStatus(204)
    public static let movedPermanently = HTTPStatus(301)
    public static let found = HTTPStatus(302)
    public static let seeOther = HTTPStatus(303)
    public static let permanentRedirect = HTTPStatus(308)
    public static let notModified = HTTPStatus(304)
    public static let badRequest = HTTPStatus(400)
    public static let unauthorized = HTTPStatus(401)
    public static let forbidden = HTTPStatus(403)
    public static let notFound = HTTPStatus(404)
    public static let methodNotAllowed = HTTPStatus(405)
    public static let conflict = HTTPStatus(409)
    public static let gone = HTTPStatus(410)
    public static let contentTooLarge = HTTPStatus(413)
    public static let unsupportedMediaType = HTTPStatus(415)
    public static let unprocessableContent = HTTPStatus(422)
    public static let tooManyRequests = HTTPStatus(429)
    public static let internalServerError = HTTPStatus(500)
    public static let serviceUnavailable = HTTPStatus(503)

    /// The reason phrase, for error pages ("Not Found").
    public var reasonPhrase: String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 308: "Permanent Redirect"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status \(code)"
        }
    }

    public var description: String { "\(code) \(reasonPhrase)" }
}
