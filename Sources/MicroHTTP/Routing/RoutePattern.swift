/// A path pattern such as `/chats/{id}` or `/public/{path...}` (a trailing catch-all). A parameter written
/// `{code:secret}` is a credential (a join link's code): the access log shows the pattern of such a path, never
/// the path itself, and the pattern reads `{code}`.
struct RoutePattern: Sendable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case remainder(String)
    }

    let segments: [Segment]
    /// The pattern as written, less `:secret`: the metrics' label, and the log's for a path with a secret.
    let description: String
    /// Whether a parameter is a credential, so that the path is never written to the log.
    let carriesSecret: Bool
    /// The literal segments before the first parameter, with a slash after them ("/join/").
    let literalPrefix: String

    /// Parses a pattern; a malformed one is a programming error caught at start-up.
    init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "route pattern \(pattern) must start with /")
        var segments: [Segment] = []
        var carriesSecret = false
        var written: [String] = []
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        for (index, part) in parts.enumerated() {
            if part.hasPrefix("{") && part.hasSuffix("...}") {
                precondition(index == parts.count - 1, "in \(pattern), {name...} must be the last segment")
                segments.append(.remainder(String(part.dropFirst().dropLast(4))))
            } else if part.hasPrefix("{") && part.hasSuffix("}") {
                var name = String(part.dropFirst().dropLast())
                if name.hasSuffix(":secret") {
                    name.removeLast(":secret".count)
                    carriesSecret = true
                }
                precondition(!name.isEmpty && !name.contains(":"), "malformed route parameter \(part) in \(pattern)")
                segments.append(.parameter(name))
                written.append("{\(name)}")
                continue
            } else {
                precondition(!part.contains("{") && !part.contains("}"), "malformed route segment \(part) in \(pattern)")
                segments.append(.literal(String(part)))
            }
            written.append(String(part))
        }
        self.segments = segments
        self.carriesSecret = carriesSecret
        var prefix = "/"
        for case .literal(let text) in segments.prefix(while: { if case .literal = $0 { true } else { false } }) { prefix += text + "/" }
        literalPrefix = prefix
        self.description = "/" + written.joined(separator: "/")
    }

    /// How specific each segment is: 0 for a literal, 1 for a parameter, 2 for the rest of a path. Of two patterns that
    /// match one path, the one that is less at the first segment where they differ is the one meant.
    var specificity: [Int] {
        segments.map { segment in
            switch segment {
            case .literal: 0
            case .parameter: 1
            case .remainder: 2
            }
        }
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
