/// The refusals the server itself answers before a handler runs, in one wording whether a request came over a
/// connection or was answered in process.
extension HTTPError {
    /// A body (or its announced length) over the route's limit.
    static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, "This is larger than the \(limit) bytes this address accepts.")
    }

    /// The fields of a multipart body with no file in it, over the limit of a body without one.
    static func formTooLargeWithoutFile(limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, "Without a file this address accepts at most \(limit) bytes.")
    }

    /// A field that may appear once (`Cookie`, `Content-Type`, ...) given more than once.
    static func repeatedField(_ name: String) -> HTTPError {
        HTTPError(.badRequest, "The request gives its \(name.escapedForLog) field more than once.")
    }

    /// A body of another type than the route reads: its raw type (JSON) when it has one, else a form.
    static func unsupportedBody(wanted rawBodyType: String?) -> HTTPError {
        HTTPError(.unsupportedMediaType, rawBodyType.map { "Send this as \($0) in UTF-8." } ?? "Send this as a form (urlencoded or multipart).")
    }

    static let queryNotUTF8 = HTTPError(.badRequest, "The query string contains text that is not valid UTF-8.")
    static let formNotUTF8 = HTTPError(.badRequest, "The form contains text that is not valid UTF-8.")
    static let formUnreadable = HTTPError(.badRequest, "The form could not be read.")
    static let tooManyUploads = HTTPError(.serviceUnavailable, "Too many uploads are in progress. Please try again in a moment.", headers: ["Retry-After": "5"])
}
