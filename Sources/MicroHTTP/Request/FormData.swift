/// The fields and files of a form body (`application/x-www-form-urlencoded` or
/// `multipart/form-data`). Every field value is valid UTF-8; a body that is not is refused
/// with 400 before a handler sees it.
public struct FormData: Sendable, Equatable {
    /// A file sent in a multipart form.
    public struct File: Sendable, Equatable {
        /// The form field that carried it.
        public let fieldName: String
        /// The file name the browser reported (untrusted, never a path on disk).
        public let filename: String
        /// The content type the browser reported (untrusted).
        public let contentType: String?
        /// The file's bytes.
        public let bytes: [UInt8]
    }

    /// The text fields, in order.
    public internal(set) var fields: QueryItems
    /// The uploaded files, in order.
    public internal(set) var files: [File]

    /// An empty form.
    public init(fields: QueryItems = QueryItems(), files: [File] = []) {
        self.fields = fields
        self.files = files
    }

    /// The first value of field `name`.
    public subscript(name: String) -> String? { fields[name] }

    /// The first file sent in field `name`.
    public func file(_ name: String) -> File? { files.first { $0.fieldName == name } }
}
