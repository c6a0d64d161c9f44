import ByteOutput
import MicroHTTP
#if canImport(Glibc)
import Glibc
#endif

/// The routes Parlor serves. For now: static files, a health check and a placeholder home page.
enum ParlorRoutes {
    static func make(publicFolder: String, templatesFolder: String) throws -> Router {
        var router = Router()
        try StaticFiles(folder: publicFolder).register(on: &router, at: "/public")

        let home = try PreparedResponse(
            headers: ["Content-Type": "text/html; charset=utf-8"],
            body: try readFile(templatesFolder + "/placeholder.html")
        )
        router.get("/") { _ in .prepared(home) }

        let healthy = try PreparedResponse(headers: ["Content-Type": "text/plain; charset=utf-8"], body: OutputBuffer("ok\n".utf8))
        router.get("/healthz") { _ in .prepared(healthy) }
        return router
    }

    struct MissingFile: Error, CustomStringConvertible {
        let path: String
        var description: String { "cannot read \(path)" }
    }

    static func readFile(_ path: String) throws -> OutputBuffer {
        guard let file = fopen(path, "rb") else { throw MissingFile(path: path) }
        defer { fclose(file) }
        var buffer = OutputBuffer(capacity: 16 * 1024)
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return buffer
    }
}
