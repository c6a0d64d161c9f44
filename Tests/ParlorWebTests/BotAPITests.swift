import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorWeb
import Testing
@testable import parlor

/// Bots an administrator makes, their API (a key, JSON in and out, the rooms they are in only), and their webhooks,
/// through the real server and a scripted webhook on 127.0.0.1.
@Suite struct BotAPITests {
    /// Ana (the administrator) makes a bot on the Administration page; the key it shows once.
    static func makeBot(_ ana: Visitor, handle: String, webhook: String = "") async throws -> String {
        try await ana.get("/admin")
        let made = try await ana.post("/admin/bots", [("name", handle.capitalized + " Bot"), ("handle", handle), ("webhook", webhook)])
        #expect(made.status == 201, "\(made.text.prefix(400))")
        let value = try #require(made.text.range(of: "id=\"bot-key\" type=\"text\" value=\""), "the key is shown")
        return String(made.text[value.upperBound...].prefix { $0 != "\"" })
    }

    /// A request of the bot's, with its key (none when nil) and a JSON body.
    static func call(_ parlor: RunningParlor, _ method: String, _ path: String, key: String?, json: String? = nil, type: String = "application/json")
        async throws -> TestResponse
    {
        var headers: [String] = []
        if let key { headers.append("Authorization: Bearer \(key)") }
        if json != nil { headers.append("Content-Type: \(type)") }
        return try await parlor.visitor().send(method, path, headers: headers, body: json)
    }

    /// The JSON object answered; empty when the answer is not one (which the expectations then catch).
    static func object(_ response: TestResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.text.utf8))) as? [String: Any] ?? [:]
    }

    /// Ana, Ben, a closed room "Launch" of theirs with a message of Ben's, and a bot with its key, not in the room yet.
    static func world(_ parlor: RunningParlor, webhook: String = "") async throws -> (ana: Visitor, ben: Visitor, room: String, key: String) {
        let ana = parlor.visitor()
        try await ana.signUp("ana", name: "Ana Lima")
        let ben = parlor.visitor()
        try await ben.signUp("ben", name: "Ben Okafor")
        try await ana.get("/rooms/new")
        let room = try #require(try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")]).header("Location"))
        #expect(try await ben.say("Ship it **Friday**?", in: room).status == 303)
        return (ana, ben, room, try await makeBot(ana, handle: "deploy", webhook: webhook))
    }

    @Test func aBotReadsPostsEditsDeletesAndReactsInTheRoomsItIsIn() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, room, key) = try await Self.world(parlor)
            let id = room.split(separator: "/").last!
            let api = "/api/rooms/\(id)/messages"
            let admin = try await ana.get("/admin").text
            #expect(admin.contains("<span class=\"person-handle\">@deploy</span>") && admin.contains("No webhook"))
            #expect(!admin.contains(key), "the key is shown once, never again")

            // Not in the room yet: the same answer as a room that does not exist.
            let outside = try await Self.call(parlor, "GET", api, key: key)
            #expect(outside.status == 404 && (Self.object(outside))["error"] as? String == "There is no such room, or this bot is not in it.")
            #expect(outside.header("Content-Type") == "application/json")
            try await ana.get("\(room)/members")
            #expect(try await ana.post("\(room)/members", [("members", "@deploy")]).status == 303)

            // The room's messages, newest first, the text as typed and as the conversation shows it.
            let listed = Self.object(try await Self.call(parlor, "GET", api + "?limit=1", key: key))
            let messages = try #require(listed["messages"] as? [[String: Any]])
            #expect(messages.count == 1)
            let newest = messages[0]
            let older = try #require(listed["older"] as? String)
            let all = Self.object(try await Self.call(parlor, "GET", older, key: key))
            let bens = try #require((all["messages"] as? [[String: Any]])?.first { $0["text"] as? String == "Ship it **Friday**?" })
            #expect(bens["html"] as? String == "<p>Ship it <strong>Friday</strong>?</p>")
            #expect((bens["sender"] as? [String: Any])?["handle"] as? String == "ben")
            #expect((newest["id"] as? Int ?? 0) > (bens["id"] as? Int ?? .max), "newest first, one a page, the cursor to the rest")
            #expect(Self.object(try await Self.call(parlor, "GET", "/api/rooms", key: key))["rooms"] as? [[String: Any]] != nil)

            // A message, the same token twice storing it once; Ben sees it, from the bot, by name.
            let posted = try await Self.call(parlor, "POST", api, key: key, json: #"{"text": "Deploying <main> now", "token": "run-1"}"#)
            #expect(posted.status == 201, "\(posted.text)")
            let message = try #require(Self.object(posted)["message"] as? [String: Any])
            let messageID = try #require(message["id"] as? Int)
            #expect(message["html"] as? String == "<p>Deploying &lt;main&gt; now</p>")
            let again = Self.object(try await Self.call(parlor, "POST", api, key: key, json: #"{"text": "Deploying <main> now", "token": "run-1"}"#))
            #expect((again["message"] as? [String: Any])?["id"] as? Int == messageID, "a retry stores nothing twice")
            let page = try await ben.get(room).text
            #expect(page.contains("Deploying &lt;main&gt; now") && page.contains("Deploy Bot"))

            // Its own: edited, reacted to, deleted. Someone else's: not.
            let edited = try await Self.call(parlor, "PATCH", "\(api)/\(messageID)", key: key, json: #"{"text": "Deployed"}"#)
            #expect(edited.status == 200 && (Self.object(edited)["message"] as? [String: Any])?["editedAt"] != nil)
            let bensID = try #require(bens["id"] as? Int)
            let notItsOwn = try await Self.call(parlor, "PATCH", "\(api)/\(bensID)", key: key, json: #"{"text": "Mine now"}"#)
            #expect(notItsOwn.status == 403 && (Self.object(notItsOwn))["error"] as? String == "A bot changes only its own messages.")
            #expect(try await Self.call(parlor, "DELETE", "\(api)/\(bensID)", key: key).status == 403)
            let reacted = try await Self.call(parlor, "POST", "\(api)/\(bensID)/reactions", key: key, json: #"{"reaction": "🚀"}"#)
            #expect(reacted.status == 200 && reacted.text.contains(#""reaction":"🚀""#) && reacted.text.contains(#""people":["Deploy Bot"]"#))
            #expect(try await Self.call(parlor, "DELETE", "\(api)/\(messageID)", key: key).status == 204)
            #expect(try await parlor.store.message(MessageID(Int64(messageID)))?.isDeleted == true)
            #expect(try await parlor.store.message(MessageID(Int64(bensID)))?.body == "Ship it **Friday**?")

            // A new key: the old one opens nothing from then on.
            let botID = try #require(try await parlor.store.user(handle: "deploy")).id
            try await ana.get("/admin")
            let renewed = try await ana.post("/admin/bots/\(botID)/key", [])
            #expect(renewed.status == 200 && renewed.text.contains("The key of @deploy"))
            #expect(try await Self.call(parlor, "GET", api, key: key).status == 401)
        }
    }

    /// What Parlor Bot does through the API is open to every bot: read a room up to a message (its writer sees "Read"),
    /// and write to a person directly.
    @Test func aBotMarksWhatItReadAndWritesToAPersonDirectly() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, room, key) = try await Self.world(parlor)
            let id = room.split(separator: "/").last!
            let chat = ChatID(Int64(id)!)
            #expect(try await Self.call(parlor, "POST", "/api/rooms/\(id)/read", key: key, json: #"{"upTo": 1}"#).status == 404, "not in the room yet")
            try await ana.get("\(room)/members")
            #expect(try await ana.post("\(room)/members", [("members", "@deploy")]).status == 303)
            let bot = try #require(try await parlor.store.user(handle: "deploy"))
            #expect(try await ben.say("Is it out?", in: room).status == 303)
            let bens = try #require(try await parlor.store.messages(in: chat, before: nil, limit: 10).messages.last)
            let read = #"{"upTo": \#(bens.id)}"#

            let marked = try await Self.call(parlor, "POST", "/api/rooms/\(id)/read", key: key, json: read)
            #expect(marked.status == 200 && Self.object(marked)["moved"] as? Bool == true, "\(marked.text)")
            #expect(try await parlor.store.membership(chat, bot.id)?.lastRead == bens.id)
            #expect(Self.object(try await Self.call(parlor, "POST", "/api/rooms/\(id)/read", key: key, json: read))["moved"] as? Bool == false, "already there")
            for body in [#"{"upTo": 0}"#, #"{"upTo": "12"}"#, #"{}"#] {
                let refused = try await Self.call(parlor, "POST", "/api/rooms/\(id)/read", key: key, json: body)
                #expect(refused.status == 400 && Self.object(refused)["error"] != nil, "\(body)")
            }

            // A direct chat with Ben, made once; a handle nobody has is refused in words.
            let direct = try await Self.call(parlor, "POST", "/api/direct", key: key, json: #"{"handle": "@ben"}"#)
            let made = try #require((Self.object(direct)["room"] as? [String: Any])?["id"] as? Int, "\(direct.text)")
            #expect(direct.status == 200 && (Self.object(direct)["room"] as? [String: Any])?["kind"] as? String == "direct")
            let again = Self.object(try await Self.call(parlor, "POST", "/api/direct", key: key, json: #"{"handle": "ben"}"#))
            #expect((again["room"] as? [String: Any])?["id"] as? Int == made)
            #expect(try await Self.call(parlor, "POST", "/api/rooms/\(made)/messages", key: key, json: #"{"text": "Deployed, Ben"}"#).status == 201)
            #expect(try await ben.get("/rooms/\(made)").text.contains("Deployed, Ben"))
            let nobody = try await Self.call(parlor, "POST", "/api/direct", key: key, json: #"{"handle": "nobody"}"#)
            #expect((400..<500).contains(nobody.status) && Self.object(nobody)["error"] != nil)

            // Its face, uploaded by an administrator: no one else, and nothing that is not a photo.
            let face = "/admin/bots/\(bot.id)/avatar"
            try await ben.get("/chats")
            #expect(try await ben.postFile(face, field: "avatar", filename: "b.gif", contentType: "image/gif", bytes: AvatarTests.gif).status == 403)
            let notAPhoto = try await ana.postFile(face, field: "avatar", filename: "b.gif", contentType: "image/gif", bytes: Array("GIF? no".utf8))
            #expect((400..<500).contains(notAPhoto.status) && notAPhoto.text.contains("id=\"administration-error\" role=\"alert\""), "\(notAPhoto.status)")
            #expect(try await parlor.store.user(bot.id)?.avatar == nil)
            try await ana.get("/admin")
            let uploaded = try await ana.postFile(face, field: "avatar", filename: "b.gif", contentType: "image/gif", bytes: AvatarTests.gif)
            #expect(uploaded.status == 303, "\(uploaded.text.prefix(300))")
            let avatar = try #require(try await parlor.store.user(bot.id)?.avatar)
            #expect(try await ben.get("/images/\(avatar)/avatarSmall").status == 200, "Ben shares a room with it")
            #expect(try await ben.get("/rooms/\(made)").text.contains("/images/\(avatar)/avatarSmall"))

            // Parlor Bot is one of the bots, listed with them.
            #expect(try await parlor.store.bots().map(\.user.handle).contains("parlor"))
            #expect(try await ana.get("/admin").text.contains("<span class=\"person-handle\">@parlor</span>"))
        }
    }

    /// A bot's photo: checked on its head (key, room) before a byte is stored, then checked and processed as a person's.
    @Test func aBotPostsAPhotoWithWordsAndWhatIsRefusedStoresNothing() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, room, key) = try await Self.world(parlor)
            let id = room.split(separator: "/").last!
            let chat = ChatID(Int64(id)!)
            let photos = "/api/rooms/\(id)/photos"
            func send(_ bytes: [UInt8], key: String?, to path: String = photos, fields: [(String, String)] = [("text", "The new *dashboard*")])
                async throws -> TestResponse
            {
                try await parlor.visitor().postFile(
                    path, field: "photo", filename: "dash.gif", contentType: "image/gif", bytes: bytes, fields: fields,
                    headers: key.map { ["Authorization: Bearer \($0)"] } ?? []
                )
            }
            let before = try await parlor.store.messages(in: chat, before: nil, limit: 100).messages.count
            let outside = try await send(AvatarTests.gif, key: key)
            #expect(outside.status == 404 && Self.object(outside)["error"] as? String == "There is no such room, or this bot is not in it.")
            try await ana.get("\(room)/members")
            #expect(try await ana.post("\(room)/members", [("members", "@deploy")]).status == 303)
            let members = try await parlor.store.messages(in: chat, before: nil, limit: 100).messages.count

            // Refused: no key, not an image, no file, a reply id out of range. Nothing stored, no file kept.
            let noKey = try await send(AvatarTests.gif, key: nil)
            #expect(noKey.status == 401 && Self.object(noKey)["error"] != nil)
            let notImage = try await send(Array("just words".utf8), key: key)
            #expect((400..<500).contains(notImage.status) && Self.object(notImage)["error"] != nil, "\(notImage.status) \(notImage.text)")
            let empty = try await send([], key: key)
            #expect(empty.status == 400 && (Self.object(empty)["error"] as? String)?.contains("\"photo\"") == true)
            let badReply = try await send(AvatarTests.gif, key: key, fields: [("replyTo", "-3")])
            #expect(badReply.status == 400 && Self.object(badReply)["error"] as? String == "The field \"replyTo\" has a value Parlor cannot take.")
            #expect(try await parlor.store.messages(in: chat, before: nil, limit: 100).messages.count == members)
            #expect(MessagePhotoTests.originals(parlor).isEmpty, "no photo kept for a refused message")
            #expect(members == before + 1, "the notice of the bot added, nothing else")

            // Posted: pending first, then ready; Ben sees it with its words.
            let posted = try await send(AvatarTests.gif, key: key, fields: [("text", "The new *dashboard*"), ("token", "shot-1")])
            #expect(posted.status == 201, "\(posted.text)")
            let message = try #require(Self.object(posted)["message"] as? [String: Any])
            let photo = try #require(message["photo"] as? [String: Any])
            #expect(photo["state"] as? String == "pending" && message["text"] as? String == "The new *dashboard*")
            let messageID = MessageID(Int64(try #require(message["id"] as? Int)))
            for _ in 0..<250 where try await parlor.store.message(messageID)?.photo?.state != .ready { try await Task.sleep(for: .milliseconds(20)) }
            let ready = try #require(try await parlor.store.message(messageID)?.photo)
            #expect(ready.state == .ready)
            let page = try await ben.get(room).text
            #expect(page.contains("/images/\(ready.id)/thumbnail") && page.contains("dashboard"))
            #expect(try await ben.get("/images/\(ready.id)/thumbnail").status == 200)
        }
    }

    /// ``world(_:webhook:)`` with the bot added to the room, and how many messages the room holds then.
    static func botInRoom(_ parlor: RunningParlor) async throws -> (ana: Visitor, room: String, key: String, chat: ChatID, before: Int) {
        let (ana, _, room, key) = try await world(parlor)
        try await ana.get("\(room)/members")
        #expect(try await ana.post("\(room)/members", [("members", "@deploy")]).status == 303)
        let chat = ChatID(Int64(room.split(separator: "/").last!)!)
        return (ana, room, key, chat, try await parlor.store.messages(in: chat, before: nil, limit: 100).messages.count)
    }

    @Test func aKeyPastItsLimitsIsAnswered429WithRetryAfterAndCounted() async throws {
        try await RunningParlor.with(configure: {
            $0.botLimits = BotLimits(messagesPerMinute: 3, directChatsPerMinute: 1)
            $0.metricsAddresses = ["127.0.0.1"]
        }, metrics: .prometheus()) { parlor in
            let (_, room, key, chat, before) = try await Self.botInRoom(parlor)
            let id = room.split(separator: "/").last!
            let api = "/api/rooms/\(id)/messages"

            for index in 0..<3 {
                #expect(try await Self.call(parlor, "POST", api, key: key, json: #"{"text": "Build \#(index)"}"#).status == 201)
            }
            let limited = try await Self.call(parlor, "POST", api, key: key, json: #"{"text": "One too many"}"#)
            #expect(limited.status == 429 && limited.header("Content-Type") == "application/json")
            #expect((1...60).contains(Int(limited.header("Retry-After") ?? "") ?? 0), "\(limited.headers)")
            #expect((Self.object(limited)["error"] as? String)?.hasPrefix("This bot has sent too many messages for now") == true)
            // A photo past the limit is refused on its head: nothing of it is kept.
            let photo = try await parlor.visitor().send(
                "POST", "/api/rooms/\(id)/photos",
                headers: ["Authorization: Bearer \(key)", "Content-Type: multipart/form-data; boundary=b"],
                body: "--b\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.gif\"\r\nContent-Type: image/gif\r\n\r\nGIF89a\r\n--b--\r\n"
            )
            #expect(photo.status == 429 && photo.header("Retry-After") != nil)
            #expect(MessagePhotoTests.originals(parlor).isEmpty)
            #expect(try await parlor.store.messages(in: chat, before: nil, limit: 100).messages.count == before + 3, "what was refused stored nothing")
            // Reading stays open; direct chats have a limit of their own.
            #expect(try await Self.call(parlor, "GET", api, key: key).status == 200)
            #expect(try await Self.call(parlor, "POST", "/api/direct", key: key, json: #"{"handle": "ana"}"#).status == 200)
            let direct = try await Self.call(parlor, "POST", "/api/direct", key: key, json: #"{"handle": "ben"}"#)
            #expect(direct.status == 429 && (Self.object(direct)["error"] as? String)?.contains("direct chats") == true)

            let metrics = try await RawClient(port: parlor.port).exchange("GET", "/metrics").text
            #expect(metrics.contains(#"parlor_bot_requests_limited_total{kind="message"} 2"#), "\(metrics.split(separator: "\n").filter { $0.contains("bot_") })")
            #expect(metrics.contains(#"parlor_bot_requests_limited_total{kind="direct_chat"} 1"#))
        }
    }

    @Test func whatTheAPIRefusesIsJSONAndChangesNothing() async throws {
        try await RunningParlor.with { parlor in
            let (ana, room, key, chat, before) = try await Self.botInRoom(parlor)
            let id = room.split(separator: "/").last!
            let api = "/api/rooms/\(id)/messages"

            // No key, a wrong one, a malformed field: 401, with the way to send one.
            for header in [nil, "wrong-key-of-the-right-length-000000", String(repeating: "k", count: 300)] as [String?] {
                let refused = try await Self.call(parlor, "GET", api, key: header)
                #expect(refused.status == 401 && refused.header("WWW-Authenticate") == "Bearer realm=\"parlor\"")
                #expect((Self.object(refused))["error"] as? String == "Send the bot's key as \"Authorization: Bearer …\".")
            }
            // Another room (closed, without the bot), rooms and messages that do not exist, ids out of range.
            try await ana.get("/rooms/new")
            let secret = try #require(try await ana.post("/rooms/new", [("name", "Secret"), ("kind", "closed"), ("members", "@ben")]).header("Location"))
            #expect(try await Self.call(parlor, "GET", "/api/rooms/1/messages", key: key).status == 200, "a bot is in the open rooms, like anyone")
            for path in ["/api\(secret)/messages", "/api/rooms/999999/messages", "/api/rooms/-2/messages", "/api/rooms/99999999999999999999/messages"] {
                #expect(try await Self.call(parlor, "GET", path, key: key).status == 404, "\(path)")
            }
            #expect(try await Self.call(parlor, "GET", api + "?limit=0", key: key).status == 400)
            #expect(try await Self.call(parlor, "GET", api + "?limit=101", key: key).status == 400)
            #expect(try await Self.call(parlor, "GET", api + "?before=x", key: key).status == 400)
            #expect(try await Self.call(parlor, "PATCH", "\(api)/424242", key: key, json: #"{"text": "x"}"#).status == 404)

            // Bodies: malformed, not an object, a field missing or of the wrong type, empty, too large, not JSON.
            let bodies: [(String, Int, String)] = [
                ("{\"text\": ", 400, "That is not a JSON object Parlor can read."),
                ("[1, 2]", 400, "That is not a JSON object Parlor can read."),
                ("{\"words\": \"hi\"}", 400, "The field \"text\" is missing."),
                ("{\"text\": 42}", 400, "The field \"text\" has a value Parlor cannot take."),
                ("{\"text\": \"hi\", \"replyTo\": -1}", 400, "The field \"replyTo\" has a value Parlor cannot take."),
                ("{\"text\": \"\"}", 422, Refusal.emptyMessage.message),
                ("{\"text\": \"\(String(repeating: "a", count: 4_001))\"}", 422, Refusal.messageTooLong(limit: 4_000).message),
                ("{\"text\": \"hi\", \"replyTo\": 424242}", 404, "There is no such message to reply to in this room."),
                ("\"\\u0000\"", 400, "That is not a JSON object Parlor can read."),
            ]
            for (body, status, words) in bodies {
                let refused = try await Self.call(parlor, "POST", api, key: key, json: body)
                #expect(refused.status == status && (Self.object(refused))["error"] as? String == words, "\(body.prefix(40)): \(refused.text)")
            }
            let large = try await Self.call(parlor, "POST", api, key: key, json: "{\"text\": \"\(String(repeating: "a", count: 20_000))\"}")
            #expect(large.status == 413 && large.header("Content-Type") == "application/json", "the server's own refusal, as JSON too")
            // Any other media type, forms included, and JSON in another charset than UTF-8: 415, in the API's JSON.
            let multipart = "--b\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nhi\r\n--b--\r\n"
            for (body, type) in [
                ("text=hi", "application/x-www-form-urlencoded"), (multipart, "multipart/form-data; boundary=b"), ("<text>hi</text>", "application/xml"),
                (#"{"text": "hi"}"#, "application/json; charset=utf-16"), (#"{"text": "hi"}"#, "text/plain"),
            ] {
                let refused = try await Self.call(parlor, "POST", api, key: key, json: body, type: type)
                #expect(refused.status == 415 && refused.header("Content-Type") == "application/json", "\(type): \(refused.status)")
                #expect(Self.object(refused)["error"] as? String == "Send this as application/json in UTF-8." && Self.object(refused)["request"] != nil, "\(type)")
            }
            #expect(try await Self.call(parlor, "POST", api, key: key, json: #"{"text": "UTF-8 said"}"#, type: "application/json; charset=UTF-8").status == 201)
            // UTF-16 bytes without a charset named: JSON is UTF-8, so it is another media type.
            var utf16: [UInt8] = [0xFF, 0xFE]
            for unit in #"{"text": "hi"}"#.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
            let client = try RawClient(port: parlor.port, timeout: 15)
            try client.send(Array("POST \(api) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\nContent-Length: \(utf16.count)\r\n\r\n".utf8) + utf16)
            let sixteen = try await client.readResponse()
            #expect(sixteen.status == 415 && Self.object(sixteen)["error"] as? String == "Send JSON in UTF-8.")
            // An id the path's decoder refuses (a NUL, bytes that are no UTF-8) is still the API's JSON refusal.
            for path in ["/api/rooms/%00/messages", "/api/rooms/%FF/messages", "/api/rooms/1%C3/messages"] {
                let refused = try await Self.call(parlor, "GET", path, key: key)
                #expect(refused.status == 400 && refused.header("Content-Type") == "application/json" && Self.object(refused)["error"] != nil, "\(path): \(refused.text)")
            }
            #expect(try await Self.call(parlor, "PUT", api, key: key, json: "{}").header("Content-Type") == "application/json")
            #expect(try await parlor.store.messages(in: chat, before: nil, limit: 100).messages.count == before + 1, "nothing but the UTF-8 message was stored")

            // The page refuses a bot Parlor cannot make, keeping what was typed.
            try await ana.get("/admin")
            let taken = try await ana.post("/admin/bots", [("name", "Other"), ("handle", "deploy"), ("webhook", "")])
            #expect(taken.status == 422 && taken.text.contains(Refusal.handleTaken("deploy").message) && taken.text.contains("value=\"Other\""))
            let hook = try await ana.post("/admin/bots", [("name", "Hook"), ("handle", "hook"), ("webhook", "ftp://example.org/x")])
            #expect(hook.status == 422 && hook.text.contains(Refusal.invalidWebhookURL.message) && !hook.text.contains("id=\"bot-key\""))
            #expect(try await parlor.store.user(handle: "hook") == nil)
        }
    }
}

/// Webhooks: a mention or a direct message tells the bot's address; what it answers is posted back as its reply.
@Suite struct BotWebhookTests {
    static func allowingLoopback(_ server: ScriptedServer) -> (inout WebConfiguration) -> Void {
        { configuration in
            configuration.webhookAllowsLoopback = true
            configuration.webhookPorts = [server.port]
            configuration.webhookTimeout = .seconds(1)
        }
    }

    /// Waits (at most 10 s) until `check` holds.
    static func eventually(_ what: Comment, _ check: () async throws -> Bool) async throws {
        if try await HTTPTestSupport.eventually(within: 10, every: .milliseconds(20), check) { return }
        Issue.record("never: \(what)")
    }

    /// An administrator deactivates a bot as they deactivate a person: out of its rooms, its key opening nothing, its
    /// webhook told nothing, until it is reactivated.
    @Test func aDeactivatedBotsKeyOpensNothingAndItsWebhookHearsNothing() async throws {
        let server = try ScriptedServer { _, _ in .answer(status: "204 No Content", headers: [], body: []) }
        defer { server.stop() }
        try await RunningParlor.with(configure: Self.allowingLoopback(server)) { parlor in
            let (ana, ben, _, key) = try await BotAPITests.world(parlor, webhook: server.url("/hook"))
            let bot = try #require(try await parlor.store.user(handle: "deploy"))
            try await ben.get("/chats/new")
            let direct = try #require(try await ben.post("/chats/new", [("handle", "deploy")]).header("Location"))
            #expect(try await ben.say("status?", in: direct).status == 303)
            try await Self.eventually("the webhook told") { server.received.count == 1 }

            try await ben.get("/chats")
            #expect(try await ben.post("/admin/people/\(bot.id)/deactivate", []).status == 403, "administrators only")
            try await ana.get("/admin")
            let deactivated = try await ana.post("/admin/people/\(bot.id)/deactivate", [])
            #expect(deactivated.status == 303 && deactivated.header("Location") == "/admin#bots")
            let page = try await ana.get("/admin").text
            #expect(page.contains("class=\"admin-bot is-deactivated\"") && page.contains("/admin/people/\(bot.id)/reactivate"))
            #expect(try await BotAPITests.call(parlor, "GET", "/api/rooms", key: key).status == 401, "its key opens nothing")
            #expect(try await parlor.store.membership(ChatID(1), bot.id) == nil, "out of the open room")
            #expect(try await ben.say("status now?", in: direct).status == 303)
            await parlor.app.botWebhooks.settled()
            #expect(server.received.count == 1, "a deactivated bot's webhook hears nothing")

            // Reactivated: its key opens again, and its webhook hears.
            #expect(try await ana.post("/admin/people/\(bot.id)/reactivate", []).header("Location") == "/admin#bots")
            #expect(try await BotAPITests.call(parlor, "GET", "/api/rooms", key: key).status == 200)
            #expect(try await ben.say("and now?", in: direct).status == 303)
            try await Self.eventually("the webhook told again") { server.received.count == 2 }
        }
    }

    @Test func aMentionTellsTheWebhookAndItsAnswerIsTheBotsReply() async throws {
        let server = try ScriptedServer { _, _ in
            .answer(status: "200 OK", headers: ["Content-Type: text/plain; charset=utf-8"], body: Array("Deploying main: 3 minutes".utf8))
        }
        defer { server.stop() }
        try await RunningParlor.with(configure: Self.allowingLoopback(server)) { parlor in
            let (ana, ben, room, _) = try await BotAPITests.world(parlor, webhook: server.url("/plain"))
            try await ana.get("\(room)/members")
            #expect(try await ana.post("\(room)/members", [("members", "@deploy")]).status == 303)
            let chat = ChatID(Int64(room.split(separator: "/").last!)!)
            let bot = try #require(try await parlor.store.user(handle: "deploy"))

            // Ben names the bot: its address hears who, where and what; its answer is its reply, under his message.
            let said = try await ben.say("@deploy ship **main** <now>", in: room)
            let asked = MessageID(Int64(try #require(said.header("Location")?.components(separatedBy: "#message-").last))!)
            try await Self.eventually("the bot's reply") {
                try await parlor.store.messages(in: chat, before: nil, limit: 5).messages.contains { $0.senderID == bot.id }
            }
            let reply = try #require(try await parlor.store.messages(in: chat, before: nil, limit: 5).messages.last { $0.senderID == bot.id })
            #expect(reply.body == "Deploying main: 3 minutes" && reply.replyTo == asked)
            let body = try #require(server.receivedBodies.first)
            let payload = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            #expect((payload["user"] as? [String: Any])?["handle"] as? String == "ben")
            #expect((payload["room"] as? [String: Any])?["name"] as? String == "Launch")
            let words = try #require(payload["message"] as? [String: Any])
            #expect(words["id"] as? Int == Int(asked.rawValue) && words["plain"] as? String == "@deploy ship main <now>")
            #expect((words["html"] as? String)?.contains("<strong>main</strong> &lt;now&gt;") == true)
            #expect(server.received.first?.headers["content-type"] == "application/json")

            // Its reply is a message in the room like any other, and tells nobody: a bot's words never do.
            #expect(server.received.count == 1)
            // A message that does not name it tells nobody either.
            _ = try await ben.say("lunch?", in: room)
            await parlor.app.botWebhooks.settled()
            #expect(server.received.count == 1)
        }
    }

    @Test func anAnswerThatIsNotAReplyPostsNothing() async throws {
        let server = try ScriptedServer { path, _ in
            switch path {
            case "/html": .answer(status: "200 OK", headers: ["Content-Type: text/html"], body: Array("<p>Done: <b>green</b><script>alert(1)</script></p>".utf8))
            case "/empty": .answer(status: "204 No Content")
            case "/json": .answer(status: "200 OK", headers: ["Content-Type: application/json"], body: Array("{\"text\": \"no\"}".utf8))
            case "/fails": .answer(status: "500 Internal Server Error", headers: ["Content-Type: text/plain"], body: Array("boom".utf8))
            case "/away": .answer(status: "302 Found", headers: ["Location: http://10.0.0.1/private"])
            default: .trickle(headers: ["Content-Type: text/plain"], chunk: Array("slow ".utf8), interval: .milliseconds(400))
            }
        }
        defer { server.stop() }
        try await RunningParlor.with(configure: Self.allowingLoopback(server)) { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            // One bot per kind of answer, each written to directly by Ana.
            var chats: [String: (chat: ChatID, bot: UserID)] = [:]
            for path in ["html", "empty", "json", "fails", "away", "slow"] {
                _ = try await BotAPITests.makeBot(ana, handle: path + "bot", webhook: server.url("/" + path))
                let chat = try await ana.startChat(with: path + "bot")
                let bot = try #require(try await parlor.store.user(handle: path + "bot")).id
                chats[path] = (ChatID(Int64(chat.split(separator: "/").last!)!), bot)
                #expect(try await ana.say("status?", in: chat).status == 303)
            }
            try await Self.eventually("every webhook ended") {
                parlor.app.botWebhooks.outcomes.withLock { $0.values.reduce(0, +) } >= 6
            }
            func replies(_ path: String) async throws -> [Message] {
                let (chat, bot) = try #require(chats[path])
                return try await parlor.store.messages(in: chat, before: nil, limit: 10).messages.filter { $0.senderID == bot }
            }
            #expect(try await replies("html").map(\.body) == ["Done: green"], "HTML made plain; what a script holds is dropped")
            for path in ["empty", "json", "fails", "away", "slow"] {
                #expect(try await replies(path).isEmpty, "\(path)")
            }
            let outcomes = parlor.app.botWebhooks.outcomes.withLock { $0 }
            #expect(outcomes["replied"] == 1 && outcomes["delivered"] == 2 && outcomes["failed"] == 3, "\(outcomes)")
            #expect(!server.received.contains { $0.path == "/private" }, "a redirect is never followed")
        }
    }
}
