"""Times insights over a year of synthetic history (scripts/gen-insights-history.py): the whole
`lockctl insights --month --json` process, a year-long window, and, as the baseline measured
in the same run, `lockctl status --json`; plus the API round trip alone (no process start) for
a month and a year, and the database's size. Prints medians and ratios to the baseline."""
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

from benchlib import scratch_root, start_daemon


def timed(command, runs):
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        result = subprocess.run(command, capture_output=True)
        samples.append(time.perf_counter() - began)
        if result.returncode != 0:
            raise RuntimeError(f"{command}: {result.stderr.decode()}")
    return statistics.median(samples), max(samples)


def request(socket_path, path):
    """One GET over the Unix socket; returns the body."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(socket_path)
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if b" 200 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(head.decode() + body.decode())
    return body


def main():
    bin_dir, data_dir, here = sys.argv[1], sys.argv[2], os.path.dirname(os.path.abspath(__file__))
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    root = scratch_root("/tmp/simplylock-bench-insights.")
    database = f"{root}/var/lib/simplylock/state.sqlite"
    daemon = start_daemon(bin_dir, root, data_dir)
    daemon.terminate()
    daemon.wait()
    began = time.perf_counter()
    # BENCH_SHORT=1 (scripts/test.sh): a small history, to see the script work, not to measure.
    sizes = ["--sessions", "200", "--attempts", "2000"] if os.environ.get("BENCH_SHORT") == "1" else []
    print(subprocess.run([sys.executable, f"{here}/gen-insights-history.py", database, *sizes], capture_output=True, text=True,
                         check=True).stdout.strip(),
          f"(generated in {time.perf_counter() - began:.0f} s)")
    size = sum(os.path.getsize(f"{database}{suffix}") for suffix in ["", "-wal", "-shm"] if os.path.exists(f"{database}{suffix}"))
    daemon = start_daemon(bin_dir, root, data_dir)
    try:
        lockctl = [f"{bin_dir}/lockctl", "--root", root]
        year_from = (datetime.now(timezone.utc) - timedelta(days=365)).strftime("%Y-%m-%dT%H:%M:%SZ")
        subprocess.run(lockctl + ["insights", "--month", "--json"], capture_output=True, check=True)  # warm the page cache
        baseline, baseline_max = timed(lockctl + ["status", "--json"], runs)
        month, month_max = timed(lockctl + ["insights", "--month", "--json"], runs)
        year, year_max = timed(lockctl + ["insights", "--from", year_from[:10], "--json"], runs)
        socket_path = f"{root}/run/simplylock/lockctl.sock"
        month_start = datetime.now(timezone.utc).replace(day=1, hour=0, minute=0, second=0).strftime("%Y-%m-%dT%H:%M:%SZ")
        api = {}
        for label, path in [("status", "/v1/status"), ("month", f"/v1/insights?from={month_start}"), ("year", f"/v1/insights?from={year_from}")]:
            samples = []
            for _ in range(runs):
                began = time.perf_counter()
                body = request(socket_path, path)
                samples.append(time.perf_counter() - began)
            api[label] = statistics.median(samples)
            if label == "year":
                answer = json.loads(body)
                totals = answer["totals"]
        print(f"database: {size / 1e6:.1f} MB (state.sqlite with its WAL)")
        print(f"year window: {len(answer['days'])} days, {totals['focusSeconds'] / 3600:.0f} h focus, {totals['siteAttempts'] + totals['appAttempts']} attempts")
        print(f"whole process, median of {runs} (max):")
        print(f"  lockctl status --json (baseline)          {baseline * 1000:6.1f} ms ({baseline_max * 1000:.1f})")
        print(f"  lockctl insights --month --json           {month * 1000:6.1f} ms ({month_max * 1000:.1f})  {month / baseline:.2f}x baseline")
        print(f"  lockctl insights --from (a year) --json   {year * 1000:6.1f} ms ({year_max * 1000:.1f})  {year / baseline:.2f}x baseline")
        print("API round trip alone (no process start), median:")
        print(f"  GET /v1/status (baseline)                 {api['status'] * 1000:6.1f} ms")
        print(f"  GET /v1/insights, this month              {api['month'] * 1000:6.1f} ms  {api['month'] / api['status']:.2f}x baseline")
        print(f"  GET /v1/insights, a year                  {api['year'] * 1000:6.1f} ms  {api['year'] / api['status']:.2f}x baseline")
    finally:
        daemon.terminate()
        daemon.wait()
        subprocess.run(["rm", "-rf", root])


if __name__ == "__main__":
    main()
