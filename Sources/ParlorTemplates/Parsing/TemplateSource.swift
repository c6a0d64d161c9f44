/// A template's text and the name it is known by (`chats`, `partials/message-cell`).
public struct TemplateSource: Sendable {
    /// The name partials and view models use: the path under the templates folder, without `.mustache`.
    public let name: String
    /// Where the text came from, for error messages (a file path, or the name for in-memory sources).
    public let origin: String
    /// The template text.
    public let text: String
    let bytes: [UInt8]

    /// A template from text; `origin` defaults to the name.
    public init(name: String, text: String, origin: String? = nil) {
        self.name = name
        self.origin = origin ?? name
        self.text = text
        self.bytes = Array(text.utf8)
    }

    /// The 1-based line of a byte offset.
    func line(at offset: Int) -> Int {
        var line = 1
        for byte in bytes[..<min(offset, bytes.count)] where byte == UInt8(ascii: "\n") { line += 1 }
        return line
    }
}
