// libFuzzer entry: a query (the first line) and a message (the rest), both typed by people, through what search
// does with them outside the stores: terms, matching as the in-memory store does, and the highlighted snippet.
import ParlorDomain
import ParlorViews

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearchSnippet(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let (typed, body) = input.firstIndex(of: "\n").map { (String(input[..<$0]), String(input[input.index(after: $0)...])) } ?? (input, "")
    let terms = SearchTerm.terms(of: SearchQuery.parse(typed))
    // Words are folded runs of letters and numbers, each within the stored length; searchable text is them, spaced.
    let words = SearchText.words(body)
    precondition(words.allSatisfy { !$0.isEmpty && $0.count <= SearchText.wordLength && $0.allSatisfy { $0.isLetter || $0.isNumber } })
    let searchable = SearchText.searchable(body)
    precondition(searchable == words.joined(separator: " "))
    for term in terms { _ = term.matches(words: words, text: body.lowercased()) }
    // The snippet: bounded, nothing matched empty, no two matched runs in a row, and all of it from the message.
    let runs = SearchSnippet.runs(body, terms: terms)
    let shown = runs.map(\.text).joined()
    precondition(shown.count <= SearchSnippet.length + 2, "a snippet of \(shown.count) characters")
    precondition(runs.allSatisfy { !$0.text.isEmpty })
    for (first, second) in zip(runs, runs.dropFirst()) { precondition(!(first.isMatch && second.isMatch), "matches are joined") }
    let plain = TextPreview.excerpt(MessageFormat.plainText(body), limit: .max)
    let inner = runs.drop { $0.text == "…" && !$0.isMatch }.reversed().drop { $0.text == "…" && !$0.isMatch }.reversed().map(\.text).joined()
    precondition(inner.isEmpty || plain.contains(inner), "the snippet is the message's text")
    return 0
}
