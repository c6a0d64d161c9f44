"""Three people in a closed room, in three real headless Chromium browsers, against a real `parlor serve`.

Usage: python rooms.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Ana makes a room with Ben and adds Chloé (each sees it appear live), names Chloé in a message (highlighted and
counted for her), Chloé follows the room less and less closely (the badge and the row follow), and Ana takes
Ben out while he has the room open (his page goes back to the list by itself). A screenshot of every step is
kept in ARTIFACTS_FOLDER; the first failure exits non-zero with its step.
"""

import os
import re
import sys
import tempfile

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from two_people_chat import (  # noqa: E402
    ARTIFACTS, Parlor, browser, send, shut_down, sign_up, step, text_in, wait_for,
)


def row(driver, name):
    """The chat list's row called `name`, or None."""
    for item in driver.find_elements(By.CSS_SELECTOR, ".chat-list-item"):
        if item.find_element(By.CSS_SELECTOR, ".chat-list-name").text == name:
            return item
    return None


def left_the_page(element):
    """Whether `element` is gone with the page it was on. Chromium says so in two ways: a stale element, or,
    when the page is swapped mid-call, "Node with given id does not belong to the document"."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise


def follow(driver, base, room, level):
    driver.get(base + room + "/members")
    driver.find_element(By.CSS_SELECTOR, "form.follow-room input[value=%s]" % level).click()
    button = driver.find_element(By.CSS_SELECTOR, "form.follow-room button[type=submit]")
    button.click()
    wait_for(driver, lambda d: left_the_page(button), "the form was sent")
    wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "form.follow-room input[value=%s]" % level).is_selected(), "the choice is saved")


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-rooms-")
    parlor = Parlor(os.path.join(folder, "parlor.sqlite"))
    base = "http://127.0.0.1:%d" % parlor.port
    ana, ben, chloe = browser(), browser(), browser()
    try:
        # 1. Three people sign up; the first one's Parlor starts with General, which everyone joins.
        sign_up(ana, base, "ana", "Ana Lima")
        sign_up(ben, base, "ben", "Ben Okafor")
        sign_up(chloe, base, "chloe", "Chloé Martin")
        for driver in (ana, ben, chloe):
            wait_for(driver, text_in(".chat-list", "General"), "General is in every list")
        step("general-for-everyone", ana, ben, chloe)

        # 2. Ana makes a closed room with Ben from the form; it appears in Ben's open list without a reload.
        ana.get(base + "/rooms/new")
        ana.find_element(By.ID, "new-room-name").send_keys("Launch")
        ana.find_element(By.ID, "new-room-topic").send_keys("Friday's release")
        ana.find_element(By.CSS_SELECTOR, "input[name=kind][value=closed]").click()
        ana.find_element(By.ID, "new-room-members").send_keys("@ben")
        ana.find_element(By.CSS_SELECTOR, ".create-room button[type=submit]").click()
        wait_for(ana, lambda d: re.search(r"/rooms/\d+$", d.current_url), "Ana is in the new room")
        room = re.search(r"/rooms/\d+$", ana.current_url).group(0)
        wait_for(ana, text_in(".conversation-header", "2 members"), "the header counts two members")
        wait_for(ben, lambda d: row(d, "Launch") is not None, "the room appears in Ben's list live")
        assert row(chloe, "Launch") is None, "Chloé was not added"
        step("closed-room-made", ana, ben)

        # 3. Ana adds Chloé; her list shows it live, and Ben's open room counts three with a line saying so.
        ben.get(base + room)
        ana.get(base + room + "/members")
        ana.find_element(By.ID, "add-members-handles").send_keys("@chloe")
        ana.find_element(By.CSS_SELECTOR, "form.add-members button[type=submit]").click()
        wait_for(chloe, lambda d: row(d, "Launch") is not None, "the room appears in Chloé's list live")
        wait_for(ben, text_in(".conversation-header", "3 members"), "Ben's header counts three")
        wait_for(ben, text_in(".message-notice", "Ana Lima added Chloé Martin"), "Ben sees the line")
        step("member-added", ana, ben, chloe)

        # 4. Ana names Chloé: a count on Chloé's row (a dot alone for what does not name her), the name
        #    highlighted for her when she opens the room.
        ana.get(base + room)
        send(ana, "Build is green")
        wait_for(chloe, lambda d: row(d, "Launch") is not None and row(d, "Launch").find_elements(By.CSS_SELECTOR, ".unread-dot"),
                 "a dot for a message that names nobody")
        counted = lambda d: int((re.match(r"\((\d+)\)", d.title) or [0, "0"])[1])
        before = counted(chloe)
        # The mention is picked with the keyboard: "@ch" offers Chloé in a list box; Down, Up and Enter put her in.
        box = ana.find_element(By.CSS_SELECTOR, "form.composer textarea")
        box.send_keys("@ch")
        wait_for(ana, lambda d: d.find_elements(By.CSS_SELECTOR, "#mention-suggestions [role=option][aria-selected=true]"), "Chloé is offered")
        assert box.get_attribute("aria-controls") == "mention-suggestions" and box.get_attribute("aria-autocomplete") == "list" \
            and box.get_attribute("aria-activedescendant"), "the text box names the list and the option chosen"
        assert "Chloé Martin" in ana.find_element(By.ID, "mention-suggestions").text
        box.send_keys(Keys.ARROW_DOWN, Keys.ARROW_UP, Keys.ENTER)
        wait_for(ana, lambda d: box.get_attribute("value") == "@chloe ", "Enter put @chloe in the text, not sent it")
        assert box.get_attribute("aria-controls") is None and box.get_attribute("aria-activedescendant") is None, "no list, nothing named"
        step("mention-picked", ana)
        box.send_keys("can you write the notes?", Keys.ENTER)
        wait_for(chloe, lambda d: "1 mention" in (row(d, "Launch").get_attribute("innerHTML") if row(d, "Launch") else ""),
                 "a count for the mention")
        wait_for(chloe, lambda d: counted(d) == before + 1, "the title counts it")
        step("mentioned", ana, chloe)
        chloe.get(base + room)
        wait_for(chloe, lambda d: d.find_elements(By.CSS_SELECTOR, "li.message.mentions-you .mention.is-you"), "her name is highlighted")
        step("mention-highlighted", chloe)

        # 5. Chloé follows it for nothing, then hides it: the badge goes, then the row; a mention brings it back.
        follow(chloe, base, room, "nothing")
        chloe.get(base + "/chats")
        send(ana, "@chloe one more thing")
        wait_for(chloe, lambda d: row(d, "Launch") is not None and "is-muted" in row(d, "Launch").get_attribute("class"), "muted")
        assert not row(chloe, "Launch").find_elements(By.CSS_SELECTOR, ".badge"), "no count while followed for nothing"
        step("muted", chloe)
        chloe.get(base + room)  # read what named her: a hidden room comes back only for what is unread
        wait_for(chloe, text_in(".messages", "one more thing"), "Chloé reads the room")
        follow(chloe, base, room, "hidden")
        chloe.get(base + "/chats")
        assert row(chloe, "Launch") is None, "hidden: not in the list"
        send(ana, "@chloe last call")
        wait_for(chloe, lambda d: row(d, "Launch") is not None, "named, the hidden room comes back live")
        step("hidden-and-back", chloe)

        # 6. Ana takes Ben out while he has the room open: his page goes back to the list, without the room.
        ben.get(base + room)
        wait_for(ben, text_in(".conversation-header", "Launch"), "Ben has the room open")
        ana.get(base + room + "/members")
        # Remove asks first, in the page: the question names Ben, its button does it.
        member = [item for item in ana.find_elements(By.CSS_SELECTOR, "li.member") if "Ben Okafor" in item.text][0]
        member.find_element(By.CSS_SELECTOR, "details.confirm > summary").click()
        panel = member.find_element(By.CSS_SELECTOR, ".confirm-panel")
        assert "Take Ben Okafor out of this room?" in panel.text, panel.text
        panel.find_element(By.CSS_SELECTOR, "form.remove-member button").click()
        wait_for(ben, lambda d: d.current_url.rstrip("/").endswith("/chats"), "Ben's page leaves the room by itself")
        wait_for(ben, lambda d: row(d, "Launch") is None, "and the room is not in his list")
        ben.get(base + room)
        assert "There is no such chat" in ben.page_source, "the room answers 404 for him"
        step("removed-live", ana, ben)
        print("all steps passed", file=sys.stderr, flush=True)
    finally:
        shut_down([ana, ben, chloe], parlor, folder)


if __name__ == "__main__":
    main()
