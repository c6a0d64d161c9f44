// The parsed, untyped form of a template: what the compiler binds to a view model's fields.

/// A name inside a tag: `.`, `name`, `.name` (current context only) or `a.b.c`.
struct TagName: Hashable, Sendable, CustomStringConvertible {
    /// The text as written in the template.
    let text: String
    /// The dotted components; empty for `.`.
    let components: [String]
    /// Whether the lookup starts at the current context only (`.` and `.name`).
    let isAnchored: Bool

    init(_ text: String) {
        self.text = text
        self.components = text.split(separator: ".").map(String.init)
        self.isAnchored = text.first == "."
    }

    var isImplicitIterator: Bool { text == "." }
    var description: String { text }
}

/// One piece of a parsed template. `offset` is the byte offset of the tag, for error lines.
indirect enum Token: Sendable {
    case text([UInt8])
    case variable(TagName, escaped: Bool, offset: Int)
    case section(TagName, inverted: Bool, body: [Token], offset: Int)
    /// `indentation` is set for a standalone partial tag: every line it renders gets that prefix.
    case partial(name: String, indentation: [UInt8]?, offset: Int)
}
