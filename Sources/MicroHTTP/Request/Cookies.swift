/// The cookies a request carried, parsed from its `Cookie` header(s).
public struct Cookies: Sendable, Equatable {
    private var pairs: [(name: String, value: String)]

    /// Parses `Cookie` header values ("a=1; b=2"). Malformed pieces are skipped.
    public init(headerValues: [String]) {
        var pairs: [(String, String)] = []
        for header in headerValues {
            for piece in header.split(separator: ";") {
                guard let equals = piece.firstIndex(of: "=") else { continue }
                let name = piece[..<equals].trimmingSpaces
                var value = piece[piece.index(after: equals)...].trimmingSpaces
                if value.count >= 2, value.first == "\"", value.last == "\"" {
                    value = String(value.dropFirst().dropLast())
                }
                guard !name.isEmpty else { continue }
                pairs.append((name, value))
            }
        }
        self.pairs = pairs
    }

    /// The first cookie named `name`.
    public subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// Number of cookies.
    public var count: Int { pairs.count }

    public static func == (lhs: Cookies, rhs: Cookies) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension Substring {
    var trimmingSpaces: String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
