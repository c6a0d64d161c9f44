import ParlorDomain

/// Formatting as people type it in chats: `*bold*`, `_italic_`, `~strike~`, `` `code` `` (and the doubled
/// `**bold**`, `__bold__`, `~~strike~~`), fenced code blocks, `> quotes` and lists. Parlor's own small parser:
/// it reads the text once into blocks of styled runs (links and mentions among them), never HTML; the template
/// escapes every run. Flat by design: a quote or a list holds inline text, not other blocks, and styles are
/// flags on a run rather than a tree, so no input nests deeper than one block and one run (10,000 markers in
/// a row are read in one pass, without recursion). Markers pair on one line only, nearest first; a marker that
/// finds no partner stays as typed.
public enum MessageFormat {
    public struct Style: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let bold = Style(rawValue: 1)
        public static let italic = Style(rawValue: 2)
        public static let strike = Style(rawValue: 4)
        public static let code = Style(rawValue: 8)
    }

    /// A run of text in one style: plain, a link (http or https only) or a mention.
    public struct Run: Hashable, Sendable {
        public enum Kind: Hashable, Sendable {
            case text
            case link(url: String)
            case mention(Mention.Target)
        }

        public let text: String
        public let style: Style
        public let kind: Kind

        public init(text: String, style: Style = [], kind: Kind = .text) {
            self.text = text
            self.style = style
            self.kind = kind
        }
    }

    /// A list's item; `number` as typed for an ordered list ("3." keeps 3).
    public struct Item: Hashable, Sendable {
        public let number: Int?
        public let runs: [Run]
    }

    public enum Block: Hashable, Sendable {
        /// Lines of text (line breaks kept in the runs).
        case paragraph([Run])
        /// Lines that started with ">", without it.
        case quote([Run])
        case list(ordered: Bool, items: [Item])
        /// The lines between ``` fences, exactly as typed; an unclosed fence runs to the end of the message.
        case code(String)
    }

    /// The blocks of `text`.
    public static func blocks(_ text: String) -> [Block] {
        if let plain = oneUnstyledParagraph(text) { return plain }
        var text = text
        return text.withUTF8 { blocks(Array($0)) }
    }

    /// Most messages are one line without a marker: one paragraph, read without copying the text into lines
    /// (a page of fifty messages builds each of them). Nil when the text needs the whole parser.
    static func oneUnstyledParagraph(_ text: String) -> [Block]? {
        var text = text
        let plain = text.withUTF8 { bytes -> Bool in
            guard let first = bytes.first else { return true }
            // A list's first line ("- ", "• ", "3. ") and a quote need the parser; so do markers and line breaks.
            if first == UInt8(ascii: "-") || first == 0xE2 || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) { return false }
            return !bytes.contains { isMarkerByte($0) || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
                && !bytes.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        }
        guard plain else { return nil }
        return text.isEmpty ? [] : [.paragraph(Inline.unstyledRuns(text))]
    }

    /// `text` as it reads without its markers: what the chat list, quotes and notifications show.
    public static func plainText(_ text: String) -> String {
        // Most messages have no marker at all: as typed.
        guard text.utf8.contains(where: isMarkerByte) else { return text }
        return blocks(text).map { block -> String in
            switch block {
            case .paragraph(let runs), .quote(let runs): runs.map(\.text).joined()
            case .code(let code): code
            case .list(let ordered, let items):
                items.map { (ordered ? "\($0.number ?? 1). " : "• ") + $0.runs.map(\.text).joined() }.joined(separator: "\n")
            }
        }.joined(separator: "\n")
    }

    /// Whether the blocks show exactly the text they came from (one unstyled paragraph): then an editor can take
    /// the shown text back as it was typed.
    public static func showsTextAsTyped(_ blocks: [Block]) -> Bool {
        switch blocks.count {
        case 0: return true
        case 1: if case .paragraph(let runs) = blocks[0] { return runs.allSatisfy { $0.style.isEmpty } } else { return false }
        default: return false
        }
    }

    private static func isMarkerByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "`"), UInt8(ascii: ">"): true
        default: false
        }
    }

    // MARK: Blocks

    static func blocks(_ bytes: [UInt8]) -> [Block] {
        let lines = splitLines(bytes)
        var blocks: [Block] = []
        var paragraph: [ArraySlice<UInt8>] = []
        var quote: [ArraySlice<UInt8>] = []
        var list: (ordered: Bool, items: [Item])?

        func flush(except kind: Int) {
            if kind != 0, !paragraph.isEmpty {
                // Blank lines around a paragraph belong to the blocks' spacing, not to its text.
                while let last = paragraph.last, isBlank(last) { paragraph.removeLast() }
                while let first = paragraph.first, isBlank(first) { paragraph.removeFirst() }
                if !paragraph.isEmpty { blocks.append(.paragraph(Inline.runs(joined(paragraph)))) }
                paragraph = []
            }
            if kind != 1, !quote.isEmpty {
                blocks.append(.quote(Inline.runs(joined(quote))))
                quote = []
            }
            if kind != 2, let open = list {
                blocks.append(.list(ordered: open.ordered, items: open.items))
                list = nil
            }
        }

        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.starts(with: fence), let (code, next) = codeBlock(lines, from: index - 1) {
                flush(except: -1)
                blocks.append(.code(code))
                index = next
            } else if line.first == UInt8(ascii: ">") {
                flush(except: 1)
                var content = line.dropFirst()
                if content.first == UInt8(ascii: " ") { content = content.dropFirst() }
                quote.append(content)
            } else if let item = listItem(line) {
                if let open = list, open.ordered != item.ordered { flush(except: -1) } else { flush(except: 2) }
                list = (item.ordered, (list?.items ?? []) + [Item(number: item.number, runs: Inline.runs(Array(item.content)))])
            } else {
                flush(except: 0)
                paragraph.append(line)
            }
        }
        flush(except: -1)
        return blocks
    }

    private static let fence: [UInt8] = Array("```".utf8)

    /// The code block that opens at `lines[start]` and the line after it: ```one line```, or the lines up to one
    /// that ends with ``` (the text beside a fence belongs to the code), or to the end of the message when none
    /// does. Nil when it would hold nothing: "```" alone is text.
    private static func codeBlock(_ lines: [ArraySlice<UInt8>], from start: Int) -> (String, Int)? {
        let opening = lines[start].dropFirst(3)
        if opening.count >= 3, opening.suffix(3).elementsEqual(fence) {
            let inner = opening.dropLast(3)
            return isBlank(inner) ? nil : (String(decoding: inner, as: UTF8.self), start + 1)
        }
        var code: [ArraySlice<UInt8>] = isBlank(opening) ? [] : [opening]
        var index = start + 1
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.count >= 3, line.suffix(3).elementsEqual(fence) {
                let last = line.dropLast(3)
                if !isBlank(last) { code.append(last) }
                break
            }
            code.append(line)
        }
        guard !code.allSatisfy(isBlank) else { return nil }
        return (String(decoding: joined(code), as: UTF8.self), index)
    }

    /// Lines without their ending ("\n" or "\r\n").
    private static func splitLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            lines.append(trimmingReturn(bytes[start..<index]))
            start = index + 1
        }
        lines.append(trimmingReturn(bytes[start...]))
        return lines
    }

    private static func trimmingReturn(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line.last == UInt8(ascii: "\r") ? line.dropLast() : line
    }

    private static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    }

    private static func joined(_ lines: [ArraySlice<UInt8>]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "\n")) }
            bytes += line
        }
        return bytes
    }

    /// "- milk", "* milk", "• milk", "3. milk", "3) milk": the item's text and number.
    private static func listItem(_ line: ArraySlice<UInt8>) -> (ordered: Bool, number: Int?, content: ArraySlice<UInt8>)? {
        let start = line.startIndex
        guard line.count >= 2 else { return nil }
        if (line[start] == UInt8(ascii: "-") || line[start] == UInt8(ascii: "*")), line[start + 1] == UInt8(ascii: " ") {
            return (false, nil, line.dropFirst(2))
        }
        // "•" is E2 80 A2 in UTF-8.
        if line.count >= 4, line[start] == 0xE2, line[start + 1] == 0x80, line[start + 2] == 0xA2, line[start + 3] == UInt8(ascii: " ") {
            return (false, nil, line.dropFirst(4))
        }
        // At most nine digits: the number always fits, and a longer one is not a list.
        let digits = line.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard (1...9).contains(digits.count), line.count >= digits.count + 2 else { return nil }
        let mark = line[start + digits.count]
        guard mark == UInt8(ascii: ".") || mark == UInt8(ascii: ")"), line[start + digits.count + 1] == UInt8(ascii: " ") else { return nil }
        let number = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (true, number, line.dropFirst(digits.count + 2))
    }
}
