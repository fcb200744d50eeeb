#!/usr/bin/env bash
# What a flood of queries to many distinct servers costs everyone else's DNS while the filter's
# redirect is in force behind a local stub: each redirected query to a server not yet judged
# makes the filter check whether the stub sent it (sock_diag, /proc). Same run, same binary:
# dnsperf through the stub (127.0.1.1 -> filter -> peer) without and with the flood.
#
#   scripts/bench-stub-flood.sh BIN_DIR [SECONDS] [FLOOD_QPS]     (as root)
#
# Everything runs in private network and mount namespaces (Tests/Scripts/netns-lib.sh); the
# flood goes to 10.77.0.0/16, routed to a peer namespace that answers nothing there.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests="$here/../Tests/Scripts"
bin="${1:?usage: $0 BIN_DIR [SECONDS] [FLOOD_QPS]}"
data="$here/../config"
# netns_enter runs this script again inside the namespaces with BIN_DIR DATA_DIR only.
if [ "${NETNS_INNER:-}" != 1 ]; then export BENCH_SECONDS="${2:-8}" BENCH_FLOOD_QPS="${3:-2000}"; fi
seconds="$BENCH_SECONDS"
flood_qps="$BENCH_FLOOD_QPS"
# dnsperf asks at 500 qps through the stub (a busy desktop's worth), FLOOD_QPS go to other servers.

. "$tests/netns-lib.sh"
netns_enter 600 nft dnsmasq dig dnsperf

here="$tests"
netns_setup bench-stub-flood
peer() { nsenter -t "$peer_pid" -n "$@"; }
netns peer_pid
ip link add veth0 type veth peer name veth1 netns "$peer_pid"
ip addr add 198.18.0.1/24 dev veth0
ip link set veth0 up
peer ip link set lo up
peer ip addr add 198.18.0.2/24 dev veth1
peer ip link set veth1 up
# Via the peer: one neighbour entry, not one per flooded address.
ip route add 10.77.0.0/16 via 198.18.0.2
peer dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=53 --user=root --group=root --pid-file="$work/peer.pid" \
    --address=/bench.test/198.18.0.4 --address=/blocked.test/198.18.0.3 &
pids+=("$!")
dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=127.0.1.1 --port=53 --user=root --group=root --pid-file="$work/stub.pid" \
    --cache-size=0 --dns-forward-max=1000 --server=198.18.0.2 &
pids+=("$!")
for _ in $(seq 100); do dig +time=1 +tries=1 @127.0.1.1 a.bench.test >/dev/null 2>&1 && break; sleep 0.05; done

mkdir -p "$root/etc/simplylock"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'nameserver 127.0.1.1\n' >"$root/etc/resolv.conf"
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf
"$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns >>"$work/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 400); do "$bin/lockctl" --root "$root" status >/dev/null 2>&1 && break; sleep 0.05; done
"$bin/lockctl" --root "$root" profiles create site --domain blocked.test >/dev/null
"$bin/lockctl" --root "$root" start site 30m >/dev/null || { echo "the block did not start"; tail "$work/daemon.log"; exit 1; }
sleep 1

python3 - "$work" "$seconds" "$flood_qps" <<'PY'
import random, socket, struct, subprocess, sys, threading, time

work, seconds, flood_qps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
queries = f"{work}/queries.txt"
with open(queries, "w") as f:
    for i in range(20000):
        f.write(f"n{i}.bench.test A\n")


def dnsperf():
    output = subprocess.run(["dnsperf", "-s", "127.0.1.1", "-d", queries, "-l", str(seconds), "-Q", "500", "-q", "100", "-v"],
                            capture_output=True, text=True).stdout
    latencies = []
    for line in output.splitlines():
        if line.startswith("> NOERROR"):
            try:
                latencies.append(float(line.rsplit(" ", 1)[1]))
            except ValueError:
                pass
    latencies.sort()
    lost = next((line.split(":")[1].split()[0] for line in output.splitlines() if "Queries lost:" in line), "?")
    return latencies, lost


def flood(stop, sent):
    # Ordinary user traffic: one query each to a different server (10.77.x.y), never answered.
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    packet = struct.pack(">6H", 0x4242, 0x0100, 1, 0, 0, 0) + b"\x01x\x05bench\x04test\x00" + struct.pack(">2H", 1, 1)
    interval = 1 / flood_qps
    next_at = time.monotonic()
    while not stop.is_set():
        try:
            s.sendto(packet, (f"10.77.{random.randrange(256)}.{random.randrange(1, 255)}", 53))
            sent[0] += 1
        except OSError:
            pass
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def show(label, latencies, lost):
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1e6
    print(f"{label:34s} {len(latencies):6d} answers, lost {lost}: p50 {p(0.5):7.0f} us, p99 {p(0.99):7.0f} us, "
          f"max {latencies[-1] * 1e3:6.1f} ms")
    return p(0.5), p(0.99)


dnsperf()  # warm-up: the stub's upstream learnt, the cache filled
quiet = show("through the stub, no flood", *dnsperf())
stop, sent = threading.Event(), [0]
thread = threading.Thread(target=flood, args=(stop, sent))
thread.start()
time.sleep(1)
busy = show(f"with {flood_qps} qps to distinct servers", *dnsperf())
stop.set()
thread.join()
print(f"flood: {sent[0]} queries sent; flood/quiet: p50 {busy[0] / quiet[0]:.2f}x, p99 {busy[1] / quiet[1]:.2f}x")
PY
"$bin/lockctl" --root "$root" status --json | python3 -c '
import json, sys
dns = [e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "dns"][0]["details"]
print("dns filter:", {k: dns.get(k) for k in ["queries", "toOriginalDestination", "fromCache", "stubUpstreams"]})'
