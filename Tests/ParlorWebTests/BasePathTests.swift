import Foundation
import HTTPTestSupport
import Testing

/// `--base-path /chat`: Parlor behind a proxy that forwards https://example.org/chat/… as is. Every URL
/// it writes starts with the prefix, its cookies are limited to it, and nothing outside it is answered.
@Suite struct BasePathTests {
    /// Every URL in a page's attributes: each must be below /chat (or a fragment, or elsewhere on the web).
    static func strayURLs(in html: String) -> [String] {
        // Paths only: a stream envelope's action="replace" is not a URL.
        html.matches(of: /(?:href|src|action|data-events-url|data-favicon)="(\/[^"]*)"/).map { String($0.1) }.filter { !$0.hasPrefix("/chat/") }
    }

    @Test func everyURLParlorWritesIsBelowThePrefixAndNothingOutsideItIsAnswered() async throws {
        try await RunningParlor.with(configure: { $0.basePath = "/chat" }) { parlor in
            let ana = parlor.visitor()
            #expect(try await ana.get("/signup").status == 404, "outside the prefix")
            #expect(try await ana.get("/chatter/signup").status == 404, "a prefix of a segment is not the prefix")
            let home = try await ana.get("/chat/")
            #expect(home.status == 303 && home.header("Location") == "/chat/signup", "the first run asks for the administrator")
            let form = try await ana.get("/chat/signup")
            #expect(form.status == 200 && Self.strayURLs(in: form.text).isEmpty, "\(Self.strayURLs(in: form.text))")
            #expect(form.header("Set-Cookie")?.contains("Path=/chat;") == true || form.header("Set-Cookie")?.hasSuffix("Path=/chat") == true)
            let signedUp = try await ana.post("/chat/signup", [("handle", "ana"), ("displayName", "Ana Lima"), ("password", "correct horse battery")])
            #expect(signedUp.status == 303 && signedUp.header("Location") == "/chat/chats")
            #expect(signedUp.headers.filter { $0.0.lowercased() == "set-cookie" }.allSatisfy { $0.1.contains("Path=/chat") })

            let ben = parlor.visitor()
            try await ben.get("/chat/signup")
            #expect(try await ben.post("/chat/signup", [("handle", "ben"), ("displayName", "Ben Okafor"), ("password", "correct horse battery")]).status == 303)
            try await ana.get("/chat/chats/new")
            let started = try await ana.post("/chat/chats/new", [("handle", "ben")])
            let chat = try #require(started.header("Location"))
            #expect(chat.hasPrefix("/chat/rooms/"))
            let sent = try await ana.say("Under the prefix", in: chat)
            #expect(sent.status == 303 && sent.header("Location")?.hasPrefix(chat + "#message-") == true)
            let id = String(chat.split(separator: "/").last!)
            for page in ["/chat/chats", chat, "/chat/settings", "/chat/chats/new", chat + "?delete=1"] {
                let html = try await ana.get(page).text
                #expect(Self.strayURLs(in: html).isEmpty, "\(page): \(Self.strayURLs(in: html))")
            }
            #expect(try await ana.get("/chat/public/css/parlor.css").status == 200)
            #expect(try await ana.get("/public/css/parlor.css").status == 404)
            // The live stream, and what it sends, are below the prefix too.
            let (stream, head) = try await ben.openEvents("/chat/events?chat=\(id)")
            #expect(head.status == 200)
            let first = try await stream.read(until: "target=\"messages-\(id)\"")
            #expect(Self.strayURLs(in: first).isEmpty, "\(Self.strayURLs(in: first))")
            #expect(try await ana.say("Live", in: chat).status == 303)
            let update = try await stream.read(until: "Live")
            #expect(Self.strayURLs(in: update).isEmpty)
            #expect(try await ana.get("/chat/healthz").status == 200)
        }
    }
}
