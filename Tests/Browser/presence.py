"""Who is typing, and who is around, in two headless Chromium browsers.

Usage: python presence.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Ana types in her chat with Ben: within half a second of her first key Ben's page says "Ana Lima is typing…"
(in a polite live region, once); while she types for ten seconds her page tells Parlor at most once every three
seconds; when she stops, the line is gone within six seconds of her last key; when she sends, at once. Ben's dot in
Ana's chat list is green while his page is in front of him, turns away when he hides it, and offline once his last
page is closed for the grace Parlor is started with (3 s here; a minute by default). A screenshot of every step
is saved in ARTIFACTS_FOLDER.
"""

import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from selenium.webdriver.common.by import By  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in


def typing_line(driver):
    return driver.execute_script("const line = document.querySelector('.typing'); return line ? line.textContent : null")


def typing_reports(parlor, chat_id):
    """The typing reports Parlor answered so far, by status."""
    with open(parlor.log_path, "rb") as log:
        log.seek(parlor.log_start)
        text = log.read().decode("utf-8", "replace")
    return re.findall(r"POST /rooms/%s/typing (\d+)" % chat_id, text)


# Ben's pages can be hidden as a background tab is (headless tabs are always visible).
HIDING = """
window.__hidden = false;
Object.defineProperty(Document.prototype, "visibilityState", { configurable: true, get() { return window.__hidden ? "hidden" : "visible"; } });
"""


def dot_state(driver, user):
    return driver.execute_script(
        "const dot = document.querySelector('.chat-list [data-presence-of=\"' + arguments[0] + '\"]');"
        "return dot && !dot.hidden ? [dot.getAttribute('data-state'), dot.getAttribute('aria-label')] : null", user)


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-presence-")
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"), extra=("--presence-offline-after", "3"))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    ben = common.browser(1366, 850, hooks=HIDING)
    drivers = [ana, ben]
    try:
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor")
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        chat_id = chat.rstrip("/").split("/")[-1]
        ben.get(chat)
        wait_for(ben, lambda d: d.find_elements(By.CSS_SELECTOR, ".typing-line[aria-live=polite]"), "Ben's conversation has the typing line")
        assert typing_line(ben) == ""
        ana.get(chat)
        composer = wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, "form.composer textarea[data-typing-url]"), "Ana's composer")
        time.sleep(0.5)

        # 1. Within half a second of Ana's first key, Ben's page says she is typing.
        first_key = time.time()
        composer.send_keys("L")
        while typing_line(ben) != "Ana Lima is typing…" and time.time() - first_key < 3:
            time.sleep(0.02)
        shown_after = time.time() - first_key
        assert typing_line(ben) == "Ana Lima is typing…", typing_line(ben)
        # How quick "at once" is on this machine now is told by a message's way to Ben (step 4), checked there.
        assert typing_line(ana) == "", "Ana does not see herself"
        print("shown %.3f s after the first key" % shown_after, file=sys.stderr)
        step("is-typing", ana, ben)

        # 2. Typing for ten seconds: at most one report every three seconds reaches Parlor, all taken.
        before = len(typing_reports(parlor, chat_id))
        started = time.time()
        while time.time() - started < 10:
            composer.send_keys("o")
            time.sleep(0.2)
            assert typing_line(ben) == "Ana Lima is typing…", "shown all along: %r" % typing_line(ben)
        last_key = time.time()
        reports = typing_reports(parlor, chat_id)[before:]
        assert 3 <= len(reports) <= 4 and set(reports) == {"204"}, "reports while typing for 10 s: %r" % reports
        print("%d reports while typing for 10 s" % len(reports), file=sys.stderr)
        step("one-report-per-three-seconds", ben)

        # 3. She stops: gone within six seconds of her last key.
        while typing_line(ben) != "" and time.time() - last_key < 10:
            time.sleep(0.05)
        gone_after = time.time() - last_key
        assert typing_line(ben) == "" and gone_after <= 6, "gone %.2f s after the last key" % gone_after
        print("gone %.3f s after the last key" % gone_after, file=sys.stderr)
        step("gone-after-stopping", ben)

        # 4. She types again and sends: gone at once.
        composer.send_keys(" lunch?")
        wait_for(ben, lambda d: typing_line(d) == "Ana Lima is typing…", "typing again")
        sent = time.time()
        common.send(ana, "")
        wait_for(ben, text_in(".messages", "lunch?"), "the message arrives")
        arrived = time.time() - sent
        while typing_line(ben) != "" and time.time() - sent < 3 + 3 * arrived:
            time.sleep(0.02)
        gone = time.time() - sent
        # Both against the message's own way from Ana's composer to Ben's page in the same run (a busy machine slows
        # all three), never against a fixed time: the first key is reported at once, not after the three-second
        # throttle, and the line goes with the message, not when it runs out six seconds on.
        bound = max(0.5, 3 * arrived)
        assert shown_after < bound, "shown %.2f s after the first key, a message takes %.2f s" % (shown_after, arrived)
        assert typing_line(ben) == "" and gone < max(1.5, 3 * arrived), "gone %.2f s after sending, a message takes %.2f s" % (gone, arrived)
        step("gone-when-sent", ana, ben)

        # 5. Presence: Ben's dot in Ana's list is active while his page is in front of him.
        ana.get(base + "/chats")
        ben_id = wait_for(ana, lambda d: d.execute_script(
            "const dot = document.querySelector('#chat-item-%s [data-presence-of]'); return dot && dot.getAttribute('data-presence-of')" % chat_id),
            "Ben's dot in Ana's list")
        wait_for(ana, lambda d: dot_state(d, ben_id) == ["active", "Ben Okafor is active"], "Ben shows as active")
        step("presence-active", ana)
        ben.execute_script("window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))")
        hidden_at = time.time()
        wait_for(ana, lambda d: dot_state(d, ben_id) == ["away", "Ben Okafor is away"], "Ben shows as away once his page is hidden")
        print("away %.3f s after his page was hidden" % (time.time() - hidden_at), file=sys.stderr)
        step("presence-away", ana)
        ben.get("about:blank")
        closed_at = time.time()
        while dot_state(ana, ben_id) != ["offline", "Ben Okafor is offline"] and time.time() - closed_at < 70:
            time.sleep(0.1)
        offline_after = time.time() - closed_at
        assert dot_state(ana, ben_id) == ["offline", "Ben Okafor is offline"], dot_state(ana, ben_id)
        assert 3 <= offline_after < 70, "offline %.2f s after his last page closed" % offline_after
        print("offline %.3f s after his last page closed (grace 3 s)" % offline_after, file=sys.stderr)
        step("presence-offline", ana)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
