import ByteOutput
import MicroHTTP

/// The routes Parlor serves. For now: static files, a health check, a placeholder home page and,
/// when enabled, the gallery of every screen state.
enum ParlorRoutes {
    static func make(publicFolder: String, templatesFolder: String, templates: PageTemplates, gallery: Bool) throws -> Router {
        var router = Router()
        try StaticFiles(folder: publicFolder).register(on: &router, at: "/public")

        let home = try PreparedResponse(
            headers: ["Content-Type": "text/html; charset=utf-8"],
            body: try OutputBuffer(contentsOfFile: templatesFolder + "/placeholder.html")
        )
        router.get("/") { _ in .prepared(home) }

        let healthy = try PreparedResponse(headers: ["Content-Type": "text/plain; charset=utf-8"], body: OutputBuffer("ok\n".utf8))
        router.get("/healthz") { _ in .prepared(healthy) }
        if gallery { GalleryRoute.register(on: &router, templates: templates) }
        return router
    }
}
