#!/usr/bin/env bash
# The site meter's cost with the firewall's byte counters, in private network and mount
# namespaces (the machine's ruleset is never touched): daemon CPU per metered hour while a site
# streams 100 kB/s from a cached address (the sampler at 10 s, counters read each sample), and
# context switches per idle minute (each one a wake-up of a daemon thread), against a baseline
# measured in the same run: the same daemon with every meter slowed to one sample per 10 minutes.
# A third row: the meters at their normal pace with nothing metered (no allowance, no table).
# Needs root, nft, dnsmasq. Run by scripts/bench-usage.sh (SECONDS_EACH, default 60), or:
#   scripts/bench-usage-sites.sh BIN_DIR DATA_DIR
set -u

scripts="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# netns-lib.sh finds tap.sh beside it.
here="$scripts/../Tests/Scripts"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"
each="${SECONDS_EACH:-60}"
export SECONDS_EACH="$each"

. "$here/netns-lib.sh"

netns_enter $((12 * each + 300)) nft dnsmasq

netns_setup bench-usage-sites
netns peer_pid
link "$peer_pid" veth0 198.18.0.1 veth1 198.18.0.2
nsenter -t "$peer_pid" -n ip addr add 198.18.0.5/24 dev veth1
nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=53 --user=root --group=root --pid-file="$work/peer-dnsmasq.pid" \
    --address=/video.test/198.18.0.5 &
pids+=("$!")
nsenter -t "$peer_pid" -n python3 -c '
import socket, threading, time
def serve(c):
    try:
        while True:
            c.sendall(b"v" * 10000)
            time.sleep(0.1)
    except OSError:
        c.close()
s = socket.create_server(("198.18.0.5", 8080))
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
' &
pids+=("$!")
mkdir -p "$root/etc/simplylock/profiles.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'nameserver 198.18.0.2\n' >"$root/etc/resolv.conf"
printf 'name = "clips"\ndomains = ["video.test"]\n' >"$root/etc/simplylock/profiles.d/clips.toml"
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf

# run LABEL SAMPLE ALLOWANCE(yes|no) STREAM(yes|no): prints "LABEL idle_cpu idle_switches busy_cpu busy_switches"
run() {
    rm -rf "$root/var/lib/simplylock" "$root/etc/simplylock/allowances.d"
    SIMPLYLOCK_USAGE_SAMPLE=$2 DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/bench-bus \
        "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns >/dev/null 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && break; sleep 0.05; done
    if [ "$3" = yes ]; then
        lockctl allowances add watch --profile clips --daily 24h >/dev/null
        for _ in $(seq 400); do
            nft list map inet simplylock meters4 2>/dev/null | grep -q '198.18.0.5 : "m_' && break
            sleep 0.05
        done
    fi
    sleep 3
    python3 - "$daemon_pid" "$1" "$4" <<'PY'
import os, subprocess, sys, time
sys.path.insert(0, os.environ["BENCH_DIR"])
from benchlib import cpu_and_switches, difference
pid, label, stream = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "yes"
seconds = int(os.environ["SECONDS_EACH"])
before = cpu_and_switches(pid)
time.sleep(seconds)
idle = difference(cpu_and_switches(pid), before)
busy = (0.0, 0)
if stream:
    client = subprocess.Popen([sys.executable, "-c", """
import socket, time
c = socket.create_connection(("198.18.0.5", 8080), timeout=5)
while True: c.recv(65536)"""])
    time.sleep(1)
    before = cpu_and_switches(pid)
    time.sleep(seconds)
    busy = difference(cpu_and_switches(pid), before)
    client.kill()
print(label, idle[0], idle[1], busy[0], busy[1])
PY
    kill -TERM "$daemon_pid"
    wait "$daemon_pid"
    daemon_pid=
}

export BENCH_DIR="$scripts"
{
    run baseline 600,600 yes yes
    run nothing-metered 60,10 no no
    run metered 60,10 yes yes
} >"$work/results.txt"
python3 - "$work/results.txt" "$each" <<'PY'
import sys
rows = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in open(sys.argv[1]) if line.strip()}
seconds = float(sys.argv[2])
per_minute = 60 / seconds
base, idle, metered = rows["baseline"], rows["nothing-metered"], rows["metered"]
print(f"site meter with the firewall's byte counters, {seconds:.0f} s each (baseline: every meter sampling once per 600 s):")
print(f"  idle minute, sites metered (allowance, table with counters): {metered[1] * per_minute:.0f} context switches "
      f"(baseline {base[1] * per_minute:.0f}, +{(metered[1] - base[1]) * per_minute:.0f}), CPU {metered[0] * per_minute * 1000:.0f} ms "
      f"(baseline {base[0] * per_minute * 1000:.0f} ms)")
print(f"  idle minute, nothing metered (no allowance, no table):       {idle[1] * per_minute:.0f} context switches, "
      f"CPU {idle[0] * per_minute * 1000:.0f} ms")
print(f"  streaming 100 kB/s (firewall meter counting, 10 s samples):  CPU {metered[2] * 3600 / seconds:.2f} s per metered hour "
      f"(baseline {base[2] * 3600 / seconds:.2f} s, {metered[2] / base[2] if base[2] else float('inf'):.1f}x), "
      f"{metered[3] * per_minute:.0f} context switches a minute (baseline {base[3] * per_minute:.0f})")
PY
