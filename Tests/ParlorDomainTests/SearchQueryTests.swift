import ParlorDomain
import Testing

/// The search field's query language, and what it sets aside.
struct SearchQueryTests {
    @Test func wordsPhrasesAndEveryFilter() {
        let query = SearchQuery.parse(#"deplo  "release train" from:@Ana in:#launch has:photo before:2026-11-01 after:2026-10-01 foo-bar/baz"#)
        #expect(query.words == ["deplo", "foo-bar/baz"])
        #expect(query.phrases == ["release train"])
        #expect(query.from == ["ana"] && query.rooms == ["launch"] && query.hasPhoto)
        #expect(query.before == SearchDay("2026-11-01") && query.after == SearchDay("2026-10-01") && query.problems.isEmpty)
        #expect(query.hasFilters && !query.withoutFilters.hasFilters && query.withoutFilters.words == query.words)
        #expect(query.description == ##"deplo foo-bar/baz "release train" from:@ana in:"#launch" has:photo before:2026-11-01 after:2026-10-01"##)
        #expect(SearchQuery.parse(query.description) == query, "the field shows what reads back the same")
    }

    @Test func aRoomNameWithSpacesIsQuoted() {
        let query = SearchQuery.parse(#"in:"Launch   plans" budget"#)
        #expect(query.rooms == ["Launch plans"] && query.words == ["budget"])
        #expect(SearchQuery.parse("in:#Launch").rooms == ["Launch"])
    }

    @Test func filtersThatCannotBeReadAreSetAsideWithAWord() {
        let query = SearchQuery.parse("from:x has:cake before:2026-02-30 after:yesterday in: hello")
        #expect(query.words == ["hello"] && !query.hasFilters)
        #expect(query.problems == [
            "from: takes a handle, like from:@ana.", "has: takes photo, like has:photo.", "before: takes a date, like before:2026-11-01.",
            "after: takes a date, like after:2026-11-01.", "in: takes a room, like in:#launch.",
        ])
        #expect(SearchDay("2024-02-29") != nil && SearchDay("2023-02-29") == nil && SearchDay("1900-01-01") == nil && SearchDay("2026-1-01") == nil)
        #expect(SearchDay("2026-11-01")! < SearchDay("2026-12-01")!)
    }

    @Test func unknownPrefixesAndAddressesAreWords() {
        let query = SearchQuery.parse("https://parlor.chat/a_b note:this 東京タワー")
        #expect(query.words == ["https://parlor.chat/a_b", "note:this", "東京タワー"] && query.problems.isEmpty)
    }

    @Test func anUnclosedQuoteRunsToTheEndAndEmptyOnesAreNothing() {
        #expect(SearchQuery.parse(#"train "to the   coast"#).phrases == ["to the coast"])
        #expect(SearchQuery.parse(#""" "   " word"#) == SearchQuery.parse("word"))
        #expect(SearchQuery.parse("   ").isEmpty)
    }

    /// Long or hostile input is cut, never kept whole.
    @Test func whatIsKeptIsBounded() {
        let many = SearchQuery.parse((1...40).map { "word\($0)" }.joined(separator: " "))
        #expect(many.words.count == SearchQuery.termLimit && many.problems.count == 1)
        let long = SearchQuery.parse(String(repeating: "a", count: 5_000))
        #expect(long.words == [String(repeating: "a", count: SearchQuery.termLength)])
        let filters = SearchQuery.parse((1...10).map { "from:@user\($0)" }.joined(separator: " "))
        #expect(filters.from.count == SearchQuery.filterLimit)
        let quotes = SearchQuery.parse(String(repeating: "\"a\" ", count: 500))
        #expect(quotes.phrases.count == SearchQuery.termLimit)
    }

    /// Found by FuzzSearchQuery: a phrase cut at a space, and a combining mark right after white space, each
    /// read back differently from what the field showed.
    @Test func whatTheFieldShowsReadsBackTheSame() {
        let cut = SearchQuery.parse("\"" + String(repeating: "N", count: 99) + " " + String(repeating: "N", count: 20))
        #expect(cut.phrases == [String(repeating: "N", count: 99)])
        for typed in ["\"" + String(repeating: "N", count: 99) + " NN", "?f\r\u{596}\u{7D6} :", "a \u{301}b \u{301}", "in:\"  #x  y \" z"] {
            let query = SearchQuery.parse(typed)
            #expect(SearchQuery.parse(query.description) == query, "\(typed.debugDescription) shows as \(query.description.debugDescription)")
        }
    }
}
