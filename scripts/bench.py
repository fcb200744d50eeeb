#!/usr/bin/env python3
"""Foundation benchmark; see bench.sh. Arguments: BIN_DIR DATA_DIR."""
import json
import shutil
import statistics
import subprocess
import sys
import time

from benchlib import scratch_root, start_daemon, status_kib, write_domain_profile

bin_dir, data_dir = sys.argv[1], sys.argv[2]
root = scratch_root("simplylock-bench.")
hosts = f"{root}/etc/hosts"
lockctl = [f"{bin_dir}/lockctl", "--root", root]


daemon = start_daemon(bin_dir, root, data_dir)
try:
    time.sleep(2)
    print(f"simplylockd idle RSS: {status_kib(daemon.pid) / 1024:.1f} MiB")

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
        write_domain_profile(root, name, count)
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
                active_rss = status_kib(daemon.pid)
            subprocess.run(lockctl + ["stop", name], capture_output=True, check=True)
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
