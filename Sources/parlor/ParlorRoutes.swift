import ByteOutput
import MicroHTTP

/// The routes Parlor serves. For now: static files, a health check and a placeholder home page.
enum ParlorRoutes {
    static func make(publicFolder: String, templatesFolder: String) throws -> Router {
        var router = Router()
        try StaticFiles(folder: publicFolder).register(on: &router, at: "/public")

        let home = try PreparedResponse(
            headers: ["Content-Type": "text/html; charset=utf-8"],
            body: try OutputBuffer(contentsOfFile: templatesFolder + "/placeholder.html")
        )
        router.get("/") { _ in .prepared(home) }

        let healthy = try PreparedResponse(headers: ["Content-Type": "text/plain; charset=utf-8"], body: OutputBuffer("ok\n".utf8))
        router.get("/healthz") { _ in .prepared(healthy) }
        return router
    }
}
