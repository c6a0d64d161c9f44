import Foundation
import HTTPTestSupport
import Testing

/// Rooms through the real server: the first room a Parlor starts with, the new-room form and its refusals,
/// and a closed room that only its members can open, read, write in or listen to.
@Suite struct RoomTests {
    @Test func theFirstPersonGetsGeneralAndEveryoneAfterJoinsIt() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            let general = try await ana.chat(named: "General")
            let page = try await ana.get(general).text
            #expect(page.contains("<h1 id=\"conversation-header-") && page.contains("<span class=\"conversation-title\" dir=\"auto\">General</span> <span class=\"handle\">3 members</span>"), "Ana, Parlor Bot and the feeds' account, as `parlor serve` starts")
            let ben = parlor.visitor()
            try await ben.signUp("ben", name: "Ben Okafor")
            #expect(try await ben.chat(named: "General") == general, "one General, which Ben joined")
            #expect(try await ben.say("Hi all", in: general).status == 303)
            let list = try await ana.get("/chats").text
            #expect(list.contains("<span class=\"chat-list-preview\" dir=\"auto\">Ben Okafor: Hi all</span>"))
        }
    }

    @Test func aClosedRoomIsOnlyForItsMembers() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")

            let form = try await ana.get("/rooms/new")
            #expect(form.status == 200 && form.text.contains("<h1>New room</h1>"))
            let long = String(repeating: "n", count: 81)
            let tooLong = try await ana.post("/rooms/new", [("name", long), ("topic", "Plans"), ("kind", "closed"), ("members", "@ben")])
            #expect(tooLong.status == 422 && tooLong.text.contains("A room&#39;s name has 1 to 80 characters on one line."))
            #expect(tooLong.text.contains("value=\"\(long)\"") && tooLong.text.contains("value=\"Plans\""), "what was typed stays")
            let unknown = try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben, @zed")])
            #expect(unknown.status == 422 && unknown.text.contains("Nobody is called @zed.") && unknown.text.contains("id=\"new-room-members-error\""))
            let hostile = try await ana.post("/rooms/new", [("name", "<script>x</script>"), ("kind", "closed")])
            #expect(hostile.status == 303, "a name is text like any other")
            #expect(!(try await ana.get(hostile.header("Location") ?? "/").text.contains("<script>x")), "and escaped where it shows")

            let made = try await ana.post("/rooms/new", [("name", "  Launch  "), ("topic", "Friday's release"), ("kind", "closed"), ("members", "@ben")])
            let room = try #require(made.header("Location"))
            #expect(made.status == 303 && room.hasPrefix("/rooms/"))
            #expect(try await ben.chat(named: "Launch") == room)
            let page = try await ben.get(room).text
            #expect(page.contains("<span class=\"conversation-title\" dir=\"auto\">Launch</span> <span class=\"handle\">2 members</span>") && page.contains("Friday&#39;s release"))
            #expect(try await ben.say("Build is green", in: room).status == 303)
            #expect(try await ana.get(room).text.contains("Build is green"))

            // Chloé is not a member: the room, its messages and its stream are not hers.
            #expect(try await chloe.get(room).status == 404)
            #expect(try await chloe.post(room + "/messages", [("body", "Let me in"), ("token", "t-1")]).status == 404)
            let id = String(room.split(separator: "/").last!)
            #expect(try await chloe.get("/events?chat=\(id)").status == 404)
            #expect(!(try await chloe.get("/chats").text.contains("Launch")))
        }
    }

    @Test func linksFromBeforeRoomsLeadToTheRoom() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = String(chat.split(separator: "/").last!)
            #expect(chat == "/rooms/\(id)")
            let page = try await ana.get("/chats/\(id)?before=5&reply=x%20y")
            #expect(page.status == 301 && page.header("Location") == "/rooms/\(id)?before=5&reply=x%20y")
            #expect(try await ana.get("/chats/\(id)/feeds").header("Location") == "/rooms/\(id)/feeds")
            let posted = try await ana.post("/chats/\(id)/messages", [("body", "From an old page"), ("token", "t-old")])
            #expect(posted.status == 308 && posted.header("Location") == "/rooms/\(id)/messages", "the form's method and body go on")
            #expect(try await ana.get("/chats/abc").status == 404)
            let crafted = try await ana.post("/chats/\(id)/messages/%0D%0ASet-Cookie:%20x=1/delete", [])
            #expect(crafted.status == 404 && crafted.header("Set-Cookie") == nil, "nothing typed in a path reaches a header")
            #expect(try await ana.get("/chats/new").status == 200, "a new direct chat is still made at /chats/new")
        }
    }

    @Test func membersAreAddedAndTakenOutAndTheRoomIsRenamedByItsMembersOnly() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            try await ana.get("/rooms/new")
            let room = try #require(try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")]).header("Location"))

            let members = try await ana.get(room + "/members")
            #expect(members.status == 200 && members.text.contains("<p class=\"member-count\">2 members</p>"))
            #expect(try await chloe.get(room + "/members").status == 404, "not hers to see")
            let unknown = try await ana.post(room + "/members", [("members", "@zed")])
            #expect(unknown.status == 422 && unknown.text.contains("Nobody is called @zed.") && unknown.text.contains("value=\"@zed\""))
            let added = try await ana.post(room + "/members", [("members", "@chloe")])
            #expect(added.status == 303 && added.header("Location") == room + "/members")
            #expect(try await chloe.get(room).text.contains("Ana Lima added you"))
            #expect(try await ben.get(room).text.contains("Ana Lima added Chloé Martin"))

            // Settings: a name too long is refused by its field; a good one renames the room for everyone.
            let long = try await ben.post(room + "/settings", [("name", String(repeating: "x", count: 81)), ("topic", "")])
            #expect(long.status == 422 && long.text.contains("id=\"room-name-error\""))
            let renamed = try await ben.post(room + "/settings", [("name", "Release"), ("topic", "Friday at 4")])
            #expect(renamed.status == 303 && renamed.header("Location") == room)
            let page = try await chloe.get(room).text
            #expect(page.contains("<span class=\"conversation-title\" dir=\"auto\">Release</span> <span class=\"handle\">3 members</span>") && page.contains("Ben Okafor renamed the room to “Release”"))

            // Taken out: Ben's room, its members page and its stream are gone for him.
            let benID = try #require(members.text.firstMatch(of: /action="(\/rooms\/\d+\/members\/\d+\/remove)"/).map { String($0.1) })
            #expect(try await ana.post(benID, []).status == 303)
            #expect(try await ben.get(room).status == 404)
            #expect(try await ben.get(room + "/members").status == 404)
            let id = String(room.split(separator: "/").last!)
            #expect(try await ben.get("/events?chat=\(id)").status == 404)
            #expect(try await ben.post(room + "/settings", [("name", "Mine"), ("topic", "")]).status == 404)
            // Chloé leaves: back to her list, without the room.
            let left = try await chloe.post(room + "/leave", [])
            #expect(left.status == 303 && left.header("Location") == "/chats")
            #expect(!(try await chloe.get("/chats").text.contains("Release")))
            #expect(try await ana.get(room + "/members").text.contains("<p class=\"member-count\">1 member</p>"))
        }
    }

    @Test func howClosePeopleFollowARoomDecidesItsBadgeAndWhetherItIsListed() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            let general = try await ana.chat(named: "General")
            _ = try await ana.get("/chats")
            #expect(try await ben.say("Morning all", in: general).status == 303)
            let quiet = try await ana.get("/chats").text
            #expect(quiet.contains("class=\"unread-dot\"") && quiet.contains("title=\"Unread messages\""), "a room: a dot, not a count")

            let page = try await ana.get(general + "/members").text
            #expect(page.contains("value=\"mentions\" checked"))
            #expect(try await ana.post(general + "/follow", [("follow", "everything")]).status == 303)
            #expect(try await ana.get("/chats").text.contains("<span class=\"visually-hidden\">1 unread message</span>"))
            #expect(try await ana.post(general + "/follow", [("follow", "loud")]).status == 422)

            #expect(try await ana.post(general + "/follow", [("follow", "hidden")]).status == 303)
            #expect(!(try await ana.get("/chats").text.contains("<span class=\"chat-list-name\" dir=\"auto\">General</span>")), "hidden")
            #expect(try await ben.say("@ana the slides?", in: general).status == 303)
            let named = try await ana.get("/chats").text
            #expect(named.contains("<span class=\"chat-list-name\" dir=\"auto\">General</span>") && named.contains("1 mention"), "back when named")
            let opened = try await ana.get(general).text
            #expect(opened.contains(" mentions-you\" id=\"message-") && opened.contains("<span class=\"mention is-you\">"))
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé")
            #expect(try await chloe.get(general + "/members").status == 200)
            #expect(try await chloe.post(general + "/follow", [("follow", "nothing")]).status == 303, "an open room: everyone is in it")
        }
    }

    @Test func whoHasSeenAMessageIsOnItAndListedOnDemand() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            try await ana.get("/rooms/new")
            let room = try #require(try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")]).header("Location"))
            let sent = try await ana.say("Shipping at 4", in: room)
            let id = try #require(sent.header("Location")?.split(separator: "#message-").last.map(String.init))
            #expect(try await ana.get(room).text.contains("<p class=\"delivery delivery-sent\">Sent</p>"))
            _ = try await ben.get(room)  // opening reads it
            let page = try await ana.get(room).text
            #expect(page.contains("<a href=\"\(room)/messages/\(id)/seen\">Seen by Ben Okafor</a>"))
            let seen = try await ana.get("\(room)/messages/\(id)/seen")
            #expect(seen.status == 200 && seen.text.contains("<h1>Seen by 1 person</h1>") && seen.text.contains("Ben Okafor"))
            #expect(try await ben.get("\(room)/messages/\(id)/seen").status == 404, "only for one's own messages")

            // Chloé, added later, opens the room and reads on: she never saw what came before she was there.
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            try await ana.get("\(room)/members")
            #expect(try await ana.post("\(room)/members", [("members", "@chloe")]).status == 303)
            #expect(try await chloe.get(room).text.contains("Shipping at 4"), "the history is hers to read")
            let later = try await ana.get("\(room)/messages/\(id)/seen").text
            #expect(later.contains("<h1>Seen by 1 person</h1>") && !later.contains("Chloé Martin"))
            let next = try await ana.say("Moved to 5", in: room)
            let nextID = try #require(next.header("Location")?.split(separator: "#message-").last.map(String.init))
            _ = try await chloe.get(room)
            let both = try await ana.get("\(room)/messages/\(nextID)/seen").text
            #expect(both.contains("Chloé Martin"), "what came while she was there, she has seen")
        }
    }

    @Test func theComposerOffersTheRoomsMembersForAnAt() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, _) = try await ConversationTests.anaAndBen(parlor)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            try await ana.get("/rooms/new")
            let room = try #require(try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "closed"), ("members", "@ben")]).header("Location"))
            #expect(try await ana.get(room).text.contains("data-mentions-url=\"\(room)/members/suggestions\""))
            let offered = try await ana.get(room + "/members/suggestions?q=b").text
            #expect(offered.contains("data-handle=\"ben\"") && !offered.contains("data-handle=\"chloe\""), "members only")
            #expect(try await ana.get(room + "/members/suggestions?q=%40ev").text.contains("data-handle=\"everyone\""))
            #expect(try await chloe.get(room + "/members/suggestions?q=b").status == 404)
            #expect(try await ana.get(room + "/members/suggestions?q=" + String(repeating: "a", count: 40)).status == 404)
        }
    }

    @Test func aDirectChatOfThreeIsMadeFromSeveralHandlesAndFoundAgain() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, _) = try await ConversationTests.anaAndBen(parlor)
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            try await ana.get("/chats/new")
            let made = try await ana.post("/chats/new", [("handle", "@ben @chloe")])
            let chat = try #require(made.header("Location"))
            #expect(made.status == 303 && chat.hasPrefix("/rooms/"))
            #expect(try await ana.get(chat).text.contains("<span class=\"conversation-title\" dir=\"auto\">Ben Okafor, Chloé Martin</span> <span class=\"handle\">3 members</span>"))
            #expect(try await ben.say("Hi both", in: chat).status == 303)
            #expect(try await chloe.get(chat).text.contains("Hi both"))
            try await chloe.get("/chats/new")
            let again = try await chloe.post("/chats/new", [("handle", "ana, ben")])
            #expect(again.status == 409 && again.text.contains("You already have a chat with Ana Lima, Ben Okafor."))
            let unknown = try await ana.post("/chats/new", [("handle", "@ben @zed")])
            #expect(unknown.status == 422 && unknown.text.contains("@zed"))
        }
    }
}
