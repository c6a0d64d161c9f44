/// Why a template could not be loaded, with the file and line a designer should open.
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or in-memory name) that holds the mistake.
    public let origin: String
    /// The 1-based line of the tag at fault.
    public let line: Int
    /// What is wrong, for a person.
    public let message: String

    public init(origin: String, line: Int, message: String) {
        self.origin = origin
        self.line = line
        self.message = message
    }

    public var description: String { "\(origin):\(line): \(message)" }
}

/// Several template errors found in one load; start-up reports all of them at once.
public struct TemplateLoadError: Error, Sendable, CustomStringConvertible {
    /// Every error found, in file order.
    public let errors: [TemplateError]

    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
