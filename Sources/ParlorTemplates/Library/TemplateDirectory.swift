#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ByteOutput

/// The `.mustache` files under a folder, named by their path without the extension (`partials/message-cell`).
struct TemplateDirectory {
    struct Entry: Equatable {
        /// When the file last changed, as the file system says.
        struct Modified: Equatable {
            let seconds: Int
            let nanoseconds: Int
        }

        let name: String
        let path: String
        let modified: Modified
        let size: Int
    }

    let path: String

    /// Every template file, sorted by name; hidden files and folders are skipped.
    func entries() throws(TemplateLoadError) -> [Entry] {
        var found: [Entry] = []
        try walk(path, prefix: "", into: &found)
        return found.sorted { $0.name < $1.name }
    }

    /// Reads every file as a source.
    func sources(_ entries: [Entry]) throws(TemplateLoadError) -> [TemplateSource] {
        var sources: [TemplateSource] = []
        for entry in entries {
            let contents: OutputBuffer
            do {
                contents = try OutputBuffer(contentsOfFile: entry.path)
            } catch {
                throw Self.failure(entry.path, error.description)
            }
            guard let text = contents.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
                throw Self.failure(entry.path, "is not valid UTF-8")
            }
            sources.append(TemplateSource(name: entry.name, text: text, origin: entry.path))
        }
        return sources
    }

    private func walk(_ directory: String, prefix: String, into found: inout [Entry]) throws(TemplateLoadError) {
        guard let handle = opendir(directory) else {
            throw Self.failure(directory, "cannot be opened as the templates folder (\(String(cString: strerror(errno))))")
        }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                try walk(path, prefix: prefix + name + "/", into: &found)
            } else if (info.st_mode & S_IFMT) == S_IFREG, name.hasSuffix(".mustache") {
                // A file's time can be anything its owner set (year 30000 included): compared as a pair, never
                // multiplied into one number that could overflow.
                let modified = Entry.Modified(seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
                found.append(Entry(
                    name: prefix + String(name.dropLast(".mustache".count)),
                    path: path,
                    modified: modified,
                    size: Int(info.st_size)
                ))
            }
        }
    }

    private static func failure(_ path: String, _ message: String) -> TemplateLoadError {
        TemplateLoadError(errors: [TemplateError(origin: path, line: 0, message: message)])
    }
}
