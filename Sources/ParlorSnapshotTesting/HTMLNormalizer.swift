// Lays HTML out for reading in a diff: one element per line, indented by depth, attributes sorted by name,
// text trimmed onto its own line with line breaks shown as "↵". Entities and attribute values are kept as
// written, so escaping is visible in snapshots. This is a formatter for Parlor's own templates, not an
// HTML5 parser: it knows void elements and raw-text elements, which is all the templates use.

/// What the `.html` snapshot strategy compares and stores:
///
///     HTMLNormalizer.normalize(#"<p class="b" id="a">Hi<br>there</p>"#)
///     // <p class="b" id="a">
///     //   Hi
///     //   <br>
///     //   there
///     // </p>
public enum HTMLNormalizer {
    /// Elements that never have an end tag.
    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr", "!doctype",
    ]
    /// Elements whose content is text up to their end tag.
    static let rawTextElements: Set<String> = ["script", "style", "textarea", "title"]

    /// The normalised form of `html`.
    public static func normalize(_ html: String) -> String {
        var lines: [String] = []
        var depth = 0
        func emit(_ text: String) {
            lines.append(String(repeating: "  ", count: max(depth, 0)) + text)
        }
        func emitText(_ raw: Substring) {
            let trimmed = raw.trimmingWhitespace()
            guard !trimmed.isEmpty else { return }
            emit(trimmed.replacingNewlines())
        }

        let characters = Array(html.unicodeScalars)
        var index = 0
        var textStart = 0
        func text(_ from: Int, _ to: Int) -> Substring {
            Substring(String(String.UnicodeScalarView(characters[from..<to])))
        }
        while index < characters.count {
            guard characters[index] == "<", index + 1 < characters.count else {
                index += 1
                continue
            }
            let next = characters[index + 1]
            let isTag = next == "/" || next == "!" || next.properties.isAlphabetic
            guard isTag else {
                index += 1
                continue
            }
            emitText(text(textStart, index))
            if next == "!", starts(characters, at: index, with: "<!--") {
                let end = find(characters, "-->", from: index + 4) ?? characters.count
                emit(String(String.UnicodeScalarView(characters[index..<min(end + 3, characters.count)])))
                index = min(end + 3, characters.count)
                textStart = index
                continue
            }
            let tagEnd = tagEnd(characters, from: index + 1)
            let tag = parseTag(characters[(index + 1)..<tagEnd])
            index = min(tagEnd + 1, characters.count)
            textStart = index
            if tag.isEnd {
                depth -= 1
                emit("</\(tag.name)>")
                continue
            }
            emit(tag.rendered)
            let lowered = tag.name.lowercased()
            if voidElements.contains(lowered) || tag.isSelfClosing { continue }
            if rawTextElements.contains(lowered) {
                let close = find(characters, "</" + lowered, from: index) ?? characters.count
                depth += 1
                emitText(text(index, close))
                depth -= 1
                index = close
                textStart = index
                continue
            }
            depth += 1
        }
        emitText(text(textStart, characters.count))
        return lines.joined(separator: "\n") + "\n"
    }

    private struct Tag {
        var name = ""
        var attributes: [(name: String, value: String?)] = []
        var isEnd = false
        var isSelfClosing = false

        var rendered: String {
            let sorted = attributes.sorted { $0.name < $1.name }
            let parts = sorted.map { attribute in attribute.value.map { "\(attribute.name)=\"\($0)\"" } ?? attribute.name }
            return "<" + ([name] + parts).joined(separator: " ") + (isSelfClosing ? " />" : ">")
        }
    }

    /// The index of the `>` that ends a tag starting after `start`, skipping quoted attribute values.
    private static func tagEnd(_ characters: [Unicode.Scalar], from start: Int) -> Int {
        var quote: Unicode.Scalar?
        var index = start
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == ">" {
                return index
            }
            index += 1
        }
        return characters.count
    }

    private static func parseTag(_ body: ArraySlice<Unicode.Scalar>) -> Tag {
        var tag = Tag()
        var scalars = body[...]
        if scalars.first == "/" {
            tag.isEnd = true
            scalars = scalars.dropFirst()
        }
        if scalars.last == "/" {
            tag.isSelfClosing = true
            scalars = scalars.dropLast()
        }
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" }
        tag.name = String(String.UnicodeScalarView(scalars.prefix { !isSpace($0) }))
        scalars = scalars.drop { !isSpace($0) }
        while true {
            scalars = scalars.drop(while: isSpace)
            guard !scalars.isEmpty else { break }
            let name = String(String.UnicodeScalarView(scalars.prefix { !isSpace($0) && $0 != "=" }))
            scalars = scalars.drop { !isSpace($0) && $0 != "=" }
            scalars = scalars.drop(while: isSpace)
            guard scalars.first == "=" else {
                tag.attributes.append((name, nil))
                continue
            }
            scalars = scalars.dropFirst().drop(while: isSpace)
            var value: String
            if let quote = scalars.first, quote == "\"" || quote == "'" {
                let inner = scalars.dropFirst()
                let content = inner.prefix { $0 != quote }
                value = String(String.UnicodeScalarView(content))
                scalars = inner.dropFirst(content.count + 1)
            } else {
                let content = scalars.prefix { !isSpace($0) }
                value = String(String.UnicodeScalarView(content))
                scalars = scalars.dropFirst(content.count)
            }
            value = value.replacingNewlines()
            tag.attributes.append((name, value))
        }
        return tag
    }

    private static func starts(_ characters: [Unicode.Scalar], at index: Int, with prefix: String) -> Bool {
        let scalars = Array(prefix.unicodeScalars)
        guard index + scalars.count <= characters.count else { return false }
        return Array(characters[index..<(index + scalars.count)]) == scalars
    }

    private static func find(_ characters: [Unicode.Scalar], _ needle: String, from start: Int) -> Int? {
        let scalars = Array(needle.unicodeScalars)
        var index = start
        while index + scalars.count <= characters.count {
            if Array(characters[index..<(index + scalars.count)]) == scalars { return index }
            index += 1
        }
        return nil
    }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    fileprivate func replacingNewlines() -> String {
        var result = ""
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                result += "↵"
                previousCR = true
                continue
            }
            if scalar == "\n" {
                if !previousCR { result += "↵" }
            } else {
                result.unicodeScalars.append(scalar)
            }
            previousCR = false
        }
        return result
    }
}
