import Foundation
import HTTPTestSupport
import ParlorDomain
import Testing
@testable import parlor

/// The first run, joining by invitation, the Administration page and what it refuses, and deactivation, through the
/// real server.
@Suite struct AdministrationTests {
    /// The join link's path as the Administration page shows it, after a press of its button.
    static func makeJoinLink(_ admin: Visitor, days: String = "", uses: String = "") async throws -> String {
        try await admin.get("/admin")
        let made = try await admin.post("/admin/join-link", [("days", days), ("uses", uses)])
        #expect(made.status == 303 && made.header("Location") == "/admin")
        let page = try await admin.get("/admin").text
        let value = try #require(page.range(of: "id=\"join-link-url\" type=\"text\" value=\"http://127.0.0.1/join/"), "the page shows the whole link")
        return "/join/" + page[value.upperBound...].prefix { $0 != "\"" }
    }

    static func signUp(_ visitor: Visitor, through link: String, _ handle: String) async throws -> TestResponse {
        try await visitor.get(link)
        return try await visitor.post(link, [("handle", handle), ("displayName", handle.capitalized), ("password", "correct horse battery")])
    }

    @Test func theFirstPersonRunsTheParlorAndOthersJoinByItsLink() async throws {
        try await RunningParlor.with { parlor in
            // A new Parlor asks for its administrator.
            let ana = parlor.visitor()
            let home = try await ana.get("/")
            #expect(home.status == 303 && home.header("Location") == "/signup")
            #expect(try await ana.get("/signup").text.contains("<h1>Create the administrator account</h1>"))
            #expect(try await ana.signUp("ana", name: "Ana Lima").status == 303)
            #expect(try await ana.get("/settings").text.contains("<a href=\"/admin\">Administration</a>"))
            #expect(try await ana.get("/admin").status == 200)

            // Open by default: Ben signs up; he is a member, and the page and its forms refuse him, changing nothing.
            let ben = parlor.visitor()
            #expect(try await ben.get("/signup").text.contains("<h1>Create your Parlor account</h1>"))
            #expect(try await ben.signUp("ben", name: "Ben Okafor").status == 303)
            #expect(!(try await ben.get("/settings").text.contains("Administration")))
            #expect(try await ben.get("/admin").status == 403)
            for (path, fields) in [
                ("/admin/signup", [("policy", "invitation")]), ("/admin/rooms", [("onlyAdministrators", "1")]), ("/admin/join-link", []),
                ("/admin/people/1/role", [("role", "member")]), ("/admin/people/1/deactivate", []), ("/admin/people/1/reactivate", []),
            ] {
                #expect(try await ben.post(path, fields).status == 403, "\(path)")
            }
            let untouched = try await parlor.store.settings()
            #expect(untouched.signUpPolicy == .open && untouched.joinLink == nil && !untouched.onlyAdministratorsCreateRooms)

            // By invitation: no link, no account, and no form to fill in for nothing.
            #expect(try await ana.post("/admin/signup", [("policy", "invitation")]).status == 303)
            let chloe = parlor.visitor()
            let closed = try await chloe.get("/signup")
            #expect(closed.status == 403 && closed.text.contains(Refusal.invitationRequired.message) && !closed.text.contains("id=\"auth-handle\""))
            try await chloe.get("/signin")
            let refused = try await chloe.post("/signup", [("handle", "chloe"), ("displayName", "Chloé"), ("password", "correct horse battery")])
            #expect(refused.status == 403 && refused.text.contains(Refusal.invitationRequired.message))
            #expect(try await parlor.store.user(handle: "chloe") == nil)

            // A link for one account: Chloé joins through it; the next is told it is used up; a wrong code says so.
            let link = try await Self.makeJoinLink(ana, uses: "1")
            let form = try await chloe.get(link)
            #expect(form.status == 200 && form.text.contains("<h1>Join this Parlor</h1>") && form.text.contains("action=\"\(link)\""))
            let joined = try await Self.signUp(chloe, through: link, "chloe")
            #expect(joined.status == 303 && joined.header("Location") == "/chats")
            #expect(try await parlor.store.account(try #require(try await parlor.store.user(handle: "chloe")).id)?.role == .member)
            let dmitri = parlor.visitor()
            let usedUp = try await Self.signUp(dmitri, through: link, "dmitri")
            #expect(usedUp.status == 410 && usedUp.text.contains(Refusal.joinLinkUsedUp.message))
            #expect(try await dmitri.get(link).status == 410)
            #expect((400..<500).contains(try await dmitri.get("/join/%00").status), "a NUL in the path is refused before any route")
            for wrong in ["/join/not-the-code", "/join/" + String(repeating: "a", count: 65), "/join/a%22b", "/join/%C3%A9"] {
                let response = try await dmitri.get(wrong)
                #expect(response.status == 403 && response.text.contains(Refusal.joinLinkInvalid.message), "\(wrong)")
            }
            #expect(try await dmitri.post("/join/not-the-code", [("handle", "dmitri"), ("displayName", "D"), ("password", "correct horse battery")]).status == 403)
            // The code is a credential: the access log shows the route's pattern for every spelling of the path.
            let code = String(link.dropFirst("/join/".count))
            #expect(!parlor.log.all.contains { $0.contains(code) || $0.contains("not-the-code") }, "no code reaches the log")
            #expect(parlor.log.all.contains { $0.hasPrefix("info GET /join/{code} 200") })
            #expect(parlor.log.all.contains { $0.hasPrefix("info POST /join/{code} 303") })
            #expect(parlor.linesShowingSecrets.isEmpty)

            // Rotated: the old link names nothing. Expired: said so.
            let day = try await Self.makeJoinLink(ana, days: "1")
            #expect(try await dmitri.get(link).status == 403)
            parlor.clock.advance(by: 2 * 86_400)
            let expired = try await Self.signUp(dmitri, through: day, "dmitri")
            #expect(expired.status == 410 && expired.text.contains(Refusal.joinLinkExpired.message))
            #expect(try await parlor.store.user(handle: "dmitri") == nil, "nothing was created by any refused link")

            // What the form refuses: days and uses out of range, an unknown policy; nothing changes.
            let before = try await parlor.store.settings().joinLink
            for (days, uses) in [("0", ""), ("366", ""), ("abc", ""), ("", "-1"), ("", "10001"), ("99999999999999999999", "")] {
                let response = try await ana.post("/admin/join-link", [("days", days), ("uses", uses)])
                #expect(response.status == 422 && response.text.contains("whole numbers up to 365 days"), "\(days) \(uses)")
            }
            #expect(try await ana.post("/admin/signup", [("policy", "everyone")]).status == 422)
            #expect(try await parlor.store.settings().joinLink == before)
            #expect(try await parlor.store.settings().signUpPolicy == .invitation)
        }
    }

    @Test func rolesChangeButTheParlorKeepsAnAdministrator() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            let ben = parlor.visitor()
            try await ben.signUp("ben", name: "Ben Okafor")
            let anaID = try #require(try await parlor.store.user(handle: "ana")).id
            let benID = try #require(try await parlor.store.user(handle: "ben")).id
            try await ana.get("/admin")

            // Ana cannot step down while she is the only one, nor deactivate herself.
            let alone = try await ana.post("/admin/people/\(anaID)/role", [("role", "member")])
            #expect(alone.status == 409 && alone.text.contains(Refusal.lastAdministrator.message))
            let herself = try await ana.post("/admin/people/\(anaID)/deactivate", [])
            #expect(herself.status == 409 && herself.text.contains(Refusal.deactivatingYourself.message))
            #expect(try await ana.post("/admin/people/\(benID)/role", [("role", "owner")]).status == 422)
            for id in ["0", "-3", "abc", "99999999999999999999999", "424242"] {
                #expect(try await ana.post("/admin/people/\(id)/role", [("role", "member")]).status == 404, "\(id)")
            }

            // Ben made an administrator; Ana steps down; Ben, the only one now, cannot.
            #expect(try await ana.post("/admin/people/\(benID)/role", [("role", "administrator")]).status == 303)
            #expect(try await ben.get("/admin").status == 200)
            #expect(try await ana.post("/admin/people/\(anaID)/role", [("role", "member")]).status == 303)
            #expect(try await ana.get("/admin").status == 403, "a member from that moment")
            try await ben.get("/admin")
            #expect(try await ben.post("/admin/people/\(benID)/role", [("role", "member")]).status == 409)

            // Rooms by administrators only: Ana (a member now) is refused, Ben is not.
            #expect(try await ben.post("/admin/rooms", [("onlyAdministrators", "1")]).status == 303)
            try await ana.get("/rooms/new")
            let refused = try await ana.post("/rooms/new", [("name", "Launch"), ("kind", "open")])
            #expect(refused.status == 403 && refused.text.contains(Refusal.administratorsOnly.message))
            try await ben.get("/rooms/new")
            #expect(try await ben.post("/rooms/new", [("name", "Launch"), ("kind", "open")]).status == 303)
            let rooms = try await ben.get("/admin").text
            #expect(rooms.contains("<span class=\"room-name\" dir=\"auto\">Launch</span> <span class=\"room-kind\">Open</span>"))
        }
    }

    @Test func aDeactivatedPersonIsSignedOutAtOnceEverywhereAndTheirWordsStay() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            let ben = parlor.visitor()
            try await ben.signUp("ben", name: "Ben Okafor")
            let benID = try #require(try await parlor.store.user(handle: "ben")).id
            let general = try await ben.chat(named: "General")
            #expect(try await ben.say("Morning, all", in: general).status == 303)
            let (stream, _) = try await ben.openEvents("/events?chat=\(general.split(separator: "/").last!)")
            _ = try await stream.read(until: "action=\"badge\"")

            try await ana.get("/admin")
            let page = try await ana.get("/admin?q=%40be").text
            #expect(page.contains("<span class=\"person-handle\">@ben</span>") && !page.contains("<span class=\"person-handle\">@ana</span>"))
            #expect(try await ana.post("/admin/people/\(benID)/deactivate", []).status == 303)

            // His open page is told to reload and closed at once; his cookie opens nothing; his sign-in says why.
            stream.setTimeout(5)
            let rest = try await stream.readToEnd()
            #expect(rest.contains("action=\"refresh\""))
            let signedOut = try await ben.get("/chats")
            #expect(signedOut.status == 303 && signedOut.header("Location") == "/signin")
            try await ben.get("/signin")
            let again = try await ben.post("/signin", [("handle", "ben"), ("password", "correct horse battery")])
            #expect(again.status == 403 && again.text.contains("An administrator has deactivated this account."))
            let wrong = try await ben.post("/signin", [("handle", "ben"), ("password", "not his password")])
            #expect(wrong.status == 422 && !wrong.text.contains("deactivated"), "said only to whoever knows the password")

            // Out of the room's members; his words stay, under his name; nobody starts a chat with him.
            let members = try await ana.get("\(general)/members").text
            #expect(!members.contains("@ben") && members.contains("@ana"))
            let conversation = try await ana.get(general).text
            #expect(conversation.contains("Morning, all") && conversation.contains("Ben Okafor"))
            try await ana.get("/chats/new")
            #expect(try await ana.post("/chats/new", [("handle", "ben")]).status == 422)
            #expect(try await ana.get("/admin").text.contains("<span class=\"person-state\">Deactivated</span>"))
            #expect(try await ana.post("/admin/people/\(benID)/deactivate", []).status == 404, "once is enough")

            // Reactivated: he signs in, and is in the open room again.
            #expect(try await ana.post("/admin/people/\(benID)/reactivate", []).status == 303)
            #expect(try await ben.post("/signin", [("handle", "ben"), ("password", "correct horse battery")]).status == 303)
            #expect(try await ana.get("\(general)/members").text.contains("@ben"))
        }
    }
}
