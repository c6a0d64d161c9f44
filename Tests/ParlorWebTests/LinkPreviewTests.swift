import Clocks
import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorWeb
import Testing
@testable import parlor

/// Link cards through the real server, fetched from pages a scripted server on 127.0.0.1 serves: shown on every open
/// page when ready, escaped, never from a page that is too large, too slow or that sends Parlor elsewhere; removed by
/// the sender only.
@Suite struct LinkPreviewTests {
    static func pages() throws -> ScriptedServer {
        try ScriptedServer { path, _ in
            switch path {
            case "/menu":
                .answer(status: "200 OK", headers: ["Content-Type: text/html; charset=utf-8"], body: Array("""
                    <html><head><title>ignored</title><meta property="og:title" content="Today's menu <script>alert(1)</script>">
                    <meta property="og:description" content="Soup &amp; bread"><meta property="og:site_name" content="Bistro"></head></html>
                    """.utf8))
            case "/latin":
                .answer(status: "200 OK", headers: ["Content-Type: text/html; charset=iso-8859-1"], body: Array("<title>Caf".utf8) + [0xE9] + Array("</title>".utf8))
            case "/huge":
                .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array("<title>Huge</title>".utf8) + [UInt8](repeating: 0x20, count: 10_000_000))
            case "/away":
                .answer(status: "302 Found", headers: ["Location: http://10.0.0.1/private"])
            case "/image":
                .answer(status: "200 OK", headers: ["Content-Type: image/png"], body: [0x89, 0x50, 0x4E, 0x47])
            case "/pictured":
                .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array("""
                    <title>Harbour</title><meta property="og:image" content="/harbour.gif">
                    """.utf8))
            case "/harbour.gif":
                .answer(status: "200 OK", headers: ["Content-Type: image/gif"], body: AvatarTests.gif)
            case "/broken-picture":
                .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array(#"<title>Broken</title><meta property="og:image" content="/menu">"#.utf8))
            default:
                .trickle(headers: ["Content-Type: text/html"], chunk: Array("<title>slow".utf8), interval: .milliseconds(300))
            }
        }
    }

    static func allowing(_ server: ScriptedServer) -> (inout WebConfiguration) -> Void {
        { configuration in
            configuration.linkPreviewsAllowLoopback = true
            configuration.linkPreviewPorts = [server.port]
            // Long enough for a page that answers at once to be read at the busy start of the suite (at 1 s, cards
            // were lost to it); only the page that trickles forever waits it out.
            configuration.linkPreviewTimeout = .seconds(15)
        }
    }

    @Test func aLinkGetsItsCardLiveEscapedAndItsSenderRemovesIt() async throws {
        let server = try Self.pages()
        defer { server.stop() }
        try await RunningParlor.with(configure: Self.allowing(server)) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ben.get(chat)
            let (stream, _) = try await ben.openEvents("/events?chat=\(chat.split(separator: "/").last!)")
            _ = try await stream.read(until: "action=\"badge\"")
            let said = try await ana.say("Lunch? \(server.url("/menu"))", in: chat)
            let id = try #require(said.header("Location")?.components(separatedBy: "#message-").last)

            // Ben's open page gets the cell again with its card; the page drawn afterwards has it too, escaped.
            let pushed = try await stream.read(until: "link-preview-description")
            #expect(pushed.contains("Today&#39;s menu &lt;script&gt;alert(1)&lt;/script&gt;") && !pushed.contains("<script>alert"))
            let page = try await ben.get(chat).text
            #expect(page.contains("<span class=\"link-preview-site\">Bistro</span>") && page.contains("Soup &amp; bread"))
            #expect(!page.contains("formaction=\"\(chat)/messages/\(id)/preview/remove\""), "only its sender may remove it")
            #expect(try await ana.get(chat).text.contains("formaction=\"\(chat)/messages/\(id)/preview/remove\""))

            // Ben cannot remove it; Ana can, for good; a stranger, a wrong id or a forged form change nothing.
            let remove = "\(chat)/messages/\(id)/preview/remove"
            #expect(try await ben.post(remove, []).status == 403)
            #expect(try await ana.post(remove, [], csrf: "forged").status == 403)
            #expect(try await ana.post("\(chat)/messages/999999/preview/remove", []).status == 404)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe")
            try await chloe.get("/chats")
            #expect(try await chloe.post(remove, []).status == 404)
            #expect(try await parlor.store.message(MessageID(Int64(id)!))?.preview?.title.hasPrefix("Today's menu") == true)
            let removed = try await ana.post(remove, [])
            #expect(removed.status == 303 && removed.header("Location") == "\(chat)#message-\(id)")
            #expect(!(try await ben.get(chat).text.contains("link-preview")))
            #expect(try await ana.post(remove, []).status == 404, "gone already")
        }
    }

    @Test func aCardsPictureIsMadeByTheImageServiceAndSeenByTheChatsMembersOnly() async throws {
        let server = try Self.pages()
        defer { server.stop() }
        try await RunningParlor.with(configure: Self.allowing(server)) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ben.get(chat)
            let (stream, _) = try await ben.openEvents("/events?chat=\(chat.split(separator: "/").last!)")
            _ = try await stream.read(until: "action=\"badge\"")
            let said = try await ana.say("The view \(server.url("/pictured"))", in: chat)
            let id = try #require(said.header("Location")?.components(separatedBy: "#message-").last.flatMap { Int64($0) })

            let pushed = try await stream.read(until: "link-preview-title")
            let stored = try #require(try await parlor.store.message(MessageID(id))?.preview?.image)
            let file = "/images/\(stored.id)/thumbnail"
            #expect(pushed.contains("<img class=\"link-preview-image\" src=\"\(file)\" width=\"\(stored.width)\" height=\"\(stored.height)\" alt=\"\""))
            #expect(try await ben.get(chat).text.contains("src=\"\(file)\""))
            let seen = try await ben.get(file)
            #expect(seen.status == 200 && seen.body == AvatarTests.gif, "the in-memory image service keeps the bytes")
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe")
            #expect(try await chloe.get(file).status == 404, "not Chloé's chat")

            // A picture that is no image leaves a card without one.
            let broken = try await ana.say("And \(server.url("/broken-picture"))", in: chat)
            let brokenID = try #require(broken.header("Location")?.components(separatedBy: "#message-").last.flatMap { Int64($0) })
            _ = try await stream.read(until: "Broken</span>")
            let card = try #require(try await parlor.store.message(MessageID(brokenID))?.preview)
            #expect(card.title == "Broken" && card.image == nil)

            // Removed by Ana: the picture goes with the card.
            #expect(try await ana.post("\(chat)/messages/\(id)/preview/remove", []).status == 303)
            #expect(try await ben.get(file).status == 404)
            #expect(try await ana.get(file).status == 404)
        }
    }

    @Test func pagesTooLargeTooSlowElsewhereOrNotHTMLGiveNoCard() async throws {
        let server = try Self.pages()
        defer { server.stop() }
        try await RunningParlor.with(configure: Self.allowing(server)) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            for path in ["/latin", "/huge", "/away", "/image", "/slow", "/menu"] {
                #expect(try await ana.say("Look: \(server.url(path)) ok", in: chat).status == 303)
            }
            // The same link again is not fetched again.
            #expect(try await ana.say("Again \(server.url("/menu"))", in: chat).status == 303)
            await parlor.app.linkPreviewer.settled()
            let outcomes = parlor.app.linkPreviewer.outcomes.withLock { $0 }
            #expect(outcomes["previewed"] == 3 && outcomes["no-card"] == 4, "\(outcomes)")
            #expect(parlor.app.linkPreviewer.cacheHits.load(ordering: .relaxed) == 1)
            let messages = try await parlor.store.messages(in: ChatID(Int64(chat.split(separator: "/").last!)!), before: nil, limit: 20).messages
            let cards = messages.compactMap { $0.preview?.title }
            #expect(cards.filter { $0 == "Café" }.count == 1, "ISO-8859-1 read as it says")
            #expect(cards.filter { $0.hasPrefix("Today's menu") }.count == 2 && cards.count == 3, "\(cards)")
            #expect(!server.received.contains { $0.path == "/private" }, "a redirect to a private address is never followed")
            #expect(server.received.filter { $0.path == "/menu" }.count == 1)
        }
    }

    /// The same link posted twice while its page is still on its way: the second message waits for that fetch (the
    /// page answers only once it has) and both get the card from one request.
    @Test func aLinkPostedAgainWhileItsPageIsFetchedIsFetchedOnce() async throws {
        let joined = DispatchSemaphore(value: 0)
        let server = try ScriptedServer { path, _ in
            _ = joined.wait(timeout: .now() + 20)
            return .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array("<title>Held \(path)</title>".utf8))
        }
        defer { server.stop() }
        let configure = Self.allowing(server)
        try await RunningParlor.with(configure: { configure(&$0); $0.linkPreviewTimeout = .seconds(30) }) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            let previewer = parlor.app.linkPreviewer
            #expect(try await ana.say("First \(server.url("/held"))", in: chat).status == 303)
            #expect(await eventually { server.received.count == 1 }, "the page is being fetched")
            #expect(try await ana.say("Again \(server.url("/held"))", in: chat).status == 303)
            let waits = await eventually { previewer.cacheHits.load(ordering: .relaxed) == 1 }
            joined.signal()
            #expect(waits, "the second message waits for the fetch under way")
            await previewer.settled()
            #expect(server.received.count == 1)
            #expect(previewer.outcomes.withLock { $0 } == ["previewed": 2])
            let messages = try await parlor.store.messages(in: ChatID(Int64(chat.split(separator: "/").last!)!), before: nil, limit: 20).messages
            #expect(messages.compactMap { $0.preview?.title } == ["Held /held", "Held /held"])
        }
    }

    /// Kept for its lifetime by Parlor's clock (a minute here: moving a test clock through an hour wakes every loop on
    /// it thousands of times), then fetched again.
    @Test func aLinksCardIsKeptForItsLifetimeOfParlorsClockThenFetchedAgain() async throws {
        let server = try Self.pages()
        defer { server.stop() }
        let clock = TestClock<Duration>()
        let configure = Self.allowing(server)
        try await RunningParlor.with(configure: { configure(&$0); $0.linkPreviewLifetime = .seconds(60) }, timer: AnyClock(clock)) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            let previewer = parlor.app.linkPreviewer
            let fetched = { server.received.filter { $0.path == "/menu" }.count }
            #expect(try await ana.say("Menu \(server.url("/menu"))", in: chat).status == 303)
            await previewer.settled()
            await clock.advance(by: .seconds(59))
            #expect(try await ana.say("Still \(server.url("/menu"))", in: chat).status == 303)
            await previewer.settled()
            #expect(previewer.cacheHits.load(ordering: .relaxed) == 1 && fetched() == 1, "kept for 59 s")
            await clock.advance(by: .seconds(1))
            #expect(try await ana.say("An hour on \(server.url("/menu"))", in: chat).status == 303)
            await previewer.settled()
            #expect(previewer.cacheHits.load(ordering: .relaxed) == 1 && fetched() == 2, "a minute old, the page is fetched again")
            #expect(previewer.outcomes.withLock { $0 }["previewed"] == 3)
        }
    }
}
