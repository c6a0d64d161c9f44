import MicroHTTP
import ParlorFixtures
import ParlorTemplates
import ParlorViews

/// `/gallery`: every view-model fixture rendered, for designers. Off unless `parlor serve --gallery`.
/// Registered here, so the fixtures never ship inside the web module.
enum GalleryRoute {
    /// `templates` gives the set to render with at each request (reloaded ones, for designers).
    static func register(on router: inout Router, templates: @escaping @Sendable () -> TemplateSet) {
        router.get("/gallery") { _ in
            let world = FixtureWorld()
            let layout = PageBuilder(context: world.context, isSignedIn: false)
                .layout(title: "Gallery", hasLiveUpdates: false)
            return .html(Gallery.render(templates: templates(), layout: layout))
        }
    }
}
