"""What the browser tests' scripts share: headless Chromium through Selenium, the daemon's API on
its Unix socket, a local HTTP server that answers every name, and the ok/FAIL report.

Used by browser_companion.py, browser_policy_install.py and ui_browser.py (run from this folder).
"""
import http.client
import http.server
import json
import socket
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


class Report:
    """ok/FAIL lines as checks go, and one JSON line of findings at the end (read by the Swift
    test). `check` ends the run at the first failure."""

    def __init__(self):
        self.findings = {}

    def fail(self, message):
        print(f"FAIL: {message}", flush=True)
        print(json.dumps(self.findings), flush=True)
        sys.exit(1)

    def check(self, condition, message):
        if not condition:
            self.fail(message)
        print(f"ok: {message}", flush=True)

    def done(self):
        print(json.dumps(self.findings), flush=True)


class DaemonAPI:
    """GET requests to simplylockd's control socket, as the user running the script."""

    def __init__(self, path):
        self.path = path

    def get(self, target):
        path = self.path

        class Connection(http.client.HTTPConnection):
            def connect(self):
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)

        connection = Connection("localhost")
        try:
            connection.request("GET", target)
            return json.loads(connection.getresponse().read())
        finally:
            connection.close()

    def attempts_on(self, site):
        """Today's blocked attempts on `site` as `lockctl insights` counts them (UTC day is enough here)."""
        day = time.strftime("%Y-%m-%dT00:00:00Z", time.gmtime())
        return sum(c["attempts"] for c in self.get(f"/v1/insights?from={day}")["topSites"] if c["name"] == site)


class _Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"<!doctype html><html lang=en><title>ok {self.headers['Host']}{self.path}</title><h1>ok</h1>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve_pages():
    """A server on 127.0.0.1 that answers every name and path with a page titled `ok HOST/PATH`;
    returns it (shut it down at the end) and its port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def chromium_options(user_data, *arguments, window="1000,900"):
    """Headless Chromium's options: no sandbox (root in tests), no GPU, no first-run pages, its own
    profile folder, then `arguments`."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", f"--window-size={window}",
                     f"--user-data-dir={user_data}", *arguments]:
        options.add_argument(argument)
    return options


def start_chromium(options, driver=CHROMEDRIVER):
    return webdriver.Chrome(service=Service(driver), options=options)


def close(driver, server):
    """Ends the browser, whatever state it is in, and the page server."""
    try:
        driver.quit()
    except Exception:
        pass
    server.shutdown()


def wait_for(driver, predicate, timeout, what, fail, interval=0.2):
    """Polls `predicate` (an exception counts as not yet) until it holds; `fail` is told what was
    awaited, and where the browser was, when it does not within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except Exception:
            pass
        time.sleep(interval)
    try:
        where = driver.current_url
    except Exception as error:
        where = f"unknown: {error.__class__.__name__}"
    fail(f"timed out after {timeout}s waiting for {what} (at {where})")
    return False
