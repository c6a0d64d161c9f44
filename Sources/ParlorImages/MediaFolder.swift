import Foundation
import ParlorDomain
#if canImport(Glibc)
import Glibc
#endif

/// Image files, named by a hash of their bytes ("3f/3fa4…c2.webp": Parlor gives BLAKE2b-256), so a file is
/// written once however many images share it, and never changes. A file is written under a temporary name, flushed,
/// renamed, and its folder flushed: a crash or a power loss leaves no half file under a real name. Files
/// are written before the row that names them, so a row never points at nothing.
public struct MediaFolder: Sendable {
    public let path: String
    /// The name of a file with these bytes: lower-case hex, at least two characters.
    let contentHash: @Sendable ([UInt8]) -> String

    public init(path: String, contentHash: @escaping @Sendable ([UInt8]) -> String) {
        self.path = path
        self.contentHash = contentHash
    }

    /// Writes each version's bytes and answers what the store records of them.
    public func store(_ versions: [ImageVersion]) throws -> [StoredImageVersion] {
        try versions.map { version in
            let hash = contentHash(version.bytes)
            try write(version.bytes, to: file(hash: hash, format: version.format))
            return StoredImageVersion(
                role: version.role, format: version.format, width: version.width, height: version.height, hash: hash, byteCount: version.bytes.count
            )
        }
    }

    /// Whether every version's file is here, each touched so that a sweep leaves it for its grace: a picture written
    /// a while ago, about to be named by a new image row, is not taken meanwhile.
    public func keep(_ versions: [StoredImageVersion]) -> Bool {
        versions.allSatisfy { version in
            guard let path = try? file(hash: version.hash, format: version.format) else { return false }
            return (try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)) != nil
        }
    }

    /// Removes files no image row names (and temporary ones): what a crash between writing the files and
    /// recording the image left behind. Only files older than `grace`, so an upload still on its way to
    /// its row (in this or another instance) keeps its files. Answers how many went.
    public func sweep(keeping hashes: Set<String>, now: Date, grace: TimeInterval = 600) -> Int {
        let manager = FileManager.default
        guard let folders = try? manager.contentsOfDirectory(atPath: path) else { return 0 }
        var removed = 0
        for folder in folders where folder.utf8.count == 2 {
            let folderPath = path + "/" + folder
            for name in (try? manager.contentsOfDirectory(atPath: folderPath)) ?? [] {
                let hash = String(name.prefix { $0 != "." })
                let isTemporary = name.contains(".part-")
                guard isTemporary || !hashes.contains(hash) else { continue }
                if Self.removeIfOlder(than: grace, folderPath + "/" + name, now: now) { removed += 1 }
            }
        }
        return removed
    }

    /// Removes `file` when it was last changed more than `grace` before `now`; answers whether it went.
    private static func removeIfOlder(than grace: TimeInterval, _ file: String, now: Date) -> Bool {
        guard let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date,
              now.timeIntervalSince(modified) > grace
        else { return false }
        return unlink(file) == 0
    }

    /// Uploads of photos still to process, under names Parlor chose ("<uuid>.jpg"); each is removed once its
    /// photo is ready or has failed.
    public var originals: String { path + "/originals" }

    /// Moves an upload into ``originals`` (renamed when on the same file system, copied otherwise), flushed
    /// to disk with its folder before the row that names it is written. Answers its name there.
    public func keepOriginal(upload: String, format: ImageFormat) throws -> String {
        try FileManager.default.createDirectory(atPath: originals, withIntermediateDirectories: true)
        let name = UUID().uuidString.lowercased() + "." + format.fileExtension
        let target = originals + "/" + name
        if rename(upload, target) != 0 {
            guard errno == EXDEV, let bytes = FileManager.default.contents(atPath: upload) else { throw MediaError.cannotWrite }
            try write(Array(bytes), to: target)
            return name
        }
        let descriptor = open(target, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw MediaError.cannotWrite }
        let flushed = fsync(descriptor) == 0
        close(descriptor)
        guard flushed, flush(folder: originals) else {
            unlink(target)
            throw MediaError.cannotWrite
        }
        return name
    }

    /// The path of an original, when `name` is one Parlor gives (no folder in it, not hidden).
    public func original(_ name: String) -> String? {
        guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/"), name.utf8.count <= 64 else { return nil }
        return originals + "/" + name
    }

    public func removeOriginal(_ name: String) {
        if let path = original(name) { unlink(path) }
    }

    /// Removes originals no pending photo names, once older than `grace`: an upload whose message was
    /// never stored, or was deleted before its photo was processed.
    public func sweepOriginals(keeping names: Set<String>, now: Date, grace: TimeInterval = 600) -> Int {
        let unnamed = ((try? FileManager.default.contentsOfDirectory(atPath: originals)) ?? []).filter { !names.contains($0) }
        return unnamed.filter { Self.removeIfOlder(than: grace, originals + "/" + $0, now: now) }.count
    }

    /// Where a version's file is; the hash is checked to be what this folder writes (64 hex digits).
    public func file(hash: String, format: ImageFormat) throws -> String {
        guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw MediaError.badName
        }
        return path + "/" + hash.prefix(2) + "/" + hash + "." + format.fileExtension
    }

    private func write(_ bytes: [UInt8], to file: String) throws {
        if FileManager.default.fileExists(atPath: file) { return }
        let folder = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = file + ".part-" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else { throw MediaError.cannotWrite }
        var ok = bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        ok = ok && fsync(descriptor) == 0
        close(descriptor)
        guard ok, rename(temporary, file) == 0 else {
            unlink(temporary)
            throw MediaError.cannotWrite
        }
        // The rename itself must reach the disk before the row that names the file: flush the folder too.
        guard flush(folder: folder) else { throw MediaError.cannotWrite }
    }

    private func flush(folder: String) -> Bool {
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return false }
        defer { close(directory) }
        return fsync(directory) == 0
    }

    enum MediaError: Error {
        case cannotWrite
        case badName
    }
}

extension ImageFormat {
    /// The extension of its files ("webp").
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        }
    }

}
