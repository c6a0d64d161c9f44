// libFuzzer entry: what a person types in the search field, read into words, phrases and filters.
import ParlorDomain

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearchQuery(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let query = SearchQuery.parse(text)
    // Bounded, and nothing empty or spaced kept as a word.
    precondition(query.words.count + query.phrases.count <= SearchQuery.termLimit)
    precondition(query.from.count <= SearchQuery.filterLimit && query.rooms.count <= SearchQuery.filterLimit)
    precondition(query.words.allSatisfy {
        !$0.isEmpty && $0.unicodeScalars.count <= SearchQuery.termLength && !$0.unicodeScalars.contains { $0.properties.isWhitespace || $0 == "\"" }
    })
    precondition(query.phrases.allSatisfy { !$0.isEmpty && $0.unicodeScalars.count <= SearchQuery.termLength && !$0.unicodeScalars.contains("\"") })
    precondition(query.from.allSatisfy { (try? Handle.normalized($0)) == $0 })
    // What the field shows after a search reads back to the same query.
    let shown = query.description
    if shown.unicodeScalars.count <= SearchQuery.inputLimit {
        var again = SearchQuery.parse(shown)
        again.problems = query.problems
        precondition(again == query, "\(query) read back as \(again)")
    }
    return 0
}
