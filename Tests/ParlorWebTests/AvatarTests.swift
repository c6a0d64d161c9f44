import Foundation
import HTTPTestSupport
import Testing

/// A face for an account: uploaded in Settings, shown wherever the person is, to those who share a chat or room
/// with them (everyone shares the open rooms).
/// The image service here is the in-memory one (it refuses by the bytes and the size as the real one does);
/// real processing is tested on libvips in ParlorImagesTests.
@Suite struct AvatarTests {
    static let gif = Array("GIF89a".utf8) + [0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x21, 0xF9, 0x04]

    static func mediaFiles(_ parlor: RunningParlor) -> [String] {
        let folder = parlor.folder.appendingPathComponent("media").path
        return (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.contains(".") }
    }

    @Test func aPhotoInSettingsBecomesTheFaceEveryoneWhoSharesAChatWithThePersonSees() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé")
            // Ben has Ana's conversation open, live.
            let id = String(chat.split(separator: "/").last!)
            let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
            _ = try await stream.read(until: "target=\"messages-\(id)\"")

            try await ana.get("/settings")
            let set = try await ana.postFile("/settings/avatar", field: "avatar", filename: "me.gif", contentType: "image/gif", bytes: Self.gif)
            #expect(set.status == 303 && set.header("Location") == "/settings?avatar=changed#avatar")
            let settings = try await ana.get("/settings?avatar=changed").text
            #expect(settings.contains("Photo changed."))
            let url = try #require(settings.firstMatch(of: /src="(\/images\/\d+\/avatarSmall)"/).map { String($0.1) })
            // Live: Ben's open conversation is drawn again with Ana's face.
            let update = try await stream.read(until: "target=\"messages-\(id)\"")
            let header = try #require(update.range(of: "target=\"conversation-header-\(id)\""), "the header is drawn again")
            #expect(update[header.upperBound...].contains(url), "with her face")

            let own = try await ana.get(url)
            #expect(own.status == 200 && own.header("Content-Type") == "image/gif" && Array(own.body) == Self.gif)
            #expect(own.header("Cache-Control") == "private, max-age=31536000, immutable")
            #expect(own.header("X-Content-Type-Options") == "nosniff" && own.header("Content-Security-Policy") == "default-src 'none'; sandbox")
            let tag = try #require(own.header("ETag"))
            #expect(try await ana.get(url, headers: ["If-None-Match: \(tag)"]).status == 304)
            #expect(try await ben.get(url).status == 200, "Ben chats with Ana")
            #expect(try await chloe.get(url).status == 200, "Chloé shares the open room General with her")
            #expect(try await parlor.visitor().get(url).status == 303, "nobody signed in")
            #expect(try await ana.get(url.replacingOccurrences(of: "avatarSmall", with: "display")).status == 404, "no such version")
            #expect(try await ana.get("/images/99999/avatarSmall").status == 404)
            #expect(try await ben.get(chat).text.contains(url), "Ben's page shows her face")
            // And back to initials.
            try await ana.get("/settings")
            let removed = try await ana.post("/settings/avatar/remove", [])
            #expect(removed.status == 303 && removed.header("Location") == "/settings?avatar=removed#avatar")
            let after = try await ana.get("/settings?avatar=removed").text
            #expect(after.contains("Photo removed.") && !after.contains("/images/") && !after.contains("Remove photo"))
            #expect(!(try await ben.get(chat).text.contains(url)), "Ben sees her initials again")
        }
    }

    @Test func theSweepRemovesMediaFilesNoImageNamesOnceTheyAreOld() async throws {
        let first = try await RunningParlor()
        let media = first.folder.appendingPathComponent("media").path
        do {
            let ana = Visitor(port: first.port)
            try await ana.signUp("ana", name: "Ana Lima")
            try await ana.get("/settings")
            #expect(try await ana.postFile("/settings/avatar", field: "avatar", filename: "me.gif", contentType: "image/gif", bytes: Self.gif).status == 303)
        }
        await first.stop()
        let kept = Self.mediaFiles(first)
        #expect(!kept.isEmpty)
        // What a crash between writing files and recording their image leaves, an hour ago and just now.
        let old = Date().addingTimeInterval(-3_600)
        func stray(_ name: String, age: Date) throws {
            let folder = media + "/" + name.prefix(2)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder + "/" + name))
            try FileManager.default.setAttributes([.modificationDate: age], ofItemAtPath: folder + "/" + name)
        }
        let orphan = String(repeating: "ab", count: 32) + ".webp"
        let fresh = String(repeating: "cd", count: 32) + ".webp"
        let partial = String(repeating: "ef", count: 32) + ".webp.part-1234"
        try stray(orphan, age: old)
        try stray(fresh, age: Date())
        try stray(partial, age: old)
        for existing in kept {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: media + "/" + existing)
        }
        let second = try await RunningParlor(folder: first.folder)
        await second.sweepMedia()
        let after = Set(Self.mediaFiles(second).map { String($0.split(separator: "/").last!) })
        await second.finish()
        #expect(Set(kept.map { String($0.split(separator: "/").last!) }).isSubset(of: after), "the avatar's files stay")
        #expect(!after.contains(orphan) && !after.contains(partial), "old leftovers go")
        #expect(after.contains(fresh), "a file that may be on its way to its row stays")
    }

    @Test func whatIsNotAPhotoIsRefusedAtTheFieldAndChangesNothing() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            try await ana.get("/settings")
            let svg = try await ana.postFile("/settings/avatar", field: "avatar", filename: "me.png", contentType: "image/png",
                                             bytes: Array("<svg onload=alert(1)></svg>".utf8))
            #expect(svg.status == 422)
            #expect(svg.text.contains("<p class=\"field-error\" id=\"avatar-error\" role=\"alert\">That file is an SVG drawing or another XML file, not a photo. Choose a JPEG, PNG, WebP or GIF image.</p>"))
            let empty = try await ana.postFile("/settings/avatar", field: "avatar", filename: "", contentType: "application/octet-stream", bytes: [])
            #expect(empty.status == 422 && empty.text.contains("Choose a photo"))
            #expect(!(try await ana.get("/settings").text.contains("/images/")), "still initials")
            #expect(Self.mediaFiles(parlor).isEmpty, "no file written")
        }
    }
}
