/// Name/value pairs, in order, as they came in a query string or a form body.
public struct QueryItems: Sendable, Sequence, Equatable {
    /// One name/value pair.
    public struct Item: Sendable, Equatable {
        public let name: String
        public let value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var items: [Item]

    /// Creates a list from pairs.
    public init(_ items: [Item] = []) { self.items = items }

    /// The first value for `name` (exact match).
    public subscript(name: String) -> String? { items.first { $0.name == name }?.value }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] { items.filter { $0.name == name }.map(\.value) }

    /// Number of pairs.
    public var count: Int { items.count }
    /// Whether there are no pairs.
    public var isEmpty: Bool { items.isEmpty }

    mutating func append(_ name: String, _ value: String) { items.append(Item(name: name, value: value)) }

    public func makeIterator() -> IndexingIterator<[Item]> { items.makeIterator() }
}
