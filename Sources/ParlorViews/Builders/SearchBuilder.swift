import Foundation
import ParlorDomain

/// Builds the results of a search for one viewer: each message with its chat's name, its author, its date in
/// the viewer's zone and language, and its text cut around the match.
public struct SearchBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// What the store found for `text`, read as `query` (with each result's chat heading and author, and whether
    /// there is a next page).
    public func results(text: String, query: SearchQuery, order: SearchOrder, offset: Int, found: SearchResults) -> SearchResultsViewModel {
        let shown = query.description
        let paths = context.paths
        guard !query.isEmpty else {
            return SearchResultsViewModel(
                heading: "Search messages", problems: query.problems, orders: [], results: [], moreURL: nil,
                emptyText: query.problems.isEmpty && text.isEmpty ? nil : "Type a word to look for.", withoutFiltersURL: nil, hints: Self.hints
            )
        }
        let terms = SearchTerm.terms(of: query)
        let results = found.messages.map { message in
            let author = found.people[message.senderID]
            let name = message.feed?.source ?? author?.displayName ?? "Someone"
            let chatName = found.headings[message.chatID].map(Headings.title) ?? "A chat"
            // "You" for the viewer's own words; no author where the chat is named after them (a direct chat of two).
            let said = message.feed == nil && message.senderID == context.viewer.id ? "You" : name
            return SearchResultViewModel(
                domID: "search-result-\(message.id)",
                url: paths.message(message.id, in: message.chatID),
                chatName: chatName,
                authorName: said == chatName ? nil : said,
                avatar: author.map { AvatarBuilder.avatar(for: $0, paths: paths) } ?? AvatarBuilder.avatar(forRoom: message.chatID, name: name),
                dateLabel: context.dates.dayLabel(message.createdAt, days: context.days) + ", " + context.dates.timeOfDay(message.createdAt),
                isoDate: DateLabels.iso(message.createdAt),
                snippet: SearchSnippet.runs(message.body, terms: terms).map { SnippetRunViewModel(text: $0.text, isMatch: $0.isMatch) },
                photoLabel: message.photo == nil ? nil : "Photo"
            )
        }
        var moreURL: String?
        if found.hasMore {
            switch order {
            case .newest: moreURL = found.messages.last.map { paths.search(shown, before: $0.id) }
            case .best: moreURL = paths.search(shown, order: .best, offset: offset + found.messages.count)
            }
        }
        let plain = query.withoutFilters
        return SearchResultsViewModel(
            heading: "Messages with \(shown)",
            problems: query.problems,
            orders: SearchOrder.allCases.map { candidate in
                SearchOrderViewModel(label: candidate == .newest ? "Newest first" : "Best match", url: paths.search(shown, order: candidate), isCurrent: candidate == order)
            },
            results: results,
            moreURL: moreURL,
            emptyText: results.isEmpty ? (offset > 0 ? "No more messages match \(shown)." : "No messages match \(shown).") : nil,
            withoutFiltersURL: results.isEmpty && query.hasFilters && !plain.isEmpty ? paths.search(plain.description) : nil,
            hints: []
        )
    }

    /// What the query language offers, shown before anything is typed.
    static let hints = [
        "Words find messages with all of them, in any order; the start of a word is enough: deplo finds deployment.",
        "\"Exact phrase\" finds those words in a row.",
        "from:@ana finds Ana's messages; in:#launch those of a room; has:photo those with a photo.",
        "before:2026-11-01 and after:2026-11-01 keep messages sent before that day, or from it on.",
    ]
}
