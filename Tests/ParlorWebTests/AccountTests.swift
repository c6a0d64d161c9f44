import Foundation
import HTTPTestSupport
import Testing

/// Sign up, sign in, sign out, sessions and the sign-in throttle, over HTTP with a real SQLite file.
@Suite struct AccountTests {
    @Test func signingUpStartsASessionWithASafeCookieAndShowsTheBotChat() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            let form = try await ana.get("/signup")
            #expect(form.status == 200)
            #expect(form.header("Set-Cookie")?.contains("HttpOnly") == true)
            let signedUp = try await ana.signUp("ana", name: "Ana Lima")
            #expect(signedUp.status == 303)
            #expect(signedUp.header("Location") == "/chats")
            let cookie = try #require(signedUp.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("parlor_session=") }?.1)
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Lax"))
            #expect(!cookie.contains("Secure"), "plain HTTP from a peer that is not a trusted proxy")
            // The session id is 256 random bits.
            let id = try #require(ana.cookies["parlor_session"])
            #expect(id.count == 43)

            // Parlor Bot starts its chat with every newcomer, on its own time.
            _ = try await ana.chat(named: "Parlor Bot")
            let chats = try await ana.get("/chats")
            #expect(chats.status == 200)
            #expect(chats.text.contains("Ana Lima"))
            #expect(chats.text.contains("Parlor Bot"), "every newcomer has a chat with the bot")
        }
    }

    @Test func aNewAccountStartsInTheTimeZoneItsBrowserSent() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.get("/signup")
            let fields = [("handle", "ana"), ("displayName", "Ana"), ("password", "long enough pass"), ("timeZone", "Asia/Tokyo")]
            #expect(try await ana.post("/signup", fields).status == 303)
            #expect(try await ana.get("/settings").text.contains("<option value=\"Asia/Tokyo\" selected>"))
            let ben = parlor.visitor()
            try await ben.get("/signup")
            let unknown = [("handle", "ben"), ("displayName", "Ben"), ("password", "long enough pass"), ("timeZone", "Nowhere/Else")]
            #expect(try await ben.post("/signup", unknown).status == 303)
            #expect(try await ben.get("/settings").text.contains("<option value=\"UTC\" selected>"))
        }
    }

    @Test func thePasswordIsStoredAsAnArgon2idHashOnly() async throws {
        try await RunningParlor.with(configure: { $0.passwordCost = .interactive }) { parlor in
            try await parlor.visitor().signUp("ana", password: "a secret phrase 42")
            var database = String(decoding: try Data(contentsOf: parlor.folder.appendingPathComponent("parlor.sqlite")), as: UTF8.self)
            if let wal = try? Data(contentsOf: parlor.folder.appendingPathComponent("parlor.sqlite-wal")) {
                database += String(decoding: wal, as: UTF8.self)
            }
            #expect(database.contains("$argon2id$v=19$m=65536,t=2,p=1$"), "libsodium's interactive cost")
            #expect(!database.contains("a secret phrase 42"))
        }
    }

    @Test func signingOutEndsTheSessionOnTheServerNotJustInTheBrowser() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana")
            try await ana.get("/chats")
            let stolen = ana.cookies
            let out = try await ana.post("/signout", [])
            #expect(out.status == 303)
            #expect(out.header("Location") == "/signin")
            #expect(ana.cookies["parlor_session"] == nil)
            let replay = parlor.visitor()
            replay.cookies = stolen
            let page = try await replay.get("/chats")
            #expect(page.status == 303)
            #expect(page.header("Location") == "/signin")
        }
    }

    @Test func changingThePasswordNeedsTheCurrentOneAndSignsOutEveryOtherBrowser() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", password: "correct horse battery")
            // The same person in a second browser, with a live page open.
            let laptop = parlor.visitor()
            try await laptop.get("/signin")
            #expect(try await laptop.post("/signin", [("handle", "ana"), ("password", "correct horse battery")]).status == 303)
            let (stream, _) = try await laptop.openEvents("/events")
            _ = try await stream.read(until: "action=\"badge\"")
            try await ana.get("/settings")
            let wrong = try await ana.post("/settings/password", [("currentPassword", "wrong horse battery"), ("newPassword", "a brand new secret")])
            #expect(wrong.status == 422)
            #expect(wrong.text.contains("<p class=\"field-error\" id=\"password-current-error\" role=\"alert\">That is not your current password.</p>"))
            let short = try await ana.post("/settings/password", [("currentPassword", "correct horse battery"), ("newPassword", "short")])
            #expect(short.status == 422 && short.text.contains("id=\"password-new-error\""))
            #expect(try await laptop.get("/chats").status == 200, "refusals change nothing")
            let changed = try await ana.post("/settings/password", [("currentPassword", "correct horse battery"), ("newPassword", "a brand new secret")])
            #expect(changed.status == 303 && changed.header("Location") == "/settings?password=changed#password")
            #expect(try await ana.get("/settings?password=changed").text.contains("Password changed."))
            #expect(try await ana.get("/chats").status == 200, "this browser stays signed in")
            // The other browser is signed out, and its live page was closed.
            stream.setTimeout(5)
            _ = try await stream.readToEnd()
            let signedOut = try await laptop.get("/chats")
            #expect(signedOut.status == 303 && signedOut.header("Location") == "/signin")
            let again = parlor.visitor()
            try await again.get("/signin")
            #expect(try await again.post("/signin", [("handle", "ana"), ("password", "correct horse battery")]).status == 422)
            #expect(try await again.post("/signin", [("handle", "ana"), ("password", "a brand new secret")]).status == 303)
        }
    }

    @Test func signingInWithTheRightPasswordWorksAndAWrongOneSaysSoWithoutSayingWhich() async throws {
        try await RunningParlor.with { parlor in
            try await parlor.visitor().signUp("ana", password: "correct horse battery")
            let ben = parlor.visitor()
            try await ben.get("/signin")
            let wrong = try await ben.post("/signin", [("handle", "ana"), ("password", "wrong horse battery")])
            #expect(wrong.status == 422)
            #expect(wrong.text.contains("That handle and password do not match an account."))
            #expect(wrong.text.contains("value=\"ana\""), "the handle is kept, the password is not")
            #expect(!wrong.text.contains("wrong horse"))
            let unknown = try await ben.post("/signin", [("handle", "nobody"), ("password", "wrong horse battery")])
            #expect(unknown.status == 422)
            #expect(unknown.text.contains("That handle and password do not match an account."))
            let right = try await ben.post("/signin", [("handle", "ANA"), ("password", "correct horse battery")])
            #expect(right.status == 303)
            #expect(try await ben.get("/chats").status == 200)
        }
    }

    @Test func wrongPasswordsSlowTheGuesserMoreEachTimeButNeverLockTheOwnerOut() async throws {
        try await RunningParlor.with(configure: { $0.trustedProxies = ["127.0.0.1"] }) { parlor in
            try await parlor.visitor().signUp("ana", password: "correct horse battery")
            /// A sign-in as it reaches Parlor through its proxy from `address`.
            func signIn(_ visitor: Visitor, _ password: String, from address: String, handle: String = "ana") async throws -> TestResponse {
                try await visitor.post("/signin", [("handle", handle), ("password", password)], headers: ["X-Forwarded-For: \(address)"])
            }
            let guesser = parlor.visitor()
            try await guesser.get("/signin")
            let attacker = "198.51.100.7"
            for attempt in 1...3 {
                #expect(try await signIn(guesser, "guess number \(attempt)", from: attacker).status == 422, "three tries are free")
            }
            // Then each try waits, the right password too, and longer after every failure; the page says how long.
            for (wait, words) in [(1, "1 second"), (2, "2 seconds"), (4, "4 seconds")] {
                let slowed = try await signIn(guesser, "correct horse battery", from: attacker)
                #expect(slowed.status == 429 && slowed.text.contains("Too many attempts to sign in. Try again in \(words)."), "\(words)")
                #expect(slowed.header("Retry-After") == String(wait) && guesser.cookies["parlor_session"] == nil)
                parlor.clock.advance(by: TimeInterval(wait))
                #expect(try await signIn(guesser, "guess after \(wait)", from: attacker).status == 422)
            }
            // Ana, from her own address, signs in at once all along.
            let ana = parlor.visitor()
            try await ana.get("/signin")
            #expect(try await signIn(ana, "correct horse battery", from: "203.0.113.5").status == 303)
            // Another account from the guesser's address is not slowed by it.
            try await parlor.visitor().signUp("ben", password: "another good one")
            let ben = parlor.visitor()
            try await ben.get("/signin")
            #expect(try await signIn(ben, "another good one", from: attacker, handle: "ben").status == 303)

            // Ten failures from ten addresses: each of them now waits the whole window, and Ana's own address does not.
            for host in 10..<20 {
                #expect(try await signIn(guesser, "spray \(host)", from: "198.51.100.\(host)").status == 422)
            }
            let ceiling = try await signIn(guesser, "correct horse battery", from: "198.51.100.10")
            #expect(ceiling.status == 429 && ceiling.text.contains("Try again in 15 minutes.") && ceiling.header("Retry-After") == "900")
            let owner = parlor.visitor()
            try await owner.get("/signin")
            #expect(try await signIn(owner, "correct horse battery", from: "203.0.113.5").status == 303, "never locked out")
        }
    }

    @Test func badSignUpsAreRefusedWithTheFormAndCreateNothing() async throws {
        try await RunningParlor.with { parlor in
            try await parlor.visitor().signUp("ana")
            let ben = parlor.visitor()
            try await ben.get("/signup")
            let taken = try await ben.post("/signup", [("handle", "Ana"), ("displayName", "Another Ana"), ("password", "long enough pass")])
            #expect(taken.status == 422)
            #expect(taken.text.contains("@Ana is taken") || taken.text.contains("@ana is taken"))
            #expect(taken.text.contains("value=\"Another Ana\""))
            let short = try await ben.post("/signup", [("handle", "ben"), ("displayName", "Ben"), ("password", "short")])
            #expect(short.status == 422)
            #expect(short.text.contains("at least 10 characters"))
            let malformed = try await ben.post("/signup", [("handle", "b e n"), ("displayName", "Ben"), ("password", "long enough pass")])
            #expect(malformed.status == 422)
            #expect(malformed.text.contains("A handle has 3 to 20 letters"))
            let noName = try await ben.post("/signup", [("handle", "ben"), ("displayName", "   "), ("password", "long enough pass")])
            #expect(noName.status == 422)
            // None of them made an account: "ben" can still sign up.
            #expect(try await ben.post("/signup", [("handle", "ben"), ("displayName", "Ben"), ("password", "long enough pass")]).status == 303)
        }
    }

    @Test func theCookieIsSecureWhenATrustedProxySaysTheRequestCameOverHTTPS() async throws {
        try await RunningParlor.with(configure: { $0.trustedProxies = ["127.0.0.1"] }) { parlor in
            let ana = parlor.visitor()
            try await ana.get("/signup", headers: ["X-Forwarded-Proto: https"])
            let response = try await ana.post(
                "/signup", [("handle", "ana"), ("displayName", "Ana"), ("password", "long enough pass")],
                headers: ["X-Forwarded-Proto: https", "Origin: https://127.0.0.1"]
            )
            #expect(response.status == 303)
            let cookie = response.headers.first { $0.1.hasPrefix("parlor_session=") }?.1 ?? ""
            #expect(cookie.contains("; Secure"))
            // A proxy that passes the public host name in X-Forwarded-Host: the browser's Origin names it.
            try await ana.get("/chats", headers: ["X-Forwarded-Proto: https"])
            let settings = [("displayName", "Ana"), ("timeZone", "UTC"), ("locale", "en_US")]
            let proxied = try await ana.post(
                "/settings", settings, headers: ["X-Forwarded-Proto: https", "X-Forwarded-Host: chat.example", "Origin: https://chat.example"]
            )
            #expect(proxied.status == 303)
            let foreign = try await ana.post(
                "/settings", settings, headers: ["X-Forwarded-Proto: https", "X-Forwarded-Host: chat.example", "Origin: https://evil.example"]
            )
            #expect(foreign.status == 403)
        }
    }

    @Test func oneAddressTryingManyAccountsIsSlowedDownToo() async throws {
        try await RunningParlor.with(configure: { $0.signInLimits.perAddress = 3 }) { parlor in
            try await parlor.visitor().signUp("ana", password: "correct horse battery")
            let sprayer = parlor.visitor()
            try await sprayer.get("/signin")
            for handle in ["ben", "chloe", "dan"] {
                #expect(try await sprayer.post("/signin", [("handle", handle), ("password", "Password123")]).status == 422)
            }
            let refused = try await sprayer.post("/signin", [("handle", "ana"), ("password", "correct horse battery")])
            #expect(refused.status == 429)
            #expect(sprayer.cookies["parlor_session"] == nil)
        }
    }
}
