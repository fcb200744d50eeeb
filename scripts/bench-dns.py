"""DNS filter figures (run by scripts/bench-dns.sh): forwarding overhead against dnsmasq on
loopback, the cost of a 1 000 000-name list (build time, memory, lookup time), the longest
query stall while the whole list is rebuilt and swapped under load, and the same list through
the real daemon (`lockctl lists import` time, apply time, daemon RSS with the list in force, the
longest query stall while a re-import swaps it, and how soon after `lockctl start` returns a
blocked name is answered 0.0.0.0).

    python3 scripts/bench-dns.py BIN_DIR [--names N] [--seconds S] [--rate QPS]

Everything runs on loopback, unprivileged ports, in a scratch directory; nothing of the
machine's DNS is touched. dnsmasq answers `*.bench.test` itself (no upstream) and is both the
baseline and the forwarder's upstream, so the two are measured with the same query file in
the same run, one after the other, twice, best run kept.
"""
import argparse
import json
import os
import random
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

TLDS = ["com", "net", "org", "io", "de", "co.uk", "info", "xyz", "ru", "fr", "com.br", "online", "site", "app"]
ALPHABET = string.ascii_lowercase + string.digits


def generate_list(path, count, seed=1):
    """A synthetic hosts-format blocklist of `count` distinct names, shaped like real ad and
    tracker lists: registrable names with and without a host label, lengths 10–40."""
    rng = random.Random(seed)
    names = set()
    with open(path, "w") as f:
        f.write("# synthetic blocklist for bench-dns\n127.0.0.1 localhost\n::1 localhost\n")
        while len(names) < count:
            domain = "".join(rng.choices(ALPHABET, k=rng.randint(4, 14))) + "." + rng.choice(TLDS)
            name = domain if rng.random() < 0.4 else "".join(rng.choices(ALPHABET, k=rng.randint(2, 12))) + "." + domain
            if name not in names:
                names.add(name)
                f.write(f"0.0.0.0 {name}\n")
    return os.path.getsize(path)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.bind(("127.0.0.1", 0))
        port = udp.getsockname()[1]
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
        try:
            tcp.bind(("127.0.0.1", port))
        except OSError:
            return free_port()
    return port


def start_dnsmasq(work, upstream_port=None):
    """dnsmasq answering *.bench.test itself, or (with `upstream_port`) forwarding everything
    there without a cache: an established forwarder in the same position as ours."""
    port = free_port()
    conf = f"{work}/dnsmasq-{port}.conf"
    with open(conf, "w") as f:
        f.write(f"port={port}\nlisten-address=127.0.0.1\nbind-interfaces\nno-resolv\nno-hosts\nuser=\n")
        if upstream_port:
            f.write(f"server=127.0.0.1#{upstream_port}\ncache-size=0\ndns-forward-max=1000\n")
        else:
            # local-ttl: answers carry a TTL, as real upstream answers do (dnsmasq's own data has
            # TTL 0 by default, which no cache may keep); dnsmasq answers as fast either way.
            f.write("address=/bench.test/192.0.2.1\naddress=/bench.test/2001:db8::1\ncache-size=10000\nlocal-ttl=300\n")
    process = subprocess.Popen(["dnsmasq", "-k", "-C", conf], stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    return process, port


class Forwarder:
    """A `dns-bench serve` process, driven over its stdin/stdout."""

    def __init__(self, bin_dir, upstream_port, list_path=None, metered=False, cache=True):
        command = [f"{bin_dir}/dns-bench", "serve", f"127.0.0.1:{upstream_port}"] + ([list_path] if list_path else [])
        command += ["--metered"] if metered else []
        command += [] if cache else ["--no-cache"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline().split(" ", 2)
        if ready[0] != "ready":
            raise RuntimeError(f"dns-bench serve did not start: {ready}")
        self.port = int(ready[1])
        self.started = json.loads(ready[2])

    def command(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.process.stdout.readline().strip()

    def stats(self):
        return json.loads(self.command("stats"))

    def close(self):
        self.command("quit")
        self.process.wait(timeout=10)


def dnsperf(port, queries, seconds, rate=None, verbose=False):
    command = ["dnsperf", "-s", "127.0.0.1", "-p", str(port), "-d", queries, "-l", str(seconds), "-q", "100"]
    if rate:
        command += ["-Q", str(rate)]
    if verbose:
        command += ["-v"]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result = {"latencies": []}
    for line in output.splitlines():
        if verbose and line.startswith("> "):
            result["latencies"].append(float(line.rsplit(" ", 1)[1]))
        elif "Queries per second:" in line:
            result["qps"] = float(line.split(":")[1])
        elif "Queries lost:" in line:
            result["lost"] = int(line.split(":")[1].split()[0])
        elif "Queries completed:" in line:
            result["completed"] = int(line.split(":")[1].split()[0])
        elif "Response codes:" in line:
            result["codes"] = line.split(":", 1)[1].strip()
    return result


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] if ordered else float("nan")


def write_queries(path, count, suffix):
    with open(path, "w") as f:
        for i in range(count):
            f.write(f"q{i}.{suffix} {'A' if i % 2 == 0 else 'AAAA'}\n")


def query_until_blocked(port, name, limit=2.0):
    """Asks `name` (type A, over UDP) until the answer is 0.0.0.0; seconds it took, or None."""
    labels = b"".join(bytes([len(part)]) + part.encode() for part in name.split("."))
    query = b"\x51\x51\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00" + labels + b"\x00\x00\x01\x00\x01"
    started = time.monotonic()
    while time.monotonic() - started < limit:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.settimeout(0.5)
            s.sendto(query, ("127.0.0.1", port))
            try:
                answer = s.recv(512)
            except socket.timeout:
                continue
        if answer[-4:] == b"\x00\x00\x00\x00":
            return time.monotonic() - started
    return None


def daemon_figures(args, work, list_path, upstream_port, forwarded_queries):
    """The list through the real simplylockd (hosts and dns enforcers, scratch root)."""
    if os.geteuid() != 0:
        print("\n== the list through the daemon: skipped (the DNS filter marks its upstream sockets: needs root) ==")
        return
    data_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "config")
    root = benchlib.scratch_root("bench-dns-daemon.")
    port = free_port()
    with open(f"{root}/etc/simplylock/simplylockd.toml", "w") as f:
        f.write(f'dns_port = {port}\nresolvers = ["127.0.0.1:{upstream_port}"]\n')
    lockctl = [f"{args.bin_dir}/lockctl", "--root", root]

    def run(*arguments, stdin=None):
        return subprocess.run(lockctl + list(arguments), check=True, capture_output=True, text=True, stdin=stdin)

    daemon = benchlib.start_daemon(args.bin_dir, root, data_dir, enforcers="hosts,dns")
    try:
        time.sleep(1)
        idle = benchlib.status_kib(daemon.pid)
        started = time.monotonic()
        run("lists", "import", "big", list_path)
        imported = time.monotonic() - started
        loaded = benchlib.status_kib(daemon.pid)
        peak = benchlib.status_kib(daemon.pid, "VmHWM")
        shown = json.loads(run("lists", "show", "big", "--json").stdout)
        run("profiles", "create", "bench", "--domain", "blocked.test", "--list", "big")
        started = time.monotonic()
        run("start", "bench", "30m")
        applied = time.monotonic() - started
        until_blocked = query_until_blocked(port, "m.blocked.test")
        listed = shown["skippedByReason"]
        in_force = benchlib.status_kib(daemon.pid)
        status = json.loads(run("status", "--json").stdout)
        dns = [e for e in status["enforcers"] if e["name"] == "dns"][0]

        # The same load without a swap, in the same run: what the machine itself adds.
        calm = dnsperf(port, forwarded_queries, args.seconds, rate=args.rate, verbose=True)

        # A re-import of a changed list while queries flow: the blocks move to the new version
        # in one swap (the old one stays until nothing holds it).
        changed = f"{work}/list2.hosts"
        with open(list_path) as source, open(changed, "w") as target:
            for number, line in enumerate(source):
                if number % 1000 != 7:
                    target.write(line)
            target.write("0.0.0.0 added.bench-new.test\n")
        swap = {}

        def reimport():
            time.sleep(1.5)
            begun = time.monotonic()
            run("lists", "import", "big", changed)
            swap["seconds"] = time.monotonic() - begun
            swap["rss"] = benchlib.status_kib(daemon.pid)

        thread = threading.Thread(target=reimport)
        thread.start()
        stormy = dnsperf(port, forwarded_queries, args.seconds, rate=args.rate, verbose=True)
        thread.join()
        time.sleep(1)
        after = benchlib.status_kib(daemon.pid)
        blocked_new = query_until_blocked(port, "x.added.bench-new.test") is not None

        started = time.monotonic()
        run("stop", "bench")
        lifted = time.monotonic() - started
        print("\n== the list through the daemon (simplylockd --enforcers hosts,dns, scratch root, release build) ==")
        reasons = ", ".join(f"{group['count']} {group['reason']}" for group in listed) or "none"
        print(f"lockctl lists import (streamed, parsed, stored): {imported:.2f} s for {shown['lines']} lines -> {shown['names']} names, "
              f"{shown['skipped']} skipped ({reasons})")
        print(f"daemon RSS: idle {idle / 1024:.1f} MiB, list loaded {loaded / 1024:.1f} MiB (+{(loaded - idle) / 1024:.1f} MiB; "
              f"peak during import {peak / 1024:.1f} MiB), list in force {in_force / 1024:.1f} MiB "
              f"(+{(in_force - idle) / 1024:.1f} MiB over idle; goal <= 64 MiB); list sets {shown['bytes'] / 2**20:.1f} MiB")
        print(f"lockctl start with the list (apply, all enforcers): {applied * 1000:.0f} ms; m.blocked.test answered 0.0.0.0 "
              f"{'%.1f ms' % (until_blocked * 1000) if until_blocked is not None else 'NOT within 2 s'} after lockctl start returned "
              f"(goal <= 50 ms); dns enforcer holds {dns['elements']} names")
        print(f"at {args.rate} qps with the list in force, no swap: longest query {max(calm['latencies']) * 1e3:.1f} ms, "
              f"p99 {percentile(calm['latencies'], 0.99) * 1e6:.0f} us (the machine's own noise)")
        print(f"re-import of a changed list during {args.rate} qps: {swap.get('seconds', float('nan')):.2f} s; longest query "
              f"{max(stormy['latencies']) * 1e3:.1f} ms (goal <= 50 ms), p99 {percentile(stormy['latencies'], 0.99) * 1e6:.0f} us, "
              f"lost {stormy.get('lost', 0)}; RSS right after {swap.get('rss', 0) / 1024:.1f} MiB, a second later {after / 1024:.1f} MiB; "
              f"new name blocked: {blocked_new}")
        print(f"lockctl stop: {lifted * 1000:.0f} ms")
    finally:
        daemon.terminate()
        daemon.wait(timeout=15)
        shutil.rmtree(root, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin_dir")
    parser.add_argument("--names", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rate", type=int, default=5000, help="queries per second of the latency runs")
    args = parser.parse_args()
    for tool in ["dnsperf", "dnsmasq"]:
        if not shutil.which(tool):
            sys.exit(f"bench-dns: {tool} not found (apt-get install dnsperf dnsmasq)")

    work = tempfile.mkdtemp(prefix="bench-dns.")
    processes = []
    try:
        print(f"machine: {os.cpu_count()} cores; {args.names} names; runs of {args.seconds} s; latency runs at {args.rate} qps")
        list_path = f"{work}/list.hosts"
        started = time.monotonic()
        size = generate_list(list_path, args.names)
        print(f"\nsynthetic list: {args.names} names, {size / 1e6:.1f} MB hosts format, generated in {time.monotonic() - started:.1f} s")

        # --- The list: parse + build, memory, lookups (separate processes, so nothing is shared).
        built = json.loads(subprocess.run([f"{args.bin_dir}/dns-bench", "build", list_path], capture_output=True, text=True,
                                          check=True).stdout)
        as_set = json.loads(subprocess.run([f"{args.bin_dir}/dns-bench", "build", list_path, "--set"], capture_output=True,
                                           text=True, check=True).stdout)
        set_mb = (built["rssAfterKiB"] - built["rssBeforeKiB"]) / 1024
        string_set_mb = (as_set["rssAfterKiB"] - as_set["rssBeforeKiB"]) / 1024
        print(f"\n== a {args.names}-name list ==")
        print(f"parse + build (streamed, 64 KiB reads): {built['seconds']:.2f} s for {built['lines']} lines, "
              f"{built['names']} names kept, {built['skipped']} skipped")
        print(f"suffix set: {built['allocatedBytes'] / 2**20:.1f} MiB allocated; RSS +{set_mb:.1f} MiB "
              f"(peak during build {(built['peakKiB'] - built['rssBeforeKiB']) / 1024:.1f} MiB over start)")
        print(f"same names in a Set<String>: RSS +{string_set_mb:.1f} MiB, {as_set['seconds']:.2f} s  "
              f"-> suffix set uses {set_mb / string_set_mb:.2f}x the memory")
        print(f"lookup per query: {built['lookupHitNs']:.0f} ns for a name under a listed one, {built['lookupMissNs']:.0f} ns for "
              f"an unlisted name; full policy verdict {built['verdictNs']:.0f} ns")

        # --- Forwarding overhead against dnsmasq.
        dnsmasq, dnsmasq_port = start_dnsmasq(work)
        processes.append(dnsmasq)
        relay, relay_port = start_dnsmasq(work, dnsmasq_port)
        processes.append(relay)
        idle = Forwarder(args.bin_dir, dnsmasq_port)
        processes.append(idle.process)
        # The same forwarder with the site meter counting every forwarded query (all are under
        # bench.test, one of 1 000 metered names): the worst case of the meter's hot-path cost.
        metered = Forwarder(args.bin_dir, dnsmasq_port, metered=True)
        processes.append(metered.process)
        # The forwarder without its answer cache: every query a round trip to dnsmasq.
        uncached = Forwarder(args.bin_dir, dnsmasq_port, cache=False)
        processes.append(uncached.process)
        forwarded_queries = f"{work}/forwarded.txt"
        blocked_queries = f"{work}/blocked.txt"
        write_queries(forwarded_queries, 10_000, "bench.test")
        write_queries(blocked_queries, 10_000, "blocked.test")
        dnsperf(idle.port, forwarded_queries, 1)  # warm-up
        dnsperf(dnsmasq_port, forwarded_queries, 1)
        dnsperf(metered.port, forwarded_queries, 1)
        dnsperf(uncached.port, forwarded_queries, 1)

        targets = [("dnsmasq", dnsmasq_port, forwarded_queries), ("forwarder", idle.port, forwarded_queries),
                   ("metered", metered.port, forwarded_queries), ("uncached", uncached.port, forwarded_queries),
                   ("blocked", idle.port, blocked_queries), ("relay", relay_port, forwarded_queries)]
        best = {}
        for _ in range(2):
            for target, port, queries in targets:
                run = dnsperf(port, queries, args.seconds)
                if run.get("qps", 0) > best.get(target, {}).get("qps", 0):
                    best[target] = run
        latency = {}
        for _ in range(2):
            for target, port, queries in targets:
                run = dnsperf(port, queries, args.seconds, rate=args.rate, verbose=True)
                p50 = percentile(run["latencies"], 0.5)
                if target not in latency or p50 < latency[target]["p50"]:
                    latency[target] = {"p50": p50, "p99": percentile(run["latencies"], 0.99), "max": max(run["latencies"]),
                                       "lost": run.get("lost", 0)}
        idle_stats = idle.stats()
        print("\n== forwarding overhead (dnsperf, loopback, same query file, same run; best of 2) ==")
        for target in ["dnsmasq", "forwarder", "uncached", "metered", "blocked", "relay"]:
            label = {"dnsmasq": "dnsmasq directly", "forwarder": "forwarder -> dnsmasq", "blocked": "forwarder, blocked names",
                     "relay": "dnsmasq relay -> dnsmasq", "metered": "forwarder, every query metered",
                     "uncached": "forwarder, no answer cache"}[target]
            print(f"{label:28s} {best[target]['qps']:9.0f} qps (lost {best[target].get('lost', 0)}); at {args.rate} qps: "
                  f"p50 {latency[target]['p50'] * 1e6:6.0f} us, p99 {latency[target]['p99'] * 1e6:6.0f} us, "
                  f"max {latency[target]['max'] * 1e3:5.1f} ms")
        print(f"forwarder/dnsmasq: p50 latency {latency['forwarder']['p50'] / latency['dnsmasq']['p50']:.2f}x (goal <= 1.5x), "
              f"p99 {latency['forwarder']['p99'] / latency['dnsmasq']['p99']:.2f}x; "
              f"throughput {best['forwarder']['qps'] / best['dnsmasq']['qps']:.2f}x (goal >= 0.8x)")
        print(f"forwarder (with its cache: {idle_stats['fromCache']} of {idle_stats['queries']} queries answered from it)/dnsmasq: "
              f"the ratios above; without the cache: p50 {latency['uncached']['p50'] / latency['dnsmasq']['p50']:.2f}x, "
              f"throughput {best['uncached']['qps'] / best['dnsmasq']['qps']:.2f}x")
        print(f"forwarder without cache/dnsmasq relay (both one hop in front of dnsmasq, no cache): p50 "
              f"{latency['uncached']['p50'] / latency['relay']['p50']:.2f}x, p99 {latency['uncached']['p99'] / latency['relay']['p99']:.2f}x, "
              f"throughput {best['uncached']['qps'] / best['relay']['qps']:.2f}x; added p50 latency over dnsmasq directly: "
              f"{(latency['uncached']['p50'] - latency['dnsmasq']['p50']) * 1e6:.0f} us (relay: "
              f"{(latency['relay']['p50'] - latency['dnsmasq']['p50']) * 1e6:.0f} us)")
        metered_stats = metered.stats()
        print(f"site meter (every query counted, 1 000 metered names)/forwarder: p50 latency "
              f"{latency['metered']['p50'] / latency['forwarder']['p50']:.2f}x, p99 {latency['metered']['p99'] / latency['forwarder']['p99']:.2f}x, "
              f"throughput {best['metered']['qps'] / best['forwarder']['qps']:.2f}x; {metered_stats['metered']} of "
              f"{metered_stats['answered'] + metered_stats['fromCache']} answers counted")
        metered.close()
        processes.remove(metered.process)
        uncached.close()
        processes.remove(uncached.process)
        print(f"blocked answers/dnsmasq: throughput {best['blocked']['qps'] / best['dnsmasq']['qps']:.2f}x, "
              f"p50 {latency['blocked']['p50'] / latency['dnsmasq']['p50']:.2f}x")
        print(f"forwarder counters: {idle_stats['queries']} queries, {idle_stats['failed']} SERVFAIL, "
              f"{idle_stats['timeouts']} upstream timeouts; RSS {idle_stats['rssKiB'] / 1024:.1f} MiB")
        idle_rss = idle_stats["rssKiB"]
        idle.close()
        processes.remove(idle.process)

        # --- The list in force, and swaps under load.
        loaded = Forwarder(args.bin_dir, dnsmasq_port, list_path)
        processes.append(loaded.process)
        dnsperf(loaded.port, forwarded_queries, 1)
        steady = loaded.stats()
        print("\n== the forwarder with the list in force ==")
        print(f"policy build at start: {loaded.started['buildSeconds']:.2f} s; RSS {steady['rssKiB'] / 1024:.1f} MiB vs "
              f"{idle_rss / 1024:.1f} MiB without the list: +{(steady['rssKiB'] - idle_rss) / 1024:.1f} MiB (goal <= 64 MiB)")
        calm = dnsperf(loaded.port, forwarded_queries, args.seconds, rate=args.rate, verbose=True)
        swap_times = []
        swap_memory = []

        def swapper():
            time.sleep(1)
            # At least one swap, also in the short mode's one-second runs.
            deadline = time.monotonic() + max(args.seconds * 2 - 3, 0.5)
            while time.monotonic() < deadline:
                answer = loaded.command("swap").split(" ", 2)
                swap_times.append(float(answer[1]))
                swap_memory.append(json.loads(answer[2]))
                time.sleep(0.5)

        thread = threading.Thread(target=swapper)
        thread.start()
        stormy = dnsperf(loaded.port, forwarded_queries, args.seconds * 2, rate=args.rate, verbose=True)
        thread.join()
        after = loaded.stats()
        print(f"at {args.rate} qps without swaps: p99 {percentile(calm['latencies'], 0.99) * 1e6:.0f} us, "
              f"max {max(calm['latencies']) * 1e3:.1f} ms, lost {calm.get('lost', 0)}")
        print(f"at {args.rate} qps with {len(swap_times)} full rebuilds + swaps of the list "
              f"({min(swap_times):.2f}-{max(swap_times):.2f} s each): p99 {percentile(stormy['latencies'], 0.99) * 1e6:.0f} us, "
              f"p99.9 {percentile(stormy['latencies'], 0.999) * 1e3:.1f} ms, longest stall (max latency) "
              f"{max(stormy['latencies']) * 1e3:.1f} ms (goal <= 50 ms), lost {stormy.get('lost', 0)}, "
              f"codes {stormy.get('codes', '')}")
        print(f"RSS after the swaps {after['rssKiB'] / 1024:.1f} MiB (peak {after['peakKiB'] / 1024:.1f} MiB; "
              f"steady before {steady['rssKiB'] / 1024:.1f} MiB)")
        loaded.close()
        processes.remove(loaded.process)

        daemon_figures(args, work, list_path, dnsmasq_port, forwarded_queries)
    finally:
        for process in processes:
            process.kill()
            process.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
