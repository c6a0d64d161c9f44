"""The conversation screen as a daily user meets it, in headless Chromium at 1366x850 and 390x844.

Usage: python conversation_screen.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Each step proves one item of the conversation-screen issue and fails without it: the document never
scrolls (wheels and swipes past both ends of the messages and of the chat list, with and without
JavaScript, the composer stays in view), compact messages (a one-line message at most 40 px, at least 14
visible at 1366x850, actions shown on hover and focus only, the read state once), formatting rendered from
the text (and plain in the chat list), and text in right-to-left scripts laid out right to left. A
screenshot of every step is saved in ARTIFACTS_FOLDER.
"""

import base64
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from axe_selenium_python import Axe  # noqa: E402

from conversation_ux import FACE_JPEG, post_from_page  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in


def send_many(driver, chat_path, texts):
    for index, text in enumerate(texts):
        status = post_from_page(driver, chat_path + "/messages", {"body": text, "token": "screen-%d-%s" % (index, os.urandom(4).hex())})
        assert status in (200, 201, 204, 303), "sending %r answered %s" % (text, status)


def document_stays(driver, label):
    """The document itself does not scroll and the composer is wholly in view."""
    state = driver.execute_script("""
        const composer = document.querySelector("form.composer");
        const r = composer ? composer.getBoundingClientRect() : null;
        return { scrollY: window.scrollY, top: document.scrollingElement.scrollTop,
                 height: document.scrollingElement.scrollHeight, viewport: window.innerHeight,
                 composer: r ? [r.top, r.bottom] : null };
    """)
    assert state["scrollY"] == 0 and state["top"] == 0, "%s: the document scrolled: %r" % (label, state)
    assert state["height"] <= state["viewport"] + 1, "%s: the document is taller than the screen: %r" % (label, state)
    if state["composer"] is not None:
        assert state["composer"][0] >= 0 and state["composer"][1] <= state["viewport"] + 1, "%s: composer out of view: %r" % (label, state)


def centre(driver, selector):
    return driver.execute_script("""
        const r = document.querySelector(arguments[0]).getBoundingClientRect();
        return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];
    """, selector)


def wheel(driver, selector, delta, times=6):
    x, y = centre(driver, selector)
    for _ in range(times):
        driver.execute_cdp_cmd("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": delta})


def swipe(driver, selector, distance):
    """A finger drawn over the element: negative `distance` scrolls toward the end."""
    x, y = centre(driver, selector)
    driver.execute_cdp_cmd("Input.synthesizeScrollGesture", {
        "x": x, "y": y, "yDistance": distance, "gestureSourceType": "touch", "speed": 4000, "repeatCount": 2})


def past_both_ends(driver, selector, label, touch=False):
    """Wheels (or swipes) well past the end and the start of a scrolling list; the document stays put."""
    for direction in (1, -1):
        if touch:
            swipe(driver, selector, -3000 * direction)
        else:
            wheel(driver, selector, 2000 * direction)
        time.sleep(0.3)  # the scroll settles (a page without its script has no frame callbacks to wait on)
        document_stays(driver, "%s, %s" % (label, "toward the end" if direction == 1 else "toward the start"))


def axe_clean(driver, label):
    """No axe violation on this screen."""
    axe = Axe(driver)
    axe.inject()
    results = axe.run(options=json.dumps({"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]}}))
    violations = results["violations"]
    assert not violations, "axe on %s: %s" % (label, axe.report(violations))


def bot_room(driver):
    """The id of the viewer's chat with Parlor Bot, from the chat list."""
    link = driver.find_element(By.XPATH, "//li[contains(@class,'chat-list-item')][.//span[text()='Parlor Bot']]/a").get_attribute("href")
    return link.rsplit("/", 1)[1]


def sign_in(driver, base, handle):
    driver.get(base + "/signin")
    driver.find_element(By.ID, "auth-handle").send_keys(handle)
    driver.find_element(By.ID, "auth-password").send_keys("correct horse battery")
    driver.find_element(By.CSS_SELECTOR, ".auth-form button[type=submit]").click()
    wait_for(driver, lambda d: d.current_url.endswith("/chats"), handle + " is signed in")


def no_script_browser(width, height):
    return common.browser(width, height, extra=("--blink-settings=scriptEnabled=false",))


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-screen-")
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    ben = common.browser(390, 844)
    drivers = [ana, ben]
    try:
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor")
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        chat_path = chat[len(base):]
        send_many(ana, chat_path, ["Line %d of a long morning" % index for index in range(1, 41)])
        ben.get(chat)
        wait_for(ben, text_in(".messages", "Line 40 of a long morning"), "Ben has the forty lines")
        ana.get(chat)
        wait_for(ana, text_in(".messages", "Line 40 of a long morning"), "Ana has the forty lines")

        # 1. The app is the viewport: wheels past both ends of the messages and the chat list, and swipes on
        #    the phone, leave the document where it was and the composer in view; with and without the script.
        past_both_ends(ana, ".messages", "desktop messages")
        past_both_ends(ana, ".chat-list", "desktop chat list")
        past_both_ends(ben, ".messages", "phone messages", touch=True)
        ben.get(base + "/chats")
        past_both_ends(ben, ".chat-list", "phone chat list", touch=True)
        for width, height in ((1366, 850), (390, 844)):
            plain = no_script_browser(width, height)
            drivers.append(plain)
            sign_in(plain, base, "ana")
            plain.get(chat)
            wait_for(plain, text_in(".messages", "Line 40 of a long morning"), "the chat without the script")
            past_both_ends(plain, ".messages", "%dx%d without the script" % (width, height), touch=width < 700)
            step("no-document-scroll-%d" % width, plain)
        step("no-document-scroll", ana, ben)

        # 2. Formatting: Ana types it, both see it rendered, the chat list shows it plain, and editing gives
        #    Ana the text as she typed it.
        ana.get(chat)
        typed = "*Release* is _Friday_, ~Thursday~\n> the trains?\n- `make release`\n- tell @ben"
        box = ana.find_element(By.CSS_SELECTOR, "form.composer textarea")
        ana.execute_script("arguments[0].value = arguments[1]", box, typed)
        box.send_keys(Keys.ENTER)
        cell = common.own_cell(ana, "Release is Friday")
        ben.get(chat)
        wait_for(ben, lambda d: d.execute_script("""
            const body = document.querySelector("#" + arguments[0] + " .message-body");
            return body && body.querySelector("strong").textContent === "Release" && body.querySelector("em").textContent === "Friday"
                && body.querySelector("s").textContent === "Thursday" && body.querySelector("blockquote").textContent === "the trains?"
                && body.querySelector("li code").textContent === "make release" && body.querySelector("li .mention.is-you") !== null
                && !body.textContent.includes("*") && body.getAttribute("dir") === "auto";
        """, cell), "Ben sees the formatting")
        ben.get(base + "/chats")
        wait_for(ben, text_in(".chat-list-preview", "Release is Friday, Thursday"), "the chat list's preview is plain text")
        ana.execute_script("document.querySelector('#' + arguments[0] + ' .message-actions a[href*=edit]').click()", cell)
        wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, "form.composer textarea").get_attribute("value") == typed,
                 "the edit starts from the text as typed")
        step("formatted", ana, ben)

        # 3. Compact messages at exactly 1366x850: a one-line message at most 40 px, at least 14 in view, the
        #    actions only on hover or focus, "Read" once, a grouped message's time on hover and "Edited" always.
        ana.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1366, "height": 850, "deviceScaleFactor": 1, "mobile": False})
        ana.get(chat)
        wait_for(ana, text_in(".messages", "Line 40 of a long morning"), "the chat again")
        sizes = ana.execute_script("""
            const cells = Array.from(document.querySelectorAll(".messages li.message"));
            const lines = cells.filter((cell) => /^Line \\d+ of a long morning$/.test(cell.querySelector(".message-body").textContent));
            // The forty one-line messages, the last of them at the bottom of the list.
            lines[lines.length - 1].scrollIntoView({ block: "end" });
            const box = document.querySelector(".messages").getBoundingClientRect();
            const inView = lines.filter((cell) => { const r = cell.getBoundingClientRect(); return r.top >= box.top - 1 && r.bottom <= box.bottom + 1; });
            const shown = (element) => element && getComputedStyle(element).display !== "none" && element.getClientRects().length > 0;
            return { heights: lines.slice(1).map((cell) => cell.getBoundingClientRect().height), inView: inView.length, viewport: innerHeight,
                     reads: Array.from(document.querySelectorAll(".messages .delivery")).filter(shown).map((d) => d.textContent.trim()),
                     actionsShown: cells.filter((cell) => getComputedStyle(cell.querySelector(".message-actions")).opacity !== "0").length };
        """)
        print("one-line heights %.1f-%.1f px, %d in view at %d px, shown delivery: %r" % (
            min(sizes["heights"]), max(sizes["heights"]), sizes["inView"], sizes["viewport"], sizes["reads"]), flush=True)
        ana.save_screenshot(os.path.join(common.ARTIFACTS, "compact-measured.png"))
        assert sizes["viewport"] == 850
        assert max(sizes["heights"]) <= 40, "a one-line message is %.1f px high" % max(sizes["heights"])
        assert sizes["inView"] >= 14, "only %d one-line messages in view" % sizes["inView"]
        assert sizes["reads"] == ["Read"], "the read state shows %r" % sizes["reads"]
        assert sizes["actionsShown"] == 0, "%d messages show their actions without hover or focus" % sizes["actionsShown"]
        target = ana.find_element(By.XPATH, "//li[contains(@class,'message')][.//p[text()='Line 38 of a long morning']]")
        ActionChains(ana).move_to_element(target).perform()
        hovered = ana.execute_script("""
            const cell = arguments[0];
            const time = cell.querySelector(".message-meta time").getBoundingClientRect();
            return { actions: getComputedStyle(cell.querySelector(".message-actions")).opacity, time: [time.width, time.height] };
        """, target)
        assert hovered["actions"] == "1" and hovered["time"][0] > 10 and hovered["time"][1] > 5, "hovering shows %r" % hovered
        step("compact-and-hover", ana)
        # "Edited" shows on a grouped message too, where the name line is tucked away.
        edited = ana.execute_script("""
            const cell = Array.from(document.querySelectorAll('.messages li.message.continues-group'))
                .find((c) => c.querySelector('.message-body').textContent === 'Line 38 of a long morning');
            return cell.id.replace('message-', '');
        """)
        status = post_from_page(ana, chat_path + "/messages/" + edited, {"body": "Line 38, edited"})
        assert status in (200, 204, 303), "the edit answered %s" % status
        wait_for(ana, lambda d: d.execute_script("""
            const cell = document.getElementById('message-' + arguments[0]);
            const mark = cell && cell.querySelector('.message-edited');
            return !!mark && cell.classList.contains('continues-group') && mark.getClientRects().length > 0 && mark.textContent === 'Edited';
        """, edited), "the grouped, edited message says Edited")

        # 4. By keyboard: the newest message is one Tab stop; Up moves to the one before, its toolbar's actions
        #    are next with Tab and Left/Right; Escape comes back. Up in the empty composer edits the newest own message.
        ana.execute_script("document.querySelector('.messages li.message:last-of-type').focus()")
        focused = lambda d: d.switch_to.active_element
        ActionChains(ana).send_keys(Keys.ARROW_UP).perform()
        before_last = ana.execute_script("const c = Array.from(document.querySelectorAll('.messages li.message')); return c[c.length - 2].id")
        wait_for(ana, lambda d: focused(d).get_attribute("id") == before_last, "Up moves to the message before")
        assert ana.execute_script("return getComputedStyle(document.activeElement.querySelector('.message-actions')).opacity") == "1"
        ActionChains(ana).send_keys(Keys.TAB).perform()
        assert focused(ana).text == "Reply", "Tab goes into the toolbar: %r" % focused(ana).text
        ActionChains(ana).send_keys(Keys.ARROW_RIGHT).perform()
        assert focused(ana).text == "React", focused(ana).text
        ActionChains(ana).send_keys(Keys.ARROW_RIGHT).perform()
        assert focused(ana).text == "Edit", focused(ana).text
        ActionChains(ana).send_keys(Keys.ESCAPE).perform()
        assert focused(ana).get_attribute("id") == before_last
        stops = ana.execute_script("""
            return Array.from(document.querySelectorAll(".messages li.message, .messages .message-actions a")).filter((e) => e.tabIndex >= 0).length;
        """)
        # The focused message and its four actions (Reply, React, Edit, Delete on one's own): one message's worth.
        assert stops <= 5, "%d Tab stops among the messages" % stops
        box = ana.find_element(By.CSS_SELECTOR, "form.composer textarea")
        box.click()
        box.send_keys(Keys.ARROW_UP)
        wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, "form.composer textarea").get_attribute("value") == typed, "Up edits the newest own message")
        box.send_keys(Keys.ESCAPE)
        step("messages-by-keyboard", ana)

        # 5. The composer: one line to start, grows to eight lines and then scrolls; an attach button named Photo.
        box = ana.find_element(By.CSS_SELECTOR, "form.composer textarea")
        one = box.size["height"]
        box.send_keys("first")
        for index in range(12):
            box.send_keys(Keys.SHIFT, Keys.ENTER)
            box.send_keys("line %d" % index)
        grown = box.size["height"]
        line = ana.execute_script("return parseFloat(getComputedStyle(arguments[0]).lineHeight)", box)
        scrolls = ana.execute_script("return arguments[0].scrollHeight > arguments[0].clientHeight", box)
        print("composer: %d px empty, %d px with 13 lines (line %.0f px)" % (one, grown, line), flush=True)
        assert one <= 2 * line + 20, "the empty composer is %d px" % one
        assert 7.5 * line <= grown <= 8 * line + 24 and scrolls, "13 lines make it %d px (scrolls: %s)" % (grown, scrolls)
        ana.execute_script("arguments[0].value = ''", box)
        attach = ana.execute_script("""
            const field = document.querySelector("form.composer input[type=file]");
            const label = document.querySelector("label[for='" + field.id + "']");
            const r = label.getBoundingClientRect();
            return { name: label.textContent.trim(), width: r.width, height: r.height, field: field.getBoundingClientRect().width };
        """)
        assert attach["name"].startswith("Photo") and 30 <= attach["width"] <= 60 and attach["field"] <= 1, "the attach button: %r" % attach
        step("composer-grows", ana)
        # A photo dropped on the composer waits under the text, with a way to remove it.
        ana.execute_script("""
            const canvas = document.createElement('canvas');
            canvas.width = 40; canvas.height = 30;
            canvas.toBlob((blob) => {
                const transfer = new DataTransfer();
                transfer.items.add(new File([blob], 'dropped.png', { type: 'image/png' }));
                const form = document.querySelector('form.composer');
                form.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
                form.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
            }, 'image/png');
        """)
        remove = wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, ".composer-photo-preview button"), "the dropped photo waits under the text")
        assert "dropped.png" in ana.find_element(By.CSS_SELECTOR, ".composer-photo-preview").text
        remove.click()
        wait_for(ana, lambda d: not d.find_elements(By.CSS_SELECTOR, ".composer-photo-preview"), "Remove photo takes it away")

        # 6. Reading history while messages arrive: "N new messages ↓", which End (or a click) clears by jumping
        #    to the newest; the list is a log, and each arrival is announced once.
        ben.get(chat)
        wait_for(ben, text_in(".messages", "Line 40 of a long morning"), "Ben has the chat open")
        ana.execute_script("document.querySelector('.messages').scrollTop = 0")
        time.sleep(0.3)
        ana.execute_script("document.getElementById('live-announcer').textContent = ''; window.__heard = [];"
                           "new MutationObserver(() => window.__heard.push(document.getElementById('live-announcer').textContent))"
                           ".observe(document.getElementById('live-announcer'), { childList: true, characterData: true, subtree: true });")
        for text in ("While you read, one", "While you read, two"):
            common.send(ben, text)
        wait_for(ana, text_in(".new-messages button", "2 new messages"), "the pill counts two new messages")
        heard = ana.execute_script("return window.__heard.filter((t) => t.includes('While you read'))")
        assert len(heard) == 2 and all("Ben Okafor" in t for t in heard), "announced: %r" % heard
        log = ana.execute_script("const m = document.querySelector('.messages'); return [m.getAttribute('role'), m.getAttribute('aria-live')]")
        assert log == ["log", "off"], "the messages are a log announced once, not twice: %r" % log
        step("new-messages-pill", ana)
        ana.execute_script("document.querySelector('.messages li.message').focus()")
        ActionChains(ana).send_keys(Keys.END).perform()
        wait_for(ana, lambda d: d.execute_script(
            "const m = document.querySelector('.messages'); return m.scrollHeight - m.scrollTop - m.clientHeight < 2"), "End jumps to the newest")
        wait_for(ana, lambda d: not d.find_element(By.CSS_SELECTOR, ".new-messages button").is_displayed(), "and the pill goes")

        # 7. Right-to-left text is laid out right to left, in the conversation and in the list.
        common.send(ben, "مرحبا، هل وصلت القطارات؟")
        wait_for(ana, text_in(".messages", "مرحبا"), "the Arabic message arrives")
        directions = ana.execute_script("""
            const cell = Array.from(document.querySelectorAll('.messages .message-body')).find((b) => b.textContent.includes('مرحبا'));
            const preview = Array.from(document.querySelectorAll('.chat-list-preview')).find((p) => p.textContent.includes('مرحبا'));
            return [getComputedStyle(cell.querySelector('p')).direction, preview ? getComputedStyle(preview).direction : null];
        """)
        assert directions == ["rtl", "rtl"], "Arabic is laid out %r" % directions
        step("right-to-left", ana)

        # 7b. One long line breaks nothing for anyone: a 140-character line of code, a 120-character URL and a
        #     200-character word keep the chat list its width, the conversation and Send in the screen, and scroll
        #     or wrap inside their own bubble, at 1366 and at 390.
        list_width = ana.execute_script("return document.querySelector('.chat-list').getBoundingClientRect().width")
        long_code = "```\n2026-11-28T14:05:17.123Z ERROR parlor.http request=7f3a route=/rooms/{id}/messages status=500 " + "x" * 40 + "\n```"
        long_url = "https://example.org/" + "a" * 100 + "/path"
        send_many(ben, chat_path, [long_code, long_url, "W" * 200])
        for driver, label in ((ana, "desktop"), (ben, "phone")):
            wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".messages pre code"), "%s: the code block arrives" % label)
            wait_for(driver, text_in(".messages", "W" * 50), "%s: the long word arrives" % label)
            state = driver.execute_script("""
                const view = window.innerWidth;
                const box = (selector) => { const e = document.querySelector(selector); const r = e.getBoundingClientRect(); return [r.left, r.right, r.width]; };
                const send = document.querySelector("form.composer button[type=submit]").getBoundingClientRect();
                const hit = document.elementFromPoint(send.left + send.width / 2, send.top + send.height / 2);
                const pres = Array.from(document.querySelectorAll(".messages pre"));
                const wide = Array.from(document.querySelectorAll(".conversation *")).filter((e) => {
                    const r = e.getBoundingClientRect();
                    // What scrolls inside its own block, and text hidden for screen readers (clipped to a pixel), aside.
                    return r.width > 0 && r.right > view + 1 && !e.closest("pre, .visually-hidden, .composer-photo-text");
                }).map((e) => e.tagName + "." + e.className);
                return { view: view, documentWidth: document.scrollingElement.scrollWidth, conversation: box(".conversation"),
                         messages: [document.querySelector(".messages").scrollWidth, document.querySelector(".messages").clientWidth],
                         send: [send.left, send.right], sendHit: !!hit && !!hit.closest("form.composer button[type=submit]"),
                         preScrolls: pres.map((p) => p.scrollWidth > p.clientWidth), wide: wide.slice(0, 5) };
            """)
            assert state["documentWidth"] <= state["view"], "%s: the document is wider than the screen: %r" % (label, state)
            assert state["conversation"][1] <= state["view"] + 1, "%s: the conversation goes past the screen: %r" % (label, state)
            assert state["messages"][0] <= state["messages"][1] + 1, "%s: the messages scroll sideways: %r" % (label, state)
            assert state["send"][1] <= state["view"] and state["sendHit"], "%s: Send is out of reach: %r" % (label, state)
            assert state["preScrolls"] and all(state["preScrolls"]), "%s: the code scrolls inside its own block: %r" % (label, state)
            assert not state["wide"], "%s: wider than the screen: %r" % (label, state)
        now_width = ana.execute_script("return document.querySelector('.chat-list').getBoundingClientRect().width")
        assert abs(now_width - list_width) < 1, "the chat list kept its width: %r then %r" % (list_width, now_width)
        step("long-lines-hold", ana, ben)

        # 8. On a phone inside a chat: one header, whose back link says how many unread messages wait elsewhere;
        #    a toast covers no control at either size and closes.
        bot = "Parlor Bot"
        ben.get(chat)
        wait_for(ben, lambda d: d.find_element(By.CSS_SELECTOR, ".conversation-header").is_displayed(), "Ben's chat")
        headers = ben.execute_script("return Array.from(document.querySelectorAll('.app-header, .conversation-header')).filter((h) => h.getClientRects().length).length")
        assert headers == 1, "%d headers inside a chat on a phone" % headers
        back = ben.find_element(By.CSS_SELECTOR, ".conversation-header .back")
        wait_for(ben, lambda d: back.find_element(By.CSS_SELECTOR, ".back-count").text == "1" and back.get_attribute("aria-label") == "Chats, 1 unread",
                 "the back link counts Parlor Bot's unread welcome: %r" % back.text)
        step("phone-one-header", ben)
        # A long press on a message, as on a phone: the message takes the focus and shows its toolbar.
        ben.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
        target = ben.execute_script("""
            const cells = Array.from(document.querySelectorAll('.messages li.message'));
            const cell = cells[cells.length - 1];
            cell.scrollIntoView({ block: 'center' });
            const r = cell.querySelector('.message-body').getBoundingClientRect();
            return [cell.id, Math.round(r.left + 4), Math.round(r.top + r.height / 2)];
        """)
        assert ben.execute_script("return getComputedStyle(document.querySelector('#' + arguments[0] + ' .message-actions')).opacity", target[0]) == "0"
        point = [{"x": target[1], "y": target[2]}]
        ben.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
        time.sleep(0.8)
        ben.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        wait_for(ben, lambda d: d.execute_script(
            "return document.activeElement.id === arguments[0] && getComputedStyle(document.activeElement.querySelector('.message-actions')).opacity === '1'",
            target[0]), "a long press shows the message's toolbar")
        ben.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        step("long-press", ben)
        for reader, writer, label in ((ben, ana, "phone"), (ana, ben, "desktop")):
            writer.get(chat)
            reader.get(base + "/rooms/" + bot_room(reader))
            time.sleep(0.5)
            common.send(writer, "A toast for %s" % label)
            toast = wait_for(reader, lambda d: d.find_element(By.CSS_SELECTOR, "#toasts .toast"), "a toast on the " + label)
            covered = reader.execute_script("""
                const toast = arguments[0].getBoundingClientRect();
                const focusable = "a[href], button, input:not([type=hidden]), textarea, select, [tabindex]:not([tabindex='-1'])";
                return Array.from(document.querySelectorAll(focusable)).filter((e) => !arguments[0].contains(e) && e.getClientRects().length)
                    .filter((e) => { const r = e.getBoundingClientRect();
                        return r.width > 0 && r.height > 0 && r.left < toast.right && toast.left < r.right && r.top < toast.bottom && toast.top < r.bottom; })
                    .map((e) => e.outerHTML.slice(0, 80));
            """, toast)
            assert not covered, "the toast on the %s covers %r" % (label, covered)
            step("toast-covers-nothing-%s" % label, reader)
            toast.find_element(By.CSS_SELECTOR, ".toast-close").click()
            wait_for(reader, lambda d: not d.find_elements(By.CSS_SELECTOR, "#toasts .toast"), "the toast closes")

        # 9. Shortcuts: Ctrl+/ jumps to a chat by name (Ctrl+K and "/" focus the search field), Alt+Down to the next chat, Alt+Shift+Up/Down to the next
        #    one with unread messages; "?" does nothing until single-key shortcuts are turned on in Settings.
        ana.get(chat)
        wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, "form.composer.is-enhanced"), "the chat with its script")
        ActionChains(ana).key_down(Keys.CONTROL).send_keys("/").key_up(Keys.CONTROL).perform()
        field = wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, "dialog.jump-dialog[open] input"), "the jump dialog opens")
        axe_clean(ana, "jump-dialog")
        field.send_keys("parlor b")
        wait_for(ana, text_in("dialog.jump-dialog [role=option][aria-selected=true]", "Parlor Bot"), "Parlor Bot is offered")
        field.send_keys(Keys.ENTER)
        wait_for(ana, lambda d: d.current_url.endswith("/rooms/" + bot_room(d)), "Enter opens the chat with Parlor Bot")
        order = ana.execute_script("return Array.from(document.querySelectorAll('.chat-list-item a')).map((a) => a.href)")
        here = order.index(ana.current_url)
        # Parlor Bot's chat may be last in the list (chats made in the same second): then Alt+Up, to the one before.
        key, there = (Keys.ARROW_DOWN, here + 1) if here + 1 < len(order) else (Keys.ARROW_UP, here - 1)
        ActionChains(ana).key_down(Keys.ALT).send_keys(key).key_up(Keys.ALT).perform()
        wait_for(ana, lambda d: d.current_url == order[there], "Alt+Down (or Up) opens the next (or previous) chat")
        common.send(ben, "Unread for the shortcut")
        wait_for(ana, lambda d: d.find_elements(By.XPATH, "//li[contains(@class,'chat-list-item')][.//span[text()='Ben Okafor']]//span[contains(@class,'badge')]"),
                 "Ben's chat is unread in Ana's list")
        ActionChains(ana).key_down(Keys.ALT).key_down(Keys.SHIFT).send_keys(Keys.ARROW_UP).key_up(Keys.SHIFT).key_up(Keys.ALT).perform()
        wait_for(ana, lambda d: d.current_url == chat, "Alt+Shift+Up opens the chat with unread messages")
        out_of_text = "document.querySelector('.messages li.message').focus(); return document.activeElement.tagName"
        wait_for(ana, lambda d: d.execute_script(out_of_text) == "LI", "the focus on a message, not in a text field")
        ActionChains(ana).send_keys("?").perform()
        time.sleep(0.3)
        assert not ana.find_elements(By.CSS_SELECTOR, "dialog.shortcuts-dialog"), "? lists the shortcuts only once turned on"
        ana.get(base + "/settings")
        toggle = wait_for(ana, lambda d: d.find_element(By.ID, "single-key-shortcuts"), "the shortcuts setting")
        toggle.click()
        ana.get(chat)
        wait_for(ana, lambda d: d.execute_script(out_of_text) == "LI", "the focus on a message again")
        ActionChains(ana).send_keys("?").perform()
        wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, "dialog.shortcuts-dialog[open]"), "? lists the shortcuts")
        axe_clean(ana, "shortcuts-dialog")
        ActionChains(ana).send_keys(Keys.ESCAPE).perform()
        box = ana.find_element(By.CSS_SELECTOR, "form.composer textarea")
        box.send_keys("Really?")
        assert not ana.find_elements(By.CSS_SELECTOR, "dialog.shortcuts-dialog"), "? typed in a message is a question mark"
        step("shortcuts", ana)

        # 10. The image view: three photos in the chat; the middle one opens with its original size and a
        #     download; Right and Left step through the chat's photos in the dialog; without the script the
        #     image page is styled, the photo fits the screen, and Previous / Next are links.
        photo = os.path.join(common.ARTIFACTS, "photo.jpg")
        with open(photo, "wb") as file:
            file.write(base64.b64decode(FACE_JPEG))
        box = ana.find_element(By.CSS_SELECTOR, "form.composer textarea")
        ana.execute_script("arguments[0].value = ''", box)
        for number in (1, 2, 3):
            ana.find_element(By.CSS_SELECTOR, "form.composer input[name=photo]").send_keys(photo)
            wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, ".composer-photo-preview canvas[data-drawn]"), "the chosen photo, drawn")
            ana.find_element(By.CSS_SELECTOR, "form.composer textarea").send_keys("Photo %d" % number, Keys.ENTER)
            wait_for(ana, lambda d: d.execute_script(
                "return Array.from(document.querySelectorAll('.messages li.message[id^=message-] a.photo-link img')).length") >= number,
                "photo %d is stored and ready" % number)
        links = ana.execute_script("return Array.from(document.querySelectorAll('.messages a.photo-link')).map((a) => a.getAttribute('href'))")
        assert len(links) == 3, links
        common.click(ana, ".messages a.photo-link[href='%s']" % links[1], "the middle photo is clicked")
        dialog = wait_for(ana, lambda d: d.find_element(By.CSS_SELECTOR, "dialog.image-dialog[open]"), "the photo opens in a dialog")
        shown = lambda d: d.execute_script("return document.querySelector('dialog.image-dialog .image-detail').id")
        assert shown(ana) == "image-" + links[1].rsplit("/", 1)[1]
        original = dialog.find_element(By.CSS_SELECTOR, ".image-original")
        assert "Original size" in original.text and original.get_attribute("href").endswith("/full"), original.get_attribute("href")
        download = dialog.find_element(By.CSS_SELECTOR, ".image-download")
        disposition = ana.execute_async_script(
            "const done = arguments[1]; fetch(arguments[0]).then((r) => done([r.status, r.headers.get('content-disposition')]))", download.get_attribute("href"))
        assert disposition[0] == 200 and disposition[1].startswith("attachment;"), disposition
        ActionChains(ana).send_keys(Keys.ARROW_RIGHT).perform()
        wait_for(ana, lambda d: shown(d) == "image-" + links[2].rsplit("/", 1)[1], "Right shows the next photo")
        ActionChains(ana).send_keys(Keys.ARROW_LEFT).perform()
        wait_for(ana, lambda d: shown(d) == "image-" + links[1].rsplit("/", 1)[1], "Left shows the middle photo again")
        ActionChains(ana).send_keys(Keys.ARROW_LEFT).perform()
        wait_for(ana, lambda d: shown(d) == "image-" + links[0].rsplit("/", 1)[1], "and again the first photo")
        assert ana.execute_script("return document.querySelector('dialog.image-dialog').contains(document.activeElement)"), "the focus stays in the dialog"
        step("image-view-steps", ana)
        ActionChains(ana).send_keys(Keys.ESCAPE).perform()
        plain = drivers[2]
        plain.get(base + links[1])
        page = plain.execute_script("""
            const detail = document.querySelector('main > .image-detail');
            const img = detail.querySelector('.image-frame img').getBoundingClientRect();
            return { background: getComputedStyle(detail).backgroundColor, bottom: img.bottom, viewport: innerHeight,
                     previous: !!detail.querySelector('a.image-previous'), next: !!detail.querySelector('a.image-next'),
                     scrollY: window.scrollY, height: document.scrollingElement.scrollHeight };
        """)
        assert page["background"] == "rgb(17, 17, 17)" and page["previous"] and page["next"], "the image page: %r" % page
        assert page["bottom"] <= page["viewport"] and page["height"] <= page["viewport"] + 1, "the photo fits the screen: %r" % page
        zoom = plain.execute_script("""
            return [getComputedStyle(document.querySelector('.image-frame')).touchAction,
                    document.querySelector('meta[name=viewport]').content];
        """)
        assert zoom[0] == "pinch-zoom" and "user-scalable" not in zoom[1] and "maximum-scale" not in zoom[1], "pinch-zoom: %r" % zoom
        step("image-page-without-script", plain)

        # Settings: each section apart from the next.
        plain.get(base + "/settings")
        gaps = plain.execute_script("""
            const sections = Array.from(document.querySelectorAll('.settings-form')).filter((s) => s.getClientRects().length);
            return sections.slice(1).map((s, i) => s.getBoundingClientRect().top - sections[i].getBoundingClientRect().bottom);
        """)
        assert gaps and min(gaps) >= 8, "Settings sections are %r px apart" % gaps
        step("settings-spaced", plain)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
