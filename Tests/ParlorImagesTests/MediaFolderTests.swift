import Foundation
import ParlorDomain
import ParlorImages
import Testing

/// The media folder: files by the hash of their bytes, swept when no image names them and they are past their grace;
/// a picture kept for reuse (a link card's, an hour in the previewer's memory) is touched so the sweep spares it.
@Suite struct MediaFolderTests {
    /// A folder of its own, its hash the first byte repeated (64 hex digits, as the folder's names are).
    static func folder() throws -> MediaFolder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-media-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return MediaFolder(path: path) { bytes in String(repeating: String(format: "%02x", bytes.first ?? 0), count: 32) }
    }

    static func version(_ byte: UInt8) -> ImageVersion {
        ImageVersion(role: .thumbnail, format: .webp, width: 320, height: 168, bytes: [byte, 1, 2, 3])
    }

    @Test func aSweepTakesUnnamedOldFilesAndKeepSparesAReusedOne() throws {
        let media = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: media.path) }
        let named = try media.store([Self.version(0xaa)])
        let reused = try media.store([Self.version(0xbb)])
        let forgotten = try media.store([Self.version(0xcc)])
        let later = Date().addingTimeInterval(3_600)

        // An hour on, nothing names the last two; the second is kept for reuse a moment before the sweep.
        let old = Date().addingTimeInterval(-3_600)
        for version in named + reused + forgotten {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: try media.file(hash: version.hash, format: version.format))
        }
        #expect(media.keep(reused))
        #expect(media.sweep(keeping: Set(named.map(\.hash)), now: Date()) == 1, "only the forgotten one")
        #expect(media.keep(named) && media.keep(reused))
        #expect(!media.keep(forgotten), "gone: a card reusing it would name nothing")
        #expect(media.sweep(keeping: Set(named.map(\.hash)), now: later) == 1, "kept once, not forever")
        #expect(!media.keep(reused) && media.keep(named))
    }
}
