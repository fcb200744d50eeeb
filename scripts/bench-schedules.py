#!/usr/bin/env python3
"""Schedule start latency; see bench-schedules.sh. Arguments: BIN_DIR DATA_DIR [RUNS].

Each run adds a one-off schedule (`--on 'YYYY-MM-DD HH:MM:SS' --tz UTC --length 1s`) starting on
a whole second about 1.5 s ahead, and waits with inotify for the hosts file to be replaced
with the block in it. The latency is the wall-clock time from the start instant to that
moment; the daemon's timerfd on CLOCK_REALTIME is what wakes it.
"""
import ctypes
import ctypes.util
import math
import os
import select
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import scratch_root, start_daemon, write_domain_profile

bin_dir, data_dir = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
root = scratch_root("simplylock-bench-schedules.")
hosts = f"{root}/etc/hosts"
lockctl = [f"{bin_dir}/lockctl", "--root", root]

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
IN_MODIFY, IN_CLOSE_WRITE, IN_MOVED_TO, IN_CREATE = 0x2, 0x8, 0x80, 0x100
watch = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
if watch < 0 or libc.inotify_add_watch(watch, f"{root}/etc".encode(),
                                       IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0:
    sys.exit("bench-schedules: inotify is not available")


def hosts_contains(name):
    try:
        with open(hosts) as f:
            return name in f.read()
    except FileNotFoundError:
        return False


def wait_for(predicate, timeout):
    """The wall-clock time at which `predicate` first held, noticed through inotify."""
    deadline = time.time() + timeout
    if predicate():
        return time.time()
    while True:
        ready, _, _ = select.select([watch], [], [], max(0.0, deadline - time.time()))
        noticed = time.time()
        if not ready:
            raise TimeoutError("the hosts file did not change in time")
        try:
            os.read(watch, 65536)
        except BlockingIOError:
            pass
        if predicate():
            return noticed


daemon = start_daemon(bin_dir, root, data_dir)
try:
    write_domain_profile(root, "bench-10000", 10_000)  # the same in a short run: it is what the script is about
    subprocess.run(lockctl + ["reload"], capture_output=True, check=True)
    for profile, marker in (("news", " news.ycombinator.com"), ("bench-10000", " www.d09999.bench.example")):
        late = []
        for run in range(runs):
            start = math.ceil(time.time() + 1.5)
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(start))
            name = f"bench-{run}"
            subprocess.run(lockctl + ["schedules", "add", name, "--profile", profile, "--on", when, "--tz", "UTC",
                                      "--length", "1s", "--warn", "off"], capture_output=True, check=True)
            if hosts_contains(marker) and time.time() < start:
                sys.exit("bench-schedules: the block was in place before its start")
            in_place = wait_for(lambda: hosts_contains(marker), 10)
            late.append(in_place - start)
            wait_for(lambda: not hosts_contains(marker), 10)
            subprocess.run(lockctl + ["schedules", "remove", name], capture_output=True, check=True)
        late_ms = [value * 1000 for value in late]
        print(f"scheduled block in place after its start ({profile}, {runs} runs): "
              f"median {statistics.median(late_ms):.1f} ms, worst {max(late_ms):.1f} ms, best {min(late_ms):.1f} ms")
finally:
    daemon.terminate()
    daemon.wait()
    os.close(watch)
    shutil.rmtree(root, ignore_errors=True)
