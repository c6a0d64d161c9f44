// Parses Mustache text into tokens, byte for byte the way swift-mustache 2.1.1 does for the tags Parlor
// supports, so that both render the same bytes: lines are separate text tokens, a standalone tag (alone on
// its line but for spaces and tabs) takes its line with it, and a standalone partial indents what it renders.
// Lambdas, transforms, inheritance, dynamic partials and pragmas are refused with a clear error.

struct TemplateParser {
    private let source: TemplateSource
    private let bytes: [UInt8]
    private var position = 0
    private var openDelimiter: [UInt8] = Array("{{".utf8)
    private var closeDelimiter: [UInt8] = Array("}}".utf8)

    private init(_ source: TemplateSource) {
        self.source = source
        self.bytes = source.bytes
    }

    /// The tokens of a whole template.
    static func parse(_ source: TemplateSource) throws(TemplateError) -> [Token] {
        var parser = TemplateParser(source)
        return try parser.parseBody(section: nil, startsOnNewLine: true)
    }

    private struct OpenSection {
        let name: TagName
        let offset: Int
    }

    private mutating func parseBody(section: OpenSection?, startsOnNewLine: Bool) throws(TemplateError) -> [Token] {
        var tokens: [Token] = []
        var newLine = startsOnNewLine
        var whitespaceBefore: [UInt8] = []
        while position < bytes.count {
            if newLine { whitespaceBefore = readSpacesAndTabs() }
            let (text, stop) = readTextUntilTagOrNewline()
            if case .newline(let newline) = stop {
                tokens.append(.text(whitespaceBefore + text + newline))
                newLine = true
                continue
            }
            if !text.isEmpty {
                tokens.append(.text(whitespaceBefore + text))
                whitespaceBefore = []
                newLine = false
            }
            guard case .tag(let tagOffset) = stop else { break }

            var nextStartsOnNewLine = false
            let sigil = current
            switch sigil {
            case UInt8(ascii: "#"), UInt8(ascii: "^"):
                position += 1
                let name = try readName(tagOffset: tagOffset)
                if newLine && finishLineIfBlank() {
                    nextStartsOnNewLine = true
                } else if !whitespaceBefore.isEmpty {
                    tokens.append(.text(whitespaceBefore))
                    whitespaceBefore = []
                }
                let body = try parseBody(
                    section: OpenSection(name: name, offset: tagOffset),
                    startsOnNewLine: nextStartsOnNewLine && newLine
                )
                tokens.append(.section(name, inverted: sigil == UInt8(ascii: "^"), body: body, offset: tagOffset))

            case UInt8(ascii: "/"):
                position += 1
                let name = try readName(tagOffset: tagOffset)
                guard let section else {
                    throw error(at: tagOffset, "{{/\(name)}} closes a section that was never opened")
                }
                guard name == section.name else {
                    throw error(at: tagOffset, "{{/\(name)}} closes {{#\(section.name)}} (opened on line \(source.line(at: section.offset)))")
                }
                if !(newLine && finishLineIfBlank()), !whitespaceBefore.isEmpty {
                    tokens.append(.text(whitespaceBefore))
                }
                return tokens

            case UInt8(ascii: "!"):
                position += 1
                guard let end = find(closeDelimiter, from: position) else {
                    throw error(at: tagOffset, "comment is never closed")
                }
                position = end + closeDelimiter.count
                nextStartsOnNewLine = newLine && finishLineIfBlank()

            case UInt8(ascii: "{"), UInt8(ascii: "&"):
                if !whitespaceBefore.isEmpty {
                    tokens.append(.text(whitespaceBefore))
                    whitespaceBefore = []
                }
                position += 1
                let name = try readName(tagOffset: tagOffset)
                if sigil == UInt8(ascii: "{") {
                    guard current == UInt8(ascii: "}") else { throw error(at: tagOffset, "{{{\(name)}} needs a third closing brace") }
                    position += 1
                }
                tokens.append(.variable(name, escaped: false, offset: tagOffset))

            case UInt8(ascii: ">"):
                position += 1
                skipWhitespace()
                if current == UInt8(ascii: "*") { throw error(at: tagOffset, "dynamic partials ({{>*name}}) are not supported") }
                let name = try readPartialName(tagOffset: tagOffset)
                if !whitespaceBefore.isEmpty { tokens.append(.text(whitespaceBefore)) }
                if newLine && finishLineIfBlank() {
                    nextStartsOnNewLine = true
                    tokens.append(.partial(name: name, indentation: whitespaceBefore, offset: tagOffset))
                } else {
                    tokens.append(.partial(name: name, indentation: nil, offset: tagOffset))
                }
                whitespaceBefore = []

            case UInt8(ascii: "="):
                position += 1
                try readDelimiters(tagOffset: tagOffset)
                nextStartsOnNewLine = newLine && finishLineIfBlank()

            case UInt8(ascii: "<"), UInt8(ascii: "$"):
                throw error(at: tagOffset, "template inheritance ({{<name}}, {{$block}}) is not supported; use partials")
            case UInt8(ascii: "%"):
                throw error(at: tagOffset, "pragmas ({{%...}}) are not supported")

            default:
                if !whitespaceBefore.isEmpty {
                    tokens.append(.text(whitespaceBefore))
                    whitespaceBefore = []
                }
                let name = try readName(tagOffset: tagOffset)
                tokens.append(.variable(name, escaped: true, offset: tagOffset))
            }
            newLine = nextStartsOnNewLine
        }
        if let section {
            throw error(at: section.offset, "section {{#\(section.name)}} is never closed")
        }
        return tokens
    }

    // MARK: Reading

    private enum TextStop {
        case newline([UInt8])
        case tag(offset: Int)
        case end
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Reads text up to a newline (left unread) or an opening delimiter (consumed).
    private mutating func readTextUntilTagOrNewline() -> ([UInt8], TextStop) {
        let start = position
        let first = openDelimiter[0]
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\n") {
                let text = Array(bytes[start..<position])
                position += 1
                return (text, .newline([byte]))
            }
            if byte == UInt8(ascii: "\r"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\n") {
                let text = Array(bytes[start..<position])
                position += 2
                return (text, .newline([UInt8(ascii: "\r"), UInt8(ascii: "\n")]))
            }
            if byte == first, matches(openDelimiter, at: position) {
                let text = Array(bytes[start..<position])
                let offset = position
                position += openDelimiter.count
                return (text, .tag(offset: offset))
            }
            position += 1
        }
        return (Array(bytes[start..<position]), .end)
    }

    private mutating func readSpacesAndTabs() -> [UInt8] {
        let start = position
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { position += 1 }
        return Array(bytes[start..<position])
    }

    /// Whether only spaces and tabs remain on this line; if so, consumes them and the line break.
    /// (At the very end of the text the line counts as finished only with nothing left at all.)
    private mutating func finishLineIfBlank() -> Bool {
        guard position < bytes.count else { return true }
        var probe = position
        while probe < bytes.count, bytes[probe] == UInt8(ascii: " ") || bytes[probe] == UInt8(ascii: "\t") { probe += 1 }
        guard probe < bytes.count else { return false }
        switch bytes[probe] {
        case UInt8(ascii: "\r"):
            probe += (probe + 1 < bytes.count && bytes[probe + 1] == UInt8(ascii: "\n")) ? 2 : 1
        case UInt8(ascii: "\n"), 0x0B, 0x0C:
            probe += 1
        default:
            return false
        }
        position = probe
        return true
    }

    private mutating func skipWhitespace() {
        while let byte = current, Self.isWhitespace(byte) { position += 1 }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || (byte >= 0x09 && byte <= 0x0D)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "?"), UInt8(ascii: "*"),
            UInt8(ascii: "("), UInt8(ascii: ")"):
            return true
        default:
            return false
        }
    }

    private mutating func readName(tagOffset: Int) throws(TemplateError) -> TagName {
        skipWhitespace()
        let start = position
        while let byte = current, Self.isNameByte(byte) { position += 1 }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        skipWhitespace()
        guard matches(closeDelimiter, at: position) else {
            throw error(at: tagOffset, "tag is not closed, or its name has a character a name cannot have")
        }
        position += closeDelimiter.count
        if text.contains("(") || text.contains(")") {
            throw error(at: tagOffset, "transforms ({{name(x)}}) are not supported; format the value in its view-model builder")
        }
        guard !text.isEmpty else { throw error(at: tagOffset, "tag has no name") }
        // "." alone, or dotted names: an optional leading dot, then names separated by single dots.
        let pieces = (text.hasPrefix(".") ? text.dropFirst() : text[...]).split(separator: ".", omittingEmptySubsequences: false)
        guard text == "." || pieces.allSatisfy({ !$0.isEmpty }) else {
            throw error(at: tagOffset, "{{\(text)}}: a name is `.`, a field, or fields joined by single dots")
        }
        return TagName(text)
    }

    private mutating func readPartialName(tagOffset: Int) throws(TemplateError) -> String {
        let start = position
        while let byte = current, Self.isNameByte(byte) || byte == UInt8(ascii: "/") { position += 1 }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        skipWhitespace()
        guard matches(closeDelimiter, at: position), !text.isEmpty else {
            throw error(at: tagOffset, "partial tag is not closed, or its name has a character a name cannot have")
        }
        position += closeDelimiter.count
        return text
    }

    private mutating func readDelimiters(tagOffset: Int) throws(TemplateError) {
        let invalid = error(at: tagOffset, "set-delimiter tag must look like {{=<% %>=}}")
        skipWhitespace()
        let openStart = position
        while let byte = current, !Self.isWhitespace(byte) { position += 1 }
        guard current != nil else { throw invalid }
        let open = Array(bytes[openStart..<position])
        skipWhitespace()
        let closeStart = position
        while let byte = current, !Self.isWhitespace(byte), byte != UInt8(ascii: "=") { position += 1 }
        guard current != nil else { throw invalid }
        let close = Array(bytes[closeStart..<position])
        skipWhitespace()
        guard current == UInt8(ascii: "=") else { throw invalid }
        position += 1
        guard matches(closeDelimiter, at: position), !open.isEmpty, !close.isEmpty else { throw invalid }
        position += closeDelimiter.count
        openDelimiter = open
        closeDelimiter = close
    }

    private func matches(_ needle: [UInt8], at offset: Int) -> Bool {
        guard offset + needle.count <= bytes.count else { return false }
        for index in needle.indices where bytes[offset + index] != needle[index] { return false }
        return true
    }

    private func find(_ needle: [UInt8], from offset: Int) -> Int? {
        var candidate = offset
        while candidate + needle.count <= bytes.count {
            if matches(needle, at: candidate) { return candidate }
            candidate += 1
        }
        return nil
    }

    private func error(at offset: Int, _ message: String) -> TemplateError {
        TemplateError(origin: source.origin, line: source.line(at: offset), message: message)
    }
}
