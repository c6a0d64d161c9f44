import Foundation

/// In which order results come.
public enum SearchOrder: String, Hashable, Sendable, CaseIterable {
    /// Newest first, paged by the last message shown.
    case newest
    /// Best match first (each store ranks its own way), paged by count.
    case best
}

/// A search as a store runs it: one person's query, its filters resolved (days to instants in the person's zone),
/// and which page.
public struct MessageSearch: Hashable, Sendable {
    /// The person searching: only messages of chats they are a member of at the moment of the search.
    public var viewer: UserID
    public var terms: [SearchTerm]
    /// Handles, lowercased, without "@": sent by one of them.
    public var from: [String]
    /// Room names: sent in a room of the viewer's with one of these names (case folded).
    public var rooms: [String]
    public var hasPhoto: Bool
    /// Sent before this instant, and at or after that one.
    public var sentBefore: Date?
    public var sentFrom: Date?
    public var order: SearchOrder
    /// Newest first: only messages older than this one (the next page).
    public var olderThan: MessageID?
    /// Best match: results to pass over (the next page).
    public var offset: Int
    public var limit: Int

    /// How far "more" pages go by best match: past it, newest first pages on.
    public static let offsetLimit = 1_000

    public init(
        viewer: UserID, terms: [SearchTerm], from: [String] = [], rooms: [String] = [], hasPhoto: Bool = false, sentBefore: Date? = nil,
        sentFrom: Date? = nil, order: SearchOrder = .newest, olderThan: MessageID? = nil, offset: Int = 0, limit: Int = 20
    ) {
        self.viewer = viewer
        self.terms = terms
        self.from = from
        self.rooms = rooms
        self.hasPhoto = hasPhoto
        self.sentBefore = sentBefore
        self.sentFrom = sentFrom
        self.order = order
        self.olderThan = olderThan
        self.offset = min(max(0, offset), Self.offsetLimit)
        self.limit = min(max(1, limit), 100)
    }

    /// The search a parsed query asks for; `dayStart` turns a typed day into the instant it starts for the viewer.
    public init(viewer: UserID, query: SearchQuery, dayStart: (SearchDay) -> Date?, order: SearchOrder = .newest, olderThan: MessageID? = nil, offset: Int = 0, limit: Int = 20) {
        var sentFrom: Date?
        if let after = query.after { sentFrom = dayStart(after) }
        self.init(
            viewer: viewer, terms: SearchTerm.terms(of: query), from: query.from, rooms: query.rooms, hasPhoto: query.hasPhoto,
            sentBefore: query.before.flatMap(dayStart), sentFrom: sentFrom, order: order, olderThan: olderThan, offset: offset, limit: limit
        )
    }

    /// Whether a room called `name` is one `in:` names (case and accents folded, as a person types them).
    public func namesRoom(_ name: String?) -> Bool {
        guard let name else { return false }
        let folded = SearchText.fold(name)
        return rooms.contains { SearchText.fold($0) == folded }
    }

    /// Nothing to look for: no term and no filter. A store answers no results.
    public var isEmpty: Bool { terms.isEmpty && from.isEmpty && rooms.isEmpty && !hasPhoto && sentBefore == nil && sentFrom == nil }
}

/// One page of results, with what the page shows of each: its chat's heading for the viewer and its author,
/// read with the results.
public struct SearchResults: Hashable, Sendable {
    /// In the order asked for.
    public let messages: [Message]
    /// Whether another page exists.
    public let hasMore: Bool
    /// How each result's chat is called for the viewer (a room's name, the people of a direct chat).
    public let headings: [ChatID: ChatHeading]
    /// The results' authors.
    public let people: [UserID: User]

    public init(messages: [Message], hasMore: Bool, headings: [ChatID: ChatHeading] = [:], people: [UserID: User] = [:]) {
        self.messages = messages
        self.hasMore = hasMore
        self.headings = headings
        self.people = people
    }

    public static let none = SearchResults(messages: [], hasMore: false)
}

/// Where messages are found. Authorisation is part of the search: only messages of chats the viewer is a member
/// of at that moment, never deleted ones, never lines about a room; an edited message by its current text.
public protocol SearchStore: Sendable {
    func search(_ search: MessageSearch) async throws -> SearchResults
}
