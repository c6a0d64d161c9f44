import Foundation
import HTTPTestSupport
import Testing

/// Search through the real server without the script: the page a submitted form shows, the region the script
/// swaps in, what each person may find, hostile text and queries, and a conversation opened at a message found.
@Suite struct SearchTests {
    /// The id of the first result on a results page, and its link.
    static func firstResult(_ page: String) -> (id: String, url: String)? {
        guard let start = page.range(of: "<li class=\"search-result\" id=\"search-result-"),
              let link = page[start.upperBound...].range(of: "<a href=\"")
        else { return nil }
        let id = String(page[start.upperBound...].prefix { $0.isNumber })
        let url = String(page[link.upperBound...].prefix { $0 != "\"" })
        return (id, url)
    }

    @Test func aSubmittedSearchShowsResultsHighlightedByTheViewModelAndTheFieldKeepsWhatWasTyped() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            #expect(try await ana.say("The *deployment* is at noon", in: chat).status == 303)
            #expect(try await ana.say("<script>alert(1)</script> &amp; deploy", in: chat).status == 303)

            let page = try await ben.get("/search?q=deplo")
            #expect(page.status == 200 && page.text.contains("<h1 id=\"search-results-heading\">Messages with deplo</h1>"))
            #expect(page.text.contains("name=\"q\" value=\"deplo\""), "the field shows the query")
            #expect(page.text.contains("The <mark>deployment</mark> is at noon"), "plain text, the word marked")
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp; <mark>deploy</mark>"), "every part escaped")
            #expect(!page.text.contains("<script>alert"))
            let first = try #require(Self.firstResult(page.text))
            #expect(first.url == "\(chat)?around=\(first.id)#message-\(first.id)", "newest first, opening the chat at the message")
            #expect(page.text.contains("data-events-url=\"/events\""), "the badge stays live")

            // The region alone, as the script asks for it while the person types.
            let region = try await ben.get("/search?q=noon&fragment=1")
            #expect(region.status == 200 && region.text.hasPrefix("<section class=\"search-results\" id=\"search-results\""))
            #expect(!region.text.contains("<html") && region.text.contains("<mark>noon</mark>"))

            // Nothing found with filters: said so, with the same words without them.
            let none = try await ben.get("/search?q=deplo%20from%3A%40chloe")
            #expect(none.text.contains("No messages match deplo from:@chloe."))
            #expect(none.text.contains("<a href=\"/search?q=deplo\">Search without the filters</a>"))
            let problem = try await ben.get("/search?q=deplo%20before%3A2026-02-30")
            #expect(problem.text.contains("before: takes a date, like before:2026-11-01."), "a filter that cannot be read says why")
            #expect(Self.firstResult(problem.text) != nil, "and the words are still searched")
            let empty = try await ben.get("/search")
            #expect(empty.status == 200 && empty.text.contains("<h1 id=\"search-results-heading\">Search messages</h1>") && empty.text.contains("from:@ana"))
        }
    }

    @Test func onlyMessagesOfChatsThePersonIsInNowAreFound() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            #expect(try await ana.say("The roadmap for the launch", in: chat).status == 303)
            #expect(Self.firstResult(try await chloe.get("/search?q=roadmap").text) == nil, "not Chloé's chat")

            let made = try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")])
            let room = try #require(made.header("Location"))
            #expect(try await ana.say("Budget numbers for the launch", in: room).status == 303)
            let found = try await ben.get("/search?q=budget%20in%3A%23launch").text
            let result = try #require(Self.firstResult(found))
            #expect(found.contains("<span class=\"search-result-chat\">Launch</span>"))
            // Out of the room, Ben finds nothing said there, and the message's page is not his.
            try await ben.get(room + "/members")
            #expect(try await ben.post(room + "/leave", []).status == 303)
            #expect(Self.firstResult(try await ben.get("/search?q=budget").text) == nil)
            #expect(try await ben.get(result.url.components(separatedBy: "#")[0]).status == 404)
            #expect(Self.firstResult(try await ben.get("/search?q=roadmap").text) != nil, "his chat with Ana stays")
        }
    }

    @Test func hostileQueriesAndNumbersAreAnsweredWithoutHarm() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            #expect(try await ana.say("Quarterly numbers", in: chat).status == 303)
            let long = String(repeating: "a\"b OR c* NEAR(", count: 400)
            for query in [
                "q=" + Visitor.encode(long), "q=numbers&offset=-5", "q=numbers&offset=99999999999999999999999", "q=numbers&before=abc",
                "q=numbers&before=-1", "q=numbers&before=9223372036854775807", "q=numbers&order=weird", "q=%01%02", "q=" + Visitor.encode("\"\"\""),
                "q=" + Visitor.encode("before:9999-12-31 after:1970-01-01 numbers"),
            ] {
                let page = try await ana.get("/search?" + query)
                #expect(page.status == 200, "\(query)")
            }
            #expect(Self.firstResult(try await ana.get("/search?q=numbers&before=9223372036854775807").text) != nil)
            let broken = try await ana.get("/search?q=%FF%00")
            #expect(broken.status == 400 && !broken.text.contains("numbers"), "bytes that are not text: refused with a message")
            // Around a number out of range: the chat, as if no message were asked for.
            #expect(try await ana.get(chat + "?around=9223372036854775807").status == 200)
            #expect(try await ana.get(chat + "?around=-3&after=x").status == 200)
        }
    }

    @Test func aResultOpensTheConversationAroundItWithLinksToNewerMessagesAndTheLatest() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            for index in 1...60 { #expect(try await ana.say("Note m\(index)", in: chat).status == 303) }
            let result = try #require(Self.firstResult(try await ben.get("/search?q=m10").text))
            let around = try await ben.get(result.url.components(separatedBy: "#")[0])
            #expect(around.status == 200 && around.text.contains("id=\"message-\(result.id)\""))
            #expect(around.text.contains(">Note m1<") && around.text.contains(">Note m35<") && !around.text.contains(">Note m36<"), "older and newer around it")
            #expect(around.text.contains(">Show older messages<") == false, "the chat's start is shown")
            let id = String(chat.split(separator: "/").last!)
            #expect(around.text.contains("data-events-url=\"/events?chat=\(id)&amp;window=1\""), "far from the newest: live for what it shows")
            let newer = try #require(around.text.range(of: "<a href=\"\(chat)?after=").map { around.text[$0.lowerBound...].dropFirst(9).prefix { $0 != "\"" } })
            #expect(around.text.contains("<a href=\"\(chat)\">Back to the latest messages</a>"))
            let after = try await ben.get(String(newer).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(after.status == 200 && after.text.contains(">Note m36<") && after.text.contains(">Note m60<") && !after.text.contains(">Note m35<"))
            #expect(after.text.contains("Show older messages") && !after.text.contains("Show newer messages"))
            #expect(after.text.contains("data-events-url=\"/events?chat=\(id)\""), "reaching the newest, the conversation is live")

            let near = try #require(Self.firstResult(try await ben.get("/search?q=m58").text))
            let live = try await ben.get(near.url.components(separatedBy: "#")[0])
            #expect(live.text.contains(">Note m58<") && live.text.contains(">Note m60<") && live.text.contains(">Note m33<") && !live.text.contains(">Note m32<"))
            #expect(live.text.contains("data-events-url=\"/events?chat=\(id)\"") && !live.text.contains("Show newer messages"))

            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            #expect(try await chloe.get(result.url.components(separatedBy: "#")[0]).status == 404)
        }
    }
}
