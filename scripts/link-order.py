#!/usr/bin/env python3
"""Lists the functions simplylockd and lockctl execute in a typical session, in first-seen order.

Arguments: BIN_DIR DATA_DIR OUT_DIR. See link-order.sh. The daemon runs under callgrind against a
scratch root: start-up, status polls, a block started, checked and stopped, a reload, insights,
doctor, then a clean shutdown; lockctl runs under callgrind for the status calls status bars make
and for start and stop.
"""
import bisect
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from benchlib import scratch_root

bin_dir, data_dir, out_dir = sys.argv[1:4]
work = tempfile.mkdtemp(prefix="simplylock-link-order-")
ADDRESS = re.compile(r"^(?:calls=\d+ )?0x([0-9a-f]+) ")


def copy_without_debug_info(name):
    # valgrind gives up on the debug info of the unstripped release binaries.
    path = f"{work}/{name}"
    shutil.copy(f"{bin_dir}/{name}", path)
    subprocess.run(["strip", "--strip-debug", path], check=True)
    return path


def callgrind(out, argv):
    # Instruction addresses, not callgrind's function names: it files some functions under a
    # neighbour's name (GRDB's Mutex.init under its deinit), and those would be left out.
    return ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no", f"--callgrind-out-file={out}", *argv]


def write_order(binary, outputs, name):
    """The functions of the binary whose instructions ran, in the order first seen, as the input
    sections the compiler gave them."""
    listing = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    starts, functions = [], []
    for fields in (line.split() for line in listing.splitlines()):
        if len(fields) == 3 and fields[1] in "tTwW":
            starts.append(int(fields[0], 16))
            functions.append(fields[2])
    sections = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    text = next(line.split() for line in sections.splitlines() if " .text " in line)
    text_start = int(text[text.index(".text") + 2], 16)
    text_end = text_start + int(text[text.index(".text") + 4], 16)
    seen, order = set(), []
    for path in outputs:
        with open(path) as f:
            for line in f:
                match = ADDRESS.match(line)
                if not match:
                    continue
                address = int(match.group(1), 16)
                # The loader's and the C library's code is not the binary's to place.
                if not text_start <= address < text_end:
                    continue
                index = bisect.bisect_right(starts, address) - 1
                function = functions[index]
                if function not in seen:
                    seen.add(function)
                    order.append(function)
    with open(f"{out_dir}/{name}.order", "w") as f:
        f.writelines(f".text.{function}\n" for function in order)
    print(f"{name}: {len(order)} functions")


daemon_binary = copy_without_debug_info("simplylockd")
lockctl_binary = copy_without_debug_info("lockctl")
root = scratch_root("simplylock-link-order-")
with open(f"{root}/etc/simplylock/profiles.d/focus.toml", "w") as f:
    f.write('name = "focus"\ndomains = ["reddit.com", "news.example"]\n')
lockctl_outputs = []


def lockctl(*args, traced=False):
    argv = [lockctl_binary, "--root", root, *args]
    if traced:
        lockctl_outputs.append(f"{work}/lockctl.{len(lockctl_outputs)}.out")
        argv = callgrind(lockctl_outputs[-1], argv)
    return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


daemon = subprocess.Popen(
    callgrind(f"{work}/simplylockd.out",
              [daemon_binary, "--root", root, "--data-dir", data_dir, "--enforcers", "hosts"]),
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    deadline = time.monotonic() + 120
    while lockctl("status") != 0:
        if time.monotonic() > deadline or daemon.poll() is not None:
            sys.exit("link-order: simplylockd under callgrind did not answer")
        time.sleep(0.2)
    for args in (["status", "--json"], ["status"], ["start", "focus", "10m"], ["status", "--json"], ["stop", "focus"]):
        lockctl(*args, traced=True)
    for args in (["profiles"], ["start", "focus", "10m"], ["check", "reddit.com"], ["pomodoro", "status"],
                 ["stop", "focus"], ["reload"], ["insights"], ["doctor"]):
        lockctl(*args)
    time.sleep(3)
    for _ in range(5):
        lockctl("status", "--json")
finally:
    daemon.send_signal(signal.SIGINT)
    daemon.wait(timeout=120)
write_order(daemon_binary, [f"{work}/simplylockd.out"], "simplylockd")
write_order(lockctl_binary, lockctl_outputs, "lockctl")
shutil.rmtree(work)
shutil.rmtree(root)
