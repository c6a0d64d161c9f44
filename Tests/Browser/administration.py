"""A Parlor run by its first person, in headless Chromium: first run, joining by link, deactivation at once.

Usage: python administration.py PARLOR_BINARY REPOSITORY ARTIFACTS_FOLDER

Parlor starts as a deployment does (`--signup invitation`). Its front page asks for the administrator account; Ana
creates it. Ben cannot sign up without a link (the page says why, with no fields); Ana makes a join link on the
Administration page (copied whole), and Ben joins through it. Ben opens the General room; Ana deactivates him:
his page, open and live, goes to the sign-in page at once, and signing in tells him why. The Administration
page has nothing for axe to fault. A screenshot of every step is saved in ARTIFACTS_FOLDER.
"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import two_people_chat as common  # noqa: E402 (reads the same three arguments)
from axe_selenium_python import Axe  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

step, wait_for, text_in = common.step, common.wait_for, common.text_in


def main():
    os.makedirs(common.ARTIFACTS, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="parlor-administration-")
    parlor = common.Parlor(os.path.join(folder, "parlor.sqlite"), extra=("--signup", "invitation"))
    base = "http://127.0.0.1:%d" % parlor.port
    ana = common.browser(1366, 900)
    ben = common.browser(1366, 900)
    drivers = [ana, ben]
    try:
        # 1. The first run asks for the administrator.
        ana.get(base + "/")
        wait_for(ana, text_in("h1", "Create the administrator account"), "the first run's form")
        common.sign_up(ana, base, "ana", "Ana Lima")
        ana.get(base + "/settings")
        ana.find_element(By.LINK_TEXT, "Administration").click()
        wait_for(ana, text_in("h1", "Administration"), "the Administration page")
        step("first-administrator", ana)

        # 2. By invitation: no link, no form; with Ana's link, Ben is in.
        ben.get(base + "/signup")
        wait_for(ben, text_in(".form-error", "by invitation"), "sign-up says why not")
        assert not ben.find_elements(By.ID, "auth-handle"), "no fields to fill in for nothing"
        link = common.make_join_link(ana, base)
        common.sign_up(ben, base, "ben", "Ben Okafor", through=link)
        wait_for(ana, lambda d: d.find_element(By.ID, "join-link-state"), "the link's state")
        ana.get(base + "/admin")
        assert "Used once" in ana.find_element(By.ID, "join-link-state").text, ana.find_element(By.ID, "join-link-state").text
        step("joined-by-link", ana, ben)

        # 3. Ben's open page goes to sign-in the moment Ana deactivates him; his sign-in says why.
        ben.get(base + "/chats")
        # Read inside a wait: the live list may swap the row between finding it and reading it.
        general = wait_for(ben, lambda d: d.find_element(By.XPATH, "//li[contains(@class,'chat-list-item')][.//span[text()='General']]/a").get_attribute("href"),
                           "Ben's link to General")
        ben.get(general)
        wait_for(ben, lambda d: d.execute_script("return document.documentElement.dataset.live === 'open'")
                 or d.execute_script("return !!window.EventSource"), "Ben's page is live")
        ana.get(base + "/admin?q=ben")
        # Deactivate asks first, in the page.
        ana.find_element(By.CSS_SELECTOR, "summary[aria-label='Deactivate Ben Okafor']").click()
        ana.find_element(By.XPATH, "//summary[@aria-label='Deactivate Ben Okafor']/following-sibling::div//button[normalize-space()='Deactivate Ben Okafor']").click()
        wait_for(ana, text_in(".person-state", "Deactivated"), "Ben is deactivated on Ana's page")
        wait_for(ben, lambda d: "/signin" in d.current_url, "Ben's open page signs him out at once")
        ben.find_element(By.ID, "auth-handle").send_keys("ben")
        ben.find_element(By.ID, "auth-password").send_keys("correct horse battery")
        ben.find_element(By.CSS_SELECTOR, ".auth-form button[type=submit]").click()
        wait_for(ben, text_in(".form-error", "An administrator has deactivated this account"), "his sign-in says why")
        step("deactivated-at-once", ana, ben)

        # 4. Nothing for axe to fault on the Administration page.
        ana.get(base + "/admin")
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
