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

    /// A file of a route that streams uploads: on disk as it arrived, never in memory. The server removes
    /// it once the response is sent; a handler that keeps it moves it first.
    public struct Upload: Sendable, Equatable {
        public let fieldName: String
        /// The file name the browser reported (untrusted, never a path on disk).
        public let filename: String
        /// The content type the browser reported (untrusted).
        public let contentType: String?
        /// Where the bytes are, in the server's upload folder.
        public let path: String
        public let size: Int
    }

    /// The text fields, in order.
    public internal(set) var fields: QueryItems
    /// The uploaded files, in order.
    public internal(set) var files: [File]
    /// The streamed files of a route that asked for them (``Router/post(_:bodyLimit:uploads:admission:_:)``).
    public internal(set) var uploads: [Upload]

    /// An empty form.
    public init(fields: QueryItems = QueryItems(), files: [File] = [], uploads: [Upload] = []) {
        self.fields = fields
        self.files = files
        self.uploads = uploads
    }

    /// The first streamed file sent in field `name`.
    public func upload(_ name: String) -> Upload? { uploads.first { $0.fieldName == name } }

    /// The first value of field `name`.
    public subscript(name: String) -> String? { fields[name] }

    /// The first file sent in field `name`.
    public func file(_ name: String) -> File? { files.first { $0.fieldName == name } }
}
