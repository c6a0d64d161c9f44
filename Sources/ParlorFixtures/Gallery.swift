import Foundation
import ByteOutput
import ParlorTemplates
import ParlorViews

/// The page that shows every fixture rendered; mounted at `/gallery` when the app enables it.
public enum Gallery {
    /// Builds the gallery's view model: each fixture rendered with `templates`; fragments are wrapped in a
    /// small document with the stylesheet so they look as they do in the app.
    public static func viewModel(fixtures: [Fixture] = Fixtures.all, templates: TemplateSet, layout: PageLayoutViewModel) -> GalleryViewModel {
        let entries = fixtures.map { fixture in
            var html = fixture.render(with: templates).string
            if !fixture.isPage {
                html = templates.render(GalleryFrameViewModel(stylesheetURL: layout.stylesheetURL, fragment: html)).string
            }
            return GalleryEntryViewModel(
                name: fixture.name,
                anchor: "fixture-" + fixture.name.replacingOccurrences(of: "/", with: "-"),
                viewModelName: fixture.viewModelName,
                html: html,
                isPage: fixture.isPage
            )
        }
        return GalleryViewModel(layout: layout, entries: entries)
    }

    /// Renders the gallery page.
    public static func render(fixtures: [Fixture] = Fixtures.all, templates: TemplateSet, layout: PageLayoutViewModel) -> OutputBuffer {
        templates.render(viewModel(fixtures: fixtures, templates: templates, layout: layout), capacity: 1 << 20)
    }
}
