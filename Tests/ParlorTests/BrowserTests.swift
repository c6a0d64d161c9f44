import Foundation
import HTTPTestSupport
import Testing

/// People chat in real headless Chromium browsers against the real `parlor` binary (the scenarios in
/// Tests/Browser, driven with selenium). Screenshots of every step are kept in `.build/browser-artifacts`.
/// Needs `bash .ci/install-packages --tests` (chromium, its driver, selenium, axe-selenium-python).
/// One scenario at a time: each drives two or three browsers, and some steps are timed.
@Suite(.serialized) struct BrowserTests {
    static let python = ServeCommandTests.repository.appendingPathComponent(".build/browser-venv/bin/python").path
    static let artifacts = ServeCommandTests.repository.appendingPathComponent(".build/browser-artifacts").path

    @Test(.timeLimit(.minutes(5))) func twoPeopleChatLiveAcrossARestartAndWithParlorBot() async throws {
        let output = try await Self.run("two_people_chat.py", artifacts: Self.artifacts + "/two-people")
        for step in ["signed-up", "message-read", "edited", "toast-and-badge", "hostile-text", "after-restart", "parlor-bot"] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/conversation_ux.py: the conversation at desktop and phone sizes, and axe on every screen.
    @Test(.timeLimit(.minutes(5))) func theConversationBehavesAsPeopleExpectAtBothSizes() async throws {
        let output = try await Self.run("conversation_ux.py", artifacts: Self.artifacts + "/conversation")
        for step in [
            "eleventh-page-at-once", "focus-in-composer", "grouped-and-unread-line", "inline-reply", "inline-edit", "toast", "reconnecting",
            "send-waiting", "send-failed", "history-in-place", "history-leads-back", "rename-live", "dates-say-their-language", "deleted",
            "notifications-on", "notified-while-hidden", "password-changed", "avatar-live", "photo-sent-and-shown", "photo-opened",
            "photo-pasted", "feed-followed-live", "gallery", "axe-clean",
        ] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/conversation_screen.py: the screen stays put, shows more, formats text, at both sizes.
    @Test(.timeLimit(.minutes(5))) func theConversationScreenStaysPutAndShowsMore() async throws {
        let output = try await Self.run("conversation_screen.py", artifacts: Self.artifacts + "/screen")
        for step in [
            "no-document-scroll-1366", "no-document-scroll-390", "no-document-scroll", "formatted", "compact-and-hover", "messages-by-keyboard",
            "composer-grows", "new-messages-pill", "right-to-left", "phone-one-header", "toast-covers-nothing-phone", "toast-covers-nothing-desktop", "shortcuts", "long-press",
            "image-view-steps", "image-page-without-script", "settings-spaced",
        ] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/search.py: "/" and Ctrl+K, results as one types, a result opened at its message, live after;
    /// the same without the script.
    @Test(.timeLimit(.minutes(5))) func searchFindsAsOneTypesAndOpensTheMessageInContext() async throws {
        let output = try await Self.run("search.py", artifacts: Self.artifacts + "/search")
        for step in ["results-as-you-type", "opened-at-the-message", "live-after-search", "results-page-follows", "search-without-script", "installable"] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/push.py: the bell asks on a click; a message pushed while no page is visible is decrypted and its
    /// VAPID token checked; the service worker shows it and a click opens the room; a blocked browser is told how.
    @Test(.timeLimit(.minutes(5))) func notificationsReachAPersonWhoseParlorIsNotInFront() async throws {
        let output = try await Self.run("push.py", artifacts: Self.artifacts + "/push")
        for step in [
            "bell-subscribed", "settings-lists-browser", "pushed-while-hidden", "notification-shown", "notification-opens-room", "test-notification",
            "bell-explains-blocked",
        ] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/presence.py: "Ana is typing…" on Ben's page at once (within half a second, or three times a
    /// message's way on a busy machine), one report per three seconds,
    /// gone within six seconds of the last key and at once when she sends; Ben's dot active, away when hidden,
    /// offline after his last page closed.
    @Test(.timeLimit(.minutes(5))) func theOtherScreenShowsWhoIsTyping() async throws {
        let output = try await Self.run("presence.py", artifacts: Self.artifacts + "/presence")
        for step in [
            "is-typing", "one-report-per-three-seconds", "gone-after-stopping", "gone-when-sent", "presence-active", "presence-away", "presence-offline",
        ] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/administration.py: a Parlor served as the units serve it: the first run makes the administrator,
    /// Ben joins through the link Ana makes, his open page goes to sign-in the moment she deactivates him; axe-clean.
    @Test(.timeLimit(.minutes(5))) func aParlorIsRunByItsFirstPerson() async throws {
        let output = try await Self.run("administration.py", artifacts: Self.artifacts + "/administration")
        for step in ["first-administrator", "joined-by-link", "deactivated-at-once", "accessible"] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/link_previews.py: a linked page's card comes to the other screen live, its title as text, and goes
    /// from both when its sender removes it; axe-clean.
    @Test(.timeLimit(.minutes(5))) func aLinksCardShowsLiveAndItsSenderRemovesIt() async throws {
        let output = try await Self.run("link_previews.py", artifacts: Self.artifacts + "/link-previews")
        for step in ["card-live", "accessible", "removed"] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/reactions.py: a reaction picked on one screen shows on the other at once, pressed for its giver;
    /// by keyboard alone, keeping the focus; taken back; typed; without the script through the choosing page; axe-clean.
    @Test(.timeLimit(.minutes(5))) func aReactionShowsOnBothScreensAtOnce() async throws {
        let output = try await Self.run("reactions.py", artifacts: Self.artifacts + "/reactions")
        for step in ["reacted-live", "reacted-by-keyboard", "taken-back", "typed-reaction", "without-script", "accessible"] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/rooms.py: three people in a closed room: made, joined and left live, mentions, following.
    @Test(.timeLimit(.minutes(5))) func threePeopleShareAClosedRoom() async throws {
        let output = try await Self.run("rooms.py", artifacts: Self.artifacts + "/rooms")
        for step in [
            "general-for-everyone", "closed-room-made", "member-added", "mention-picked", "mentioned", "mention-highlighted", "muted", "hidden-and-back", "removed-live",
        ] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/layout.py: a busy room with the longest content holds at 320, 390, 768 and 1366 px, with a toast
    /// too; 150 unread open at the first of them; axe finds nothing on any screen in either theme.
    @Test(.timeLimit(.minutes(5))) func everyScreenHoldsAtAnyWidthWithAnyContent() async throws {
        let output = try await Self.run("layout.py", artifacts: Self.artifacts + "/layout")
        for step in [
            "every-cell", "room-320", "menu-open-320", "toast-320", "room-390", "toast-390", "room-768", "toast-768", "room-1366", "toast-1366",
            "sections", "pages-320", "pages-1366", "first-unread-1366", "first-unread-390", "jump-shown", "jumped", "escape-read", "axe-1366", "axe-390", "axe-signed-out",
        ] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/behind_nginx.py: deploy/ as an operator installs it, Debian's nginx with TLS and HTTP/2 in
    /// front of `parlor serve` started with the systemd unit's arguments.
    @Test(.timeLimit(.minutes(5))) func parlorWorksBehindNginxAsDeployed() async throws {
        let output = try await Self.run("behind_nginx.py", artifacts: Self.artifacts + "/nginx")
        for step in [
            "chat-through-nginx", "photo-through-nginx", "origin-checked-through-nginx", "static-from-nginx", "path-prefixed-deployment", "metrics",
        ] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Tests/Browser/several_instances.py: two instances from deploy/parlor@.service on one PostgreSQL behind
    /// nginx, with a page streaming from each.
    @Test(.timeLimit(.minutes(5))) func severalInstancesBehindNginxShareEveryChange() async throws {
        let output = try await Self.run("several_instances.py", artifacts: Self.artifacts + "/instances")
        for step in ["pages-on-two-instances", "chat-across-instances"] {
            #expect(output.contains(step), "step \(step) did not run")
        }
    }

    /// Runs a scenario to its end (or four minutes) and answers what it printed; it must pass.
    static func run(_ scenario: String, artifacts: String) async throws -> String {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "the browser tests need chromium, chromium-driver, selenium and axe: run `bash .ci/install-packages --tests`"
        )
        try? FileManager.default.removeItem(atPath: artifacts)
        let script = ServeCommandTests.repository.appendingPathComponent("Tests/Browser/" + scenario).path
        let child = try ChildProcess(executable: Self.python, arguments: [
            script, ServeCommandTests.executable.path, ServeCommandTests.repository.path, artifacts,
        ])
        // Read its output while waiting, so a full pipe never stalls it.
        var output = ""
        let deadline = ContinuousClock.now + .seconds(240)
        var status: Int32?
        while status == nil && ContinuousClock.now < deadline {
            output += child.readErrors()
            status = await child.waitForExit(within: 0.2)
        }
        if status == nil {
            child.send(SIGKILL)
            _ = await child.waitForExit(within: 10)
        }
        output += child.readErrors()
        #expect(status == 0, "browser scenario \(scenario) failed:\n\(output)")
        #expect(output.contains("all steps passed"))
        return output
    }
}
