#if canImport(Glibc)
import Glibc
#endif

/// Serves the regular files below one folder, with validators for caching, and nothing
/// else: no listings, no hidden files, no way out of the folder whatever the encoding.
public struct StaticFiles: Sendable {
    /// The folder, fully resolved (symlinks included).
    public let root: String
    /// The `Cache-Control` sent with every file. Default "no-cache": browsers keep a copy but
    /// revalidate it with `If-None-Match`, which costs one 304.
    public let cacheControl: String

    /// Serves `folder`. Throws if it is not a readable folder.
    public init(folder: String, cacheControl: String = "no-cache") throws(MicroHTTPError) {
        guard let resolved = realpath(folder, nil) else { throw .invalidConfiguration("\(folder) does not exist") }
        defer { free(resolved) }
        var info = stat()
        guard stat(resolved, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .invalidConfiguration("\(folder) is not a folder")
        }
        root = String(cString: resolved)
        self.cacheControl = cacheControl
    }

    /// Adds `GET prefix/{path...}` to `router`.
    public func register(on router: inout Router, at prefix: String = "/public") {
        let files = self
        router.get("\(prefix)/{path...}") { request in try files.response(for: request.parameters["path"] ?? "", request: request) }
    }

    /// The response for `relativePath`; throws 404 for anything that is not a regular file
    /// inside the folder.
    public func response(for relativePath: String, request: Request) throws(HTTPError) -> Response {
        let notFound = HTTPError(.notFound, "There is no such file.")
        let segments = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        guard !relativePath.isEmpty,
              !relativePath.contains("\\"), !relativePath.contains("\0"),
              segments.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") })
        else { throw notFound }
        guard let resolved = realpath(root + "/" + relativePath, nil) else { throw notFound }
        let path = String(cString: resolved)
        free(resolved)
        guard path.hasPrefix(root + "/") else { throw notFound }  // a symlink pointing out

        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw notFound }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw notFound
        }
        let modified = Int(info.st_mtim.tv_sec)
        let tag = "\"\(String(info.st_size, radix: 16))-\(String(modified, radix: 16))\(String(info.st_mtim.tv_nsec, radix: 16))\""
        var headers: HTTPHeaders = [
            "ETag": tag,
            "Last-Modified": HTTPDate.format(modified),
            "Cache-Control": cacheControl,
        ]
        if Self.isFresh(request: request, tag: tag, modified: modified) {
            close(descriptor)
            return Response(status: .notModified, headers: headers)
        }
        headers.add("Content-Type", MediaType.forFile(named: segments.last!))
        headers.add("X-Content-Type-Options", "nosniff")
        return Response(status: .ok, headers: headers, body: .file(FileBody(descriptor: descriptor, size: UInt64(info.st_size))))
    }

    /// Whether the client's copy is current: `If-None-Match` decides when present, else `If-Modified-Since`.
    static func isFresh(request: Request, tag: String, modified: Int) -> Bool {
        if let candidates = request.headers["If-None-Match"] {
            return candidates.split(separator: ",").contains { candidate in
                let trimmed = candidate.trimmingSpaces
                return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
            }
        }
        if let since = request.headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            return modified <= since
        }
        return false
    }
}
