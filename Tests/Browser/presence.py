"""Who is typing, in two headless Chromium browsers.

Usage: python presence.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Ana types in her chat with Ben: within half a second of her first key Ben's page says "Ana Lima is typing…"
(in a polite live region, once); while she types for ten seconds her page tells Parlor at most once every three
seconds; when she stops, the line is gone within six seconds of her last key; when she sends, at once. A
screenshot of every step is saved in ARTIFACTS_FOLDER.
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


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-presence-")
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    ben = common.browser(1366, 850)
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
        assert shown_after < 0.5, "shown %.2f s after the first key" % shown_after
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
        while typing_line(ben) != "" and time.time() - sent < 3:
            time.sleep(0.02)
        assert typing_line(ben) == "" and time.time() - sent < 1.5, "gone with the message"
        step("gone-when-sent", ana, ben)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
