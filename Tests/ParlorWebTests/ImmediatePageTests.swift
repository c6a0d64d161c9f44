import Foundation
import HTTPTestSupport
import ParlorWeb
import Testing

/// The chat page answered on the connection's thread when the store can read it at once, and by the pool when
/// it cannot: the same pages either way, and never a read receipt lost.
@Suite struct ImmediatePageTests {
    @Test(arguments: [true, false])
    func aPageIsAnsweredAtOnceUnlessOpeningItReadsMessages(pageCache: Bool) async throws {
        let metrics = ParlorMetrics()
        try await RunningParlor.with(configure: { if !pageCache { $0.pageCacheBytes = 0 } }, metrics: metrics) { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            try await ana.say("Hello Ben", in: chat)
            var atOnce = metrics.pagesAnsweredAtOnce

            // The list never reads messages: answered at once, with what Ben has not read.
            let list = try await ben.get("/chats")
            #expect(list.status == 200 && list.text.contains(">Hello Ben</span>"))
            #expect(metrics.pagesAnsweredAtOnce == atOnce + 1)
            atOnce = metrics.pagesAnsweredAtOnce

            // Opening the chat reads Ana's message: a change, so the page is answered by the pool, and it says
            // where the unread part starts; Ana's page then shows it read.
            let opened = try await ben.get(chat)
            #expect(opened.status == 200 && opened.text.contains("unread-marker"))
            #expect(metrics.pagesAnsweredAtOnce == atOnce)
            #expect(try await ana.get(chat).text.contains("delivery-read"))
            atOnce = metrics.pagesAnsweredAtOnce

            // Nothing left to read: at once, the same conversation without the line.
            let again = try await ben.get(chat)
            #expect(again.status == 200 && again.text.contains(">Hello Ben</p>") && !again.text.contains("unread-marker"))
            #expect(metrics.pagesAnsweredAtOnce == atOnce + 1)
            atOnce = metrics.pagesAnsweredAtOnce

            // A chat that is not Ben's, a path that is no chat, a composer asked for: refused or read later.
            #expect(try await ben.get("/rooms/999999").status == 404)
            #expect(try await ben.get("/rooms/-3").status == 404)
            #expect(try await ben.get(chat + "?before=1").status == 200)
            #expect(metrics.pagesAnsweredAtOnce == atOnce)

            // Without a session: to sign-in, as from the pool.
            let stranger = parlor.visitor()
            let away = try await stranger.get("/chats")
            #expect(away.status == 303 && away.header("Location") == "/signin")
        }
    }
}
