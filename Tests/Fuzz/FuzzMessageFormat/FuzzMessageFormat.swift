// libFuzzer entry: message text read into formatted blocks (styles, quotes, lists, code, links, mentions).
@testable import ParlorViews

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessageFormat(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let blocks = MessageFormat.blocks(text)
    var shown: [UInt8] = []
    for block in blocks {
        switch block {
        case .paragraph(let runs), .quote(let runs): shown += check(runs)
        case .code(let code): shown += Array(code.utf8)
        case .list(_, let items):
            for item in items {
                if let number = item.number { precondition((0...999_999_999).contains(number)) }
                shown += check(item.runs)
            }
        }
    }
    // Only markers are taken away: what shows is the text in its order, nothing added.
    precondition(isSubsequence(shown, of: Array(text.utf8)))
    // Text without any marker shows as typed.
    if !text.utf8.contains(where: { "*_~`>-•0123456789\r".utf8.contains($0) }), !text.contains("\n"), !text.allSatisfy({ $0 == " " || $0 == "\t" }) {
        precondition(MessageFormat.showsTextAsTyped(blocks) && blocks.count == 1)
    }
    // Text without a marker takes a shorter path: it must come out exactly as the general one.
    let bytes = Array(text.utf8)
    if !bytes.contains(where: { MessageFormat.Inline.markerKind($0) != nil || $0 == UInt8(ascii: "`") }) {
        precondition(MessageFormat.Inline.unstyledRuns(bytes) == MessageFormat.Inline.styledRuns(bytes))
    }
    // The one-line short path must give what the whole parser gives.
    if let plain = MessageFormat.oneUnstyledParagraph(text) {
        precondition(plain == MessageFormat.blocks(bytes))
    }
    _ = MessageFormat.plainText(text)
    return 0
}

private func check(_ runs: [MessageFormat.Run]) -> [UInt8] {
    var bytes: [UInt8] = []
    for run in runs {
        precondition(!run.text.isEmpty)
        if case .link(let url) = run.kind {
            let lowered = url.lowercased()
            precondition(lowered.hasPrefix("http://") || lowered.hasPrefix("https://"))
            precondition(!run.style.contains(.code))
        }
        bytes += Array(run.text.utf8)
    }
    return bytes
}

private func isSubsequence(_ small: [UInt8], of large: [UInt8]) -> Bool {
    var index = 0
    for byte in large where index < small.count && small[index] == byte { index += 1 }
    return index == small.count
}
