"""scripts/bench-notify.sh: the tray icon's cost to lockctl notify, against --no-tray in the same run.

Runs under Debian's python3 (python3-dbus is not needed here, only by the stand-ins it starts)."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

bin_dir, repository = sys.argv[1], sys.argv[2]
idle = float(sys.argv[3]) if len(sys.argv) > 3 else 30
runs = int(sys.argv[4]) if len(sys.argv) > 4 else 10
scratch = tempfile.mkdtemp(prefix="bench-notify-")
children = []


def spawn(arguments, **kwargs):
    child = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    children.append(child)
    return child


def wait_for(what, condition, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.002)
    raise RuntimeError(f"timed out waiting for {what}")


def lines(path):
    try:
        with open(path) as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def switches(pid):
    total = 0
    for thread in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{thread}/status") as f:
            total += sum(int(line.split()[1]) for line in f if "ctxt_switches" in line)
    return total


try:
    bus = f"unix:path={scratch}/bus"
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=bus, TZ="UTC")
    spawn(["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={bus}"])
    wait_for("the session bus", lambda: os.path.exists(f"{scratch}/bus"))
    recorded, watched = f"{scratch}/notifications.jsonl", f"{scratch}/watcher.jsonl"
    spawn(["/usr/bin/python3", f"{repository}/Tests/Scripts/notification_recorder.py", recorded], env=env)
    spawn(["/usr/bin/python3", f"{repository}/Tests/Scripts/tray_watcher.py", watched], env=env)
    wait_for("the stand-ins", lambda: os.path.exists(recorded) and os.path.exists(watched))
    root = benchlib.scratch_root("bench-notify-root-")
    daemon = benchlib.start_daemon(bin_dir, root, f"{repository}/config")
    children.append(daemon)
    lockctl = [f"{bin_dir}/lockctl", "--root", root]
    figures = {}
    for mode in ("--no-tray", "tray"):
        notifier = spawn(lockctl + ["notify"] + ([mode] if mode == "--no-tray" else []), env=env)
        time.sleep(1.5)
        ticks, woken = cpu_ticks(notifier.pid), switches(notifier.pid)
        time.sleep(idle)
        figure = {"rss": benchlib.status_kib(notifier.pid), "cpu": cpu_ticks(notifier.pid) - ticks,
                  "wakeups": (switches(notifier.pid) - woken) / idle * 60, "notify": [], "icon": []}
        for run in range(runs):
            shown, seen = len(lines(recorded)), len(lines(watched))
            started = time.monotonic()
            subprocess.run(lockctl + ["start", "news", "5m"], check=True, capture_output=True)
            wait_for("the notification", lambda: any(n["summary"] == "news is blocked" for n in lines(recorded)[shown:]))
            figure["notify"].append(time.monotonic() - started)
            if mode == "tray":
                wait_for("the icon", lambda: any("news blocked until" in s.get("Title", "") for s in lines(watched)[seen:]))
                figure["icon"].append(time.monotonic() - started)
            subprocess.run(lockctl + ["stop", "news"], check=True, capture_output=True)
            time.sleep(0.3)
        notifier.terminate()
        notifier.wait(5)
        figures[mode] = figure
    base, tray = figures["--no-tray"], figures["tray"]
    print(f"lockctl notify, idle {idle:g} s then {runs} block starts ({'short mode: a check, not a measurement' if os.environ.get('BENCH_SHORT') == '1' else 'release build'})")
    print(f"{'':24}{'--no-tray (baseline)':>22}{'with the tray icon':>22}{'ratio':>8}")
    print(f"{'RSS':24}{base['rss']:>19} KiB{tray['rss']:>19} KiB{tray['rss'] / base['rss']:>8.2f}")
    print(f"{'CPU while idle':24}{base['cpu']:>16} ticks{tray['cpu']:>16} ticks")
    ratio = f"{tray['wakeups'] / base['wakeups']:>8.2f}" if base["wakeups"] else ""
    print(f"{'wakeups per idle minute':24}{base['wakeups']:>22.1f}{tray['wakeups']:>22.1f}{ratio}")
    notify, icon = statistics.median(tray["notify"]), statistics.median(tray["icon"])
    print(f"{'start to notification':24}{statistics.median(base['notify']) * 1000:>19.1f} ms{notify * 1000:>19.1f} ms")
    print(f"{'start to icon updated':24}{'':>22}{icon * 1000:>19.1f} ms{icon / notify:>8.2f} (against the notification)")
finally:
    for child in reversed(children):
        child.terminate()
    for child in children:
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
    shutil.rmtree(scratch, ignore_errors=True)
