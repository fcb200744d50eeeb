#!/usr/bin/env python3
"""Checks that the companion installed by `lockctl browser install` (machine-wide policy) holds in
real headless Chromium, as an ordinary user.

Usage: browser_policy_install.py SOCKET EXTENSION_ID ARTEFACTS USER_DATA_DIR DRIVER UID

Run inside a private mount namespace where the scratch root's etc/chromium is bind-mounted over
/etc/chromium (the machine's own is never touched). DRIVER starts chromedriver (and so Chromium)
as the ordinary user UID. The daemon (under the
scratch root) runs the profile `focus` (blocked.test) as a session. Prints one JSON line of
findings at the end; exits non-zero on a failure.
"""
import json
import os
import sys
import time

from selenium.webdriver.common.by import By

import browserlib

SOCKET, ID, ARTEFACTS, USER_DATA, DRIVER = sys.argv[1:6]
UID = int(sys.argv[6])
report = browserlib.Report()
findings, fail, check = report.findings, report.fail, report.check
daemon = browserlib.DaemonAPI(SOCKET)
api, attempts_on = daemon.get, daemon.attempts_on
server, port = browserlib.serve_pages()

# No --load-extension: the extension comes from the policy alone.
options = browserlib.chromium_options(USER_DATA, "--host-resolver-rules=MAP *.test 127.0.0.1")
options.page_load_strategy = "none"
# chromedriver's default --disable-background-networking also stops policy installs, so it is
# left out, as a user's browser runs.
options.add_experimental_option("excludeSwitches", ["disable-background-networking", "disable-default-apps", "enable-automation"])
os.environ["SIMPLYLOCK_SOCKET"] = SOCKET
driver = browserlib.start_chromium(options, driver=DRIVER)
driver.set_page_load_timeout(20)


def wait_for(predicate, timeout, what):
    return browserlib.wait_for(driver, predicate, timeout, what, fail, interval=0.5)


def internals():
    driver.get("chrome://extensions-internals")
    time.sleep(0.5)
    entries = json.loads(driver.find_element(By.TAG_NAME, "body").text)
    return next((e for e in entries if e["id"] == ID), None)


try:
    wait_for(lambda: internals() is not None, 60, f"the policy to install {ID}")
    entry = internals()
    findings["location"] = entry["location"]
    findings["disable_reasons"] = entry["disable_reasons"]
    check(entry["location"] == "EXTERNAL_POLICY_DOWNLOAD", f"installed by policy from the packed extension ({entry['location']})")
    check(entry["disable_reasons"] == [], f"enabled ({entry['disable_reasons']})")

    # The bridge registered machine-wide answers this id: the companion said hello as this user.
    wait_for(lambda: any(c["active"] and c["uid"] == UID for c in api("/v1/browser/companions")["companions"]), 30,
             "the companion's hello through the machine-wide bridge")
    check(True, f"the policy-installed companion reached the daemon through the bridge as uid {UID}")

    # The user cannot turn it off: the switch on chrome://extensions is held by the policy.
    driver.get("chrome://extensions")

    def read_toggle():
        findings["toggle"] = driver.execute_script(
            """const item = document.querySelector('extensions-manager').shadowRoot
                 .querySelector('extensions-item-list').shadowRoot.querySelector('extensions-item#' + arguments[0]);
               const t = item.shadowRoot.querySelector('#enableToggle');
               return {checked: t.checked, disabled: t.disabled, remove: item.shadowRoot.querySelector('#removeButton')?.hidden};""",
            ID)
        return findings["toggle"] is not None

    wait_for(read_toggle, 20, "the extension's entry on chrome://extensions")
    check(findings["toggle"]["checked"] and findings["toggle"]["disabled"], f"on, and the switch cannot be used ({findings['toggle']})")
    driver.save_screenshot(os.path.join(ARTEFACTS, "policy-extensions.png"))

    # Private windows are off by the same policy (Chromium cannot allow an extension there by policy).
    driver.get("chrome://policy")
    wait_for(lambda: "IncognitoModeAvailability" in driver.find_element(By.TAG_NAME, "body").text, 20, "the policies to show")
    text = driver.find_element(By.TAG_NAME, "body").text
    check("ExtensionSettings" in text and ID in text, "chrome://policy lists the companion's ExtensionSettings")
    driver.save_screenshot(os.path.join(ARTEFACTS, "policy-policies.png"))

    # It works: a blocked name shows its shield. chromedriver loses the tab once it turns into a
    # policy-installed extension's page ("target frame detached"; the DevTools target list keeps
    # the old address too), so the daemon is the witness: the worker reports the attempt when the
    # shield page asks it for the block's details, and only then.
    before = attempts_on("blocked.test")
    driver.switch_to.new_window("tab")
    driver.get(f"http://blocked.test:{port}/")
    wait_for(lambda: attempts_on("blocked.test") > before, 20, "the shield's attempt in insights")
    findings["attempts"] = attempts_on("blocked.test")
    check(True, f"the policy-installed companion showed the shield, and its attempt reached insights ({findings['attempts']})")
finally:
    browserlib.close(driver, server)

report.done()
