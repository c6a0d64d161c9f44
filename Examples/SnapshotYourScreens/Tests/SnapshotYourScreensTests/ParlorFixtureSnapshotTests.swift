import Foundation
import ParlorFixtures
import ParlorSnapshotTesting
import ParlorTemplates
import ParlorViews
import SnapshotTesting
import Testing

/// Every state of every Parlor screen (`Fixtures.all`) through Parlor's own `Templates/` folder: change a
/// template, run the tests, and the diff shows what changed in which state. The first run records the
/// snapshots in `__Snapshots__/` (never when `CI` is set: there a missing snapshot fails).
@Suite struct ParlorFixtureSnapshotTests {
    /// Parlor's templates, two folders above this package (a checkout of Parlor).
    static let parlorTemplates = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../../Templates").standardized.path

    @Test func everyParlorScreenMatchesItsSnapshot() throws {
        let templates = try TemplateLibrary(directory: Self.parlorTemplates, viewModels: ParlorViewModels.renderable).templates
        let strategy = Snapshotting<String, String>.html.pullback { (fixture: Fixture) in fixture.render(with: templates).string }
        for fixture in Fixtures.all {
            assertHTMLSnapshot(of: fixture, as: strategy, named: fixture.name.replacingOccurrences(of: "/", with: "."))
        }
    }
}
