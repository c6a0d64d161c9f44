import Foundation
import HTTPTestSupport
import Testing

/// The image limits of `parlor serve`'s flags reach the checks: the same photo header is refused for its
/// pixels under `--image-megapixels 1`, and gets as far as libvips (which finds no pixels) by default.
@Suite struct ImageLimitFlagsTests {
    /// A baseline JPEG's start claiming 2000x1000, with nothing after its frame header.
    static let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 8, 0x03, 0xE8, 0x07, 0xD0, 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0, 0xFF, 0xDA, 0x00, 0x02]

    static func refusal(_ arguments: [String]) async throws -> String {
        let parlor = try ServeCommandTests.RunningParlor(arguments: arguments)
        try await parlor.waitUntilListening()
        let person = Visitor(port: parlor.port)
        #expect(try await person.signUp("limits").status == 303)
        try await person.get("/settings")
        let response = try await person.postFile("/settings/avatar", field: "avatar", filename: "big.jpg", contentType: "image/jpeg", bytes: Self.header)
        _ = try await parlor.terminate()
        #expect(response.status == 422)
        return response.text
    }

    @Test(.timeLimit(.minutes(1))) func theMegapixelFlagDecides() async throws {
        #expect(try await Self.refusal(["--image-megapixels", "1"]).contains("at most 1 megapixels"))
        let byDefault = try await Self.refusal([])
        #expect(!byDefault.contains("megapixels") && byDefault.contains("could not be read"))
    }
}

/// A photo whose header is fine but whose pixels stop halfway, sent in a message to the real binary (real
/// libvips): accepted by its header, it fails in the image worker, and the cell says so for both people
/// while the text stays.
@Suite struct TruncatedPhotoTests {
    @Test(.timeLimit(.minutes(1))) func aJPEGCutShortFailsVisiblyAndKeepsItsText() async throws {
        let parlor = try ServeCommandTests.RunningParlor(arguments: ["--log-level", "notice"])
        try await parlor.waitUntilListening()
        let ana = Visitor(port: parlor.port)
        #expect(try await ana.signUp("cutana").status == 303)
        let ben = Visitor(port: parlor.port)
        #expect(try await ben.signUp("cutben").status == 303)
        let chat = try await ana.startChat(with: "cutben")
        try await ana.get(chat)
        let cut = Array(ImageCrashTests.photo.prefix(ImageCrashTests.photo.count / 2))
        let sent = try await ana.postFile(
            chat + "/messages", field: "photo", filename: "cut.jpg", contentType: "image/jpeg", bytes: cut,
            fields: [("body", "Half a photo"), ("token", "cut-1")]
        )
        #expect(sent.status == 303, "accepted by its header")
        var page = ""
        for _ in 0..<200 {
            page = try await ben.get(chat).text
            if !page.contains("Processing photo…") { break }
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(page.contains("This photo could not be processed") && page.contains("Half a photo"))
        #expect(try await ana.get(chat).text.contains("This photo could not be processed"))
        #expect(try await parlor.terminate() == 0)
    }
}
