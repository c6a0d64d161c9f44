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

    /// How a field name given on several lines is read (RFC 9110 §5.3).
    public enum Repetition: Sendable, Equatable {
        /// A list: the lines are one value, joined in order with ", " (`Accept`, `X-Forwarded-For`, and
        /// every field Parlor has no rule for).
        case joined
        /// Cookies are joined with "; " (RFC 6265 §5.4; HTTP/2 proxies split them over lines).
        case cookie
        /// Only one line may be sent: a request that repeats it is refused with 400 before a handler sees it
        /// (``HTTPHeaders/repeatedSingleton``), so a second line can never mean something the first did not.
        case refused
        /// `Set-Cookie` (responses only): each line is its own value, never joined (RFC 9110 §5.3).
        case separate
    }

    /// The fields whose value is one item, so that a second line is an error, not more of the list.
    static let singletons: [String] = [
        "host", "content-length", "content-type", "authorization", "proxy-authorization", "origin", "referer",
        "if-modified-since", "if-unmodified-since", "if-range", "last-event-id", "range", "user-agent", "content-disposition",
        "max-forwards", "from", "x-parlor-script", "x-parlor-csrf",
    ]

    /// How repeated lines of `name` are read.
    public static func repetition(of name: String) -> Repetition {
        if namesEqual(name, "cookie") { return .cookie }
        if namesEqual(name, "set-cookie") { return .separate }
        return singletons.contains { namesEqual($0, name) } ? .refused : .joined
    }

    /// The value for `name`, compared without regard to ASCII case: repeated lines joined as
    /// ``repetition(of:)`` says (the first line of a field that may not repeat, and of `Set-Cookie`).
    public subscript(name: String) -> String? {
        var found: String?
        var joinedSeparator: String??
        for field in fields where Self.namesEqual(field.name, name) {
            guard let earlier = found else {
                found = field.value
                continue
            }
            if joinedSeparator == nil {
                switch Self.repetition(of: name) {
                case .joined: joinedSeparator = ", "
                case .cookie: joinedSeparator = "; "
                case .refused, .separate: joinedSeparator = .some(nil)
                }
            }
            guard let separator = joinedSeparator ?? nil else { return earlier }
            found = earlier + separator + field.value
        }
        return found
    }

    /// The name of a field that may appear once and appears more often, if any (the first such). Checked on
    /// every request head, so it compares in place and allocates nothing.
    public var repeatedSingleton: String? {
        for (index, field) in fields.enumerated() where Self.singletons.contains(where: { Self.namesEqual($0, field.name) }) {
            if fields[..<index].contains(where: { Self.namesEqual($0.name, field.name) }) { return field.name }
        }
        return nil
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesEqual($0.name, name) }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { fields.contains { Self.namesEqual($0.name, name) } }

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
