import Foundation
import HTTPTestSupport
import Testing

/// Chats and messages as a person without JavaScript uses them: forms, 303s, pages.
@Suite struct ConversationTests {
    /// Ana and Ben, signed up, with a chat between them.
    static func anaAndBen(_ parlor: RunningParlor) async throws -> (ana: Visitor, ben: Visitor, chat: String) {
        let ana = parlor.visitor()
        try await ana.signUp("ana", name: "Ana Lima")
        let ben = parlor.visitor()
        try await ben.signUp("ben", name: "Ben Okafor")
        // Parlor Bot's welcomes are written before a test opens pages that would hear them.
        await parlor.bot.settled()
        return (ana, ben, try await ana.startChat(with: "ben"))
    }

    @Test func aMessageIsStoredOnceShownToBothAndUnreadUntilOpened() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            let sent = try await ana.say("Lunch at noon?", in: chat)
            #expect(sent.status == 303)
            #expect(sent.header("Location")?.hasPrefix(chat + "#message-") == true)
            // The same POST again (a double click, a reload) keeps one message.
            let again = try await ana.post(chat + "/messages", [("body", "Lunch at noon?"), ("token", ana.composerToken)])
            #expect(again.status == 303)
            // Two unread: Parlor Bot's welcome and Ana's message.
            let list = try await ben.get("/chats")
            #expect(list.text.contains("<title>(2) Chats · Parlor</title>"))
            #expect(list.text.contains("<span class=\"chat-list-preview\" dir=\"auto\">Lunch at noon?</span>"))
            let opened = try await ben.get(chat)
            #expect(opened.text.components(separatedBy: "<div class=\"message-body\" dir=\"auto\"><p>Lunch at noon?</p></div>").count == 2, "shown once")
            // Opening the chat read it: one unread left (the bot's), and Ana sees "Read".
            #expect(try await ben.get("/chats").text.contains("<title>(1) Chats · Parlor</title>"))
            #expect(try await ana.get(chat).text.contains("delivery-read"))
        }
    }

    @Test func openingAChatMarksWhereItsUnreadMessagesStartOnceAndGroupsOnePersonsMessages() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            try await ana.say("Before", in: chat)
            _ = try await ben.get(chat)
            try await ana.say("First unread", in: chat)
            try await ana.say("Second unread", in: chat)
            let opened = try await ben.get(chat).text
            let marker = "<li class=\"unread-marker\" id=\"unread-marker\"><span>New messages</span></li>"
            let markerAt = try #require(opened.range(of: marker), "the line shows where Ben's unread messages start")
            let before = try #require(opened.range(of: ">Before</p>"))
            let first = try #require(opened.range(of: ">First unread</p>"))
            #expect(before.upperBound < markerAt.lowerBound && markerAt.upperBound < first.lowerBound)
            #expect(opened.components(separatedBy: "class=\"unread-marker\"").count == 2, "one line")
            #expect(opened.contains("<p class=\"jump-unread\"><a href=\"#unread-marker\">Jump to first unread</a></p>"), "and the way to it")
            // Seconds apart from one person: the second and third continue the first one's group.
            #expect(opened.components(separatedBy: "class=\"message continues-group\"").count == 3)
            // Opened again, everything is read: no line.
            #expect(!(try await ben.get(chat).text.contains("unread-marker")))
            // Ana's own messages never start her unread part.
            try await ben.say("Answer", in: chat)
            #expect(try await ana.get(chat).text.components(separatedBy: marker).count == 2)
        }
    }

    /// More unread messages than a page shows: the chat opens at the first of them, a few read ones above the line,
    /// with the way to newer messages and to the latest; only what was shown is read, so the next opening goes on
    /// from there, and once everything is read the chat opens at its newest again.
    @Test func aChatWithMoreUnreadThanAPageOpensAtTheFirstUnreadAndReadsOnlyWhatItShows() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            for index in 1...4 { try await ana.say("Read \(index)", in: chat) }
            _ = try await ben.get(chat)
            for index in 0..<120 { try await ana.say(String(format: "Unread %03d", index), in: chat) }
            let marker = "<li class=\"unread-marker\" id=\"unread-marker\"><span>New messages</span></li>"

            let first = try await ben.get(chat).text
            let line = try #require(first.range(of: marker), "the line is on the page")
            let oldest = try #require(first.range(of: ">Unread 000</p>"))
            #expect(line.upperBound < oldest.lowerBound)
            // Three read messages above the line for context, not the fourth.
            #expect(!first.contains(">Read 1</p>") && ["Read 2", "Read 3", "Read 4"].allSatisfy { first.contains(">\($0)</p>") })
            #expect(first.contains(">Unread 049</p>") && !first.contains(">Unread 050</p>"), "one page of unread messages")
            #expect(first.contains("Show newer messages") && first.contains(">Back to the latest messages</a>"))
            #expect(first.contains("<p class=\"jump-unread\"><a href=\"#unread-marker\">Jump to first unread</a></p>"))
            // Seventy of Ana's and Parlor Bot's welcome are still unread.
            #expect(try await ben.get("/chats").text.contains("<title>(71) Chats · Parlor</title>"))

            let second = try await ben.get(chat).text
            let secondLine = try #require(second.range(of: marker))
            let next = try #require(second.range(of: ">Unread 050</p>"), "the next opening starts where the first stopped")
            #expect(secondLine.upperBound < next.lowerBound && second.contains(">Unread 099</p>"))

            // The last twenty fit on the newest page: it opens as always, the line above the first of them.
            let third = try await ben.get(chat).text
            #expect(third.contains(">Unread 119</p>") && !third.contains("Show newer messages"))
            let thirdLine = try #require(third.range(of: marker))
            let hundredth = try #require(third.range(of: ">Unread 100</p>"))
            #expect(thirdLine.upperBound < hundredth.lowerBound)
            #expect(try await ben.get("/chats").text.contains("<title>(1) Chats · Parlor</title>"))
            #expect(!(try await ben.get(chat).text.contains("unread-marker")))
        }
    }

    @Test func aDeletedMessageSaysSoForEveryoneAndItsTextIsGoneFromTheDatabaseFile() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            let secret = "the door code is 4471-zebra"
            let sent = try await ana.say(secret, in: chat)
            let id = try #require(sent.header("Location")?.split(separator: "-").last.map(String.init))
            try await ben.say("Got it", in: chat, replyTo: id)
            // Without the script, Delete asks first, in a form of its own.
            let asking = try await ana.get(chat + "?delete=\(id)").text
            #expect(asking.contains("<form class=\"delete-confirmation\" id=\"delete-confirmation\" method=\"post\" action=\"\(chat)/messages/\(id)/delete\">"))
            #expect(asking.contains("Delete your message “the door code is 4471-zebra”?"))
            // Only the sender may; Ben's try changes nothing.
            try await ben.get(chat)
            let stranger = try await ben.post(chat + "/messages/\(id)/delete", [])
            #expect(stranger.status == 403 && stranger.text.contains("You can only change your own messages."))
            #expect(try await ben.get(chat).text.contains(secret))
            let deleted = try await ana.post(chat + "/messages/\(id)/delete", [])
            #expect(deleted.status == 303 && deleted.header("Location") == chat + "#message-\(id)")
            for visitor in [ana, ben] {
                let page = try await visitor.get(chat).text
                #expect(!page.contains("4471"), "the text is gone from every page")
                #expect(page.contains("<p class=\"message-body message-deleted\">Message deleted</p>"))
                #expect(page.contains("<span class=\"reply-quote-excerpt\" dir=\"auto\">Message deleted</span>"), "the reply's quote too")
            }
            #expect(!(try await ana.get(chat).text.contains("?edit=\(id)")), "nothing left to edit or delete")
            // Deleting again is no error; editing a deleted message is refused.
            #expect(try await ana.post(chat + "/messages/\(id)/delete", []).status == 303)
            try await ana.get(chat)
            let edit = try await ana.post(chat + "/messages/\(id)", [("body", "back again")])
            #expect(edit.status == 422 && edit.text.contains("That message was deleted."))
            // The list preview follows when it was the last message.
            let last = try await ben.say("One more", in: chat)
            let lastID = try #require(last.header("Location")?.split(separator: "-").last.map(String.init))
            try await ben.get(chat)
            #expect(try await ben.post(chat + "/messages/\(lastID)/delete", []).status == 303)
            #expect(try await ana.get("/chats").text.contains("<span class=\"chat-list-preview\" dir=\"auto\">Message deleted</span>"))
            // A message deleted before it was read is nothing left to read.
            try await ana.get(chat)
            let oops = try await ana.say("Oops", in: chat)
            let oopsID = try #require(oops.header("Location")?.split(separator: "-").last.map(String.init))
            #expect(try await ben.get("/chats").text.contains("<title>(2) Chats · Parlor</title>"), "the bot's welcome and Oops")
            try await ana.get(chat)
            #expect(try await ana.post(chat + "/messages/\(oopsID)/delete", []).status == 303)
            #expect(try await ben.get("/chats").text.contains("<title>(1) Chats · Parlor</title>"))
            // Not only hidden: the bytes are in neither the database file nor its log.
            for file in ["parlor.sqlite", "parlor.sqlite-wal"] {
                let bytes = (try? Data(contentsOf: parlor.folder.appendingPathComponent(file))) ?? Data()
                #expect(bytes.range(of: Data("4471-zebra".utf8)) == nil, "\(file)")
            }
        }
    }

    @Test func anEmptyOrTooLongMessageShowsWhyInTheComposerAndIsNotStored() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            let empty = try await ana.say("   \n ", in: chat)
            #expect(empty.status == 422)
            #expect(empty.text.contains("Write something before sending."))
            #expect(empty.text.contains("aria-invalid=\"true\""))
            let long = String(repeating: "é", count: 4001)
            let tooLong = try await ana.say(long, in: chat)
            #expect(tooLong.status == 422)
            #expect(tooLong.text.contains("at most 4000 characters") || tooLong.text.contains("at most 4,000 characters"))
            #expect(tooLong.text.contains(long), "the text is given back to fix")
            let page = try await ben.get(chat)
            #expect(!page.text.contains("éééé"))
            #expect(page.text.contains("No messages yet") || !page.text.contains("class=\"message "))
        }
    }

    @Test func aHostileMessageIsShownAsText() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            let hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&"
            try await ana.say(hostile, in: chat)
            let page = try await ben.get(chat).text
            #expect(!page.contains("<script>alert(1)"))
            #expect(!page.contains("<img src=x"))
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;"))
        }
    }

    @Test func editingChangesTheTextForEveryoneWithTheEditedMarkAndOnlyForTheSender() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            let sent = try await ana.say("See you at 12", in: chat)
            let id = try #require(sent.header("Location")?.split(separator: "-").last.map(String.init))
            let form = try await ana.get(chat + "?edit=\(id)")
            #expect(form.text.contains("See you at 12</textarea>"))
            let edited = try await ana.post(chat + "/messages/\(id)", [("body", "See you at 1")])
            #expect(edited.status == 303)
            let page = try await ben.get(chat).text
            #expect(page.contains("See you at 1<"))
            #expect(page.contains("Ana Lima · Edited"))
            let refused = try await ben.post(chat + "/messages/\(id)", [("body", "Ben was here")])
            #expect(refused.status == 403)
            #expect(refused.text.contains("You can only change your own messages."))
            #expect(!(try await ana.get(chat)).text.contains("Ben was here"))
        }
    }

    @Test func aReplyQuotesTheMessageItAnswers() async throws {
        try await RunningParlor.with { parlor in
            let (ana, ben, chat) = try await Self.anaAndBen(parlor)
            let sent = try await ana.say("Which film?", in: chat)
            let id = try #require(sent.header("Location")?.split(separator: "-").last.map(String.init))
            let form = try await ben.get(chat + "?reply=\(id)")
            #expect(form.text.contains("Replying to"))
            try await ben.post(chat + "/messages", [("body", "The new one"), ("token", ben.composerToken), ("replyTo", id)])
            let page = try await ana.get(chat).text
            #expect(page.contains("class=\"reply-quote\""))
            #expect(page.contains("<span class=\"reply-quote-excerpt\" dir=\"auto\">Which film?</span>"))

            // Sixty messages later the original is older than the page holds: the quote still leads to it, in context.
            for index in 1...60 {
                #expect(try await ben.post(chat + "/messages", [("body", "Message \(index)"), ("token", "later-\(index)")]).status == 303)
            }
            try await ben.get(chat)  // a fresh composer token: the last one was used
            try await ben.post(chat + "/messages", [("body", "Back to the film"), ("token", ben.composerToken), ("replyTo", id)])
            // Read (so the chat opens at its newest page, not at the first of the sixty-one unread).
            #expect(try await ana.post(chat + "/read", []).status == 303)
            let newest = try await ana.get(chat).text
            #expect(!newest.contains("id=\"message-\(id)\""), "the original is not among the messages loaded")
            let link = "\(chat)?around=\(id)#message-\(id)"
            #expect(newest.contains("<a class=\"reply-quote\" href=\"\(link)\">"))
            let around = try await ana.get(String(link.prefix { $0 != "#" })).text
            #expect(around.contains("id=\"message-\(id)\"") && around.contains("Which film?"))
        }
    }

    @Test func startingAChatFindsPeopleAndExplainsEveryRefusal() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await Self.anaAndBen(parlor)
            let suggestions = try await ana.get("/chats/new/suggestions?q=B")
            #expect(suggestions.status == 200)
            #expect(suggestions.text.contains("Ben Okafor"))
            #expect(suggestions.text.contains("href=\"\(chat)\""), "an existing chat is offered, not a new one")
            #expect(!suggestions.text.contains("<html"), "a fragment, not a page")
            #expect(try await ana.get("/chats/new/suggestions?q=zz").text.contains("No one matches"))

            try await ana.get("/chats/new")
            let unknown = try await ana.post("/chats/new", [("handle", "@nobody")])
            #expect(unknown.status == 422)
            #expect(unknown.text.contains("No one is called @nobody."))
            #expect(unknown.text.contains("value=\"@nobody\""))
            let yourself = try await ana.post("/chats/new", [("handle", "ana")])
            #expect(yourself.status == 422)
            #expect(yourself.text.contains("You cannot start a chat with yourself."))
            let existing = try await ana.post("/chats/new", [("handle", "ben")])
            #expect(existing.status == 409)
            #expect(existing.text.contains("You already have a chat with Ben Okafor."))
            #expect(existing.text.contains("<a href=\"\(chat)\">Go to the chat</a>"))
            #expect(try await ana.post("/chats/new", [("handle", "")]).status == 422)
        }
    }

    @Test func settingsChangeHowDatesReadAndRefuseAnUnknownTimeZone() async throws {
        try await RunningParlor.with { parlor in
            let ana = parlor.visitor()
            try await ana.signUp("ana", name: "Ana Lima")
            try await ana.get("/settings")
            let saved = try await ana.post("/settings", [("displayName", "Ana L."), ("timeZone", "Asia/Tokyo"), ("locale", "fr_FR")])
            #expect(saved.status == 303)
            let page = try await ana.get("/settings?saved=1").text
            #expect(page.contains("<option value=\"Asia/Tokyo\" selected>Tokyo (UTC+09:00)</option>"))
            #expect(page.contains("<optgroup label=\"Asia\">") && page.contains("<optgroup label=\"Europe\">"))
            #expect(page.components(separatedBy: "<option value=\"Asia/Tokyo\"").count == 2, "each zone once")
            #expect(page.contains("<option value=\"fr_FR\" selected>"))
            // The page is in English; its dates say they are French.
            #expect(page.contains("<html lang=\"en\">") && page.contains("<span class=\"date-example\" lang=\"fr-FR\">"))
            #expect(try await ana.get("/chats").text.contains("<time class=\"chat-list-date\" lang=\"fr-FR\""))
            #expect(page.contains("value=\"Ana L.\""))
            #expect(page.contains("novembre"), "dates in French")
            let refused = try await ana.post("/settings", [("displayName", "Ana"), ("timeZone", "Mars/Olympus"), ("locale", "fr_FR")])
            #expect(refused.status == 422)
            #expect(refused.text.contains("Choose a time zone"))
            let empty = try await ana.post("/settings", [("displayName", " "), ("timeZone", "UTC"), ("locale", "fr_FR")])
            #expect(empty.status == 422)
            #expect(try await ana.get("/settings").text.contains("<option value=\"Asia/Tokyo\" selected>"), "nothing changed")
            let utc = try await ana.post("/settings", [("displayName", "Ana"), ("timeZone", "UTC"), ("locale", "en_GB")])
            #expect(utc.status == 303)
            let english = try await ana.get("/settings").text
            #expect(english.contains("<option value=\"UTC\" selected>Coordinated Universal Time (UTC+00:00)</option>"))
            #expect(!english.contains(" lang=\"en-") && !english.contains("date-example\" lang"), "English dates need no lang of their own")
        }
    }

    @Test func olderMessagesAreAPageAwayAndThatPageIsNotLive() async throws {
        try await RunningParlor.with { parlor in
            let (ana, _, chat) = try await Self.anaAndBen(parlor)
            try await ana.get(chat)
            for number in 1...55 {
                let sent = try await ana.post(chat + "/messages", [("body", "Message number \(number)."), ("token", "older-\(number)")])
                #expect(sent.status == 303)
            }
            let newest = try await ana.get(chat).text
            #expect(newest.contains("Message number 55."))
            #expect(newest.contains("Message number 6."))
            #expect(!newest.contains("Message number 5."), "the newest 50 only")
            let link = try #require(newest.range(of: "<a href=\"\(chat)?before=")).upperBound
            let before = String(newest[link...].prefix { $0.isNumber })
            let older = try await ana.get(chat + "?before=\(before)").text
            #expect(older.contains("Message number 1."))
            #expect(older.contains("Message number 5."))
            #expect(!older.contains("Message number 6."))
            #expect(older.contains("data-events-url=\"/events\""), "live for the chat list, not for these messages")
        }
    }
}
