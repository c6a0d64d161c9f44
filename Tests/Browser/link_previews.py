"""A link's card, live in two headless Chromium browsers, removed by its sender.

Usage: python link_previews.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

A page on 127.0.0.1 (served here, with OpenGraph metadata and a script in its title) is linked by Ana: the card
shows under her message on Ben's open screen without a reload, its title as text. Ana removes it with the card's
button: it goes from both screens. Axe finds nothing to fault on a conversation with a card. A screenshot of every
step is saved in ARTIFACTS_FOLDER.
"""

import http.server
import json
import os
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from axe_selenium_python import Axe  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in

PAGE = b"""<!doctype html><html><head><title>ignored</title>
<meta property="og:title" content="Today's menu <script>alert(1)</script>">
<meta property="og:description" content="Soup, bread and a pear tart.">
<meta property="og:site_name" content="Example Bistro"></head><body>Menu</body></html>"""


def serve_page(page):
    """A site on 127.0.0.1 and a free port that answers every GET with `page` (HTML); stop it with shutdown()."""
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args):
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-link-previews-")
    site = serve_page(PAGE)
    port = site.server_address[1]
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"), extra=("--link-preview-allow-loopback", "--link-preview-port", str(port)))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    ben = common.browser(1366, 850)
    drivers = [ana, ben]
    try:
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor")
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        ben.get(chat)

        # 1. Ana links the page; the card comes to Ben's open screen, its title as text.
        common.send(ana, "Lunch? http://127.0.0.1:%d/menu" % port)
        wait_for(ben, text_in(".link-preview-title", "Today's menu <script>alert(1)</script>"), "the card on Ben's screen, live")
        card = ben.find_element(By.CSS_SELECTOR, ".link-preview-card")
        assert card.get_attribute("href") == "http://127.0.0.1:%d/menu" % port, card.get_attribute("href")
        assert "Example Bistro" in card.text and "pear tart" in card.text, card.text
        assert not ben.find_elements(By.CSS_SELECTOR, ".link-preview-remove"), "only its sender may remove it"
        assert ben.execute_script("return typeof window.alerted") == "undefined"
        wait_for(ana, text_in(".link-preview-title", "Today's menu"), "the card on Ana's screen")
        step("card-live", ana, ben)

        # 2. Nothing for axe to fault on a conversation with a card.
        axe = Axe(ana)
        axe.inject()
        results = axe.run(options=json.dumps({"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]}}))
        assert not results["violations"], "axe: %s" % axe.report(results["violations"])
        step("accessible", ana)

        # 3. Ana removes it: gone from both screens.
        ana.find_element(By.CSS_SELECTOR, ".link-preview-remove").click()
        wait_for(ana, lambda d: not d.find_elements(By.CSS_SELECTOR, ".link-preview"), "the card gone from Ana's screen")
        wait_for(ben, lambda d: not d.find_elements(By.CSS_SELECTOR, ".link-preview"), "the card gone from Ben's screen, live")
        wait_for(ben, text_in(".messages", "Lunch?"), "the message stays")
        step("removed", ana, ben)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        site.shutdown()
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
