#!/usr/bin/env bash
# The firewall's byte meter (meter "firewall"): a site streaming from an address the client
# already knows, with no DNS query at all, is metered by the bytes its address moves, through
# the real simplylockd and lockctl in private network and mount namespaces.
#
#   Tests/Scripts/netns-fwmeter-test.sh BIN_DIR DATA_DIR      (as root)
#
# Nothing outside the namespaces is touched: the machine's ruleset and /etc/resolv.conf stay as
# they are (/etc/resolv.conf is bind-mounted in the private mount namespace only).
#
#   test namespace (simplylockd, client)     veth0 198.18.0.1/24
#        |
#   peer namespace ("the internet")          veth1 198.18.0.2: dnsmasq on :53, video.test → 198.18.0.5
#                                                  198.18.0.5: a server that streams 100 kB a second
#
# Profile clips lists video.test; allowance watch (1 h a day, never used up here) makes the daemon
# meter sites without a block. The daemon resolves video.test itself (its queries pass the DNS
# filter unseen) and counts the bytes to and from 198.18.0.5. The client never asks DNS: it
# connects to 198.18.0.5 as a browser with a cached answer would. 20 idle seconds count nothing;
# 30 seconds of streaming count about 30, as meter firewall in `lockctl usage --explain`; after a
# restart, 20 more idle seconds add nothing. Prints "ok - …" / "not ok - …" and "N passed, M
# failed"; exits 0 only when all passed, 77 after "SKIP: reason" when the machine cannot run it.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

netns_enter 300 nft dnsmasq

# ---- inside the namespaces ------------------------------------------------------------------

netns_setup netns-fwmeter-test
start_daemon() {
    SIMPLYLOCK_USAGE_SAMPLE=1,1 DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/simplylock-bus \
        "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns --log-level debug \
        >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
    echo "simplylockd did not answer"; tail -20 "$work/daemon.log"; return 1
}
stop_daemon() { kill -TERM "$daemon_pid"; wait "$daemon_pid"; local status=$?; daemon_pid=; echo "exit $status"; return $status; }

netns peer_pid
link "$peer_pid" veth0 198.18.0.1 veth1 198.18.0.2
nsenter -t "$peer_pid" -n ip addr add 198.18.0.5/24 dev veth1

nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=53 --user=root --group=root --pid-file="$work/peer-dnsmasq.pid" \
    --log-queries --log-facility="$work/peer-dnsmasq.log" --local-ttl=1 --address=/video.test/198.18.0.5 &
pids+=("$!")
# Streams 100 kB a second (10 kB every 0.1 s) to each client for as long as it stays.
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
for _ in $(seq 100); do python3 -c 'import socket; socket.create_connection(("198.18.0.5", 8080), timeout=1).close()' 2>/dev/null && break; sleep 0.05; done

mkdir -p "$root/etc/simplylock/profiles.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'nameserver 198.18.0.2\noptions timeout:2 attempts:2\n' >"$root/etc/resolv.conf"
printf 'checkpoint_interval = "1s"\n' >"$root/etc/simplylock/simplylockd.toml"
printf 'name = "clips"\ndomains = ["video.test"]\n' >"$root/etc/simplylock/profiles.d/clips.toml"
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf

site_seconds() { # site_seconds NAME: seconds of NAME today by site
    lockctl usage --by site --days 2 --json | python3 -c '
import json, sys
print({i["name"]: i["seconds"] for i in json.load(sys.stdin)["items"]}.get(sys.argv[1], 0))' "$1"
}
stream() { # stream SECONDS: reads the stream from the address itself, no DNS
    python3 -c '
import socket, sys, time
c = socket.create_connection(("198.18.0.5", 8080), timeout=5); n = 0; end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end: n += len(c.recv(65536))
c.close(); print(n, "bytes")' "$1"
}
counted() { nft list map inet simplylock meters4 2>/dev/null | grep -q '198.18.0.5 : "m_'; }

start_daemon || exit 1
expect "allowance added" lockctl allowances add watch --profile clips --daily 1h
expect "the table counts video.test's address within 10 s (the daemon resolved it itself)" time_until 10000 counted
expect "the byte counters sit in a chain that only counts, for both directions and the input hook" \
    sh -c 'nft list chain inet simplylock usage | grep -q "saddr map @meters4" && nft list chain inet simplylock input | grep -q "jump usage"'

echo "# 20 idle seconds: no traffic to video.test"
sleep 20
echo "# 30 seconds of streaming from 198.18.0.5, without a DNS query"
expect "streamed" stream 30
bytes="$(nft list counters table inet simplylock | awk '/comment "video.test"/ { getline; print $4 }')"
expect "video.test's counter holds the stream, replies included (bytes)" sh -c "[ '${bytes:-0}' -ge 2500000 ] && echo '$bytes'"
stop_daemon >"$work/stop.txt"
expect "simplylockd stops cleanly" grep -x "exit 0" "$work/stop.txt"

start_daemon || exit 1
used="$(site_seconds video.test)"
expect "usage by site: video.test about the 30 streamed seconds, not the 20 idle ones (s)" \
    sh -c "[ '$used' -ge 25 ] && [ '$used' -le 40 ] && echo '$used'"
expect "lockctl usage --explain names the firewall meter for video.test" \
    sh -c "'$bin/lockctl' --root '$root' usage --by site --explain | grep -E 'site:video.test' | grep -q ' firewall'"
expect "and never the dns meter: no query was answered for it" \
    sh -c "! '$bin/lockctl' --root '$root' usage --by site --explain | grep -E 'site:video.test' | grep -q ' dns'"

echo "# after the restart, 20 more idle seconds"
expect "the counters are back" time_until 10000 counted
sleep 20
stop_daemon >"$work/stop.txt"
start_daemon || exit 1
again="$(site_seconds video.test)"
expect "idle seconds added nothing (s)" sh -c "[ '$again' = '$used' ] && echo '$again'"
stop_daemon >"$work/stop.txt"
expect "no table after the stop" sh -c '! nft list table inet simplylock'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
