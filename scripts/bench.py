#!/usr/bin/env python3
"""Foundation benchmark; see bench.sh. Arguments: BIN_DIR DATA_DIR."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

bin_dir, data_dir = sys.argv[1], sys.argv[2]
root = tempfile.mkdtemp(prefix="simplylock-bench.")
os.makedirs(f"{root}/etc/simplylock/profiles.d")
hosts = f"{root}/etc/hosts"
with open(hosts, "w") as f:
    f.write("127.0.0.1 localhost\n::1 localhost\n")
lockctl = [f"{bin_dir}/lockctl", "--root", root]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def write_profile(name, count):
    domains = "\n".join(f'    "d{i:05d}.bench.example",' for i in range(count))
    with open(f"{root}/etc/simplylock/profiles.d/{name}.toml", "w") as f:
        f.write(f'name = "{name}"\ndomains = [\n{domains}\n]\n')


daemon = subprocess.Popen([f"{bin_dir}/simplylockd", "--root", root, "--data-dir", data_dir, "--enforcers", "hosts"],
                          stderr=subprocess.DEVNULL)
try:
    for _ in range(200):
        if subprocess.run(lockctl + ["status"], capture_output=True).returncode == 0:
            break
        time.sleep(0.05)
    time.sleep(2)
    print(f"simplylockd idle RSS: {rss_kib(daemon.pid) / 1024:.1f} MiB")

    if shutil.which("hyperfine"):
        export = f"{root}/hyperfine.json"
        subprocess.run(["hyperfine", "--warmup", "5", "--runs", "100", "-N", "--export-json", export,
                        " ".join(lockctl + ["status"])], check=True, capture_output=True)
        result = json.load(open(export))["results"][0]
        print(f"lockctl status whole process: mean {result['mean'] * 1000:.1f} ms, "
              f"median {result['median'] * 1000:.1f} ms, min {result['min'] * 1000:.1f} ms (hyperfine, 100 runs)")
    else:
        runs = []
        for _ in range(50):
            t = time.perf_counter()
            subprocess.run(lockctl + ["status"], capture_output=True, check=True)
            runs.append(time.perf_counter() - t)
        print(f"lockctl status whole process: median {statistics.median(runs) * 1000:.1f} ms (50 runs)")

    for count in (10, 10_000):
        name = f"bench-{count}"
        write_profile(name, count)
        subprocess.run(lockctl + ["reload"], capture_output=True, check=True)
        last = f"www.d{count - 1:05d}.bench.example"
        starts, after = [], []
        for _ in range(10):
            t0 = time.perf_counter()
            subprocess.run(lockctl + ["start", name, "1h"], capture_output=True, check=True)
            t1 = time.perf_counter()
            while True:
                with open(hosts) as f:
                    if last in f.read():
                        break
            t2 = time.perf_counter()
            starts.append(t1 - t0)
            after.append(t2 - t1)
            if count == 10_000 and len(starts) == 1:
                active_rss = rss_kib(daemon.pid)
            subprocess.run(lockctl + ["stop", name], capture_output=True, check=True)
        size = os.path.getsize(hosts)
        print(f"{count:>6}-domain profile: hosts file in place {statistics.median(after) * 1000:.2f} ms after "
              f"`lockctl start` returned (max {max(after) * 1000:.2f} ms; the daemon writes before answering); "
              f"`lockctl start` takes median {statistics.median(starts) * 1000:.1f} ms, max {max(starts) * 1000:.1f} ms")
    print(f"simplylockd RSS with the 10 000-domain block active: {active_rss / 1024:.1f} MiB")
    with open(hosts, "w") as f:
        f.write("")
finally:
    daemon.terminate()
    daemon.wait()
    shutil.rmtree(root, ignore_errors=True)
