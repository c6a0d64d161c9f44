/// What a person typed in the search field, read into words, phrases and filters:
/// plain words (all must match, any order, each as a prefix), `"exact phrase"`, `from:@ana`, `in:#room` (or
/// `in:"Launch plans"`), `has:photo`, `before:2026-11-01` and `after:`. A filter that cannot be read is set
/// aside with a word for the person ("before: takes a date like 2026-11-01") rather than searched for as text.
/// Outside bytes: the parser reads them once, bounds what it keeps, and never builds a store's query syntax
/// (each store turns the parts into its own safe pattern).
public struct SearchQuery: Hashable, Sendable, CustomStringConvertible {
    /// Words, as typed (each store folds case and accents its own way).
    public var words: [String] = []
    public var phrases: [String] = []
    /// Handles, lowercased, without "@".
    public var from: [String] = []
    /// Room names as typed, without "#".
    public var rooms: [String] = []
    public var hasPhoto = false
    /// Messages sent before the start of this day, and on or after the start of that one (in the viewer's zone,
    /// which the store applies).
    public var before: SearchDay?
    public var after: SearchDay?
    /// Why a part was set aside, for the person.
    public var problems: [String] = []

    /// At most this many words and phrases together, and this many filters of each kind: a longer query is cut.
    public static let termLimit = 16
    public static let filterLimit = 4
    /// A word or a phrase is cut to this many Unicode scalars.
    public static let termLength = 100
    /// Text past this many Unicode scalars is not read.
    public static let inputLimit = 1_000

    public init() {}

    /// Nothing to search for: no word, phrase or filter.
    public var isEmpty: Bool {
        words.isEmpty && phrases.isEmpty && from.isEmpty && rooms.isEmpty && !hasPhoto && before == nil && after == nil
    }

    /// Whether it has filters that could be dropped to find more.
    public var hasFilters: Bool { !from.isEmpty || !rooms.isEmpty || hasPhoto || before != nil || after != nil }

    /// The same query without its filters ("nothing found: search without the filters").
    public var withoutFilters: SearchQuery {
        var plain = SearchQuery()
        plain.words = words
        plain.phrases = phrases
        return plain
    }

    /// The query as the parser reads it back to the same value: what the search field shows after a search.
    public var description: String {
        var parts = words
        parts += phrases.map { "\"\($0)\"" }
        parts += from.map { "from:@\($0)" }
        parts += rooms.map { "in:\"#\($0)\"" }
        if hasPhoto { parts.append("has:photo") }
        if let before { parts.append("before:\(before)") }
        if let after { parts.append("after:\(after)") }
        return parts.joined(separator: " ")
    }

    /// Read by Unicode scalars, not characters: a combining mark after a space belongs to no word across a
    /// space, so what the field shows reads back the same.
    public static func parse(_ text: String) -> SearchQuery {
        var query = SearchQuery()
        let scalars = Array(text.unicodeScalars.prefix(inputLimit))
        var index = 0
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace }
        func quoted() -> ArraySlice<Unicode.Scalar> {
            let start = index + 1
            var close = start
            while close < scalars.count, scalars[close] != "\"" { close += 1 }
            index = min(close + 1, scalars.count)
            return scalars[start..<min(close, scalars.count)]
        }
        while true {
            while index < scalars.count, isSpace(scalars[index]) { index += 1 }
            guard index < scalars.count else { break }
            if scalars[index] == "\"" {
                query.addTerm(quoted(), phrase: true)
                continue
            }
            let start = index
            while index < scalars.count, !isSpace(scalars[index]), scalars[index] != "\"" { index += 1 }
            let token = scalars[start..<index]
            guard let colon = token.firstIndex(of: ":"), let filter = Filter(rawValue: Self.text(token[..<colon]).lowercased()) else {
                query.addTerm(token, phrase: false)
                continue
            }
            var value = token[(colon + 1)...]
            // in:"Launch plans": the name runs to the closing quote.
            if value.isEmpty, filter == .in, index < scalars.count, scalars[index] == "\"" { value = quoted() }
            query.add(filter, Self.text(value))
        }
        return query
    }

    private enum Filter: String {
        case from, `in`, has, before, after
    }

    private static func text(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        return String(text)
    }

    /// Runs of non-space scalars, joined by one space: a phrase's white space, line breaks included, is one space.
    private static func words(_ scalars: some Collection<Unicode.Scalar>) -> [ArraySlice<Unicode.Scalar>] {
        Array(scalars).split { $0.properties.isWhitespace }
    }

    private mutating func addTerm(_ raw: ArraySlice<Unicode.Scalar>, phrase: Bool) {
        var kept: [Unicode.Scalar] = []
        for word in Self.words(raw) {
            if !kept.isEmpty { kept.append(" ") }
            kept += word
        }
        guard !kept.isEmpty else { return }
        guard words.count + phrases.count < Self.termLimit else {
            note("Only the first \(Self.termLimit) words and phrases are searched for.")
            return
        }
        // Cut, without a space left at the end of a phrase cut short.
        var cut = Array(kept.prefix(Self.termLength))
        while cut.last == " " { cut.removeLast() }
        if phrase { phrases.append(Self.text(cut)) } else { words.append(Self.text(cut)) }
    }

    private mutating func add(_ filter: Filter, _ value: String) {
        switch filter {
        case .from:
            guard let handle = try? Handle.normalized(value) else { return note("from: takes a handle, like from:@ana.") }
            guard from.count < Self.filterLimit else { return note("At most \(Self.filterLimit) from: filters are used.") }
            if !from.contains(handle) { from.append(handle) }
        case .in:
            var name = Self.words(value.unicodeScalars).map { Self.text($0) }.joined(separator: " ")
            if name.unicodeScalars.first == "#" { name = Self.text(name.unicodeScalars.dropFirst()) }
            guard !name.isEmpty, name.count <= RoomName.maximumLength else { return note("in: takes a room, like in:#launch.") }
            guard rooms.count < Self.filterLimit else { return note("At most \(Self.filterLimit) in: filters are used.") }
            if !rooms.contains(name) { rooms.append(name) }
        case .has:
            guard ["photo", "photos", "image", "images"].contains(value.lowercased()) else { return note("has: takes photo, like has:photo.") }
            hasPhoto = true
        case .before, .after:
            guard let day = SearchDay(value) else { return note("\(filter.rawValue): takes a date, like \(filter.rawValue):2026-11-01.") }
            if filter == .before { before = day } else { after = day }
        }
    }

    private mutating func note(_ problem: String) {
        if !problems.contains(problem) { problems.append(problem) }
    }
}

/// A calendar day typed as YYYY-MM-DD, checked against the calendar (no 2026-02-30), years 1970 to 9999.
public struct SearchDay: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1970...9999).contains(year), (1...12).contains(month), (1...Self.days(in: month, of: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    static func days(in month: Int, of year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
    }

    public static func < (lhs: SearchDay, rhs: SearchDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
