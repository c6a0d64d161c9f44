/// An ordered list of header fields with case-insensitive lookup by name.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    private var fields: [Field]

    /// Creates an empty header list.
    public init() { fields = [] }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value for `name`, compared without regard to ASCII case.
    public subscript(name: String) -> String? {
        fields.first { Self.namesEqual($0.name, name) }?.value
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Adds a field, keeping any with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replace(_ name: String, with value: String) {
        remove(name)
        add(name, value)
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.namesEqual($0.name, name) }
    }

    /// Number of fields.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison without allocating.
    static func namesEqual(_ lhs: String, _ rhs: String) -> Bool {
        let l = lhs.utf8, r = rhs.utf8
        guard l.count == r.count else { return false }
        for (a, b) in zip(l, r) where a != b {
            guard a | 0x20 == b | 0x20, (a | 0x20) >= 0x61, (a | 0x20) <= 0x7A else { return false }
        }
        return true
    }
}
