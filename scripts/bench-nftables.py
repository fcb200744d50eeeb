#!/usr/bin/env python3
"""nftables benchmark; see bench-nftables.sh. Runs inside `unshare -n`. Arguments: BIN_DIR DATA_DIR."""
import os
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import scratch_root, start_daemon, status_kib

bin_dir, data_dir = sys.argv[1], sys.argv[2]
subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
root = scratch_root("simplylock-bench-nft.")
with open(f"{root}/etc/resolv.conf", "w") as f:
    f.write("nameserver 127.0.0.1\n")
lockctl = [f"{bin_dir}/lockctl", "--root", root]
# BENCH_SHORT=1 (scripts/test.sh): one small size, to see the script work, not to measure.
sizes = (1_000,) if os.environ.get("BENCH_SHORT") == "1" else (1_000, 10_000, 100_000)


def address(i):
    return f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"


for n in sizes:
    body = "\n".join(f'    "{address(i * 2)}",' for i in range(n))
    with open(f"{root}/etc/simplylock/profiles.d/addr-{n}.toml", "w") as f:
        f.write(f'name = "addr-{n}"\naddresses = [\n{body}\n]\n')


def nft_load(n):
    """The same addresses loaded with the nft program into a new table; returns seconds."""
    elements = ", ".join(address(i * 2) for i in range(n))
    script = (f"table inet benchcmp {{\n set s {{ type ipv4_addr; elements = {{ {elements} }} }}\n"
              f" chain o {{ type filter hook output priority 0; ip daddr @s reject; }}\n}}\n")
    path = f"{root}/cmp.nft"
    with open(path, "w") as f:
        f.write(script)
    t = time.perf_counter()
    subprocess.run(["nft", "-f", path], check=True)
    elapsed = time.perf_counter() - t
    subprocess.run(["nft", "delete", "table", "inet", "benchcmp"], check=True)
    return elapsed


daemon = start_daemon(bin_dir, root, data_dir, enforcers="hosts,nftables")
try:
    time.sleep(1)
    print(f"simplylockd RSS idle with nftables, the three profiles (111 000 addresses) loaded: "
          f"{status_kib(daemon.pid, 'VmRSS') / 1024:.1f} MiB")
    for n in sizes:
        ours, theirs = [], []
        # Alternated, so that load from elsewhere hits both alike.
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(lockctl + ["start", f"addr-{n}", "1h"], capture_output=True, check=True)
            ours.append(time.perf_counter() - t)
            out = subprocess.run(["nft", "list", "set", "inet", "simplylock", "shared4"], capture_output=True, text=True).stdout
            assert address((n - 1) * 2) in out, f"the set lacks the last address for {n}"
            if n == sizes[-1]:
                rss, hwm = status_kib(daemon.pid, "VmRSS"), status_kib(daemon.pid, "VmHWM")
            subprocess.run(lockctl + ["stop", f"addr-{n}"], capture_output=True, check=True)
            theirs.append(nft_load(n))
        a, b = statistics.median(ours) * 1000, statistics.median(theirs) * 1000
        print(f"nftables apply of {n} addresses, `lockctl start` to committed vs `nft -f` of the same set: "
              f"{a:.0f} ms / {b:.0f} ms = {a / b:.2f}×  (goal ≤ 1.0×; medians of 3)", flush=True)
    print(f"simplylockd with 100 000 elements in force: VmRSS {rss / 1024:.1f} MiB, peak VmHWM {hwm / 1024:.1f} MiB")
finally:
    daemon.terminate()
    daemon.wait()
shutil.rmtree(root, ignore_errors=True)
