import ByteOutput
import HTTPTestSupport
import Testing
@testable import MicroHTTP

@Suite struct RoutingTests {
    static var router: Router {
        var router = Router()
        router.get("/") { _ in .text("home") }
        router.get("/chats/{id}") { request in .text("chat \(request.parameters["id"] ?? "?")") }
        router.get("/chats/{id}/messages/{message}") { request in
            .text("\(request.parameters["id"]!)/\(request.parameters["message"]!)")
        }
        router.post("/chats/{id}") { _ in .redirect(to: "/chats") }
        router.get("/boom") { _ in throw DatabaseCorrupted(table: "secret_table") }
        router.get("/refuse") { _ in throw HTTPError(.conflict, "That <handle> is taken.") }
        return router
    }

    struct DatabaseCorrupted: Error { let table: String }

    /// Found by FuzzRequestPath: "/" followed by a combining mark is one Swift Character, and the segment
    /// after it was glued to the one before.
    @Test func aSegmentThatStartsWithACombiningMarkIsStillASegment() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            #expect(try await client.exchange("GET", "/chats/%CC%81x").text == "chat \u{301}x")
            #expect(try await client.exchange("GET", "/chats/7/messages/%DB%98").text == "7/\u{6D8}")
        }
        guard case .notFound = Self.router.match(.get, path: "/\u{301}chats/1") else {
            Issue.record("a combining mark is part of the segment it starts")
            return
        }
    }

    @Test func routesCaptureParameters() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            #expect(try await client.exchange("GET", "/").text == "home")
            #expect(try await client.exchange("GET", "/chats/42").text == "chat 42")
            #expect(try await client.exchange("GET", "/chats/7/messages/99").text == "7/99")
        }
    }

    @Test func percentEncodedParametersArriveDecoded() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange("GET", "/chats/caf%C3%A9%20au%20lait")
            #expect(response.text == "chat café au lait")
        }
    }

    @Test func unknownPathIs404() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            #expect(try await client.exchange("GET", "/nowhere").status == 404)
            #expect(try await client.exchange("GET", "/chats").status == 404)
            #expect(try await client.exchange("GET", "/chats/1/extra/segments/here").status == 404)
        }
    }

    @Test func knownPathWithOtherMethodIs405WithAllow() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            let response = try await client.exchange("DELETE", "/chats/3")
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, POST, HEAD")
            let onHome = try await client.exchange("POST", "/", body: "")
            #expect(onHome.status == 405)
            #expect(onHome.header("Allow") == "GET, HEAD")
        }
    }

    @Test func headIsAnsweredByGetWithoutABody() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            let head = try await client.exchange("HEAD", "/chats/5")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "6")
            #expect(head.body.isEmpty)
            // The connection is still in step: the next response is the right one.
            #expect(try await client.exchange("GET", "/chats/6").text == "chat 6")
        }
    }

    @Test func thrownErrorIs500WithRequestIdAndNoInternals() async throws {
        let logs = LogRecorder()
        try await withServer(Self.router, logs: logs) { _, port in
            let response = try await RawClient(port: port).exchange("GET", "/boom")
            #expect(response.status == 500)
            #expect(!response.text.contains("secret_table"))
            #expect(!response.text.contains("DatabaseCorrupted"))
            let failure = try #require(logs.all.first { $0.message == "handler failed" })
            #expect(failure.metadata["error"]?.contains("secret_table") == true)
            let id = try #require(failure.metadata["request"])
            #expect(response.text.contains("Request \(id)"))
        }
    }

    @Test func httpErrorShowsItsMessageEscaped() async throws {
        try await withServer(Self.router) { _, port in
            let response = try await RawClient(port: port).exchange("GET", "/refuse")
            #expect(response.status == 409)
            #expect(response.text.contains("That &lt;handle&gt; is taken."))
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        }
    }

    @Test func everyRequestGetsOneLogLineWithItsId() async throws {
        let logs = LogRecorder()
        try await withServer(Self.router, logs: logs) { _, port in
            let client = try RawClient(port: port)
            _ = try await client.exchange("GET", "/chats/1")
            _ = try await client.exchange("GET", "/missing")
        }
        let lines = logs.all.filter { $0.level == .info && $0.metadata["request"] != nil && $0.metadata["ms"] != nil }
        #expect(lines.map(\.message) == ["GET /chats/1 200", "GET /missing 404"])
        #expect(Set(lines.compactMap { $0.metadata["request"] }).count == 2)
    }

    @Test func aPathWithASecretIsLoggedAsItsPatternMatchedOrNotAndUnderAMountPath() {
        var router = Router()
        router.get("/join/{code:secret}") { request in .text(request.parameters["code"] ?? "") }
        router.get("/chats/{id}") { _ in .text("chat") }
        guard case .found(_, let parameters) = router.match(.get, path: "/join/s3cr3t") else {
            Issue.record("the secret parameter is a parameter like any other")
            return
        }
        #expect(parameters == ["code": "s3cr3t"])
        #expect(router.loggedPath("/join/s3cr3t") == "/join/{code}")
        #expect(router.loggedPath("/join/s3cr3t/more") == "/join/{code}", "refused as not found, still not written")
        #expect(router.loggedPath("/join") == "/join" && router.loggedPath("/chats/7") == "/chats/7")
        #expect(router.patternsWithSecrets == ["/join/{code}"])
        router.mountPath = "/chat"
        #expect(router.loggedPath("/chat/join/s3cr3t") == "/chat/join/{code}" && router.patternsWithSecrets == ["/chat/join/{code}"])
        #expect(router.loggedPath("/elsewhere/join/s3cr3t") == "/elsewhere/join/s3cr3t", "not this router's")
    }

    @Test func aLiteralSegmentWinsOverAParameterWhateverTheOrderOfRegistration() {
        func answer(_ router: Router, _ path: String, _ method: HTTPMethod = .get) -> String? {
            guard case .found(let route, let parameters) = router.match(method, path: path) else { return nil }
            return route.pattern.description + (parameters.isEmpty ? "" : " " + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        }
        var router = Router()
        router.get("/public/{path...}") { _ in .text("file") }
        router.get("/rooms/{id}") { _ in .text("room") }
        router.get("/rooms/{id}/members") { _ in .text("members") }
        router.post("/rooms/{id}") { _ in .text("posted") }
        router.get("/rooms/new") { _ in .text("form") }
        router.get("/rooms/new/members") { _ in .text("new members") }
        router.get("/public/app.webmanifest") { _ in .text("manifest") }
        #expect(answer(router, "/rooms/new") == "/rooms/new", "registered after /rooms/{id}, tried before it")
        #expect(answer(router, "/rooms/7") == "/rooms/{id} id=7")
        #expect(answer(router, "/rooms/new/members") == "/rooms/new/members")
        #expect(answer(router, "/rooms/8/members") == "/rooms/{id}/members id=8")
        #expect(answer(router, "/public/app.webmanifest") == "/public/app.webmanifest", "a literal before the rest of a path")
        #expect(answer(router, "/public/css/parlor.css") == "/public/{path...} path=css/parlor.css")
        #expect(answer(router, "/rooms/new", .post) == "/rooms/{id} id=new", "a method the literal route lacks: the parameter's")
        guard case .methodNotAllowed(let allowed) = router.match(.delete, path: "/rooms/new") else {
            Issue.record("a known path with another method is 405")
            return
        }
        #expect(Set(allowed) == [.get, .post, .head])
    }

    @Test func dotSegmentsAreRefused() async throws {
        try await withServer(Self.router) { _, port in
            let client = try RawClient(port: port)
            #expect(try await client.exchange("GET", "/chats/../chats/1").status == 400)
            #expect(try await client.exchange("GET", "/chats/%2e%2e/x").status == 400)
            #expect(try await client.exchange("GET", "/chats/./1").status == 400)
            #expect(try await client.exchange("GET", "/chats/1%00x").status == 400)
        }
    }
}

@Suite struct ResponseHeaderTests {
    @Test func headerWithALineBreakBecomesA500NotASplitResponse() async throws {
        let logs = LogRecorder()
        var router = Router()
        router.get("/split") { _ in
            // As if a handler echoed user input into a header.
            Response(headers: ["X-Echo": "a\r\nSet-Cookie: stolen=1"], body: .bytes(.init("hi".utf8)))
        }
        try await withServer(router, logs: logs) { _, port in
            let client = try RawClient(port: port)
            let response = try await client.exchange("GET", "/split")
            #expect(response.status == 500)
            #expect(response.header("Set-Cookie") == nil)
            #expect(try await client.exchange("GET", "/split").status == 500)  // still in step
        }
        #expect(logs.all.contains { $0.message == "response could not be built" && $0.metadata["error"]?.contains("X-Echo") == true })
    }
}

@Suite struct ResponseHelperTests {
    @Test func formPostIsAnsweredWithSeeOtherAndCookies() async throws {
        var router = Router()
        router.post("/signin") { _ in
            Response.redirect(to: "/chats")
                .settingCookie(SetCookie(name: "session", value: "s3cr3t", maxAge: 3600, secure: true))
                .settingCookie(.expired("flash"))
        }
        try await withServer(router) { _, port in
            let response = try await RawClient(port: port).exchange(
                "POST", "/signin", headers: ["Content-Type: application/x-www-form-urlencoded"], body: "handle=ana")
            #expect(response.status == 303)
            #expect(response.header("Location") == "/chats")
            let cookies = response.headers.filter { $0.0.lowercased() == "set-cookie" }.map(\.1)
            #expect(cookies == [
                "session=s3cr3t; Path=/; Max-Age=3600; Secure; HttpOnly; SameSite=Lax",
                "flash=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax",
            ])
        }
    }
}

@Suite struct PreparedResponseTests {
    @Test func fieldsAddedToAPreparedResponseAreSentWithItsOwn() async throws {
        let page = try PreparedResponse(headers: ["Content-Type": "text/html; charset=utf-8"], body: OutputBuffer("<p>hi</p>".utf8))
        var router = Router()
        router.get("/plain") { _ in .prepared(page) }
        router.get("/welcome") { _ in Response.prepared(page).settingCookie(SetCookie(name: "seen", value: "1")) }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            let plain = try await client.exchange("GET", "/plain")
            #expect(plain.text == "<p>hi</p>")
            #expect(plain.header("Set-Cookie") == nil)
            let welcome = try await client.exchange("GET", "/welcome")
            #expect(welcome.status == 200)
            #expect(welcome.text == "<p>hi</p>")
            #expect(welcome.header("Content-Type") == "text/html; charset=utf-8")
            #expect(welcome.header("Set-Cookie") == "seen=1; Path=/; HttpOnly; SameSite=Lax")
            // The shared response was not changed by it.
            #expect(try await client.exchange("GET", "/plain").header("Set-Cookie") == nil)
        }
    }
}

@Suite struct ConnectionLimitTests {
    @Test func connectionsBeyondThePerAddressLimitAreClosed() async throws {
        var router = Router()
        router.get("/") { _ in .text("hello") }
        try await withServer(router, configure: { $0.perAddressConnectionLimit = 2 }) { _, port in
            let first = try RawClient(port: port)
            let second = try RawClient(port: port)
            #expect(try await first.exchange("GET", "/").text == "hello")
            #expect(try await second.exchange("GET", "/").text == "hello")
            let third = try RawClient(port: port)  // the kernel accepts it; libmicrohttpd closes it
            try? third.send(RawClient.request("GET", "/"))
            #expect(await third.waitForClose())
            // The first two are unaffected.
            #expect(try await first.exchange("GET", "/").text == "hello")
        }
    }
}

@Suite struct CommonHeadersTests {
    @Test func everyResponseCarriesTheCommonFieldsOnceUnlessItSetsItsOwn() async throws {
        let bare = try PreparedResponse(headers: ["Content-Type": "text/plain"], body: OutputBuffer("bare".utf8))
        let carrying = try PreparedResponse(headers: ["Content-Type": "text/plain", "X-Policy": "shared"], body: OutputBuffer("carrying".utf8))
        var router = Router()
        router.commonHeaders = ["X-Policy": "shared"]
        router.get("/text") { _ in .text("text") }
        router.get("/own") { _ in
            var response = Response.text("own")
            response.headers.add("X-Policy", "its own")
            return response
        }
        router.get("/bare") { _ in .prepared(bare) }
        router.get("/carrying") { _ in .prepared(carrying) }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            for (path, expected) in [("/text", "shared"), ("/own", "its own"), ("/bare", "shared"), ("/carrying", "shared"), ("/missing", "shared")] {
                let response = try await client.exchange("GET", path)
                let values = response.headers.filter { $0.0.lowercased() == "x-policy" }.map(\.1)
                #expect(values == [expected], "\(path)")
            }
        }
    }
}
