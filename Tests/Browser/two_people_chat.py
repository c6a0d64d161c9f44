"""Two people chat in two real headless Chromium browsers, against a real `parlor serve`.

Usage: python two_people_chat.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Starts Parlor on 127.0.0.1 and a free port with a fresh SQLite file, drives the scenario of the
browser issue step by step, saves a screenshot of every step in ARTIFACTS_FOLDER, restarts the server
half-way, and stops it at the end. Exits non-zero with the failing step on the first failure.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

BINARY, REPOSITORY, ARTIFACTS = sys.argv[1], sys.argv[2], sys.argv[3]
WAIT = 15  # seconds any one thing may take to appear


class Parlor:
    """A `parlor serve` process and the port it listens on."""

    def __init__(self, database, port=0, extra=()):
        self.log_path = database + ".log"
        self.log = open(self.log_path, "ab")
        # Only this run's lines count: a restart appends to the same log.
        self.log_start = self.log.tell()
        self.process = subprocess.Popen(
            [BINARY, "serve", "--host", "127.0.0.1", "--port", str(port), "--database", database,
             "--public", os.path.join(REPOSITORY, "Public"), "--templates", os.path.join(REPOSITORY, "Templates"),
             "--bot-read-delay", "0.3", "--bot-reply-delay", "0.6", *extra],
            stdout=self.log, stderr=self.log)
        self.port = self.wait_for_port(port)

    def wait_for_port(self, asked):
        deadline = time.time() + 20
        while time.time() < deadline:
            with open(self.log_path, "rb") as log:
                log.seek(self.log_start)
                found = re.findall(rb"address=127\.0\.0\.1:(\d+)", log.read())
            if found and (asked == 0 or int(found[-1]) == asked):
                return int(found[-1])
            if self.process.poll() is not None:
                raise RuntimeError("parlor exited at start-up; see " + self.log_path)
            time.sleep(0.05)
        raise RuntimeError("parlor did not report its port")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=20)
        self.log.close()
        return self.process.returncode


def browser(width=1200, height=850, zone=None, hooks=None, extra=()):
    """Headless Chromium at a window size; `zone` overrides its time zone, `hooks` is script every page
    runs before its own, `extra` are more command-line switches."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height),
                     "--disable-gpu", "--lang=en-US", *extra):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    # Each headless browser counts as focused, as a person's front window would: read receipts need it.
    driver.execute_cdp_cmd("Emulation.setFocusEmulationEnabled", {"enabled": True})
    if zone:
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
    if hooks:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": hooks})
    return driver


def shut_down(drivers, parlor, folder):
    """Stops what a scenario started: its browsers, its Parlor, its folder."""
    for driver in drivers:
        driver.quit()
    if parlor.process.poll() is None:
        parlor.stop()
    shutil.rmtree(folder, ignore_errors=True)


step_number = 0


def step(name, driver, *others):
    """Saves a screenshot of every browser after a step."""
    global step_number
    step_number += 1
    for index, each in enumerate((driver,) + others):
        each.save_screenshot(os.path.join(ARTIFACTS, "%02d-%s-%d.png" % (step_number, name, index + 1)))
    print("ok %02d %s" % (step_number, name), file=sys.stderr, flush=True)


def wait_for(driver, condition, what):
    try:
        return WebDriverWait(driver, WAIT, poll_frequency=0.1,
                             ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(condition)
    except TimeoutException:
        driver.save_screenshot(os.path.join(ARTIFACTS, "failed-%s.png" % re.sub(r"\W+", "-", what)))
        raise AssertionError("did not happen within %d s: %s (at %s)" % (WAIT, what, driver.current_url))


def click(driver, selector, what):
    """Clicks what `selector` finds, finding it again if a live update swapped it between finding and clicking
    (a message's cell is drawn again when, say, "Read" moves on from it)."""
    def clicked(d):
        d.find_element(By.CSS_SELECTOR, selector).click()
        return True
    return wait_for(driver, clicked, what)


def text_in(selector, text):
    return lambda driver: any(text in element.text for element in driver.find_elements(By.CSS_SELECTOR, selector))


def sign_up(driver, base, handle, name, through=None):
    """Signs up on the sign-up page, or `through` a join link (a whole URL)."""
    driver.get(through or base + "/signup")
    driver.find_element(By.ID, "auth-handle").send_keys(handle)
    driver.find_element(By.ID, "auth-display-name").send_keys(name)
    driver.find_element(By.ID, "auth-password").send_keys("correct horse battery")
    driver.find_element(By.CSS_SELECTOR, ".auth-form button[type=submit]").click()
    wait_for(driver, EC.url_to_be(base + "/chats"), handle + " lands on the chats")


def make_join_link(driver, base):
    """An administrator's press of the Administration page's join-link button; answers the whole link it shows,
    which must be under `base` (the address the person reached Parlor at, through any proxy)."""
    driver.get(base + "/admin")
    driver.find_element(By.CSS_SELECTOR, "form[action$='/admin/join-link'] button[type=submit]").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "join-link-url"), "the join link is shown")
    link = driver.find_element(By.ID, "join-link-url").get_attribute("value")
    assert link.startswith(base + "/join/"), "the link is whole and under %s: %s" % (base, link)
    return link


def start_chat_by_typing(driver, base, typed, name):
    """Opens a chat from the new-chat form the way a person does: types part of the handle, picks the
    suggestion named `name`; answers the chat's address."""
    driver.get(base + "/chats/new")
    driver.find_element(By.ID, "new-chat-handle").send_keys(typed)
    wait_for(driver, text_in("#contact-suggestions", name), name + " is suggested")
    driver.find_element(By.CSS_SELECTOR, "#contact-suggestions button[name=pick]").click()
    wait_for(driver, lambda d: re.search(r"/rooms/\d+$", d.current_url), "in the new chat with " + name)
    return driver.current_url


def send(driver, text):
    box = driver.find_element(By.CSS_SELECTOR, "form.composer textarea")
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def own_cell(driver, text):
    """The id of the sender's cell with `text`, once the server has stored it (message-N)."""
    def find(driver):
        for cell in driver.find_elements(By.CSS_SELECTOR, "li.message.is-own"):
            if text in cell.find_element(By.CSS_SELECTOR, ".message-body").text and cell.get_attribute("id").startswith("message-"):
                return cell.get_attribute("id")
        return False
    return wait_for(driver, find, "stored cell for " + text)


def message_action(driver, cell, name):
    """Reply, Edit or Delete on a message, as a person reaches it: pointing at the message shows its toolbar."""
    ActionChains(driver).move_to_element(cell).perform()
    link = cell.find_element(By.XPATH, ".//div[contains(@class,'message-actions')]/a[normalize-space()='%s']" % name)
    wait_for(driver, lambda d: link.is_displayed(), name + " shows on pointing at the message")
    link.click()


def delivery(cell_id):
    """The delivery label of a cell, found again each time (live updates replace cells)."""
    return lambda driver: driver.find_element(By.ID, cell_id).find_element(By.CSS_SELECTOR, ".delivery").text


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-browser-")
    database = os.path.join(folder, "parlor.sqlite")
    parlor = Parlor(database)
    base = "http://127.0.0.1:%d" % parlor.port
    ana, ben = browser(), browser()
    try:
        # 1. Two people sign up; each finds Parlor Bot's welcome.
        sign_up(ana, base, "ana", "Ana Lima")
        sign_up(ben, base, "ben", "Ben Okafor")
        wait_for(ana, text_in(".chat-list", "Parlor Bot"), "Ana has a chat with Parlor Bot")
        step("signed-up", ana, ben)

        # 2. Ana finds Ben by typing and opens a chat; it appears in Ben's list live.
        ana.get(base + "/chats/new")
        ana.find_element(By.ID, "new-chat-handle").send_keys("be")
        wait_for(ana, text_in("#contact-suggestions", "Ben Okafor"), "Ben is suggested as Ana types")
        step("type-to-find", ana)
        ana.find_element(By.CSS_SELECTOR, "#contact-suggestions button[name=pick]").click()
        wait_for(ana, lambda d: re.search(r"/rooms/\d+$", d.current_url), "Ana is in the new chat")
        chat_url = ana.current_url
        wait_for(ben, text_in(".chat-list", "Ana Lima"), "the new chat appears in Ben's list without a reload")
        ben.get(chat_url)
        step("chat-open", ana, ben)

        # 3. A message goes out as "Sending", arrives live on the other side, and turns "Read" there.
        send(ana, "Hello Ben, lunch at noon?")
        wait_for(ben, text_in(".messages", "Hello Ben, lunch at noon?"), "Ana's message reaches Ben live")
        cell = own_cell(ana, "Hello Ben, lunch at noon?")
        wait_for(ana, lambda d: "Read" in delivery(cell)(d), "Ana sees Read")
        step("message-read", ana, ben)
        send(ben, "Noon works")
        wait_for(ana, text_in(".messages", "Noon works"), "Ben's answer reaches Ana live")

        # 4. Ana edits her message; Ben sees the new text and the Edited mark.
        cell = own_cell(ana, "Hello Ben, lunch at noon?")
        message_action(ana, ana.find_element(By.ID, cell), "Edit")
        box = wait_for(ana, EC.presence_of_element_located((By.CSS_SELECTOR, "form.composer textarea")), "the edit form")
        box.clear()
        box.send_keys("Hello Ben, lunch at one?")
        ana.find_element(By.CSS_SELECTOR, "form.composer button[type=submit]").click()
        wait_for(ben, text_in(".messages", "Hello Ben, lunch at one?"), "the edit reaches Ben live")
        wait_for(ben, text_in(".messages .message-author", "Edited"), "Ben sees the Edited mark")
        step("edited", ana, ben)

        # 5. A message in a chat Ben does not have open: a toast, and the count in the title.
        bot_link = ben.find_element(By.XPATH, "//li[contains(@class,'chat-list-item')][.//span[text()='Parlor Bot']]/a")
        ben.get(bot_link.get_attribute("href"))
        ana.get(chat_url)
        send(ana, "Are you still there?")
        toast = wait_for(ben, EC.visibility_of_element_located((By.CSS_SELECTOR, "#toasts .toast")), "a toast for Ben")
        assert "Ana Lima" in toast.text and "Are you still there?" in toast.text, toast.text
        wait_for(ben, lambda d: d.title.startswith("(1)"), "the unread count in Ben's title")
        favicon = ben.find_element(By.ID, "favicon").get_attribute("href")
        assert favicon.endswith("favicon-unread.svg"), favicon
        step("toast-and-badge", ben)

        # 6. A hostile string shows as text and runs nothing.
        hostile = "<img src=x onerror=\"window.parlorPwned=1\"><script>window.parlorPwned=2</script>"
        ben.get(chat_url)
        send(ben, hostile)
        wait_for(ana, text_in(".messages", "<img src=x onerror="), "the hostile text is shown as text to Ana")
        for driver in (ana, ben):
            assert driver.execute_script("return window.parlorPwned === undefined"), "a message ran script"
            assert not driver.find_elements(By.CSS_SELECTOR, ".messages img[src=x], .messages script")
        step("hostile-text", ana, ben)

        # 7. Parlor stops while Ana writes: her message fails visibly, with Retry, and once her page is back
        #    online it is sent by itself, exactly once, and the page is brought up to date.
        assert parlor.stop() == 0, "parlor did not exit cleanly"
        wait_for(ana, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-offline") is not None,
                 "Ana's page notices Parlor is gone")
        wait_for(ana, text_in("#connection-status", "Reconnecting"), "Ana's page says it is reconnecting")
        send(ana, "Sent while Parlor was down")
        wait_for(ana, text_in(".is-pending .delivery-failed", "Failed"), "the send fails visibly")
        assert ana.find_elements(By.CSS_SELECTOR, ".is-pending .delivery-failed .retry"), "a failed send offers Retry"
        step("failed-send-kept", ana)
        ana.execute_script("document.querySelectorAll('.messages').forEach((m) => m.setAttribute('data-before-restart', ''))")
        parlor = Parlor(database, port=parlor.port)
        wait_for(ana, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-offline") is None
                 and not d.find_elements(By.CSS_SELECTOR, "[data-before-restart]"),
                 "Ana's page reconnects and gets the whole conversation again")
        wait_for(ana, text_in("#connection-status", "Back online"), "Ana's page says it is back online")
        # Ben's last message reached Ana just before Parlor stopped: once her page is back, it is read.
        ben_item = "//li[contains(@class,'chat-list-item')][.//span[text()='Ben Okafor']]"
        wait_for(ana, lambda d: not d.find_elements(By.XPATH, ben_item + "//span[@class='badge']"),
                 "Ana's open chat is read again after the reconnect")
        own_cell(ana, "Sent while Parlor was down")
        wait_for(ben, text_in(".messages", "Sent while Parlor was down"), "the waiting message reaches Ben")
        time.sleep(0.5)
        for driver in (ana, ben):
            copies = [c for c in driver.find_elements(By.CSS_SELECTOR, ".messages li.message")
                      if "Sent while Parlor was down" in c.text]
            assert len(copies) == 1, "the waiting message is shown %d times" % len(copies)

        # 8. Restart the server; after a reload every message is there.
        assert parlor.stop() == 0, "parlor did not exit cleanly"
        parlor = Parlor(database, port=parlor.port)
        for driver in (ana, ben):
            driver.get(chat_url)
            for text in ("Hello Ben, lunch at one?", "Noon works", "Are you still there?", "<img src=x onerror="):
                wait_for(driver, text_in(".messages", text), "after the restart: " + text)
        step("after-restart", ana, ben)
        send(ana, "Still here after the restart")
        wait_for(ben, text_in(".messages", "Still here after the restart"), "live updates after the restart")

        # 9. Ana chats with Parlor Bot: it reads, then answers.
        bot_link = ana.find_element(By.XPATH, "//li[contains(@class,'chat-list-item')][.//span[text()='Parlor Bot']]/a")
        ana.get(bot_link.get_attribute("href"))
        send(ana, "Hi bot, how are you?")
        cell = own_cell(ana, "Hi bot, how are you?")
        wait_for(ana, lambda d: "Read" in delivery(cell)(d), "the bot reads")
        wait_for(ana, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".messages li.message:not(.is-own)")) >= 2, "the bot answers")
        step("parlor-bot", ana)
    finally:
        shut_down((ana, ben), parlor, folder)
    print("all steps passed", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
