#!/usr/bin/env python3
"""The performance table of issue 16, each row as "ours / baseline = ratio" from one run.

Arguments: BIN_DIR DATA_DIR BARE_JSON NIO_BASELINE MEASURE NIO_STACK. See bench-perf.sh, which builds them.
Release builds, whole processes, medians of paired runs (ours and the baseline alternate, so
load from elsewhere hits both alike).
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import scratch_root, start_daemon, status_kib, write_domain_profile

bin_dir, data_dir, bare_json, nio_baseline, measure, nio_stack = sys.argv[1:7]
RUNS = int(os.environ.get("BENCH_RUNS", "20"))
lockctl = f"{bin_dir}/lockctl"
rows = []


def row(name, ours, baseline, unit, goal):
    ratio = ours / baseline if baseline else float("inf")
    rows.append((name, ours, baseline, unit, ratio, goal))
    print(f"{name}: {ours:.2f} {unit} / {baseline:.2f} {unit} = {ratio:.2f}×  (goal {goal})", flush=True)


def run(argv):
    """Runs a process to completion through the small C runner (a Python parent's memory would
    count in the child's peak); returns (wall seconds, CPU seconds, peak RSS KiB)."""
    result = subprocess.run([measure, *argv], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{argv} failed")
    cpu, rss, wall = (int(field) for field in result.stdout.split())
    return wall / 1e6, cpu / 1e6, rss


def paired(a, b, runs=RUNS):
    """Alternates two commands; returns the list of results of each."""
    first, second = [], []
    for _ in range(runs):
        first.append(run(a))
        second.append(run(b))
    return first, second


def median(results, index):
    return statistics.median(r[index] for r in results)


def daemon_at(root, enforcers="hosts"):
    return start_daemon(bin_dir, root, data_dir, enforcers)


def lc(root, *args):
    subprocess.run([lockctl, "--root", root, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


roots, daemons = [], []
try:
    # The client: CPU time and memory of `lockctl status --json`.
    root = scratch_root("simplylock-perf-")
    roots.append(root)
    daemon = daemon_at(root)
    daemons.append(daemon)
    socket = f"{root}/run/simplylock/lockctl.sock"
    status = [lockctl, "--root", root, "status", "--json"]
    for _ in range(3):
        run(status), run([bare_json])
    ours, bare = paired(status, [bare_json])
    row("lockctl status CPU time vs a static Swift program printing one JSON line", median(ours, 1) * 1000,
        median(bare, 1) * 1000, "ms", "≤ 1.5×")
    if shutil.which("curl"):
        ours, curl = paired(status, ["curl", "-s", "--unix-socket", socket, "http://localhost/v1/status"])
        row("lockctl status CPU time vs curl --unix-socket", median(ours, 1) * 1000, median(curl, 1) * 1000, "ms", "≤ 1.0×")
    row("lockctl status peak RSS vs the static Swift program", median(ours, 2) / 1024, median(bare, 2) / 1024, "MiB", "≤ 1.3×")

    # Status, start and stop with a 100 000-domain profile.
    small_root = scratch_root("simplylock-perf-small-")
    roots.append(small_root)
    write_domain_profile(root, "big", 100_000)
    write_domain_profile(small_root, "small", 10)
    idle_rss = status_kib(daemon.pid)
    lc(root, "reload")
    time.sleep(3)
    loaded_rss = status_kib(daemon.pid)
    small = daemon_at(small_root)
    daemons.append(small)
    lc(small_root, "start", "small", "1h")

    starts, stops, writes = [], [], []
    hosts = f"{root}/etc/hosts"
    for index in range(5):
        starts.append(run([lockctl, "--root", root, "start", "big", "1h"])[0])
        if index == 0:
            with open(hosts, "rb") as f:
                section = f.read()
        stops.append(run([lockctl, "--root", root, "stop", "big"])[0])
        # The same bytes written the way a shell one-liner would: a new file renamed over the old.
        with open(f"{root}/section", "wb") as f:
            f.write(section)
        writes.append(run(["sh", "-c", f"cat '{root}/section' > '{root}/etc/hosts.new' && mv '{root}/etc/hosts.new' '{root}/hosts.copy'"])[0])
    row("start of a 100 000-domain profile vs writing its hosts file with a shell one-liner",
        statistics.median(starts) * 1000, statistics.median(writes) * 1000, "ms", "≤ 0.15 s")
    row("stop of a 100 000-domain profile vs the same one-liner", statistics.median(stops) * 1000,
        statistics.median(writes) * 1000, "ms", "≤ 0.15 s")

    lc(root, "start", "big", "1h")
    # The steady state: the daemon hands freed memory back half a second after a block starts.
    time.sleep(3)
    in_force_rss, peak = status_kib(daemon.pid), status_kib(daemon.pid, "VmHWM")
    big_status, small_status = paired([lockctl, "--root", root, "status", "--json"],
                                      [lockctl, "--root", small_root, "status", "--json"])
    row("lockctl status (wall) with a 100 000-domain block vs with a 10-domain block", median(big_status, 0) * 1000,
        median(small_status, 0) * 1000, "ms", "≤ 1.2×")

    # The daemon's memory.
    nio_root = scratch_root("simplylock-perf-nio-")
    roots.append(nio_root)
    nio = subprocess.Popen([nio_baseline, f"{nio_root}/nio.sock"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    daemons.append(nio)
    stack = subprocess.Popen([nio_stack, f"{nio_root}/stack.sock"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    daemons.append(stack)
    fresh_root = scratch_root("simplylock-perf-idle-")
    roots.append(fresh_root)
    fresh = daemon_at(fresh_root)
    daemons.append(fresh)
    time.sleep(2)
    for socket in ("nio.sock", "stack.sock"):
        subprocess.run(["curl", "-s", "--unix-socket", f"{nio_root}/{socket}", "http://localhost/"], stdout=subprocess.DEVNULL)
    lc(fresh_root, "status")
    time.sleep(0.5)
    row("simplylockd idle RSS vs a bare SwiftNIO server on a Unix socket", status_kib(fresh.pid) / 1024,
        status_kib(nio.pid) / 1024, "MiB", "≤ 1.3×")
    # Not a goal of the issue: what the idle figure stands on. The same server, also starting
    # Foundation, GRDB with SQLite, TOMLKit, swift-crypto and the system ICU, linked as the daemon.
    row("simplylockd idle RSS vs that server also starting the daemon's libraries", status_kib(fresh.pid) / 1024,
        status_kib(stack.pid) / 1024, "MiB", "(the libraries' floor)")
    row("simplylockd RSS with the 100 000-domain profile loaded vs idle", loaded_rss / 1024, idle_rss / 1024, "MiB", "≤ +20 MiB")
    row("simplylockd RSS with it in force vs idle", in_force_rss / 1024, idle_rss / 1024, "MiB", "≤ +20 MiB")
    row("simplylockd peak RSS (VmHWM) vs RSS in force", peak / 1024, in_force_rss / 1024, "MiB", "no peak above the steady state")

    # Binary sizes.
    for name in ("lockctl", "simplylockd"):
        path = f"{bin_dir}/{name}"
        stripped = f"{roots[0]}/{name}.stripped"
        subprocess.run(["strip", "-o", stripped, path], check=True)
        size, small_size = os.path.getsize(path), os.path.getsize(stripped)
        print(f"{name}: {size / 1e6:.1f} MB unstripped, {small_size / 1e6:.1f} MB stripped", flush=True)
finally:
    for process in daemons:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    for root in roots:
        shutil.rmtree(root, ignore_errors=True)

print()
print("| figure | ours | baseline | ratio | goal |")
print("| --- | --- | --- | --- | --- |")
for name, ours, baseline, unit, ratio, goal in rows:
    print(f"| {name} | {ours:.2f} {unit} | {baseline:.2f} {unit} | {ratio:.2f}× | {goal} |")
