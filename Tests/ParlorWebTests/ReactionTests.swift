import Foundation
import HTTPTestSupport
import ParlorDomain
import Testing
@testable import parlor

/// Reactions through the real server, with and without the script: a press toggles, the page shows who gave
/// which, and what is refused changes nothing.
@Suite struct ReactionTests {
    static func messageID(in location: String?) throws -> String {
        try #require(location?.components(separatedBy: "#message-").last)
    }

    @Test func aReactionIsGivenAndTakenBackWithAndWithoutTheScript() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = try Self.messageID(in: try await ana.say("Lunch at noon?", in: chat).header("Location"))
            let reactions = "\(chat)/messages/\(id)/reactions"

            // Without the script: the conversation carries one reaction form with Ben's token, and each message a
            // React link (and no list until it has a reaction); the choosing page offers the quick picks.
            let page = try await ben.get(chat).text
            #expect(page.contains(
                "<form id=\"reaction-form\" method=\"post\" data-quick-reactions=\"👍 ❤️ 😂 🎉 👀 ✅\" hidden><input type=\"hidden\" name=\"csrf\" value=\"\(ben.csrf)\"></form>"
            ))
            #expect(!page.contains("id=\"reactions-\(id)\""))
            #expect(page.contains("<a class=\"react-to-message\" href=\"\(chat)/messages/\(id)/react\">React</a>"))
            let choosing = try await ben.get("\(chat)/messages/\(id)/react")
            #expect(choosing.status == 200 && choosing.text.contains("React to Ana Lima’s message") && choosing.text.contains("value=\"👍\""))
            #expect(choosing.text.contains("maxlength=\"\(ReactionText.typedLimit)\""), "room for sixteen emoji, counted in the browser's units")

            let given = try await ben.post(reactions, [("reaction", "👍")])
            #expect(given.status == 303 && given.header("Location") == "\(chat)#message-\(id)")
            let bens = try await ben.get(chat).text
            #expect(bens.contains("name=\"reaction\" value=\"👍\" aria-pressed=\"true\" aria-label=\"You reacted with 👍\""))
            let anas = try await ana.get(chat).text
            #expect(anas.contains("name=\"reaction\" value=\"👍\" aria-pressed=\"false\" aria-label=\"Ben Okafor reacted with 👍\""))
            #expect(anas.contains("<span class=\"reaction-count\" aria-hidden=\"true\">1</span>"))
            #expect(try await ana.get("\(chat)/messages/\(id)/react").text.contains("<span class=\"reaction-names\">Ben Okafor</span>"))

            // With the script: 204, and the same press again takes it back.
            let again = try await ben.post(reactions, [("reaction", "👍")], headers: ["X-Parlor-Script: 1"])
            #expect(again.status == 204)
            #expect(try await parlor.store.reactions(to: [MessageID(Int64(id)!)]).isEmpty)
        }
    }

    @Test func whatIsRefusedSaysWhyAndChangesNothing() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await ConversationTests.anaAndBen(parlor)
            let id = try Self.messageID(in: try await ana.say("Lunch at noon?", in: chat).header("Location"))
            let message = MessageID(Int64(id)!)
            let reactions = "\(chat)/messages/\(id)/reactions"
            try await ben.get(chat)

            // Too long, two lines, a control character, nothing: the choosing page again with the reason, the text kept.
            let long = try await ben.post(reactions, [("reaction", "a reaction far too long")])
            #expect(long.status == 422 && long.text.contains("A reaction is an emoji or up to 16 characters on one line."))
            #expect(long.text.contains("value=\"a reaction far too long\"") && long.text.contains("aria-invalid=\"true\""))
            for text in ["two\nlines", "bell\u{7}", "", String(repeating: "é", count: 300)] {
                let refused = try await ben.post(reactions, [("reaction", text)])
                #expect(refused.status == 422 && !refused.text.contains(String(repeating: "é", count: 100)), "\(text.prefix(20).debugDescription)")
            }
            let scripted = try await ben.post(reactions, [("reaction", "far, far too long to be one")], headers: ["X-Parlor-Script: 1"])
            #expect(scripted.status == 422 && scripted.text == Refusal.invalidReaction.message)
            #expect(try await parlor.store.reactions(to: [message]).isEmpty)

            // Not Chloé's chat, not this chat's message, no such message, no token: nothing stored.
            let chloe = parlor.visitor()
            try await chloe.signUp("chloe", name: "Chloé Martin")
            try await chloe.get("/chats")
            #expect(try await chloe.post(reactions, [("reaction", "👍")]).status == 404)
            #expect(try await chloe.get("\(chat)/messages/\(id)/react").status == 404)
            #expect(try await ben.post("\(chat)/messages/99999999/reactions", [("reaction", "👍")]).status == 404)
            #expect(try await ben.post("\(chat)/messages/-4/reactions", [("reaction", "👍")]).status == 404)
            #expect(try await ben.post("\(chat)/messages/99999999999999999999999/reactions", [("reaction", "👍")]).status == 404)
            #expect(try await ben.post(reactions, [("reaction", "👍")], csrf: "forged").status == 403)
            #expect(try await parlor.store.reactions(to: [message]).isEmpty)

            // A deleted message takes none.
            #expect(try await ana.post("\(chat)/messages/\(id)/delete", []).status == 303)
            #expect(try await ben.post(reactions, [("reaction", "👍")]).status == 404)
        }
    }
}
