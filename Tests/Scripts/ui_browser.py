#!/usr/bin/env python3
"""Drives SimplyLock's web UI (lockctl ui) in headless Chromium through Selenium, against a
real daemon under a scratch root, and checks what a person would: a block started from Home
shows in `lockctl status` and in the hosts file, the countdown moves, a strict block offers no
stop, a profile made with an app from the picker and a domain, a schedule edited, the Pomodoro
ring advancing, one flow by keyboard only, axe-core on every tab (light and dark), and
screenshots of every tab at 1280x800 and 390x844 in light and dark.

usage: ui_browser.py URL ROOT LOCKCTL ARTEFACT_DIR
Exit 0 when every check holds; each failed check is printed.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from axe_selenium_python import Axe
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

import browserlib

URL, ROOT, LOCKCTL, ARTEFACTS = sys.argv[1:5]
TABS = ["home", "profiles", "insights", "timer", "settings"]
failures = []


_click = WebElement.click


def _centred_click(self):
    """Clicks as a person would: with the element scrolled to the middle, clear of the fixed tab bar."""
    self.parent.execute_script("arguments[0].scrollIntoView({block: 'center'})", self)
    _click(self)


WebElement.click = _centred_click


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)
    return condition


def lockctl(*args):
    result = subprocess.run([LOCKCTL, "--root", ROOT, *args], capture_output=True, text=True, timeout=30)
    return result


def status_json():
    return json.loads(lockctl("status", "--json").stdout)


def hosts():
    with open(os.path.join(ROOT, "etc/hosts"), encoding="utf-8") as f:
        return f.read()


def start_browser():
    options = browserlib.chromium_options(tempfile.mkdtemp(prefix="ui-chromium-"), "--disable-dev-shm-usage", "--disable-extensions",
                                          "--lang=en-GB", window="1280,800")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return browserlib.start_chromium(options)


def wait(driver, condition, what, timeout=10):
    try:
        return WebDriverWait(driver, timeout).until(condition)
    except TimeoutException:
        check(False, what)
        return None


def viewport(driver, width, height, mobile):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})


def theme(driver, name):
    driver.execute_script("localStorage.setItem('simplylock-theme', arguments[0])", name)


def open_tab(driver, tab):
    driver.execute_script("location.hash = arguments[0]", "#" + tab)
    wait(driver, lambda d: d.find_element(By.ID, "view").get_attribute("data-tab") == tab
         and not d.find_elements(By.CSS_SELECTOR, "#view > p.muted"), f"{tab} tab rendered")
    time.sleep(0.6)  # the tab's own requests


def session(driver, profile):
    return driver.find_elements(By.CSS_SELECTOR, f"article.session[aria-label^='{profile}']")


def click_in_session(driver, profile, xpath):
    """Clicks a button of a block's card. Cards are redrawn as events arrive, so an element found
    a moment ago may be gone: look it up again until the click lands (10 s at most)."""
    def attempt(d):
        try:
            session(d, profile)[0].find_element(By.XPATH, xpath).click()
            return True
        except (StaleElementReferenceException, IndexError):
            return False
    wait(driver, attempt, f"clicked {xpath} on the {profile} block")


def click_fresh(driver, element_id):
    """Clicks the element with this id, looked up again until the click lands: lists are redrawn as
    the daemon's events arrive, so an element found a moment ago may be gone (10 s at most)."""
    def attempt(d):
        try:
            d.find_element(By.ID, element_id).click()
            return True
        except StaleElementReferenceException:
            return False
    wait(driver, attempt, f"clicked #{element_id}")


def main():
    os.makedirs(ARTEFACTS, exist_ok=True)
    driver = start_browser()
    try:
        run(driver)
    finally:
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        # Refusals the tests provoke are logged by the browser as failed requests (4xx); script errors are not expected.
        script_errors = [e for e in errors if "Uncaught" in e["message"] or "TypeError" in e["message"] or "SyntaxError" in e["message"]]
        check(not script_errors, f"no script errors in the console ({script_errors[:3]})")
        driver.quit()
    print(f"{len(failures)} failed" if failures else "all browser checks passed")
    sys.exit(1 if failures else 0)


def run(driver):
    driver.get(URL)
    wait(driver, lambda d: d.current_url.endswith("/") or d.current_url.endswith("#home") or "#" in d.current_url, "the token exchanged for a session")
    check("token" not in driver.current_url, f"the token left the address bar ({driver.current_url})")
    wait(driver, lambda d: d.find_elements(By.ID, "start-button"), "Home shows the start form")
    wait(driver, lambda d: "Live" in d.find_element(By.ID, "connection").text, "the event stream is live")

    # Start a block from Home: News for 25 minutes.
    Select(driver.find_element(By.ID, "start-profile")).select_by_value("news")
    driver.find_element(By.CSS_SELECTOR, "label[for='len-25m']").click()
    driver.find_element(By.ID, "start-button").click()
    wait(driver, lambda d: session(d, "News"), "the News block shows on Home (from the event stream)")
    sessions = status_json()["sessions"]
    check(any(s["profile"] == "news" and 1400 < s["remainingSeconds"] <= 1500 for s in sessions), f"lockctl status shows News for 25 m ({sessions})")
    check("BEGIN simplylock" in hosts() and "news.ycombinator.com" in hosts(), "the scratch hosts file blocks news.ycombinator.com")
    timer = driver.find_element(By.CSS_SELECTOR, "article.session[aria-label^='News'] [role=timer]")
    first = timer.text
    time.sleep(2.2)
    second = driver.find_element(By.CSS_SELECTOR, "article.session[aria-label^='News'] [role=timer]").text
    check(first != second and second.startswith("24:"), f"the countdown moves ({first} → {second})")

    # A strict block from Home: only extend and emergency access.
    Select(driver.find_element(By.ID, "start-profile")).select_by_value("social")
    driver.find_element(By.CSS_SELECTOR, "label[for='len-45m']").click()
    driver.find_element(By.ID, "start-strict").click()
    driver.find_element(By.ID, "start-button").click()
    wait(driver, lambda d: session(d, "Social"), "the strict Social Media block shows")
    strict = session(driver, "Social")[0]
    buttons = [b.text for b in strict.find_elements(By.CSS_SELECTOR, "button, a.button")]
    check("Stop" not in buttons and any("Emergency" in b for b in buttons) and "+15 m" in buttons, f"a strict block offers no stop ({buttons})")
    # Emergency access asks the daemon for its challenge; here friction allows no early end, and the sheet says so.
    click_in_session(driver, "Social", ".//button[starts-with(text(), 'Emergency')]")
    refusal = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet .error"), "emergency access shows the daemon's answer")
    if refusal:
        check("early end" in refusal[0].text, f"emergency access: the daemon's reason is shown ({refusal[0].text})")
    driver.find_element(By.CSS_SELECTOR, "#sheet button.secondary").click()
    click_in_session(driver, "Social", ".//button[text()='+15 m']")
    wait(driver, lambda d: any(s["profile"] == "social" and s["remainingSeconds"] > 45 * 60 for s in status_json()["sessions"]), "extend lengthens the strict block")

    # Stop News from Home.
    click_in_session(driver, "News", ".//button[text()='Stop']")
    wait(driver, lambda d: not session(d, "News"), "News stops from Home")
    check(not any(s["profile"] == "news" for s in status_json()["sessions"]), "lockctl status no longer shows News")

    # Profiles: a new profile with an app from the picker and a domain.
    open_tab(driver, "profiles")
    driver.find_element(By.ID, "new-profile").click()
    wait(driver, lambda d: d.find_elements(By.ID, "pf-name"), "the profile editor opens")
    driver.find_element(By.ID, "pf-name").send_keys("focus-ui")
    driver.find_element(By.ID, "pf-display").send_keys("Focus UI")
    driver.find_element(By.ID, "pf-domains").send_keys("example.org")
    driver.find_element(By.ID, "pf-app-filter").send_keys("conformance")
    picker = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".app-picker input[value='confgame']"), "the picker lists the installed app")
    if picker:
        icon = wait(driver, lambda d: d.execute_script(
            "const i = document.querySelector(\"label[for='pf-apps-confgame'] img\"); return i && i.complete && i.naturalWidth > 0"),
            "the picker shows the app's icon from its desktop entry")
        driver.find_element(By.CSS_SELECTOR, "label[for='pf-apps-confgame']").click()
    driver.find_element(By.ID, "pf-save").click()
    wait(driver, lambda d: d.find_elements(By.ID, "profile-focus-ui"), "the new profile's card appears")
    shown = json.loads(lockctl("profiles", "show", "focus-ui", "--json").stdout or "{}")
    check("example.org" in shown.get("domains", []) and "confgame" in shown.get("apps", []), f"the daemon has focus-ui with example.org and confgame ({shown.get('domains')}, {shown.get('apps')})")

    # Editing it: the icon, the colour, an app category and a catalog category, saved through the
    # daemon and drawn on the card.
    driver.find_element(By.ID, "edit-focus-ui").click()
    if wait(driver, lambda d: d.find_elements(By.ID, "pf-icon") and d.find_element(By.ID, "pf-icon").is_enabled(),
            "the editor of a custom profile offers its icon"):
        Select(driver.find_element(By.ID, "pf-icon")).select_by_visible_text("Game controller")
        Select(driver.find_element(By.ID, "pf-color")).select_by_visible_text("Green")
        driver.find_element(By.CSS_SELECTOR, "label[for='pf-appCategories-Game']").click()
        driver.find_element(By.CSS_SELECTOR, "label[for='pf-categories-news']").click()
        driver.execute_script("document.getElementById('pf-icon').scrollIntoView({block: 'center'})")
        driver.save_screenshot(os.path.join(ARTEFACTS, "profile-edit-look.png"))
        driver.find_element(By.ID, "pf-save").click()
        wait(driver, lambda d: not d.find_element(By.ID, "sheet").get_attribute("open"), "the edit is saved and the sheet closes")
        shown = json.loads(lockctl("profiles", "show", "focus-ui", "--json").stdout or "{}")
        check((shown.get("icon"), shown.get("color")) == ("gamecontroller", "#34C759"),
              f"the daemon has the new icon and colour ({shown.get('icon')}, {shown.get('color')})")
        check(shown.get("appCategories") == ["Game"] and shown.get("categories") == ["news"],
              f"the daemon has the app category and the catalog category ({shown.get('appCategories')}, {shown.get('categories')})")
        card = wait(driver, lambda d: d.execute_script(
            "const b = document.querySelector(\"article[aria-labelledby='profile-focus-ui'] .badge\");"
            "return b && b.querySelector('svg') && getComputedStyle(b).getPropertyValue('--tint').trim().toUpperCase() === '#34C759'"),
            "the card shows the new icon in the new colour")
        driver.save_screenshot(os.path.join(ARTEFACTS, "profile-card-look.png"))
        # And back out: the category unticked in the editor is gone from the daemon too.
        driver.find_element(By.ID, "edit-focus-ui").click()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "label[for='pf-categories-news']"), "the editor opens again")
        driver.find_element(By.CSS_SELECTOR, "label[for='pf-categories-news']").click()
        driver.find_element(By.ID, "pf-save").click()
        wait(driver, lambda d: json.loads(lockctl("profiles", "show", "focus-ui", "--json").stdout or "{}").get("categories") == [],
             "the catalog category unticked is removed")

    # A refusal shown with the daemon's reason: the strict block's profile cannot lose a service.
    lockctl("profiles", "create", "strictone", "--domain", "strict.example")
    lockctl("start", "strictone", "30m", "--strict")
    driver.refresh()
    open_tab(driver, "profiles")
    wait(driver, lambda d: d.find_elements(By.ID, "edit-strictone"), "the strict block's profile is listed")
    driver.find_element(By.ID, "edit-strictone").click()
    domains = wait(driver, lambda d: d.find_elements(By.ID, "pf-domains"), "its editor opens")
    if domains:
        domains[0].clear()
        driver.find_element(By.ID, "pf-save").click()
        refusal = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#sheet .error"), "removing a domain during a strict block is refused")
        if refusal:
            check("strict" in refusal[0].text.lower(), f"the refusal carries the daemon's reason ({refusal[0].text})")
        driver.execute_script("document.getElementById('sheet').close()")

    # Settings: edit a schedule (made with lockctl before the page opened).
    open_tab(driver, "settings")
    wait(driver, lambda d: d.find_elements(By.ID, "sched-edit-mornings"), "the schedule is listed with an Edit button")
    check("Next:" in driver.find_element(By.CSS_SELECTOR, ".schedule").text, "the schedule shows its next starts")
    driver.find_element(By.ID, "sched-edit-mornings").click()
    to = wait(driver, lambda d: d.find_elements(By.ID, "sc-to"), "the schedule editor opens")
    if to:
        driver.execute_script("arguments[0].value = '13:30'", to[0])
        driver.find_element(By.ID, "sc-save").click()
        wait(driver, lambda d: not d.find_element(By.ID, "sheet").get_attribute("open"), "the schedule editor closes on save")
    schedule = json.loads(lockctl("schedules", "show", "mornings", "--json").stdout or "{}")
    check(schedule.get("to") == "13:30", f"the daemon has the schedule's new end ({schedule.get('to')})")
    click_fresh(driver, "sched-enabled-mornings")
    wait(driver, lambda d: json.loads(lockctl("schedules", "show", "mornings", "--json").stdout).get("enabled") is False, "the switch disables the schedule")

    # Timer: a Pomodoro whose ring advances.
    open_tab(driver, "timer")
    Select(driver.find_element(By.ID, "pomo-profile")).select_by_value("video")
    focus = driver.find_element(By.ID, "pomo-focus")
    focus.clear()
    focus.send_keys("1")
    driver.find_element(By.ID, "pomo-start").click()
    wait(driver, lambda d: d.find_elements(By.ID, "pomodoro-pause"), "the Pomodoro runs, with pause")
    # Read in one step: the ring is drawn again as events arrive, so an element found a moment ago may be gone.
    offset = lambda: float(driver.execute_script("return document.querySelector('.ring-progress').getAttribute('stroke-dashoffset')"))
    before = offset()
    time.sleep(2.5)
    after = offset()
    check(after < before, f"the Pomodoro ring advances ({before:.1f} → {after:.1f})")
    pomodoro = json.loads(lockctl("pomodoro", "--json").stdout or "{}")
    check(pomodoro.get("state") == "running" and pomodoro.get("phase") == "focus", f"lockctl pomodoro says running, focus ({pomodoro.get('state')})")
    driver.find_element(By.ID, "pomodoro-pause").click()
    wait(driver, lambda d: d.find_elements(By.ID, "pomodoro-resume"), "pause offers resume")
    driver.find_element(By.ID, "pomodoro-stop").click()
    wait(driver, lambda d: not d.find_elements(By.ID, "pomodoro-resume"), "stop ends the Pomodoro")

    keyboard_flow(driver)
    accessibility_and_screenshots(driver)


def press(driver, *keys):
    ActionChains(driver).send_keys(*keys).perform()
    time.sleep(0.05)


def tab_to(driver, predicate, what, limit=80, backwards=False):
    for _ in range(limit):
        active = driver.switch_to.active_element
        if predicate(active):
            return active
        press(driver, Keys.SHIFT + Keys.TAB if backwards else Keys.TAB)
    check(False, f"keyboard: reached {what}")
    return None


def keyboard_flow(driver):
    """Home → start Video for 45 m → see it → go to Profiles through the tab bar → back to Home → stop it; keys only."""
    driver.get(URL.split("?")[0] + "#home")
    wait(driver, lambda d: d.find_elements(By.ID, "start-button"), "keyboard: Home loads")
    if tab_to(driver, lambda e: e.get_attribute("id") == "start-profile", "the profile menu"):
        # A closed select changes its value with the arrow keys; type-ahead picks by label.
        press(driver, "Video")
    if tab_to(driver, lambda e: e.get_attribute("name") == "length", "the length choice"):
        press(driver, Keys.ARROW_RIGHT)  # 25 m → 45 m
        check(driver.switch_to.active_element.get_attribute("id") == "len-45m", "keyboard: arrows choose 45 m")
    if tab_to(driver, lambda e: e.get_attribute("id") == "start-button", "the Start button"):
        press(driver, Keys.ENTER)
    wait(driver, lambda d: session(d, "Video"), "keyboard: the Video block starts")
    check(any(s["profile"] == "video" and 2600 < s["remainingSeconds"] <= 2700 for s in status_json()["sessions"]), "keyboard: lockctl status shows Video for 45 m")
    if tab_to(driver, lambda e: e.get_attribute("data-tab") == "profiles", "the Profiles tab"):
        press(driver, Keys.ENTER)
        wait(driver, lambda d: d.find_element(By.ID, "view").get_attribute("data-tab") == "profiles", "keyboard: Enter opens Profiles")
    if tab_to(driver, lambda e: e.get_attribute("data-tab") == "home", "the Home tab"):
        press(driver, Keys.ENTER)
        wait(driver, lambda d: session(d, "Video"), "keyboard: back on Home")
    if tab_to(driver, lambda e: (e.get_attribute("id") or "").startswith("stop-") and "Video" in (e.get_attribute("aria-label") or ""), "Video's Stop"):
        press(driver, Keys.ENTER)
        wait(driver, lambda d: not session(d, "Video"), "keyboard: Video stops")


def accessibility_and_screenshots(driver):
    sizes = [(1280, 800, False), (390, 844, True)]
    for scheme in ["light", "dark"]:
        theme(driver, scheme)
        driver.refresh()
        for width, height, mobile in sizes:
            viewport(driver, width, height, mobile)
            for tab in TABS:
                open_tab(driver, tab)
                driver.execute_script("window.scrollTo(0, 0)")
                name = f"{tab}-{width}x{height}-{scheme}.png"
                driver.save_screenshot(os.path.join(ARTEFACTS, name))
                overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
                check(overflow <= 0, f"{name}: nothing wider than the screen ({overflow}px)")
                if width == 1280 or tab == "home":
                    axe = Axe(driver)
                    axe.inject()
                    results = axe.run()
                    serious = [v for v in results["violations"] if v["impact"] in ("serious", "critical")]
                    detail = "; ".join(f"{v['id']}: {[n['target'] for n in v['nodes'][:3]]}" for v in serious)
                    check(not serious, f"axe: no serious or critical violations on {tab} ({scheme}, {width}px) {detail}")
                if tab == "profiles":
                    # The editor sheet too, with its pickers.
                    driver.find_element(By.ID, "new-profile").click()
                    wait(driver, lambda d: d.find_elements(By.ID, "pf-name"), "the profile editor opens")
                    time.sleep(0.3)
                    driver.save_screenshot(os.path.join(ARTEFACTS, f"profile-editor-{width}x{height}-{scheme}.png"))
                    axe = Axe(driver)
                    axe.inject()
                    serious = [v for v in axe.run()["violations"] if v["impact"] in ("serious", "critical")]
                    detail = "; ".join(f"{v['id']}: {[n['target'] for n in v['nodes'][:3]]}" for v in serious)
                    check(not serious, f"axe: no serious or critical violations in the profile editor ({scheme}, {width}px) {detail}")
                    driver.execute_script("document.getElementById('sheet').close()")
    theme(driver, "system")


if __name__ == "__main__":
    main()
