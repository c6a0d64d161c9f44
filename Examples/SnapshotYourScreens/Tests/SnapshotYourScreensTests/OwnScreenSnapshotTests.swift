import Foundation
import ParlorSnapshotTesting
import ParlorTemplates
import SnapshotTesting
import Testing

/// A screen of this package's own: a view model that lists its fields for templates and names its
/// template (`Renderable`), the template in this package's `Templates/`, and its snapshots.
struct WelcomeCard: Renderable, Hashable {
    static let templateName = "welcome-card"

    let name: String
    let handle: String
    /// Room names, already formatted for the card: templates never compute.
    let rooms: [String]

    static let templateFields = TemplateFields<WelcomeCard>(
        .text("name", \.name),
        .text("handle", \.handle),
        .list("rooms", \.rooms)
    )
}

@Suite struct OwnScreenSnapshotTests {
    static let templatesFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Templates").path

    @Test func theWelcomeCardInEachState() throws {
        let templates = try TemplateLibrary(directory: Self.templatesFolder, viewModels: [WelcomeCard.self]).templates
        assertHTMLSnapshot(of: WelcomeCard(name: "Ana Lima", handle: "ana", rooms: ["General", "Launch"]), as: .html(templates), named: "two-rooms")
        assertHTMLSnapshot(of: WelcomeCard(name: "Ben <Okafor>", handle: "ben", rooms: []), as: .html(templates), named: "no-room-escaped")
    }
}
