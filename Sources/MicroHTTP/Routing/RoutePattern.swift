/// A path pattern such as `/chats/{id}` or `/public/{path...}` (a trailing catch-all).
struct RoutePattern: Sendable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case remainder(String)
    }

    let segments: [Segment]
    let description: String

    /// Parses a pattern; a malformed one is a programming error caught at start-up.
    init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "route pattern \(pattern) must start with /")
        var segments: [Segment] = []
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        for (index, part) in parts.enumerated() {
            if part.hasPrefix("{") && part.hasSuffix("...}") {
                precondition(index == parts.count - 1, "in \(pattern), {name...} must be the last segment")
                segments.append(.remainder(String(part.dropFirst().dropLast(4))))
            } else if part.hasPrefix("{") && part.hasSuffix("}") {
                segments.append(.parameter(String(part.dropFirst().dropLast())))
            } else {
                precondition(!part.contains("{") && !part.contains("}"), "malformed route segment \(part) in \(pattern)")
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
        self.description = pattern
    }

    /// The captured parameters if `pathSegments` matches, else nil.
    func match(_ pathSegments: [Substring]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .literal(let text):
                guard index < pathSegments.count, pathSegments[index] == text else { return nil }
            case .parameter(let name):
                guard index < pathSegments.count, !pathSegments[index].isEmpty else { return nil }
                parameters[name] = String(pathSegments[index])
            case .remainder(let name):
                guard index < pathSegments.count else { return nil }
                parameters[name] = pathSegments[index...].joined(separator: "/")
                return parameters
            }
        }
        return pathSegments.count == segments.count ? parameters : nil
    }
}
