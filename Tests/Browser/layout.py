"""Every screen of a busy room holds at any width and with any content, in headless Chromium.

Usage: python layout.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

A room as a real team makes it: a 200-character name and topic, 40 members, and every kind of cell with the
longest content people paste (a 200-character word, a 140-character line of code, a 300-character address,
right-to-left text, a photo, a link card, reactions, a quote, notices, formatting). At 320, 390, 768 and 1366 px
wide: nothing is wider than the screen, the document does not scroll, Send and the header's links are in view
and clickable (a menu on narrow screens), with and without a toast. 150 unread messages open at the first unread,
under the "New messages" line. Axe finds nothing on any screen, in both themes, with the mention list open and
closed. A screenshot of every step is saved in ARTIFACTS_FOLDER.
"""

import base64
import http.cookiejar
import os
import re
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from conversation_ux import FACE_JPEG, axe_clean  # noqa: E402
from link_previews import serve_page  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in

WIDTHS = (320, 390, 768, 1366)
LONG_WORD = "Supercalifragilistic" * 10
CODE_LINE = "2026-11-28T09:14:03.118Z ERROR [parlor.live] lane=room-17 event=message.created " + "x" * 60
LONG_URL = "https://example.com/" + "/".join("segment%02d-%s" % (index, "abcdefghij") for index in range(16)) + "?q=1"
ROOM_NAME = ("Design review " * 15)[:200]
ROOM_TOPIC = ("Everything about the launch, the slides, the budget and who brings the cake " * 3)[:200]
RTL = "שלום לכולם, הפגישה נדחתה למחר בעשר בבוקר. مرحبا بالجميع"
PAGE = b"""<!doctype html><html><head><meta property="og:title" content="A card whose title goes on and on and on and on and on and on and on and on and on">
<meta property="og:description" content="Soup, bread and a pear tart.">
<meta property="og:site_name" content="Example Bistro"></head><body>Menu</body></html>"""


class Person:
    """Someone who uses Parlor without a browser: forms sent as a page without the script sends them."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.token = None

    def get(self, path):
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.read().decode()

    def csrf(self, path):
        found = re.search(r'name="csrf" value="([^"]+)"', self.get(path))
        assert found, "no form on " + path
        return found.group(1)

    def post(self, path, fields, form_page, photo=None):
        if not self.token or form_page == "/signup":
            self.token = self.csrf(form_page)
        fields = dict(fields, csrf=self.token)
        if photo:
            boundary = "parlor-layout-" + os.urandom(8).hex()
            body = b"".join(b'--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n%s\r\n'
                            % (boundary.encode(), name.encode(), value.encode()) for name, value in fields.items())
            body += b'--%s\r\nContent-Disposition: form-data; name="photo"; filename="face.jpg"\r\nContent-Type: image/jpeg\r\n\r\n' % boundary.encode()
            body += photo + b"\r\n--%s--\r\n" % boundary.encode()
            headers = {"Origin": self.base, "Content-Type": "multipart/form-data; boundary=" + boundary}
        else:
            body = urllib.parse.urlencode(fields).encode()
            headers = {"Origin": self.base}
        request = urllib.request.Request(self.base + path, data=body, headers=headers)
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, response.geturl()
        except urllib.error.HTTPError as error:
            found = re.search(r'role="alert">([^<]*)<', error.read().decode())
            raise AssertionError("%s answered %s: %s" % (path, error.code, found.group(1) if found else "")) from None

    def sign_up(self, handle, name):
        status, url = self.post("/signup", {"handle": handle, "displayName": name, "password": "correct horse battery"}, "/signup")
        assert url.endswith("/chats"), "%s signed up: %s %s" % (handle, status, url)
        self.token = None

    def react(self, room, message, reaction):
        status, _ = self.post("%s/messages/%s/reactions" % (room, message), {"reaction": reaction}, room)
        assert status == 200, "reacted: %s" % status

    def say(self, room, text, photo=None, **extra):
        fields = {"body": text, "token": os.urandom(8).hex()}
        fields.update(extra)
        status, _ = self.post(room + "/messages", fields, room, photo=photo)
        assert status == 200, "sent: %s" % status


def geometry(driver):
    """What is wider than the screen, where Send and the header's links are, whether the document scrolled."""
    return driver.execute_script("""
        const width = document.documentElement.clientWidth;
        const wide = [];
        for (const element of document.querySelectorAll("body *")) {
            const r = element.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            if (r.right <= width + 0.5 && r.left >= -0.5) continue;
            // Inside a box that scrolls sideways (a code block) a line may be as long as it is; what is clipped
            // to nothing (a name for screen readers only, the skip link until it is focused) is not seen.
            if (element.closest("pre, .skip-link")) continue;
            // So is what a box within the screen cuts off or scrolls (the messages themselves are checked apart).
            let clipped = false;
            for (let up = element; up && up !== document.body; up = up.parentElement) {
                const style = getComputedStyle(up);
                if (style.clip !== "auto" && style.position === "absolute") { clipped = true; break; }
                if (up !== element && style.overflowX !== "visible") {
                    const box = up.getBoundingClientRect();
                    if (box.right <= width + 0.5 && box.left >= -0.5) { clipped = true; break; }
                }
            }
            if (clipped) continue;
            wide.push([element.tagName.toLowerCase() + "." + element.className, Math.round(r.left), Math.round(r.right)]);
        }
        const messages = document.querySelector(".conversation .messages");
        function place(selector) {
            const element = document.querySelector(selector);
            if (!element) return null;
            const r = element.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const top = document.elementFromPoint(x, y);
            return { left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                     clickable: !!top && (top === element || element.contains(top)) };
        }
        return { width: width, height: window.innerHeight, wide: wide.slice(0, 8),
                 messagesScrollSideways: messages ? messages.scrollWidth > messages.clientWidth + 1 : false,
                 scrolled: [window.scrollX, window.scrollY, document.scrollingElement.scrollLeft, document.scrollingElement.scrollTop],
                 scrollSize: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight],
                 send: place("form.composer button[type=submit]"),
                 header: place(".conversation-header"),
                 title: place(".conversation-header h1"),
                 topic: place(".conversation-topic"),
                 menu: place(".conversation-menu > summary"),
                 links: [...document.querySelectorAll(".conversation-links a")].map((a) => {
                     const r = a.getBoundingClientRect(); return [a.textContent, r.width > 0 && r.height > 0, r.left, r.right, r.top, r.bottom]; }) };
    """)


def held(driver, label, menu_expected):
    """Nothing wider than the screen, nothing scrolled, Send and the chat's links in view and clickable."""
    state = geometry(driver)
    assert not state["wide"], "%s: wider than the screen: %r" % (label, state["wide"])
    assert not state["messagesScrollSideways"], "%s: the messages scroll sideways" % label
    assert state["scrolled"] == [0, 0, 0, 0], "%s: the document scrolled: %r" % (label, state["scrolled"])
    assert state["scrollSize"][0] <= state["width"] and state["scrollSize"][1] <= state["height"], "%s: the document is larger than the screen: %r" % (label, state)
    send = state["send"]
    assert send and send["clickable"] and 0 <= send["left"] and send["right"] <= state["width"] and send["bottom"] <= state["height"], \
        "%s: Send is not in view: %r" % (label, send)
    header = state["header"]
    assert header["bottom"] - header["top"] <= 72, "%s: the header is %d px tall" % (label, header["bottom"] - header["top"])
    assert state["title"]["bottom"] - state["title"]["top"] <= 30 and state["topic"]["bottom"] - state["topic"]["top"] <= 24, \
        "%s: title and topic take one line each: %r %r" % (label, state["title"], state["topic"])
    if menu_expected:
        menu = state["menu"]
        assert menu and menu["clickable"] and menu["right"] <= state["width"], "%s: the chat's menu: %r" % (label, menu)
    else:
        for name, shown, left, right, top, bottom in state["links"][:3]:
            assert shown and 0 <= left and right <= state["width"], "%s: %s is not in view" % (label, name)
    return state


def menu_opens(driver, label):
    """The chat's menu opens over the messages and its links are in view and clickable."""
    driver.find_element(By.CSS_SELECTOR, ".conversation-menu > summary").click()
    links = driver.execute_script("""
        return [...document.querySelectorAll(".conversation-menu-links a")].map((a) => {
            const r = a.getBoundingClientRect();
            const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return [a.textContent, r.left >= 0 && r.right <= document.documentElement.clientWidth && r.bottom <= innerHeight, top === a]; });
    """)
    assert [name for name, _, _ in links] == ["Members", "Settings", "Feeds"], "%s: %r" % (label, links)
    assert all(inside and clickable for _, inside, clickable in links), "%s: the menu's links: %r" % (label, links)
    step("menu-open-" + label, driver)
    driver.find_element(By.CSS_SELECTOR, ".conversation-menu > summary").click()


def message_id(driver, text):
    return wait_for(driver, lambda d: d.execute_script("""
        const cell = [...document.querySelectorAll("li.message[id^=message-]")].find((c) => c.textContent.includes(arguments[0]));
        return cell ? cell.id.slice(8) : null;
    """, text), "the message " + text[:30])


def unread_state(driver):
    return driver.execute_script("""
        const messages = document.querySelector(".conversation .messages");
        const line = document.getElementById("unread-marker");
        const view = messages.getBoundingClientRect();
        const first = line && line.nextElementSibling;
        const jump = document.querySelector(".jump-unread");
        const inView = (e) => { const r = e.getBoundingClientRect(); return r.top >= view.top - 1 && r.bottom <= view.bottom + 1; };
        return { line: !!line, lineInView: !!line && inView(line), first: first ? first.textContent.trim().slice(0, 200) : null,
                 firstInView: !!first && inView(first), jumpShown: !!jump && !jump.hidden && jump.getClientRects().length > 0,
                 latest: [...document.querySelectorAll(".newest-messages a")].map((a) => a.textContent) };
    """)


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-layout-")
    site = serve_page(PAGE)
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"),
                           extra=("--link-preview-allow-loopback", "--link-preview-port", str(site.server_address[1])))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    drivers = [ana]
    try:
        # A room as a busy team has it: 40 members, a long name and topic, every kind of cell, the longest lines.
        common.sign_up(ana, base, "ana", "Ana Lima")
        # Found again each time: the list may be redrawn live meanwhile.
        general = urllib.parse.urlparse(wait_for(ana, lambda d: d.execute_script("""
            const name = [...document.querySelectorAll(".chat-list-item .chat-list-name")].find((n) => n.textContent.trim() === "General");
            return name ? name.closest("a").href : null;
        """), "General in the list")).path
        people = []
        for index in range(39):
            person = Person(base)
            person.sign_up("member%02d" % index, "Member %02d %s" % (index, ("Long-Name" * 4)[:38] if index == 0 else "Long-Name"))
            people.append(person)
        ben, toaster, writer = people[0], people[1], people[2]
        toasts_chat = urllib.parse.urlparse(common.start_chat_by_typing(ana, base, "member01", "Member 01 Long-Name")).path
        unread_chat = urllib.parse.urlparse(common.start_chat_by_typing(ana, base, "member02", "Member 02 Long-Name")).path
        ana.get(base + general + "/settings")
        ana.find_element(By.ID, "room-name").clear()
        ana.find_element(By.ID, "room-name").send_keys(ROOM_NAME)
        ana.find_element(By.ID, "room-topic").send_keys(ROOM_TOPIC)
        ana.find_element(By.CSS_SELECTOR, ".room-settings-form button[type=submit]").click()
        wait_for(ana, lambda d: d.current_url.endswith(general), "back in the room")
        ben.say(general, LONG_WORD)
        ben.say(general, "The log says:\n```\n%s\n```" % CODE_LINE)
        ben.say(general, "See " + LONG_URL)
        ben.say(general, RTL)
        ben.say(general, "**Bold**, _italic_, `code`, ~struck~ and a list:\n- one\n- two\n> quoted")
        ben.say(general, "Lunch? http://127.0.0.1:%d/menu" % site.server_address[1])
        ben.say(general, "The face " + LONG_WORD[:40], photo=base64.b64decode(FACE_JPEG))
        common.send(ana, "Looks good to me, @member01 " + LONG_WORD[:60])
        long_word = message_id(ana, LONG_WORD)
        for person, reaction in zip(people[:6], ("🎉", "👍", "🎉", "❤️", "sixteen letters!", "👀")):
            person.react(general, long_word, reaction)
        people[3].say(general, "Replying to the long one " + LONG_URL[:80], replyTo=long_word)
        wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, ".link-preview-card"), "the link card")
        wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, ".message-photo img.photo-link, .message-photo a.photo-link img"), "the photo")
        wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, ".reply-quote") and d.find_elements(By.CSS_SELECTOR, ".message-notice")
                 and d.find_elements(By.CSS_SELECTOR, ".reactions .reaction"), "a quote, notices and reactions")
        step("every-cell", ana)

        # At every width, the room holds: with a toast as well, which moves nothing and covers no control.
        for width in WIDTHS:
            ana.set_window_size(width, 844 if width < 700 else 850)
            ana.get(base + general)
            wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, ".reactions .reaction"), "the room at %d" % width)
            narrow = ana.execute_script("return document.documentElement.clientWidth") <= 900
            before = held(ana, "room-%d" % width, narrow)
            step("room-%d" % width, ana)
            if narrow:
                menu_opens(ana, str(width))
            toaster.say(toasts_chat, "A toast at %d px: %s" % (width, LONG_WORD))
            toast = wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, "#toasts .toast"), "a toast at %d" % width)
            step("toast-%d" % width, ana)
            with_toast = held(ana, "toast-%d" % width, narrow)
            assert abs(with_toast["header"]["top"] - before["header"]["top"]) < 1 and abs(with_toast["send"]["top"] - before["send"]["top"]) < 1, \
                "the toast moved the conversation at %d: %r -> %r" % (width, before["header"], with_toast["header"])
            covered = ana.execute_script("""
                const toast = arguments[0].getBoundingClientRect();
                const focusable = "a[href], button, summary, input:not([type=hidden]), textarea, select, [tabindex]:not([tabindex='-1'])";
                const overlap = (r, box) => r.width > 0 && r.height > 0 && r.left < box.right && box.left < r.right && r.top < box.bottom && box.top < r.bottom;
                // Only the part in view of the messages or the list it scrolls in is there to be covered.
                const seen = (e) => {
                    const r = e.getBoundingClientRect();
                    const box = e.closest(".messages, .chat-list");
                    if (!box) return r;
                    const b = box.getBoundingClientRect();
                    const top = Math.max(r.top, b.top), bottom = Math.min(r.bottom, b.bottom);
                    return { left: r.left, right: r.right, top: top, bottom: bottom, width: r.width, height: Math.max(0, bottom - top) };
                };
                return [...document.querySelectorAll(focusable)].filter((e) => !arguments[0].contains(e) && e.getClientRects().length)
                    .filter((e) => overlap(seen(e), toast))
                    .map((e) => e.outerHTML.slice(0, 80));
            """, toast)
            assert not covered, "the toast at %d covers %r" % (width, covered)
            toast.find_element(By.CSS_SELECTOR, ".toast-close").click()
            wait_for(ana, lambda d: not d.find_elements(By.CSS_SELECTOR, "#toasts .toast"), "the toast closes")
            after = held(ana, "after-toast-%d" % width, narrow)
            assert abs(after["header"]["top"] - before["header"]["top"]) < 1, "a band stays where the toast was at %d" % width

        # The chat list in two sections, rooms then direct messages; one folded stays folded on this browser.
        ana.set_window_size(1366, 850)
        ana.get(base + "/chats")
        sections = ana.execute_script("""
            return [...document.querySelectorAll(".chat-list-section")].map((s) => [s.querySelector("summary").textContent.trim(),
                [...s.querySelectorAll(".chat-list-name")].map((n) => n.textContent.trim()), s.open]);
        """)
        assert [title for title, _, _ in sections] == ["Rooms", "Direct messages"], sections
        assert len(sections[0][1]) == 1 and ROOM_NAME.startswith(sections[0][1][0]) and "Member 01 Long-Name" in sections[1][1] and "Parlor Bot" in sections[1][1], sections
        ana.find_element(By.CSS_SELECTOR, "#chat-list-direct-section > summary").click()
        wait_for(ana, lambda d: not d.execute_script("return document.getElementById('chat-list-direct-section').open"), "the section folds")
        ana.get(base + "/chats")
        wait_for(ana, lambda d: not d.execute_script("return document.getElementById('chat-list-direct-section').open"), "and stays folded")
        toaster.say(toasts_chat, "While folded")
        wait_for(ana, lambda d: "While folded" in d.execute_script("return document.getElementById('chat-list-direct').textContent")
                 and not d.execute_script("return document.getElementById('chat-list-direct-section').open"), "a live row keeps the fold")
        step("sections", ana)
        ana.find_element(By.CSS_SELECTOR, "#chat-list-direct-section > summary").click()
        wait_for(ana, lambda d: d.execute_script("return document.getElementById('chat-list-direct-section').open"), "the section opens")

        # Every other screen holds at every width too.
        for width in WIDTHS:
            ana.set_window_size(width, 844 if width < 700 else 850)
            for page in ("/chats", "/settings", general + "/members", general + "/settings", general + "/feeds", "/admin", "/search?q=review",
                         "/rooms/new", "/chats/new"):
                ana.get(base + page)
                state = geometry(ana)
                assert not state["wide"] and state["scrolled"] == [0, 0, 0, 0], "%s at %d: %r" % (page, width, state["wide"])
            step("pages-%d" % width, ana)

        # 150 unread: the chat opens at the first of them, under the "New messages" line.
        ana.set_window_size(1366, 850)
        ana.get(base + "/settings")
        for index in range(150):
            writer.say(unread_chat, "Unread %03d" % index)
        for width in (1366, 390):
            ana.set_window_size(width, 844 if width < 700 else 850)
            # What the first opening showed is read, and only that: the next opening starts after it.
            ana.get(base + unread_chat)
            first = "Unread %03d" % (0 if width == 1366 else 50)
            wait_for(ana, lambda d: unread_state(d)["line"], "the New messages line")
            state = unread_state(ana)
            assert state["lineInView"] and state["firstInView"] and (first + "\n") in state["first"], "first unread at %d: %r" % (width, state)
            assert "Back to the latest messages" in state["latest"], "a way to the newest: %r" % state
            assert not state["jumpShown"], "no jump while the line shows"
            step("first-unread-%d" % width, ana)
        ana.execute_script("const m = document.querySelector('.conversation .messages'); m.scrollTop = m.scrollHeight;")
        wait_for(ana, lambda d: unread_state(d)["jumpShown"], "Jump to first unread shows when the line is out of view")
        step("jump-shown", ana)
        ana.find_element(By.CSS_SELECTOR, ".jump-unread a").click()
        wait_for(ana, lambda d: unread_state(d)["lineInView"] and not unread_state(d)["jumpShown"], "the jump brings the line back")
        step("jumped", ana)
        row = lambda d: d.execute_script("const a = document.querySelector('.chat-list-item a[href$=\"' + arguments[0] + '\"]');"
                                         "return a ? a.textContent : '';", unread_chat)
        ana.set_window_size(1366, 850)
        badge = ana.find_elements(By.CSS_SELECTOR, ".chat-list-item a[href$='%s'] .badge" % unread_chat)
        assert badge and badge[0].text.split("\n")[0] == "50", "the 50 never shown are still unread: %r" % (badge[0].text if badge else None)
        ana.find_element(By.CSS_SELECTOR, ".conversation .messages li.message").click()
        ana.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        wait_for(ana, lambda d: not unread_state(d)["line"] and not d.find_elements(By.CSS_SELECTOR, ".jump-unread"), "Escape takes the line away")
        ana.get(base + "/chats")
        wait_for(ana, lambda d: "Unread 149" in row(d) and not d.find_elements(By.CSS_SELECTOR, ".chat-list-item a[href$='%s'] .badge" % unread_chat),
                 "Escape marked the whole chat read")
        step("escape-read", ana)

        # Axe: nothing at all on any screen, in both themes, at both sizes; the room with the mention list open, and
        # the photo in its viewer, too.
        ana.get(base + general)
        photo = urllib.parse.urlparse(wait_for(ana, lambda d: d.execute_script(
            "const a = document.querySelector('.message-photo a.photo-link'); return a ? a.href : null;"), "the photo")).path
        seen = "%s/messages/%s/seen" % (general, message_id(ana, "Looks good to me"))
        every = ("/chats", general, unread_chat, "/settings", general + "/members", general + "/settings", general + "/feeds", "/admin",
                 "/search?q=review", "/rooms/new", "/chats/new", photo, "%s/messages/%s/react" % (general, long_word), seen)
        # Every screen at the desktop size; on a phone the ones whose layout changes most (the rest hold their
        # width at every size above).
        for width, pages in ((1366, every), (390, ("/chats", general, "/settings", general + "/members", "/admin", photo))):
            ana.set_window_size(width, 844 if width < 700 else 850)
            for page in pages:
                ana.get(base + page)
                axe_clean(ana, "%d%s" % (width, re.sub(r"\W+", "-", page)))
            ana.get(base + general)
            # Clicked as found (its cell may be redrawn live meanwhile).
            wait_for(ana, lambda d: d.execute_script(
                "const a = document.querySelector('.message-photo a.photo-link'); if (!a) return false; a.click(); return true;"), "the photo clicked")
            wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog.image-dialog[open] img"), "the photo in its viewer")
            axe_clean(ana, "%d-image-viewer" % width)
            ana.get(base + general)
            ana.find_element(By.CSS_SELECTOR, "form.composer textarea").send_keys("@mem")
            wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, "#mention-suggestions [role=option][aria-selected=true]"), "the mention list opens")
            held(ana, "mentions-%d" % width, width < 900)
            axe_clean(ana, "%d-mentions-open" % width)
            step("axe-%d" % width, ana)
        # And the pages before signing in.
        visitor = common.browser(390, 844)
        drivers.append(visitor)
        for width in (1366, 390):
            visitor.set_window_size(width, 844 if width < 700 else 850)
            for page in ("/signin", "/signup"):
                visitor.get(base + page)
                assert not geometry(visitor)["wide"], "%s at %d" % (page, width)
                axe_clean(visitor, "%d%s" % (width, page.replace("/", "-")))
        step("axe-signed-out", visitor)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        site.shutdown()
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
