#!/usr/bin/env python3
"""Checks the release binaries as `make` links them, which the test suite (debug builds) never runs.

Argument: BIN_DIR. The release link differs: lockctl is a static executable, simplylockd is not
position-independent and exports no symbols, and both place the functions of link-order/*.order
side by side. Each of those is checked in the binaries, and then the two drive a block end to end
under a scratch root: status, start, the hosts section, check, stop, the user's file back byte for
byte, a clean shutdown.
"""
import bisect
import json
import os
import shutil
import signal
import subprocess
import sys

from benchlib import scratch_root, start_daemon

bin_dir = sys.argv[1]
repository = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def check(condition, what):
    print(f"release check: {'ok  ' if condition else 'FAIL'} {what}", flush=True)
    if not condition:
        failures.append(what)


def output(*argv):
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def placed_in_order(product):
    """The longest run of the link order list that the binary lays out in the list's order (a
    longest increasing subsequence of addresses), as a share of the list. Functions inside a
    library's one big .text section cannot move; unordered, the share is about 3 %, ordered 20 %."""
    addresses = {}
    for line in output("nm", "--defined-only", f"{bin_dir}/{product}").splitlines():
        fields = line.split()
        if len(fields) == 3:
            addresses[fields[2]] = int(fields[0], 16)
    with open(f"{repository}/link-order/{product}.order") as f:
        listed = [addresses[name] for name in (line.strip().removeprefix(".text.") for line in f) if name in addresses]
    tails = []
    for address in listed:
        index = bisect.bisect_left(tails, address)
        tails[index:index + 1] = [address]
    return len(tails) / max(1, len(listed))


lockctl = f"{bin_dir}/lockctl"
check("INTERP" not in output("readelf", "-lW", lockctl), "lockctl is a static executable")
header = output("readelf", "-hW", f"{bin_dir}/simplylockd")
check("EXEC (Executable file)" in header, "simplylockd is not position-independent")
exported = [line for line in output("nm", "-D", "--defined-only", f"{bin_dir}/simplylockd").splitlines() if line.strip()]
check(len(exported) < 100, f"simplylockd exports {len(exported)} symbols (--no-export-dynamic)")
for product in ("simplylockd", "lockctl"):
    share = placed_in_order(product)
    check(share > 0.1, f"{product} lays out its link order list in order ({share:.0%} of it in one ascending run)")

root = scratch_root("simplylock-release-check-")
daemon = None
try:
    with open(f"{root}/etc/simplylock/profiles.d/focus.toml", "w") as f:
        f.write('name = "focus"\ndomains = ["reddit.com"]\n')
    with open(f"{root}/etc/hosts", "rb") as f:
        original = f.read()
    daemon = start_daemon(bin_dir, root, f"{repository}/config")

    def lc(*args):
        return subprocess.run([lockctl, "--root", root, *args], capture_output=True, text=True)

    status = lc("status", "--json")
    check(status.returncode == 0 and json.loads(status.stdout).get("sessions") == [], "lockctl status --json: nothing blocked")
    started = lc("start", "focus", "5m")
    check(started.returncode == 0, f"lockctl start focus 5m: {started.stdout.strip() or started.stderr.strip()}")
    with open(f"{root}/etc/hosts", "rb") as f:
        blocked = f.read()
    check(blocked.startswith(original) and b"0.0.0.0 reddit.com reddit.com." in blocked, "the hosts file lists reddit.com")
    checked = lc("check", "reddit.com")
    check(checked.returncode == 0 and "reddit.com is blocked" in checked.stdout, "lockctl check reddit.com: blocked")
    human = lc("status")
    check(human.returncode == 0 and "focus" in human.stdout, "lockctl status shows the block")
    stopped = lc("stop", "focus")
    check(stopped.returncode == 0, "lockctl stop focus")
    with open(f"{root}/etc/hosts", "rb") as f:
        check(f.read() == original, "the hosts file is back byte for byte")
    daemon.send_signal(signal.SIGTERM)
    check(daemon.wait(timeout=30) == 0, "simplylockd stops cleanly on SIGTERM")
    daemon = None
finally:
    if daemon is not None:
        daemon.kill()
        daemon.wait()
    shutil.rmtree(root)
if failures:
    sys.exit(f"release check: {len(failures)} failed")
