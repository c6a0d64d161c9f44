"""Search as a person uses it, in headless Chromium with and without JavaScript.

Usage: python search.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

"/" and Ctrl+K focus the header's search field; results appear under the header as Ben types, with the words
marked; Down and Enter open a result, which opens the conversation at that message (marked, in view, older and
newer messages around it), where a new message still shows up live. On the results page the results follow
the field and its address. Without JavaScript the same field submits to the results page and a result opens
the conversation at the message. A screenshot of every step is saved in ARTIFACTS_FOLDER.
"""

import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from conversation_screen import axe_clean, no_script_browser, send_many, sign_in  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in


def active_id(driver):
    return driver.execute_script("return document.activeElement && document.activeElement.id")


def marked(driver, selector):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' .search-result mark')).map((m) => m.textContent)", selector)


def found_cell_in_view(driver):
    """The marked message and whether it is inside the visible part of the messages."""
    return driver.execute_script("""
        const cell = document.querySelector('.messages li.message.is-found');
        if (!cell) return null;
        const box = document.querySelector('.messages').getBoundingClientRect();
        const r = cell.getBoundingClientRect();
        const middle = (r.top + r.bottom) / 2, boxMiddle = (box.top + box.bottom) / 2;
        return { id: cell.id, text: cell.querySelector('.message-body').textContent,
                 inView: r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && Math.abs(middle - boxMiddle) < box.height / 4, hash: location.hash };
    """)


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-search-")
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    ben = common.browser(1366, 850)
    drivers = [ana, ben]
    try:
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor")
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        chat_path = chat[len(base):]
        texts = ["Note %d of the week" % index for index in range(1, 61)]
        texts[9] = "The *deployment* checklist for Friday <b>not bold</b>"
        send_many(ana, chat_path, texts)
        ben.get(base + "/chats")
        wait_for(ben, lambda d: d.find_elements(By.CSS_SELECTOR, "form.header-search"), "Ben's chat list")

        # 1. "/" focuses the field (outside a text field); results come as Ben types, the word marked.
        ActionChains(ben).send_keys("/").perform()
        wait_for(ben, lambda d: active_id(d) == "search-field", "/ focuses the search field")
        ActionChains(ben).send_keys("deplo").perform()
        wait_for(ben, lambda d: marked(d, "#search-panel:not([hidden])") == ["deployment"], "results under the header as Ben types")
        text = ben.find_element(By.CSS_SELECTOR, "#search-panel .search-result-text").text
        assert text == "The deployment checklist for Friday <b>not bold</b>", "the text as typed, formatting gone: %r" % text
        assert ben.find_element(By.ID, "search-field").get_attribute("value") == "deplo", "the slash was not typed"
        wait_for(ben, text_in("#live-announcer", "1 message found"), "the count is announced")
        axe_clean(ben, "search-panel")
        step("results-as-you-type", ben)
        ActionChains(ben).send_keys(Keys.ESCAPE).perform()
        wait_for(ben, lambda d: not d.find_elements(By.CSS_SELECTOR, "#search-panel:not([hidden])"), "Escape closes the panel")

        # 2. Ctrl+K focuses it too; Down moves into the results, Enter opens the conversation at the message.
        ben.find_element(By.CSS_SELECTOR, ".chat-list").click()
        ActionChains(ben).key_down(Keys.CONTROL).send_keys("k").key_up(Keys.CONTROL).perform()
        wait_for(ben, lambda d: active_id(d) == "search-field", "Ctrl+K focuses the search field")
        field = ben.find_element(By.ID, "search-field")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys("checklist fri")
        wait_for(ben, lambda d: marked(d, "#search-panel:not([hidden])") == ["checklist", "Friday"], "both words marked")
        field.send_keys(Keys.ARROW_DOWN)
        wait_for(ben, lambda d: d.execute_script("return document.activeElement.closest('.search-result') !== null"), "Down enters the results")
        ActionChains(ben).send_keys(Keys.ENTER).perform()
        wait_for(ben, lambda d: "?around=" in d.current_url and "#message-" in d.current_url, "Enter opens the conversation at the message")
        found = wait_for(ben, lambda d: (lambda f: f if f and f["inView"] else None)(found_cell_in_view(d)), "the message found is marked, in the middle")
        assert found["inView"] and found["hash"] == "#" + found["id"], "marked and in view: %r" % found
        assert found["text"].startswith("The deployment checklist"), found
        around = ben.execute_script("return Array.from(document.querySelectorAll('.messages .message-body')).map((b) => b.textContent)")
        assert "Note 1 of the week" in around and "Note 35 of the week" in around and "Note 36 of the week" not in around, around
        assert ben.find_elements(By.LINK_TEXT, "Show newer messages") and ben.find_elements(By.LINK_TEXT, "Back to the latest messages")
        outline = ben.execute_script("return getComputedStyle(document.querySelector('.message.is-found')).outlineStyle")
        assert outline == "solid", "the message found is outlined: %r" % outline
        step("opened-at-the-message", ben)

        # 3. Live updates still arrive far from the newest: an edit of a message shown changes it in place, and a new
        #    message is counted below ("1 new message ↓", which leads to the latest); at the newest it is appended.
        assert "window=1" in ben.execute_script("return document.body.dataset.eventsUrl"), "the page listens to what it shows"
        time.sleep(0.5)
        ana.get(chat)
        note12 = ana.execute_script("""
            return Array.from(document.querySelectorAll('li.message')).find((c) => c.querySelector('.message-body').textContent === 'Note 12 of the week').id
        """)
        ana.execute_script("document.querySelector('#' + arguments[0] + ' .message-actions a[href*=edit]').click()", note12)
        box = wait_for(ana, lambda d: (lambda b: b if b.get_attribute("value") == "Note 12 of the week" else None)(
            d.find_element(By.CSS_SELECTOR, "form.composer textarea")), "Ana edits note 12")
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys("Note 12, edited live")
        box.send_keys(Keys.ENTER)
        wait_for(ben, text_in("#" + note12 + " .message-body", "Note 12, edited live"), "the edit reaches the messages found")
        send_many(ana, chat_path, ["Fresh news after the search"])
        pill = wait_for(ben, lambda d: (lambda b: b if b and b[0].is_displayed() else None)(
            d.find_elements(By.CSS_SELECTOR, ".conversation .new-messages button")), "a new message is counted below")[0]
        assert pill.text == "1 new message ↓", pill.text
        assert "Fresh news after the search" not in ben.find_element(By.CSS_SELECTOR, ".messages").text, "not appended after a gap"
        pill.click()
        wait_for(ben, lambda d: "?around=" not in d.current_url and "?after=" not in d.current_url, "the pill leads to the latest")
        wait_for(ben, text_in(".messages", "Fresh news after the search"), "the latest, with the new message")
        ben.get(base + "/search?q=58")
        ben.find_element(By.CSS_SELECTOR, "main .search-result a").click()
        wait_for(ben, lambda d: "?around=" in d.current_url and "chat=" in d.execute_script("return document.body.dataset.eventsUrl || ''"),
                 "a message found near the newest")
        assert "window=1" not in ben.execute_script("return document.body.dataset.eventsUrl"), "reaching the newest, the whole conversation is live"
        time.sleep(0.5)
        send_many(ana, chat_path, ["Arriving live on that page"])
        wait_for(ben, text_in(".messages", "Arriving live on that page"), "a new message is appended live")
        step("live-after-search", ben)

        # 4. The results page follows the field and its address as Ben types.
        ben.get(base + "/search?q=note")
        wait_for(ben, lambda d: len(d.find_elements(By.CSS_SELECTOR, "main .search-result")) == 20, "twenty results a page")
        assert ben.find_elements(By.LINK_TEXT, "More results")
        field = ben.find_element(By.ID, "search-field")
        field.send_keys(" 42")
        wait_for(ben, lambda d: marked(d, "main") == ["Note", "42"] and d.current_url.endswith("/search?q=note%2042"), "results and address follow")
        axe_clean(ben, "search-page")
        step("results-page-follows", ben)

        # 5. Without JavaScript: the field submits, and a result opens the conversation at the message.
        plain = no_script_browser(1366, 850)
        drivers.append(plain)
        sign_in(plain, base, "ben")
        box = plain.find_element(By.ID, "search-field")
        box.send_keys("deployment")
        box.send_keys(Keys.ENTER)
        wait_for(plain, lambda d: d.current_url.endswith("/search?q=deployment"), "the form submits to the results page")
        assert [m.text for m in plain.find_elements(By.CSS_SELECTOR, "main .search-result mark")] == ["deployment"]
        plain.find_element(By.CSS_SELECTOR, "main .search-result a").click()
        wait_for(plain, lambda d: "?around=" in d.current_url, "the result opens the conversation")
        target = plain.execute_script("""
            const cell = document.querySelector('.message:target');
            return cell && [cell.querySelector('.message-body').textContent, getComputedStyle(cell).outlineStyle];
        """)
        assert target and target[0].startswith("The deployment checklist") and target[1] == "solid", "the message found, marked: %r" % target
        step("search-without-script", plain)

        # 6. Installable: Chromium reads the web app manifest without complaint.
        manifest = ben.execute_cdp_cmd("Page.getAppManifest", {})
        assert manifest["url"].endswith("/manifest.webmanifest") and not manifest["errors"], "the manifest: %r" % manifest
        assert '"start_url":"/chats"' in manifest["data"].replace(" ", ""), manifest["data"]
        step("installable", ben)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
