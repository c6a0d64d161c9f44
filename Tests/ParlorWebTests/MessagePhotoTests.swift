import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorStorage
import Testing
@testable import parlor

/// Photos in messages: accepted by their bytes and header in the request, stored pending with the message
/// in one transaction, processed off the request, and pushed to every open page when ready or failed.
/// The image service is the in-memory one, held by a gate where the test needs to see the pending state;
/// real processing is tested on libvips in ParlorImagesTests and in the browser.
@Suite struct MessagePhotoTests {
    static let gif = AvatarTests.gif

    static func originals(_ parlor: RunningParlor) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: parlor.folder.appendingPathComponent("media/originals").path)) ?? []
    }

    static func versionFiles(_ parlor: RunningParlor) -> [String] {
        AvatarTests.mediaFiles(parlor).filter { !$0.hasPrefix("originals/") }
    }

    static func messages(_ parlor: RunningParlor, in chat: String) async throws -> [Message] {
        let store = try SQLiteChatStore(path: parlor.folder.appendingPathComponent("parlor.sqlite").path)
        let id = ChatID(Int64(chat.split(separator: "/").last!)!)
        return try await store.messages(in: id, before: nil, limit: 50).messages
    }

    /// Whether the newest message's photo reaches `state` within five seconds.
    static func photoBecomes(_ state: PhotoState, _ parlor: RunningParlor, _ chat: String) async throws -> Bool {
        for _ in 0..<100 {
            if try await messages(parlor, in: chat).last?.photo?.state == state { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    static func sendPhoto(
        _ visitor: Visitor, in chat: String, text: String = "", filename: String = "beach.gif", type: String = "image/gif", bytes: [UInt8] = gif,
        headers: [String] = []
    ) async throws -> TestResponse {
        try await visitor.get(chat)
        return try await visitor.postFile(
            chat + "/messages", field: "photo", filename: filename, contentType: type, bytes: bytes, fields: [("body", text), ("token", visitor.composerToken)]
        )
    }

    @Test func aPhotoIsPendingForEveryoneAtOnceThenPushedLiveWhenReady() async throws {
        let images = GatedImageService()
        try await RunningParlor.with(images: images) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé")
            let id = String(chat.split(separator: "/").last!)
            let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
            _ = try await stream.read(until: "target=\"messages-\(id)\"")

            let composer = try await ana.get(chat).text
            #expect(composer.contains("enctype=\"multipart/form-data\"") && composer.contains("name=\"photo\" accept=\"image/jpeg,image/png,image/webp,image/gif\""))
            let sent = try await Self.sendPhoto(ana, in: chat, text: "The beach")
            #expect(sent.status == 303 && sent.header("Location")?.hasPrefix(chat + "#message-") == true)

            // Pending: on Ben's open page at once, a placeholder of the thumbnail's size, with the text.
            let pending = try await stream.read(until: "The beach")
            #expect(pending.contains("class=\"photo-placeholder\"") && pending.contains("width=\"64\" height=\"48\""))
            #expect(pending.contains("Processing photo…"))
            #expect(Self.originals(parlor).count == 1, "the upload is kept until it is processed")
            let stored = try #require(try await Self.messages(parlor, in: chat).last)
            let photo = try #require(stored.photo)
            #expect(stored.body == "The beach" && photo.state == .pending)
            #expect(try await ben.get(chat).text.contains("Processing photo…"))
            #expect(try await ben.get("/images/\(photo.id)").text.contains("Loading image…"), "the image view says it is loading")
            #expect(try await ben.get("/images/\(photo.id)/thumbnail").status == 404, "no file before it is ready")

            images.open()
            let ready = try await stream.read(until: "loading=\"lazy\"")
            let thumbnail = "/images/\(photo.id)/thumbnail"
            #expect(ready.contains(
                "<a class=\"photo-link\" href=\"/images/\(photo.id)\"><img src=\"\(thumbnail)\" width=\"64\" height=\"48\" alt=\"Photo from Ana Lima\" loading=\"lazy\""
            ))
            #expect(ready.contains("target=\"message-\(stored.id)\""), "the same cell, replaced")
            #expect(await eventually { Self.originals(parlor).isEmpty }, "the upload goes once the versions are stored")
            #expect(try await Self.messages(parlor, in: chat).last?.photo?.state == .ready)

            // Served to the members of the chat only.
            let file = try await ben.get(thumbnail)
            #expect(file.status == 200 && file.header("Content-Type") == "image/gif" && Array(file.body) == Self.gif)
            #expect(file.header("Cache-Control") == "private, max-age=31536000, immutable" && file.header("X-Content-Type-Options") == "nosniff")
            #expect(file.header("Content-Disposition") == "inline; filename=\"message-\(photo.id)-thumbnail.gif\"")
            #expect(try await ana.get("/images/\(photo.id)/display").status == 200)
            #expect(try await chloe.get(thumbnail).status == 404, "Chloé is not in the chat")
            #expect(try await chloe.get("/images/\(photo.id)/display").status == 404)
            #expect(try await chloe.get("/images/\(photo.id)").status == 404)
            #expect(try await parlor.visitor().get(thumbnail).status == 303, "nobody signed in")
            let view = try await ben.get("/images/\(photo.id)").text
            #expect(view.contains("<img src=\"/images/\(photo.id)/display\" width=\"64\" height=\"48\" alt=\"Photo from Ana Lima\">"))
            #expect(view.contains("href=\"\(chat)#message-\(stored.id)\""), "the way back to the message")
            #expect(try await ben.get(chat).text.contains(thumbnail))
        }
    }

    /// The image view's previous and next are the room's photos, for its members at that moment: Ben, taken out,
    /// still opens his own photo but learns nothing of the photos sent around it.
    @Test func previousAndNextAreForMembersOnly() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            let made = try await ana.post("/rooms/new", [("name", "Trip"), ("kind", "closed"), ("members", "@ben")])
            let room = try #require(made.header("Location"))
            #expect(try await Self.sendPhoto(ben, in: room, text: "Mine").status == 303)
            #expect(try await Self.photoBecomes(.ready, parlor, room))
            #expect(try await Self.sendPhoto(ana, in: room, text: "Hers").status == 303)
            #expect(try await Self.photoBecomes(.ready, parlor, room))
            let photos = try await Self.messages(parlor, in: room).compactMap(\.photo?.id)
            #expect(photos.count == 2)
            let first = "/images/\(photos[0])", second = "/images/\(photos[1])"
            #expect(try await ana.get(first).text.contains("href=\"\(second)\" rel=\"next\""))
            #expect(try await ben.get(first).text.contains("href=\"\(second)\" rel=\"next\""), "a member sees the next photo")
            let members = try await ana.get(room + "/members").text
            let remove = try #require(members.firstMatch(of: /action="(\/rooms\/\d+\/members\/\d+\/remove)"/).map { String($0.1) })
            #expect(try await ana.post(remove, []).status == 303)
            let own = try await ben.get(first)
            #expect(own.status == 200 && !own.text.contains("image-steps") && !own.text.contains(second), "his own photo, nothing around it")
            #expect(try await ben.get(second).status == 404)
        }
    }

    @Test func aPhotoWithoutWordsIsAPhotoInTheListAndToasts() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            #expect(try await Self.sendPhoto(ana, in: chat).status == 303)
            #expect(try await Self.photoBecomes(.ready, parlor, chat))
            #expect(try await Self.messages(parlor, in: chat).last?.body == "")
            #expect(try await ben.get("/chats").text.contains("Photo"), "the list says what it is")
            #expect(try await ana.get("/chats").text.contains("You: Photo"))
        }
    }

    @Test func whatIsNotAPhotoIsRefusedInTheComposerAndNothingIsKept() async throws {
        let limits = ImageLimits(maximumBytes: 1_000_000)
        try await RunningParlor.with(images: InMemoryImageService(limits: limits), configure: { $0.imageLimits = limits }) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            let cases: [(name: String, type: String, bytes: [UInt8], status: Int, says: String)] = [
                ("drawing.svg", "image/svg+xml", Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>".utf8), 422, "an SVG drawing"),
                ("photo.jpg", "image/jpeg", Array("<script>alert(1)</script>".utf8), 422, "an HTML page or script"),
                ("doc.pdf", "application/pdf", Array("%PDF-1.7\n".utf8), 422, "a PDF document"),
                ("empty.gif", "image/gif", [], 422, "That file is empty"),
                ("big.gif", "image/gif", Self.gif + [UInt8](repeating: 0, count: 1_000_001), 413, "Photos can be at most 1 MB."),
            ]
            for refused in cases {
                let response = try await Self.sendPhoto(ana, in: chat, text: "Look at this", filename: refused.name, type: refused.type, bytes: refused.bytes)
                #expect(response.status == refused.status, "\(refused.name)")
                let html = response.text
                #expect(html.contains(refused.says), "\(refused.name): the composer says why")
                #expect(html.contains("JPEG, PNG, WebP or GIF") || refused.status == 413, "\(refused.name): and what is accepted")
                #expect(html.contains(">Look at this</textarea>"), "\(refused.name): the text is kept")
                #expect(!html.contains("<script>alert"), "\(refused.name): nothing of the file is echoed")
            }
            #expect(try await Self.messages(parlor, in: chat).isEmpty, "no message was stored")
            #expect(Self.originals(parlor).isEmpty && Self.versionFiles(parlor).isEmpty, "and no file kept")
            // The script gets the short reason.
            try await ana.get(chat)
            let scripted = try await ana.postFile(
                chat + "/messages", field: "photo", filename: "x.svg", contentType: "image/svg+xml", bytes: Array("<svg/>".utf8),
                fields: [("body", ""), ("token", ana.composerToken)], headers: ["X-Parlor-Script: 1"]
            )
            #expect(scripted.status == 422 && scripted.text.contains("not a photo"))
        }
    }

    @Test func anUploadLargerThanTheLimitIsRefusedBeforeItsBodyIsRead() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ana.get(chat)
            let client = try RawClient(port: parlor.port)
            var head = "POST \(chat)/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\n"
            for header in ana.cookieHeader { head += header + "\r\n" }
            try client.send(head + "Content-Length: 26000000\r\n\r\n")
            #expect(try await client.readResponse().status == 413)
            #expect(try await Self.messages(parlor, in: chat).isEmpty)
        }
    }

    @Test func whenTheWorkerIsFullAnUploadIsRefusedWith503AndNothingIsKept() async throws {
        let images = GatedImageService()
        try await RunningParlor.with(images: images, configure: { $0.photosInProgress = 1 }) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            #expect(try await Self.sendPhoto(ana, in: chat, text: "One").status == 303)
            let busy = try await Self.sendPhoto(ana, in: chat, text: "Two")
            #expect(busy.status == 503 && busy.text.contains("Parlor is busy with other photos"))
            #expect(busy.text.contains(">Two</textarea>"))
            #expect(try await Self.messages(parlor, in: chat).map(\.body) == ["One"])
            #expect(Self.originals(parlor).count == 1)
            images.open()
            #expect(await eventually { Self.originals(parlor).isEmpty })
            // A slot is free again.
            #expect(try await Self.sendPhoto(ana, in: chat, text: "Three").status == 303)
        }
    }

    @Test func aRetriedPhotoKeepsNoSecondUploadWhileTheFirstIsProcessedNorAfter() async throws {
        let images = GatedImageService()
        try await RunningParlor.with(images: images, configure: { $0.photosInProgress = 4 }) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ana.get(chat)
            let (port, cookies, csrf, token) = (parlor.port, ana.cookies, ana.csrf, ana.composerToken)
            /// The same send again, as a browser retries it: the same composer token, on a connection of its own.
            @Sendable func retry() async throws -> Int {
                let again = Visitor(port: port)
                again.cookies = cookies
                again.csrf = csrf
                return try await again.postFile(
                    chat + "/messages", field: "photo", filename: "beach.gif", contentType: "image/gif", bytes: Self.gif,
                    fields: [("body", "Again"), ("token", token)]
                ).status
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 { group.addTask { try await retry() } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == [303, 303, 303], "a retry is answered as the send it repeats")
            #expect(try await Self.messages(parlor, in: chat).filter { $0.body == "Again" }.count == 1)
            #expect(Self.originals(parlor).count == 1, "the message's own upload is kept while it is processed, and no retry's")

            images.open()
            #expect(try await Self.photoBecomes(.ready, parlor, chat))
            #expect(await eventually { Self.originals(parlor).isEmpty })
            #expect(try await retry() == 303)
            #expect(Self.originals(parlor).isEmpty, "a retry after the photo is processed keeps nothing either")
            #expect(try await Self.messages(parlor, in: chat).filter { $0.body == "Again" }.count == 1)
            // Every retry gave its slot back (three kept would leave room for one photo of the four).
            #expect(try await Self.sendPhoto(ana, in: chat, text: "Next").status == 303)
            #expect(try await Self.sendPhoto(ana, in: chat, text: "And next").status == 303)
        }
    }

    @Test func aPhotoThatCannotBeProcessedSaysSoForEveryoneAndKeepsItsText() async throws {
        let images = GatedImageService()
        try await RunningParlor.with(images: images) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = String(chat.split(separator: "/").last!)
            let (stream, _) = try await ben.openEvents("/events?chat=\(id)")
            _ = try await stream.read(until: "target=\"messages-\(id)\"")
            #expect(try await Self.sendPhoto(ana, in: chat, text: "Sunset").status == 303)
            _ = try await stream.read(until: "Processing photo…")
            images.open(failing: true)
            let failed = try await stream.read(until: "could not be processed")
            #expect(failed.contains("role=\"alert\"") && failed.contains("Sunset"))
            #expect(await eventually { Self.originals(parlor).isEmpty })
            let message = try #require(try await Self.messages(parlor, in: chat).last)
            #expect(message.photo?.state == .failed && message.body == "Sunset")
            #expect(try await ana.get(chat).text.contains("This photo could not be processed"))
            let view = try await ben.get("/images/\(message.photo!.id)")
            #expect(view.status == 200 && view.text.contains("could not be processed") && view.text.contains("Try again"))
            #expect(try await ben.get("/images/\(message.photo!.id)/display").status == 404)
        }
    }

    @Test func pendingPhotosSurviveARestartAndAreFinishedOrFailVisibly() async throws {
        let first = try await RunningParlor(images: GatedImageService())
        let (ana, _, chat) = try await ConversationTests.anaAndBen(first)
        #expect(try await Self.sendPhoto(ana, in: chat, text: "Kept").status == 303)
        #expect(try await Self.sendPhoto(ana, in: chat, text: "Lost").status == 303)
        await first.stop()
        let pending = try await Self.messages(first, in: chat)
        #expect(pending.map { $0.photo?.state } == [.pending, .pending], "still pending after the stop")
        // One upload is gone (a disk replaced, a hand that tidied up): that photo must fail, visibly.
        let originals = try await SQLiteChatStore(path: first.folder.appendingPathComponent("parlor.sqlite").path).pendingPhotos()
        #expect(originals.count == 2)
        try FileManager.default.removeItem(atPath: first.folder.appendingPathComponent("media/originals/" + originals[1].original).path)

        let second = try await RunningParlor(folder: first.folder)
        await second.app.photoWorker.settled()
        let after = try await Self.messages(second, in: chat)
        #expect(after.map { $0.photo?.state } == [.ready, .failed])
        #expect(after.map(\.body) == ["Kept", "Lost"])
        #expect(Self.originals(second).isEmpty)
        #expect(try await SQLiteChatStore(path: first.folder.appendingPathComponent("parlor.sqlite").path).pendingPhotos().isEmpty)
        await second.finish()
    }

    @Test func deletingAMessageTakesItsPhotoWithIt() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            #expect(try await Self.sendPhoto(ana, in: chat, text: "Oops").status == 303)
            #expect(try await Self.photoBecomes(.ready, parlor, chat))
            let message = try #require(try await Self.messages(parlor, in: chat).last)
            let photo = try #require(message.photo)
            #expect(try await ben.get("/images/\(photo.id)/thumbnail").status == 200)
            try await ana.get(chat)
            #expect(try await ana.post(chat + "/messages/\(message.id)/delete", []).status == 303)
            #expect(try await ben.get("/images/\(photo.id)/thumbnail").status == 404, "gone for everyone")
            #expect(try await ana.get("/images/\(photo.id)/thumbnail").status == 404, "and for her")
            #expect(try await Self.messages(parlor, in: chat).last?.photo == nil)
            // Its files go with the next sweep once they are old enough.
            let media = parlor.folder.appendingPathComponent("media").path
            for file in Self.versionFiles(parlor) {
                try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3_600)], ofItemAtPath: media + "/" + file)
            }
            #expect(!Self.versionFiles(parlor).isEmpty)
            await parlor.sweepMedia()
            #expect(Self.versionFiles(parlor).isEmpty)
        }
    }
}
