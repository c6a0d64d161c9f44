/// How many parts one streamed upload may hold: a photo message is one file and a handful of fields. One
/// part past either limit ends the upload with 413, and the files already written are removed at once.
public struct UploadLimits: Sendable, Equatable {
    /// Most file parts.
    public var files: Int
    /// Most text fields.
    public var fields: Int

    public init(files: Int, fields: Int) {
        self.files = files
        self.fields = fields
    }

    /// No limit on the number of parts (the body limit still holds): for tests of the parser alone.
    public static let unlimited = UploadLimits(files: .max, fields: .max)
}

/// Decides from a request's head, before a byte of its body is stored, whether a route that streams uploads
/// takes the body: nil admits it, a response refuses it (sent after at most a small drained body, see
/// ``ServerConfiguration/refusedBodyDrainLimit``). The request it is given has no form yet. A thrown
/// ``HTTPError`` refuses with its page; any other error with a 500, its detail only in the log.
public typealias Admission = @Sendable (Request) async throws -> Response?
