#!/usr/bin/env python3
"""nftables benchmark; see bench-nftables.sh. Runs inside `unshare -n`. Arguments: BIN_DIR DATA_DIR."""
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
sizes = (1_000, 10_000, 100_000)


def address(i):
    return f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"


for n in sizes:
    body = "\n".join(f'    "{address(i * 2)}",' for i in range(n))
    with open(f"{root}/etc/simplylock/profiles.d/addr-{n}.toml", "w") as f:
        f.write(f'name = "addr-{n}"\naddresses = [\n{body}\n]\n')

daemon = start_daemon(bin_dir, root, data_dir, enforcers="hosts,nftables")
try:
    time.sleep(1)
    print(f"simplylockd RSS idle with nftables, the three profiles (111 000 addresses) loaded: "
          f"{status_kib(daemon.pid, 'VmRSS') / 1024:.1f} MiB")
    for n in sizes:
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(lockctl + ["start", f"addr-{n}", "1h"], capture_output=True, check=True)
            runs.append(time.perf_counter() - t)
            out = subprocess.run(["nft", "list", "set", "inet", "simplylock", "block4"], capture_output=True, text=True).stdout
            assert address((n - 1) * 2) in out, f"the set lacks the last address for {n}"
            if n == sizes[-1]:
                rss, hwm = status_kib(daemon.pid, "VmRSS"), status_kib(daemon.pid, "VmHWM")
            subprocess.run(lockctl + ["stop", f"addr-{n}"], capture_output=True, check=True)
        print(f"{n:>7} addresses: `lockctl start` until committed: median {statistics.median(runs) * 1000:.0f} ms "
              f"(min {min(runs) * 1000:.0f}, max {max(runs) * 1000:.0f}; 3 runs)")
    print(f"simplylockd with 100 000 elements in force: VmRSS {rss / 1024:.1f} MiB, peak VmHWM {hwm / 1024:.1f} MiB")
finally:
    daemon.terminate()
    daemon.wait()

# The same table loaded with the nft program, for comparison.
for n in sizes:
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
    print(f"{n:>7} addresses with `nft -f` (new table): {elapsed * 1000:.0f} ms")
shutil.rmtree(root, ignore_errors=True)
