import Foundation
import ParlorDomain
import ParlorViews

extension Fixtures {
    /// The search page and its results region: found (newest first, with a photo and a page more), nothing found
    /// with filters to drop, before anything was typed, and hostile text with matches inside it.
    static var search: [Fixture] {
        let world = FixtureWorld()
        let builder = SearchBuilder(context: world.context)
        let pages = PageBuilder(context: world.context)
        let headings: [ChatID: ChatHeading] = [
            ChatID(7): ChatHeading(kind: .direct, name: nil, topic: nil, memberCount: 2, contact: world.ben), ChatID(13): world.general,
        ]
        let people = [world.ana.id: world.ana, world.ben.id: world.ben, world.dmitri.id: world.dmitri]
        let long = "Notes from Monday: we looked at the budget, the venue, the catering and the music, and then at length at the "
            + "deployment plan for the new release, which goes out on Friday after the tests; questions to Dmitri before Thursday please."
        var photo = world.message(98, chat: 7, from: world.ben, "The deploy board, as of this morning", at: "2026-11-19T08:30:00Z")
        photo = photo.with(photo: MessagePhoto(id: ImageID(55), state: .ready, width: 640, height: 480))
        let found = SearchResults(messages: [
            world.message(121, chat: 13, from: world.dmitri, long, at: "2026-11-20T10:00:00Z"),
            world.message(110, chat: 7, from: world.ana, "Did the *deploy* go well? https://example.org/deploy-notes", at: "2026-11-20T08:00:00Z"),
            photo,
        ], hasMore: true, headings: headings, people: people)
        func page(_ text: String, _ results: SearchResultsViewModel) -> SearchPageViewModel {
            SearchPageViewModel(layout: pages.layout(title: "Search", unreadTotal: 3, searchQuery: text), results: results)
        }
        let deploy = SearchQuery.parse("deplo")
        let filtered = SearchQuery.parse("deploy from:@chloe before:2026-11-01 after:2026-13-01")
        let hostileText = hostileStrings[0] + " " + hostileStrings[1] + " " + hostileStrings[6] + " deploy"
        let hostileQuery = SearchQuery.parse("script amp \"onerror alert\" deploy")
        let hostile = SearchResults(
            messages: [world.message(130, chat: 7, from: world.ben, hostileText, at: "2026-11-20T12:00:00Z")], hasMore: false, headings: headings,
            people: people
        )
        return [
            Fixture("search-page/found", page("deplo", builder.results(
                text: "deplo", query: deploy, order: .newest, offset: 0, found: found
            )), isPage: true),
            Fixture("search-page/nothing-with-filters", page(filtered.description, builder.results(
                text: filtered.description, query: filtered, order: .newest, offset: 0, found: .none
            )), isPage: true),
            Fixture("search-page/before-typing", page("", builder.results(
                text: "", query: SearchQuery(), order: .newest, offset: 0, found: .none
            )), isPage: true),
            Fixture("search-results/best-match-hostile", builder.results(
                text: hostileQuery.description, query: hostileQuery, order: .best, offset: 20, found: hostile
            )),
        ]
    }
}
