import ParlorFixtures
import ParlorViews
import ParlorSnapshotTesting
import ParlorTemplates
import SnapshotTesting
import Testing

// Every fixture's HTML, normalised, against the snapshot committed in __Snapshots__/.
// Record new or changed ones with SNAPSHOT_TESTING_RECORD=all (or =missing) and review the diff.

@Suite struct FixtureSnapshotTests {
    @Test func everyFixtureMatchesItsSnapshot() throws {
        let templates = try TemplatesFolder.load()
        let strategy = Snapshotting<String, String>.html.pullback { (fixture: Fixture) in fixture.render(with: templates).string }
        for fixture in Fixtures.all {
            assertHTMLSnapshot(of: fixture, as: strategy, named: fixture.name.replacingOccurrences(of: "/", with: "."))
        }
    }

    @Test func aViewModelSnapshotsThroughItsOwnTemplate() throws {
        let templates = try TemplatesFolder.load()
        let world = FixtureWorld()
        let badge = ParlorViews.PageBuilder(context: world.context).unreadBadge(12)
        assertHTMLSnapshot(of: badge, as: .html(templates), named: "unread-badge-twelve")
    }
}
