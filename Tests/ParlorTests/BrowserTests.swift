import Foundation
import HTTPTestSupport
import Testing

/// People chat in real headless Chromium browsers against the real `parlor` binary (the scenarios in
/// Tests/Browser, driven with selenium). Screenshots of every step are kept in `.build/browser-artifacts`.
/// Needs `bash .ci/install-packages --tests` (chromium, its driver, selenium, axe-selenium-python).
/// Two lanes side by side, one scenario at a time in each: a scenario drives two or three browsers (about a core
/// between them), and its timed steps compare with what the same run measured. The lanes take about as long each;
/// the two behind nginx share one.
@Suite struct BrowserTests {
    static let python = ServeCommandTests.repository.appendingPathComponent(".build/browser-venv/bin/python").path
    static let artifacts = ServeCommandTests.repository.appendingPathComponent(".build/browser-artifacts").path

    @Suite(.serialized) struct FirstLane {
        /// Tests/Browser/conversation_ux.py: the conversation at desktop and phone sizes, and axe on every screen.
        @Test(.timeLimit(.minutes(8))) func theConversationBehavesAsPeopleExpectAtBothSizes() async throws {
            let output = try await BrowserTests.run("conversation_ux.py", artifacts: BrowserTests.artifacts + "/conversation")
            for step in [
                "eleventh-page-at-once", "focus-in-composer", "grouped-and-unread-line", "inline-reply", "inline-edit", "toast", "reconnecting",
                "send-waiting", "send-failed", "history-in-place", "history-leads-back", "rename-live", "dates-say-their-language", "deleted",
                "notifications-on", "notified-while-hidden", "password-changed", "avatar-live", "photo-sent-and-shown", "photo-opened",
                "photo-pasted", "feed-followed-live", "gallery", "axe-clean",
            ] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/push.py: the bell asks on a click; a message pushed while no page is visible is decrypted and its
        /// VAPID token checked; the service worker shows it and a click opens the room; a blocked browser is told how.
        @Test(.timeLimit(.minutes(8))) func notificationsReachAPersonWhoseParlorIsNotInFront() async throws {
            let output = try await BrowserTests.run("push.py", artifacts: BrowserTests.artifacts + "/push")
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
        @Test(.timeLimit(.minutes(8))) func theOtherScreenShowsWhoIsTyping() async throws {
            let output = try await BrowserTests.run("presence.py", artifacts: BrowserTests.artifacts + "/presence")
            for step in [
                "is-typing", "one-report-per-three-seconds", "gone-after-stopping", "gone-when-sent", "presence-active", "presence-away", "presence-offline",
            ] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/administration.py: a Parlor served as the units serve it: the first run makes the administrator,
        /// Ben joins through the link Ana makes, his open page goes to sign-in the moment she deactivates him; axe-clean.
        @Test(.timeLimit(.minutes(8))) func aParlorIsRunByItsFirstPerson() async throws {
            let output = try await BrowserTests.run("administration.py", artifacts: BrowserTests.artifacts + "/administration")
            for step in ["first-administrator", "joined-by-link", "deactivated-at-once", "accessible"] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/link_previews.py: a linked page's card comes to the other screen live, its title as text, and goes
        /// from both when its sender removes it; axe-clean.
        @Test(.timeLimit(.minutes(8))) func aLinksCardShowsLiveAndItsSenderRemovesIt() async throws {
            let output = try await BrowserTests.run("link_previews.py", artifacts: BrowserTests.artifacts + "/link-previews")
            for step in ["card-live", "accessible", "removed"] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/behind_nginx.py: deploy/ as an operator installs it, Debian's nginx with TLS and HTTP/2 in
        /// front of `parlor serve` started with the systemd unit's arguments.
        @Test(.timeLimit(.minutes(8))) func parlorWorksBehindNginxAsDeployed() async throws {
            let output = try await BrowserTests.run("behind_nginx.py", artifacts: BrowserTests.artifacts + "/nginx")
            for step in [
                "chat-through-nginx", "photo-through-nginx", "origin-checked-through-nginx", "static-from-nginx", "path-prefixed-deployment", "metrics",
            ] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/several_instances.py: two instances from deploy/parlor@.service on one PostgreSQL behind
        /// nginx, with a page streaming from each.
        @Test(.timeLimit(.minutes(8))) func severalInstancesBehindNginxShareEveryChange() async throws {
            let output = try await BrowserTests.run("several_instances.py", artifacts: BrowserTests.artifacts + "/instances")
            for step in ["pages-on-two-instances", "chat-across-instances"] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }
    }

    @Suite(.serialized) struct SecondLane {
        @Test(.timeLimit(.minutes(8))) func twoPeopleChatLiveAcrossARestartAndWithParlorBot() async throws {
            let output = try await BrowserTests.run("two_people_chat.py", artifacts: BrowserTests.artifacts + "/two-people")
            for step in ["signed-up", "message-read", "edited", "toast-and-badge", "hostile-text", "after-restart", "parlor-bot"] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/conversation_screen.py: the screen stays put, shows more, formats text, at both sizes.
        @Test(.timeLimit(.minutes(8))) func theConversationScreenStaysPutAndShowsMore() async throws {
            let output = try await BrowserTests.run("conversation_screen.py", artifacts: BrowserTests.artifacts + "/screen")
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
        @Test(.timeLimit(.minutes(8))) func searchFindsAsOneTypesAndOpensTheMessageInContext() async throws {
            let output = try await BrowserTests.run("search.py", artifacts: BrowserTests.artifacts + "/search")
            for step in ["results-as-you-type", "opened-at-the-message", "live-after-search", "results-page-follows", "search-without-script", "installable"] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/reactions.py: a reaction picked on one screen shows on the other at once, pressed for its giver;
        /// by keyboard alone, keeping the focus; taken back; typed; without the script through the choosing page; axe-clean.
        @Test(.timeLimit(.minutes(8))) func aReactionShowsOnBothScreensAtOnce() async throws {
            let output = try await BrowserTests.run("reactions.py", artifacts: BrowserTests.artifacts + "/reactions")
            for step in ["reacted-live", "reacted-by-keyboard", "taken-back", "typed-reaction", "without-script", "accessible"] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/rooms.py: three people in a closed room: made, joined and left live, mentions, following.
        @Test(.timeLimit(.minutes(8))) func threePeopleShareAClosedRoom() async throws {
            let output = try await BrowserTests.run("rooms.py", artifacts: BrowserTests.artifacts + "/rooms")
            for step in [
                "general-for-everyone", "closed-room-made", "member-added", "mention-picked", "mentioned", "mention-highlighted", "muted", "hidden-and-back", "removed-live",
            ] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }

        /// Tests/Browser/layout.py: a busy room with the longest content holds at 320, 390, 768 and 1366 px, with a toast
        /// too; 150 unread open at the first of them; axe finds nothing on any screen in either theme.
        @Test(.timeLimit(.minutes(8))) func everyScreenHoldsAtAnyWidthWithAnyContent() async throws {
            let output = try await BrowserTests.run("layout.py", artifacts: BrowserTests.artifacts + "/layout")
            for step in [
                "every-cell", "room-320", "menu-open-320", "toast-320", "room-390", "toast-390", "room-768", "toast-768", "room-1366", "toast-1366",
                "sections", "pages-320", "pages-1366", "first-unread-1366", "first-unread-390", "jump-shown", "jumped", "escape-read", "axe-1366", "axe-390", "axe-signed-out",
            ] {
                #expect(output.contains(step), "step \(step) did not run")
            }
        }
    }

    /// Runs a scenario to its end (or seven minutes, a bound for a hung one: the longest takes three beside the other
    /// lane) and answers what it printed; it must pass.
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
        let deadline = ContinuousClock.now + .seconds(420)
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
