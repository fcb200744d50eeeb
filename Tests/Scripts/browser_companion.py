#!/usr/bin/env python3
"""Drives real headless Chromium with the browser companion against a real simplylockd.

Usage: browser_companion.py SOCKET LOCKCTL EXTENSION_DIR ARTEFACTS USER_DATA_DIR

The daemon (under a scratch root) already has the profiles `focus` (blocked.test, path rule
video.test/shorts, a 6 s friction delay) running as a strict session. Names resolve to
127.0.0.1 through Chromium's --host-resolver-rules; a local HTTP server answers every name.
Prints one JSON line of findings at the end (for the Swift test); exits non-zero on a failure.
"""
import os
import re
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait
from axe_selenium_python import Axe

import browserlib

SOCKET, LOCKCTL, EXTENSION, ARTEFACTS, USER_DATA = sys.argv[1:6]
report = browserlib.Report()
findings, fail, check = report.findings, report.fail, report.check
daemon = browserlib.DaemonAPI(SOCKET)
api, attempts_on = daemon.get, daemon.attempts_on
server, port = browserlib.serve_pages()

options = browserlib.chromium_options(
    USER_DATA, f"--load-extension={EXTENSION}", f"--disable-extensions-except={EXTENSION}",
    # Chromium 137+ ignores --load-extension unless this feature is off.
    "--disable-features=DisableLoadExtensionCommandLineSwitch",
    "--host-resolver-rules=MAP *.test 127.0.0.1")
# The companion replaces a navigation to a blocked name with the shield while it is under way;
# chromedriver's default strategy then waits for the replaced load and times out now and then
# (1 run in 4 here). Every check below waits for what it expects instead.
options.page_load_strategy = "none"
os.environ["SIMPLYLOCK_SOCKET"] = SOCKET
driver = browserlib.start_chromium(options)
driver.set_page_load_timeout(20)
wait = WebDriverWait(driver, 20)


def url(host, path="/"):
    return f"http://{host}:{port}{path}"


def shield_shown():
    return driver.current_url.startswith("chrome-extension://") and "shield.html" in driver.current_url


def wait_for(predicate, timeout, what):
    return browserlib.wait_for(driver, predicate, timeout, what, fail)


try:
    # The bridge said hello: the companion is active.
    wait_for(lambda: any(c["active"] for c in api("/v1/browser/companions")["companions"]), 30, "the companion's hello")
    check(True, "the companion connected through the native messaging bridge and said hello")

    # A blocked name shows the shield with the right profile and time left.
    driver.get(url("blocked.test"))
    wait_for(shield_shown, 20, "the shield for blocked.test")
    wait_for(lambda: driver.find_element(By.ID, "profile").text == "focus", 20, "the shield's facts")
    left = driver.find_element(By.ID, "left").text
    session = api("/v1/status")["sessions"][0]
    findings["shield_left"] = left
    check(re.match(r"^(\d+m \d\ds|\d+h \d\dm) \(until ", left) is not None, f"time left is shown ({left})")
    minutes = int(re.match(r"^(\d+)", left).group(1))
    check(abs(minutes * 60 - session["remainingSeconds"]) <= 90, f"time left agrees with the daemon ({session['remainingSeconds']}s)")
    check(driver.find_element(By.ID, "rule").text == "blocked.test", "the shield names the rule")
    check("strict" in driver.find_element(By.ID, "origin").text, "the shield says the block is strict")
    driver.save_screenshot(os.path.join(ARTEFACTS, "shield-light.png"))

    # Accessibility: axe-core, light and dark; keyboard reaches the button.
    axe = Axe(driver)
    axe.inject()
    results = axe.run()
    serious = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
    findings["axe_light"] = [v["id"] for v in results["violations"]]
    check(not serious, f"axe: no serious or critical violations in the light theme ({[v['id'] for v in serious]})")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    check(background == "rgb(20, 20, 22)", f"the dark theme applies ({background})")
    axe.inject()
    results = axe.run()
    serious = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
    findings["axe_dark"] = [v["id"] for v in results["violations"]]
    check(not serious, f"axe: no serious or critical violations in the dark theme ({[v['id'] for v in serious]})")
    driver.save_screenshot(os.path.join(ARTEFACTS, "shield-dark.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = driver.execute_script("return document.activeElement.id")
    check(focused == "ask", f"the keyboard reaches emergency access first ({focused})")

    # A path rule: /shorts/… is blocked, /watch is not; an allowed site loads.
    driver.get(url("video.test", "/shorts/abc"))
    wait_for(shield_shown, 20, "the shield for video.test/shorts/abc")
    wait_for(lambda: driver.find_element(By.ID, "rule").text == "video.test/shorts", 20, "the path rule on the shield")
    check(driver.find_element(By.ID, "title").text == "This page is blocked", "the shield says a page is blocked")
    # The path rule's shield is a blocked attempt on the site in insights, once however often it is reloaded.
    wait_for(lambda: attempts_on("www.video.test") + attempts_on("video.test") >= 1, 20, "the path rule's attempt in insights")
    before = attempts_on("www.video.test") + attempts_on("video.test")
    driver.refresh()
    wait_for(lambda: driver.find_element(By.ID, "rule").text == "video.test/shorts", 20, "the reloaded shield")
    time.sleep(1)
    findings["path_attempts"] = attempts_on("www.video.test") + attempts_on("video.test")
    check(findings["path_attempts"] == before == 1, f"the path rule's shield counted once, reloads not ({findings['path_attempts']})")
    # A keyword rule: the word anywhere in the host, path or query, not inside another word.
    driver.get(url("tube.test", "/results?search_query=shorts"))
    wait_for(shield_shown, 20, "the shield for tube.test/results?search_query=shorts")
    wait_for(lambda: driver.find_element(By.ID, "rule").text == "keyword shorts", 20, "the keyword rule on the shield")
    summary = driver.find_element(By.ID, "summary").text
    check("containing the word" in summary and "shorts" in summary, f"the shield explains the keyword ({summary})")
    driver.save_screenshot(os.path.join(ARTEFACTS, "shield-keyword.png"))
    wait_for(lambda: attempts_on("tube.test") >= 1, 20, "the keyword shield's attempt in insights")
    check(True, "the keyword shield's attempt reached insights")
    driver.get(url("tube.test", "/watch?v=1"))
    wait_for(lambda: driver.title == f"ok tube.test:{port}/watch?v=1", 20, "tube.test/watch to load")
    time.sleep(2)
    check(driver.title == f"ok tube.test:{port}/watch?v=1" and not shield_shown(), f"tube.test/watch loads and stays ({driver.title})")
    driver.get(url("tube.test", "/shortstop"))
    wait_for(lambda: driver.title == f"ok tube.test:{port}/shortstop", 20, "/shortstop to load")
    check(not shield_shown(), "a word containing the keyword is not blocked")
    driver.get(url("video.test", "/watch?v=1"))
    wait_for(lambda: driver.title == f"ok video.test:{port}/watch?v=1", 20, "/watch to load")
    time.sleep(2)
    check(driver.title == f"ok video.test:{port}/watch?v=1" and not shield_shown(), f"/watch loads and stays ({driver.title})")
    driver.get(url("fine.test"))
    wait_for(lambda: driver.title == f"ok fine.test:{port}/", 20, "an allowed site to load")
    time.sleep(2)
    check(driver.title == f"ok fine.test:{port}/" and not shield_shown(), f"an allowed site loads and stays ({driver.title})")

    # The site meter: stay on a site in front, then leave it.
    driver.get(url("metered.test"))
    wait_for(lambda: driver.title == f"ok metered.test:{port}/", 20, "the metered site to load")
    start = time.monotonic()
    time.sleep(45)
    driver.get("about:blank")
    findings["metered_seconds"] = round(time.monotonic() - start, 1)
    time.sleep(17)  # the next report (every 15 s) carries the end of the stretch

    # Emergency access: only after the daemon's wait.
    driver.get(url("blocked.test"))
    wait_for(shield_shown, 20, "the shield again")
    wait_for(lambda: driver.find_element(By.ID, "ask").is_displayed(), 20, "the emergency access button")
    driver.find_element(By.ID, "ask").click()
    wait_for(lambda: driver.find_element(By.ID, "wait").text.startswith("Wait "), 20, "the challenge's countdown")
    # Hidden until the wait is over (Selenium's .text is the visible text only).
    text = driver.find_element(By.ID, "text").get_attribute("textContent").replace(" · ", "")
    check(len(text) == 10, f"the challenge has the profile's 10 characters ({text})")
    findings["wait_text"] = driver.find_element(By.ID, "wait").text
    check(not driver.find_element(By.ID, "answer-form").is_displayed(), f"no answer can be typed during the wait ({findings['wait_text']})")
    # Answer at once anyway (the form shown by script): the daemon refuses it.
    driver.execute_script("document.getElementById('answer-form').hidden = false")
    driver.find_element(By.ID, "answer").send_keys(text)
    driver.find_element(By.ID, "answer").send_keys(Keys.ENTER)
    wait_for(lambda: driver.find_element(By.ID, "emergency-result").text != "", 10, "the early answer's refusal")
    findings["early_answer"] = driver.find_element(By.ID, "emergency-result").text
    check(len(api("/v1/status")["sessions"]) == 1, f"an early answer ends nothing ({findings['early_answer']})")
    asked = time.monotonic()
    # The early answer used one try and voided nothing else; ask for a fresh challenge and wait it out.
    driver.get(url("blocked.test"))
    wait_for(shield_shown, 20, "the shield once more")
    wait_for(lambda: driver.find_element(By.ID, "ask").is_displayed(), 20, "the emergency access button")
    driver.find_element(By.ID, "ask").click()
    asked = time.monotonic()
    wait_for(lambda: driver.find_element(By.ID, "answer-form").is_displayed(), 30, "the end of the wait")
    waited = time.monotonic() - asked
    findings["waited_seconds"] = round(waited, 1)
    check(waited >= 5, f"the form appeared only after the daemon's wait ({waited:.1f}s of 6s)")
    text = driver.find_element(By.ID, "text").text.replace(" · ", "")
    driver.find_element(By.ID, "answer").send_keys(text)
    driver.find_element(By.ID, "answer").send_keys(Keys.ENTER)
    wait_for(lambda: len(api("/v1/status")["sessions"]) == 0, 20, "the session to end")
    check(True, "emergency access ended the block after the wait and the typing")
    wait_for(lambda: driver.title == f"ok blocked.test:{port}/", 20, "the page to open after the unlock")
    check(True, "the unblocked page opened")
finally:
    browserlib.close(driver, server)

report.done()
