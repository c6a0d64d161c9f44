import Foundation
import HTTPTestSupport
import Testing

/// CSRF, origins, membership and security headers: every refusal changes nothing.
@Suite struct SafetyTests {
    @Test func aPostWithoutTheSessionsTokenIsRefusedAndChangesNothing() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana")
            let chat = try await ana.chat(named: "Parlor Bot")
            try await ana.get(chat)
            let sessionToken = ana.csrf
            for token in ["", "not-the-token", sessionToken + "x"] {
                let refused = try await ana.post(chat + "/messages", [("body", "forged"), ("token", "t-\(token.count)")], csrf: token)
                #expect(refused.status == 403)
                #expect(refused.text.contains("nothing was changed"))
                // The conversation again, the text kept to send once more with the fresh token.
                #expect(refused.text.contains(">forged</textarea>"))
                #expect(Visitor.field("csrf", in: refused.text) == sessionToken)
            }
            let page = try await ana.get(chat)
            #expect(!page.text.contains("forged"))
        }
    }

    @Test func aPostFromAnotherOriginIsRefusedEvenWithTheToken() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana")
            let chat = try await ana.chat(named: "Parlor Bot")
            try await ana.get(chat)
            let refused = try await ana.post(chat + "/messages", [("body", "cross-site"), ("token", "x1")], headers: ["Origin: https://evil.example"])
            #expect(refused.status == 403)
            let opaque = try await ana.post(chat + "/messages", [("body", "cross-site"), ("token", "x2")], headers: ["Origin: null"])
            #expect(opaque.status == 403)
            #expect(!(try await ana.get(chat)).text.contains("cross-site"))
            let sameSite = try await ana.post(chat + "/messages", [("body", "same-site"), ("token", "x3")], headers: ["Origin: http://127.0.0.1"])
            #expect(sameSite.status == 303)
        }
    }

    @Test func signUpWithoutItsFormTokenIsRefusedWithTheFormAndAnExplanation() async throws {
        try await RunningParlor.with { parlor in
            let visitor = parlor.visitor()
            let response = try await visitor.post("/signup", [("handle", "mallory"), ("displayName", "M"), ("password", "long enough pass")], csrf: "guess")
            #expect(response.status == 403)
            #expect(response.text.contains("out of date or came from another site"))
            #expect(response.text.contains("name=\"password\""), "the form is shown again")
            // With the token the re-rendered form carries, it goes through.
            #expect(try await visitor.post("/signup", [("handle", "mallory"), ("displayName", "M"), ("password", "long enough pass")]).status == 303)
        }
    }

    @Test func withoutASessionPagesGoToSignInAndPostsAndStreamsAreRefused() async throws {
        try await RunningParlor.with { parlor in
            let stranger = parlor.visitor()
            for path in ["/chats", "/rooms/1", "/chats/new", "/settings", "/admin"] {
                let response = try await stranger.get(path)
                #expect(response.status == 303, "\(path)")
                #expect(response.header("Location") == "/signin", "\(path)")
            }
            #expect(try await stranger.post("/rooms/1/messages", [("body", "hi")]).status == 403)
            #expect(try await stranger.post("/signout", []).status == 403)
            #expect(try await stranger.get("/events").status == 401)
        }
    }

    @Test func aChatIsNotFoundForAnyoneOutsideItWhateverTheyTry() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana")
            let ben = parlor.visitor()
            try await ben.signUp("ben")
            let chat = try await ana.startChat(with: "ben")
            try await ana.say("for ben only", in: chat)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe")
            try await chloe.get("/chats")
            let id = String(chat.split(separator: "/").last!)
            #expect(try await chloe.get(chat).status == 404)
            #expect(try await chloe.get("/events?chat=\(id)").status == 404)
            #expect(try await chloe.post(chat + "/messages", [("body", "let me in"), ("token", "c1")]).status == 404)
            #expect(try await chloe.post(chat + "/messages/2", [("body", "rewritten")]).status == 404)
            #expect(try await chloe.post(chat + "/read", []).status == 404)
            for guess in ["/rooms/999999", "/rooms/0", "/rooms/-1", "/rooms/abc", "/events?chat=abc"] {
                #expect(try await chloe.get(guess).status == 404, "\(guess)")
            }
            #expect(!(try await chloe.get("/chats")).text.contains("for ben only"))
            #expect(!(try await ben.get(chat)).text.contains("let me in"))
            #expect((try await ben.get(chat)).text.contains("for ben only"))
        }
    }

    @Test func everyResponseCarriesTheSecurityHeaders() async throws {
        try await RunningParlor.with { parlor in
            let visitor = parlor.visitor()
            for path in ["/signin", "/public/css/parlor.css", "/no-such-page", "/chats"] {
                let response = try await visitor.get(path)
                let policy = try #require(response.header("Content-Security-Policy"), "\(path)")
                #expect(policy.contains("script-src 'self'"))
                #expect(!policy.contains("unsafe-inline"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(response.header("X-Content-Type-Options") == "nosniff")
                #expect(response.header("Referrer-Policy") == "same-origin")
            }
            // Pages are private: never kept by a cache.
            #expect(try await visitor.get("/signin").header("Cache-Control") == "no-store")
        }
    }
}
