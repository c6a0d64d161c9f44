import ByteOutput
import Mustache
import ParlorFixtures
import ParlorTemplates
import ParlorViews
import Testing

// Every fixture renders through Parlor's templates exactly as swift-mustache renders it, every state
// renders, and a cell rendered alone is the same bytes as inside its page.

@Suite struct FixtureRenderingTests {
    @Test func theTemplatesInTheRepositoryLoadForEveryViewModel() throws {
        let templates = try TemplatesFolder.load()
        for type in ParlorViewModels.renderable {
            func check<ViewModel: Renderable>(_ type: ViewModel.Type) -> Bool { templates.contains(type) }
            let loaded = check(type)
            #expect(loaded, "\(type)")
        }
        #expect(templates.unusedTemplates == [], "templates no view model uses")
    }

    @Test func fixtureNamesAreUnique() {
        let names = Fixtures.all.map(\.name)
        #expect(Set(names).count == names.count)
    }

    @Test func everyRenderableViewModelHasAFixture() {
        let covered = Set(Fixtures.all.map(\.viewModelName))
        for type in ParlorViewModels.renderable where type != GalleryViewModel.self && type != GalleryFrameViewModel.self {
            #expect(covered.contains(String(describing: type)), "no fixture for \(type)")
        }
    }

    @Test func everyFixtureRendersTheSameBytesAsSwiftMustache() async throws {
        let templates = try TemplatesFolder.load()
        let oracle = try await MustacheLibrary(directory: TemplatesFolder.path)
        for fixture in Fixtures.all {
            let ours = fixture.render(with: templates).string
            let theirs = try #require(oracle.render(fixture.viewModel, withTemplate: fixture.templateName))
            #expect(ours == theirs, "\(fixture.name)")
            #expect(!ours.isEmpty)
        }
    }

    @Test func aCellRenderedAloneIsTheSameBytesAsInsideItsPage() throws {
        let templates = try TemplatesFolder.load()
        let page = try #require(Fixtures.all.first { $0.name == "chats-page/conversation-open" }?.viewModel as? ChatsPageViewModel)
        let html = templates.render(page).string
        let conversation = try #require(page.conversation)
        var fragments: [String] = [
            templates.render(page.chatList).string,
            templates.render(conversation).string,
            templates.render(conversation.composer).string,
        ]
        fragments += page.chatList.items.map { templates.render($0).string }
        fragments += conversation.days.map { templates.render($0).string }
        fragments += conversation.days.flatMap(\.messages).map { templates.render($0).string }
        #expect(fragments.count > 15)
        for fragment in fragments {
            #expect(html.contains(fragment), "\(fragment.prefix(80))")
        }
    }
}
