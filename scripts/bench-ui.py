"""Figures of the web UI; see scripts/bench-ui.sh. Arguments: BIN_DIR DATA_DIR UI_DIR [RUNS]."""
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import scratch_root, start_daemon, status_kib  # noqa: E402

bin_dir, data_dir, ui_dir = sys.argv[1:4]
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 5
TABS = ["home", "profiles", "insights", "timer", "settings"]


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='bench-ui-')}"]:
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def first_paint_ms(driver):
    """Epoch milliseconds of the first contentful paint of the current page."""
    for _ in range(200):
        value = driver.execute_script(
            "const p = performance.getEntriesByName('first-contentful-paint')[0];"
            "return p ? performance.timeOrigin + p.startTime : null;")
        if value:
            return value
        time.sleep(0.01)
    raise RuntimeError("no first-contentful-paint")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ui(root):
    """Starts lockctl ui --no-open; returns (process, url, epoch ms at spawn, ms until the address was printed)."""
    started = time.time() * 1000
    process = subprocess.Popen([f"{bin_dir}/lockctl", "--root", root, "ui", "--no-open"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env={**os.environ, "SIMPLYLOCK_UI_DIR": ui_dir})
    url = process.stdout.readline().strip()
    return process, url, started, time.time() * 1000 - started


def start_baseline():
    port = free_port()
    started = time.time() * 1000
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", ui_dir],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(500):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.002)
    return process, f"http://127.0.0.1:{port}/", started


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


def weight(driver):
    """Bytes fetched by the page so far: (the app's files, the API's answers), by transferSize (headers included)."""
    entries = driver.execute_script(
        "return [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]"
        ".map(e => [e.name, e.transferSize])")
    files = sum(size for name, size in entries if "/v1/" not in name)
    api = sum(size for name, size in entries if "/v1/" in name)
    return files, api


def main():
    root = scratch_root("bench-ui-")
    daemon = start_daemon(bin_dir, root, data_dir)
    subprocess.run([f"{bin_dir}/lockctl", "--root", root, "start", "news", "1h"], check=True, capture_output=True)
    driver = browser()
    driver.get("about:blank")
    ui_paint, ui_ready, base_paint = [], [], []
    try:
        for _ in range(runs):
            process, url, started, ready = start_ui(root)
            driver.get(url)
            ui_paint.append(first_paint_ms(driver) - started)
            ui_ready.append(ready)
            stop(process)
            driver.get("about:blank")
            process, url, started = start_baseline()
            driver.get(url)
            base_paint.append(first_paint_ms(driver) - started)
            stop(process)
            driver.get("about:blank")

        process, url, _, _ = start_ui(root)
        time.sleep(0.5)
        idle = status_kib(process.pid)
        driver.get(url)
        base = url.split("?")[0]
        weights = {}
        for tab in TABS:
            # A reload, not a change of the hash alone: each tab's figure is a fresh page's.
            driver.get(base + "#" + tab)
            driver.refresh()
            time.sleep(1.0)
            weights[tab] = weight(driver)
        driver.get(base + "#home")
        time.sleep(1.0)
        open_rss = status_kib(process.pid)
        peak = status_kib(process.pid, "VmHWM")
        stop(process)
        baseline, burl, _ = start_baseline()
        time.sleep(0.3)
        base_idle = status_kib(baseline.pid)
        driver.get(burl)
        time.sleep(1.0)
        base_open = status_kib(baseline.pid)
        stop(baseline)
    finally:
        driver.quit()
        stop(daemon)

    med = statistics.median
    print(f"bench-ui: {runs} runs, binaries in {bin_dir}")
    print(f"  lockctl ui --no-open → address printed       {med(ui_ready):7.1f} ms (median)")
    print(f"  lockctl ui --no-open → first paint            {med(ui_paint):7.1f} ms (median; min {min(ui_paint):.1f})")
    print(f"  python3 -m http.server → first paint (base)   {med(base_paint):7.1f} ms (median; min {min(base_paint):.1f})")
    print(f"  ratio (lockctl ui / baseline)                 {med(ui_paint) / med(base_paint):7.2f}")
    print("  page weight per tab (fresh load, no cache; bytes on the wire):")
    for tab, (files, api) in weights.items():
        print(f"    {tab:<9} app files {files / 1024:6.1f} KiB   API answers {api / 1024:6.1f} KiB")
    print(f"  UI server RSS idle                            {idle / 1024:7.1f} MiB  (baseline {base_idle / 1024:.1f} MiB, ratio {idle / base_idle:.2f})")
    print(f"  UI server RSS with the page open              {open_rss / 1024:7.1f} MiB  (baseline {base_open / 1024:.1f} MiB, ratio {open_rss / base_open:.2f}); peak {peak / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
