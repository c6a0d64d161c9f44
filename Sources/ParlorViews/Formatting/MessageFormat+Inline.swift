import ParlorDomain

extension MessageFormat {
    /// The inline half of the parser: one block's text (lines joined by "\n") into styled runs, in passes that
    /// each read the bytes once: code spans; links and mentions outside them (never styled inside, so
    /// `https://a.example/x_y_z` stays one link); then each marker, paired with the nearest partner on its line;
    /// then the runs.
    enum Inline {
        static func runs(_ bytes: [UInt8]) -> [Run] {
            guard !bytes.isEmpty else { return [] }
            // Most messages have no marker: only their links and mentions to find.
            guard bytes.contains(where: { markerKind($0) != nil || $0 == UInt8(ascii: "`") }) else { return unstyledRuns(bytes) }
            return styledRuns(bytes)
        }

        /// ``runs(_:)`` for any text (FuzzMessageFormat checks it agrees with ``unstyledRuns(_:)`` where both apply).
        static func styledRuns(_ bytes: [UInt8]) -> [Run] {
            guard !bytes.isEmpty else { return [] }
            var style = [Style](repeating: [], count: bytes.count)
            var hidden = [Bool](repeating: false, count: bytes.count)
            var taken = [Bool](repeating: false, count: bytes.count)

            // 1. `code`: a backtick pairs with the next one on its line; inside, everything is as typed.
            var pieces: [Range<Int>] = []
            var pieceStart = 0
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "`") else { index += 1; continue }
                var close = index + 1
                while close < bytes.count, bytes[close] != UInt8(ascii: "`"), bytes[close] != UInt8(ascii: "\n") { close += 1 }
                guard close < bytes.count, bytes[close] == UInt8(ascii: "`") else { index = close; continue }
                if close == index + 1 { index = close + 1; continue }  // `` is two backticks
                pieces.append(pieceStart..<index)
                hidden[index] = true
                hidden[close] = true
                for inner in index...close { taken[inner] = true }
                for inner in (index + 1)..<close { style[inner].insert(.code) }
                index = close + 1
                pieceStart = index
            }
            pieces.append(pieceStart..<bytes.count)

            // 2. Links and mentions, whole; the markers around them still apply.
            var atoms: [Int: (end: Int, kind: Run.Kind)] = [:]
            for piece in pieces where !piece.isEmpty {
                var offset = piece.lowerBound
                for segment in Linkifier.segments(String(decoding: bytes[piece], as: UTF8.self)) {
                    let length = segment.text.utf8.count
                    if let url = segment.url {
                        atoms[offset] = (offset + length, .link(url: url))
                    } else if segment.text.utf8.contains(UInt8(ascii: "@")) {
                        for mention in Mentions.find(in: segment.text) {
                            atoms[offset + mention.range.lowerBound] = (offset + mention.range.upperBound, .mention(mention.target))
                        }
                    }
                    offset += length
                }
            }
            for (start, atom) in atoms { for inner in start..<atom.end { taken[inner] = true } }

            // 3. Markers: a run of one or two of `*`, `_` or `~` opens before a non-space after a non-word, closes
            //    after a non-space before a non-word; each kind pairs with the nearest closer on the same line.
            var open: [Marker: (start: Int, end: Int, line: Int)] = [:]
            var line = 0
            index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") { line += 1; index += 1; continue }
                guard !taken[index], let kind = markerKind(byte) else { index += 1; continue }
                var end = index + 1
                while end < bytes.count, bytes[end] == byte, !taken[end] { end += 1 }
                defer { index = end }
                guard end - index <= 2 else { continue }  // three or more: as typed
                let marker = Marker(byte: byte, length: end - index)
                let before = index > 0 ? bytes[index - 1] : nil
                let after = end < bytes.count ? bytes[end] : nil
                let canClose = before.map { !isSpace($0) } ?? false && !(after.map(isWordByte) ?? false)
                let canOpen = after.map { !isSpace($0) } ?? false && !(before.map(isWordByte) ?? false)
                if canClose, let opener = open[marker], opener.line == line, opener.end < index {
                    open[marker] = nil
                    let flag: Style = marker.length == 2 && kind == .italic ? .bold : kind
                    for inner in opener.end..<index { style[inner].insert(flag) }
                    for inner in opener.start..<opener.end { hidden[inner] = true }
                    for inner in index..<end { hidden[inner] = true }
                } else if canOpen {
                    open[marker] = (index, end, line)
                }
            }

            // 4. Runs: a new one wherever the style changes; a link or a mention is one run in the style of its start.
            var runs: [Run] = []
            var runStart = -1
            var runStyle: Style = []
            var text: [UInt8] = []
            func finish() {
                if !text.isEmpty { runs.append(Run(text: String(decoding: text, as: UTF8.self), style: runStyle)) }
                text.removeAll(keepingCapacity: true)
                runStart = -1
            }
            index = 0
            while index < bytes.count {
                if let atom = atoms[index] {
                    finish()
                    runs.append(Run(text: String(decoding: bytes[index..<atom.end], as: UTF8.self), style: style[index], kind: atom.kind))
                    index = atom.end
                    continue
                }
                if hidden[index] { index += 1; continue }
                if runStart < 0 || style[index] != runStyle { finish(); runStart = index; runStyle = style[index] }
                text.append(bytes[index])
                index += 1
            }
            finish()
            return runs
        }

        /// ``runs(_:)`` for text without a marker.
        static func unstyledRuns(_ bytes: [UInt8]) -> [Run] {
            unstyledRuns(String(decoding: bytes, as: UTF8.self))
        }

        static func unstyledRuns(_ text: String) -> [Run] {
            var runs: [Run] = []
            for segment in Linkifier.segments(text) {
                if let url = segment.url {
                    runs.append(Run(text: segment.text, kind: .link(url: url)))
                    continue
                }
                let mentions = segment.text.utf8.contains(UInt8(ascii: "@")) ? Mentions.find(in: segment.text) : []
                guard !mentions.isEmpty else { runs.append(Run(text: segment.text)); continue }
                let text = Array(segment.text.utf8)
                var start = 0
                for mention in mentions {
                    if mention.range.lowerBound > start { runs.append(Run(text: String(decoding: text[start..<mention.range.lowerBound], as: UTF8.self))) }
                    runs.append(Run(text: String(decoding: text[mention.range], as: UTF8.self), kind: .mention(mention.target)))
                    start = mention.range.upperBound
                }
                if start < text.count { runs.append(Run(text: String(decoding: text[start...], as: UTF8.self))) }
            }
            return runs
        }

        struct Marker: Hashable {
            let byte: UInt8
            let length: Int
        }

        static func markerKind(_ byte: UInt8) -> Style? {
            switch byte {
            case UInt8(ascii: "*"): .bold
            case UInt8(ascii: "_"): .italic
            case UInt8(ascii: "~"): .strike
            default: nil
            }
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
        }

        /// Letters and digits, and every byte of a non-ASCII character (most are letters): a marker inside a word
        /// (`snake_case_name`, `2*3*4`) stays as typed.
        static func isWordByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
        }
    }
}
