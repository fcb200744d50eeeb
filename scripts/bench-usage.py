"""Times usage queries over a year of synthetic minutes (scripts/gen-usage-history.py) against
GET /v1/status and `lockctl status` measured in the same run, and measures the app meter's cost
(CPU per metered hour, wakeups per idle minute) against the same daemon with the meter slowed to
one sample per 10 minutes. Prints medians and ratios."""
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

from benchlib import cpu_and_switches, difference, scratch_root


def timed(command, runs):
    """Median and maximum wall time of running `command` `runs` times."""
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


def start(bin_dir, root, data_dir, sample):
    env = dict(os.environ, SIMPLYLOCK_USAGE_SAMPLE=sample, DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent/bench-usage-bus")
    daemon = subprocess.Popen([f"{bin_dir}/simplylockd", "--root", root, "--data-dir", data_dir, "--enforcers", "hosts"],
                              stderr=subprocess.DEVNULL, env=env)
    for _ in range(200):
        if subprocess.run([f"{bin_dir}/lockctl", "--root", root, "status"], capture_output=True).returncode == 0:
            return daemon
        time.sleep(0.05)
    daemon.kill()
    raise RuntimeError("simplylockd did not answer")


def meter_cost(bin_dir, data_dir, game, seconds, sample):
    """(CPU seconds, context switches) of the daemon over `seconds`, idle and with the game running."""
    root = scratch_root("/tmp/simplylock-bench-usage-meter.")
    try:
        os.makedirs(f"{root}/opt/fakegame")
        shutil.copy(game, f"{root}/opt/fakegame/fakegame")
        os.makedirs(f"{root}/usr/share/applications")
        with open(f"{root}/usr/share/applications/fakegame.desktop", "w") as f:
            f.write(f"[Desktop Entry]\nType=Application\nName=Fake Game\nExec={root}/opt/fakegame/fakegame\nCategories=Game;\n")
        daemon = start(bin_dir, root, data_dir, sample)
        try:
            time.sleep(2)
            before = cpu_and_switches(daemon.pid)
            time.sleep(seconds)
            idle = difference(cpu_and_switches(daemon.pid), before)
            running = subprocess.Popen([f"{root}/opt/fakegame/fakegame", "wait"], stdout=subprocess.DEVNULL)
            time.sleep(1)
            before = cpu_and_switches(daemon.pid)
            time.sleep(seconds)
            busy = difference(cpu_and_switches(daemon.pid), before)
            running.kill()
            running.wait()
            return idle, busy
        finally:
            daemon.terminate()
            daemon.wait()
    finally:
        subprocess.run(["rm", "-rf", root])


def main():
    bin_dir, data_dir = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    here = os.path.dirname(os.path.abspath(__file__))
    root = scratch_root("/tmp/simplylock-bench-usage.")
    database = f"{root}/var/lib/simplylock/state.sqlite"
    daemon = start(bin_dir, root, data_dir, "600,600")
    daemon.terminate()
    daemon.wait()
    began = time.perf_counter()
    print(subprocess.run([sys.executable, f"{here}/gen-usage-history.py", database], capture_output=True, text=True,
                         check=True).stdout.strip(), f"(generated in {time.perf_counter() - began:.0f} s)")
    size = sum(os.path.getsize(f"{database}{s}") for s in ["", "-wal", "-shm"] if os.path.exists(f"{database}{s}"))
    print(f"database: {size / 1e6:.1f} MB")
    daemon = start(bin_dir, root, data_dir, "600,600")
    try:
        lockctl = [f"{bin_dir}/lockctl", "--root", root]
        year_from = (datetime.now(timezone.utc) - timedelta(days=365)).strftime("%Y-%m-%dT%H:%M:%SZ")
        socket_path = f"{root}/run/simplylock/lockctl.sock"
        request(socket_path, f"/v1/usage?from={year_from}")  # warm the page cache
        api = {}
        for label, path in [("status", "/v1/status")] + [(by, f"/v1/usage?from={year_from}&by={by}") for by in ["app", "category", "site", "group"]]:
            samples = []
            for _ in range(runs):
                t = time.perf_counter()
                request(socket_path, path)
                samples.append(time.perf_counter() - t)
            api[label] = (statistics.median(samples), max(samples))
        baseline, baseline_max = timed(lockctl + ["status", "--json"], runs)
        year, year_max = timed(lockctl + ["usage", "--days", "365", "--json"], runs)
        print(f"API round trip alone, median of {runs} (max):")
        print(f"  GET /v1/status (baseline)            {api['status'][0] * 1000:6.1f} ms ({api['status'][1] * 1000:.1f})")
        for by in ["app", "category", "site", "group"]:
            median, most = api[by]
            print(f"  GET /v1/usage a year, by={by:<9}  {median * 1000:6.1f} ms ({most * 1000:.1f})  {median / api['status'][0]:.2f}x baseline")
        print(f"whole process, median of {runs} (max):")
        print(f"  lockctl status --json (baseline)     {baseline * 1000:6.1f} ms ({baseline_max * 1000:.1f})")
        print(f"  lockctl usage --days 365 --json      {year * 1000:6.1f} ms ({year_max * 1000:.1f})  {year / baseline:.2f}x baseline")
    finally:
        daemon.terminate()
        daemon.wait()
        subprocess.run(["rm", "-rf", root])
    if os.environ.get("SKIP_METER"):
        return
    game = os.environ.get("FAKE_GAME") or "/tmp/simplylock-fakegame-v1/game"
    if not os.access(game, os.X_OK):
        print(f"meter cost: skipped ({game} missing: run the integration tests once, or set FAKE_GAME)")
        return
    seconds = 60
    (idle_cpu, idle_switches), (busy_cpu, busy_switches) = meter_cost(bin_dir, data_dir, game, seconds, "60,10")
    (base_idle_cpu, base_idle_switches), (base_busy_cpu, base_busy_switches) = meter_cost(bin_dir, data_dir, game, seconds, "600,600")
    print(f"app meter over {seconds} s each (baseline: the same daemon sampling every 600 s):")
    print(f"  idle minute: {idle_switches} context switches (baseline {base_idle_switches}), CPU {idle_cpu * 1000:.0f} ms (baseline {base_idle_cpu * 1000:.0f} ms)")
    print(f"  metered: CPU {busy_cpu * 3600 / seconds:.2f} s per metered hour (baseline {base_busy_cpu * 3600 / seconds:.2f} s), "
          f"{busy_switches} context switches a minute (baseline {base_busy_switches})")


if __name__ == "__main__":
    main()
