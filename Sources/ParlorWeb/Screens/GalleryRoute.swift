import Foundation
import MicroHTTP
import ParlorFixtures
import ParlorTemplates
import ParlorViews

/// `/gallery`: every view-model fixture rendered, for designers. Off unless `parlor serve --gallery`.
enum GalleryRoute {
    static func register(on router: inout Router, templates: PageTemplates) {
        router.get("/gallery") { _ in
            let world = FixtureWorld()
            let layout = PageBuilder(context: world.context, isSignedIn: false)
                .layout(title: "Gallery", hasLiveUpdates: false)
            return .html(Gallery.render(templates: templates.current, layout: layout))
        }
    }
}
