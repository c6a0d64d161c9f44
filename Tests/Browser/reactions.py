"""Reactions, live in two headless Chromium browsers, by mouse and by keyboard, and without the script.

Usage: python reactions.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Ana says something; Ben points at it, clicks React and picks 🎉: the reaction shows under the message on both
screens at once (pressed on his, with who gave it in its name). Ana adds hers with the keyboard alone (Tab to the
message's reaction, Enter): the count is 2 on both screens and her button keeps the focus; pressed again, hers is
taken back. Ben types a reaction of his own in the picker. A page without the script reacts through the
choosing page and comes back to the message. Axe finds nothing to fault on the conversation with reactions.
A screenshot of every step is saved in ARTIFACTS_FOLDER.
"""

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from axe_selenium_python import Axe  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in


def reactions(driver, message_id):
    """[(text, count, pressed, label)] under a message, read again each time (live updates replace the list)."""
    return driver.execute_script(
        "const list = document.getElementById('reactions-' + arguments[0]);"
        "return list ? Array.from(list.querySelectorAll('button.reaction')).map((b) => ["
        "b.querySelector('.reaction-text').textContent, b.querySelector('.reaction-count').textContent,"
        "b.getAttribute('aria-pressed'), b.getAttribute('aria-label')]) : null", message_id)


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-reactions-")
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 850)
    ben = common.browser(1366, 850)
    plain = common.browser(1366, 850, extra=("--blink-settings=scriptEnabled=false",))
    drivers = [ana, ben, plain]
    try:
        common.sign_up(ana, base, "ana", "Ana Lima")
        common.sign_up(ben, base, "ben", "Ben Okafor")
        chat = common.start_chat_by_typing(ana, base, "be", "Ben Okafor")
        common.send(ana, "The release is out")
        cell_id = common.own_cell(ana, "The release is out")
        message_id = cell_id.split("-")[1]
        ben.get(chat)
        wait_for(ben, text_in(".messages", "The release is out"), "Ben sees the message")

        # 1. Ben clicks React and picks 🎉: both screens show it at once.
        cell = ben.find_element(By.ID, cell_id)
        common.message_action(ben, cell, "React")
        picker = wait_for(ben, lambda d: d.find_element(By.CSS_SELECTOR, ".reaction-picker[role=dialog]"), "the picker opens")
        assert ben.switch_to.active_element.text == "👍", "the first pick has the focus"
        clicked = time.time()
        picker.find_element(By.CSS_SELECTOR, "button[aria-label='React with 🎉']").click()
        wait_for(ana, lambda d: reactions(d, message_id) == [["🎉", "1", "false", "Ben Okafor reacted with 🎉"]], "Ana sees Ben's 🎉")
        print("shown on the other screen %.3f s after the click" % (time.time() - clicked), file=sys.stderr)
        wait_for(ben, lambda d: reactions(d, message_id) == [["🎉", "1", "true", "You reacted with 🎉"]], "pressed on Ben's screen")
        assert not ben.find_elements(By.CSS_SELECTOR, ".reaction-picker"), "the picker closed"
        step("reacted-live", ana, ben)

        # 2. Ana adds hers with the keyboard: Tab from the message to its reaction, Enter.
        ana_cell = ana.find_element(By.ID, cell_id)
        ana_cell.click()
        ana.execute_script("arguments[0].focus()", ana_cell)
        button = None
        for _ in range(8):
            ana.switch_to.active_element.send_keys(Keys.TAB)
            focused = ana.switch_to.active_element
            if focused.get_attribute("class") == "reaction":
                button = focused
                break
        assert button is not None, "a Tab from the message reaches its reaction"
        button.send_keys(Keys.ENTER)
        wait_for(ben, lambda d: reactions(d, message_id) == [["🎉", "2", "true", "You and Ana Lima reacted with 🎉"]], "Ben sees two")
        wait_for(ana, lambda d: reactions(d, message_id) == [["🎉", "2", "true", "You and Ben Okafor reacted with 🎉"]], "pressed for Ana")
        assert ana.switch_to.active_element.get_attribute("value") == "🎉", "the focus stays on her reaction after the redraw"
        step("reacted-by-keyboard", ana, ben)
        ana.switch_to.active_element.send_keys(Keys.ENTER)
        wait_for(ben, lambda d: reactions(d, message_id) == [["🎉", "1", "true", "You reacted with 🎉"]], "Ana's taken back on Ben's screen")
        step("taken-back", ana, ben)

        # 3. Ben types one of his own in the picker.
        common.message_action(ben, ben.find_element(By.ID, cell_id), "React")
        field = wait_for(ben, lambda d: d.find_element(By.CSS_SELECTOR, ".reaction-picker input"), "the picker's field")
        field.send_keys("ship it")
        field.send_keys(Keys.ENTER)
        wait_for(ana, lambda d: [r[0] for r in (reactions(d, message_id) or [])] == ["🎉", "ship it"], "Ana sees Ben's words")
        step("typed-reaction", ana, ben)

        # 4. Without the script: the choosing page, then back at the message with the reaction pressed.
        common.sign_up(plain, base, "dana", "Dana Scully")
        ana.get(base + "/chats")
        # Dana reacts in the open room, General, where everyone is: Ana posts there.
        general = wait_for(ana, lambda d: d.execute_script(
            "const link = Array.from(document.querySelectorAll('.chat-list a')).find((a) => a.textContent.includes('General'));"
            "return link && link.href"), "General in Ana's list")
        ana.get(general)
        common.send(ana, "Cake in the kitchen")
        general_cell = common.own_cell(ana, "Cake in the kitchen")
        general_id = general_cell.split("-")[1]
        plain.get(general)
        wait_for(plain, text_in(".messages", "Cake in the kitchen"), "Dana sees it")
        plain.get(plain.find_element(By.CSS_SELECTOR, "#%s a.react-to-message" % general_cell).get_attribute("href"))
        wait_for(plain, text_in("h1", "React to Ana Lima"), "the choosing page")
        plain.find_element(By.CSS_SELECTOR, ".quick-reactions button[value='👀']").click()
        wait_for(plain, lambda d: ("#" + general_cell) in d.current_url, "back at the message")
        pressed = plain.find_element(By.CSS_SELECTOR, "#reactions-%s button.reaction" % general_id)
        assert (pressed.get_attribute("aria-pressed"), pressed.get_attribute("aria-label")) == ("true", "You reacted with 👀"), pressed.get_attribute("outerHTML")
        wait_for(ana, lambda d: reactions(d, general_id) == [["👀", "1", "false", "Dana Scully reacted with 👀"]], "live on Ana's screen")
        step("without-script", plain, ana)

        # 5. Nothing for axe to fault on a conversation with reactions.
        ana.get(chat)
        wait_for(ana, lambda d: reactions(d, message_id) and len(reactions(d, message_id)) == 2, "the reactions drawn with the page")
        axe = Axe(ana)
        axe.inject()
        results = axe.run(options=json.dumps({"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21aa", "best-practice"]}}))
        assert not results["violations"], "axe: %s" % axe.report(results["violations"])
        step("accessible", ana)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        common.shut_down(drivers, parlor, folder)


if __name__ == "__main__":
    main()
