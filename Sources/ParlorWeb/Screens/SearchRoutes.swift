import Foundation
import MicroHTTP
import ParlorDomain
import ParlorViews

/// `/search`: what the header's search field finds. A plain GET form, so it works without the script; the
/// script asks for the results region alone (`fragment=1`) as the person types and swaps it in.
public struct SearchRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let store: any ChatReads & SearchStore

        public init(gate: SignInGate, pages: WebPages, store: any ChatReads & SearchStore) {
            self.gate = gate
            self.pages = pages
            self.store = store
        }
    }

    let dependencies: Dependencies
    private var gate: SignInGate { dependencies.gate }
    private var pages: WebPages { dependencies.pages }
    private var store: any ChatReads & SearchStore { dependencies.store }

    /// Results a page.
    static let pageSize = 20

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        router.get("/search", gate.signedIn { [self] request, signedIn in try await searchPage(request, signedIn) })
    }

    private func searchPage(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        // The parser reads at most its limit of scalars; a longer field is cut before it is copied.
        let text = String((request.query["q"] ?? "").unicodeScalars.prefix(SearchQuery.inputLimit))
        let query = SearchQuery.parse(text)
        let order = request.query["order"].flatMap(SearchOrder.init(rawValue:)) ?? .newest
        let before = request.query["before"].flatMap(Int64.init).flatMap { $0 > 0 ? MessageID($0) : nil }
        let offset = request.query["offset"].flatMap(Int.init).map { min(max(0, $0), MessageSearch.offsetLimit) } ?? 0
        let context = pages.context(signedIn)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = context.dates.timeZone
        let search = MessageSearch(
            viewer: signedIn.user.id, query: query, dayStart: { calendar.date(from: DateComponents(year: $0.year, month: $0.month, day: $0.day)) },
            order: order, olderThan: before, offset: offset, limit: Self.pageSize
        )
        let found = try await store.search(search)
        let results = SearchBuilder(context: context).results(text: text, query: query, order: order, offset: offset, found: found)
        if request.query["fragment"] == "1" { return pages.page(results) }
        let layout = PageBuilder(context: context).layout(
            title: query.isEmpty ? "Search" : "Search: \(query.description)", unreadTotal: try await store.unreadTotal(for: signedIn.user.id),
            searchQuery: text
        )
        return pages.page(SearchPageViewModel(layout: layout, results: results))
    }
}
