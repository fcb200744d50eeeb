#!/usr/bin/env bash
# The nftables enforcer through the real simplylockd and lockctl, in private network and mount
# namespaces where nft really filters traffic.
#
#   Tests/Scripts/netns-daemon-test.sh BIN_DIR DATA_DIR      (as root)
#
# Nothing outside the namespaces is touched: the machine's ruleset, /etc/hosts and
# /etc/resolv.conf stay as they are (the daemon runs under a scratch --root, whose
# etc/resolv.conf points at a dnsmasq of ours on 127.0.0.1). Traffic goes over loopback and
# veth pairs to namespaces this script creates:
#
#   test namespace (simplylockd, dnsmasq)     veth0 198.18.0.1/24 fd00:18::1/64
#        |                                    lan0  198.18.1.1/24 → a LAN client (forwarding)
#   peer namespace ("the internet")           veth1 198.18.0.2 .3 .4  fd00:18::2 ::3
#
#   blocked.test → 198.18.0.2, fd00:18::2    allowed.test → 198.18.0.3, fd00:18::3
#   doh.test     → 198.18.0.4 (a stand-in DoH server, in the test's DoH list)
#
# Blocked addresses are on a veth peer, not on 127.0.0.x: the firewall never blocks loopback
# (its own reset packets travel there). Prints "ok - …" / "not ok - …" per check and
# "N passed, M failed"; exits 0 only when all passed, 77 after "SKIP: reason" when the machine
# cannot run it.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

netns_enter 300 nft dnsmasq

# ---- inside the namespaces ------------------------------------------------------------------

netns_setup netns-daemon-test
nettool() { python3 "$here/nettool.py" "$@"; }
peer() { nsenter -t "$peer_pid" -n "$@"; }
client() { nsenter -t "$client_pid" -n "$@"; }
start_daemon() {
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables --log-level debug \
        >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
    echo "simplylockd did not answer"; tail -20 "$work/daemon.log"; return 1
}
stop_daemon() { kill -TERM "$daemon_pid"; wait "$daemon_pid"; local status=$?; daemon_pid=; return $status; }


netns peer_pid
netns client_pid
ip link add veth0 type veth peer name veth1 netns "$peer_pid"
ip addr add 198.18.0.1/24 dev veth0
ip -6 addr add fd00:18::1/64 dev veth0 nodad
ip link set veth0 up
peer ip link set lo up
for a in 198.18.0.2 198.18.0.3 198.18.0.4; do peer ip addr add "$a/24" dev veth1; done
for a in fd00:18::2 fd00:18::3; do peer ip -6 addr add "$a/64" dev veth1 nodad; done
peer ip link set veth1 up
peer ip route add 198.18.1.0/24 via 198.18.0.1
ip link add lan0 type veth peer name lan1 netns "$client_pid"
ip addr add 198.18.1.1/24 dev lan0
ip link set lan0 up
echo 1 >/proc/sys/net/ipv4/ip_forward
client ip link set lo up
client ip addr add 198.18.1.2/24 dev lan1
client ip link set lan1 up
client ip route add default via 198.18.1.1

nsenter -t "$peer_pid" -n python3 "$here/nettool.py" serve --ready "$work/serve.ready" \
    198.18.0.2:8080 198.18.0.3:8080 [fd00:18::2]:8080 [fd00:18::3]:8080 \
    198.18.0.4:443 198.18.0.4:853 198.18.0.4:53 198.18.0.4:8080 &
pids+=("$!")
python3 "$here/nettool.py" serve --ready "$work/local.ready" 127.0.0.1:8081 &
pids+=("$!")
dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=127.0.0.1 --port=53 --user=root --group=root --pid-file="$work/dnsmasq.pid" \
    --log-facility="$work/dnsmasq.log" \
    --address=/blocked.test/198.18.0.2 --address=/blocked.test/fd00:18::2 \
    --address=/allowed.test/198.18.0.3 --address=/allowed.test/fd00:18::3 \
    --address=/doh.test/198.18.0.4 --address=/#/ &
pids+=("$!")
wait_for_file "$work/serve.ready" 10 && wait_for_file "$work/local.ready" 10 || { echo "echo servers did not start"; exit 1; }

# The scratch root: the user's hosts file, a resolv.conf pointing at our dnsmasq, and a
# configuration naming the test's DoH list.
mkdir -p "$root/etc/simplylock"
printf '127.0.0.1 localhost\n# user line\n' >"$root/etc/hosts"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:2\n' >"$root/etc/resolv.conf"
printf 'doh.test\n' >"$work/doh.txt"
# Programs in this namespace (not the daemon, which reads the root's copy) resolve through the
# same dnsmasq; the bind mount exists only in this private mount namespace.
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf
printf 'doh_list = "%s"\ncheckpoint_interval = "1s"\n' "$work/doh.txt" >"$root/etc/simplylock/simplylockd.toml"

refused() { nettool check "$1" "$2" refused; }
open_() { nettool check "$1" "$2" open; }
set_has() { nft list set inet simplylock "$1" | grep -q "$2"; }
table_exists() { nft list table inet simplylock >/dev/null 2>&1; }

echo "# baseline"
nft -f - <<'NFT'
table inet other {
	chain c {
		type filter hook output priority 0;
	}
}
NFT
ruleset_before="$(nft list ruleset)"
other_before="$(nft list table inet other)"
start_daemon || exit 1
expect "profiles created through lockctl" sh -c "
    '$bin/lockctl' --root '$root' profiles create blocked --domain blocked.test &&
    '$bin/lockctl' --root '$root' profiles create nets --address 198.18.0.2/31 --address fd00:18::2/127 &&
    '$bin/lockctl' --root '$root' profiles create only-allowed --mode allowlist --domain allowed.test"
expect "a bad address is refused with the value named (exit 2)" sh -c "
    '$bin/lockctl' --root '$root' profiles create bad --address 198.18.0.2/33; [ \$? = 2 ]"
expect "the daemon runs the nftables enforcer" sh -c "'$bin/lockctl' --root '$root' status | grep -E 'nftables +ok'"
expect "no table while nothing is blocked" sh -c '! nft list table inet simplylock 2>/dev/null && echo none'
expect "blocked.test IPv4 reachable before the block" open_ 198.18.0.2 8080
expect "blocked.test IPv6 reachable before the block" open_ fd00:18::2 8080
expect "blocked.test reachable from the LAN client before the block" client python3 "$here/nettool.py" check 198.18.0.2 8080 open
expect "DoH stand-in reachable on 443 before the block" open_ 198.18.0.4 443
python3 "$here/nettool.py" hold 198.18.0.2 8080 "$work/hold.trigger" "$work/hold.result" >"$work/hold.out" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do grep -q connected "$work/hold.out" 2>/dev/null && break; sleep 0.05; done
expect "a connection to blocked.test is open before the block" grep connected "$work/hold.out"

echo "# lockctl start blocked 10m"
expect "lockctl start" lockctl start blocked 10m
expect "blocked.test's IPv4 address is in the table within 5 s (ms)" time_until 5000 set_has block4 198.18.0.2
expect "blocked.test's IPv6 address is in the table" set_has block6 fd00:18::2
expect "new IPv4 connection to blocked.test refused at once" refused 198.18.0.2 8080
expect "new IPv6 connection to blocked.test refused at once" refused fd00:18::2 8080
expect "allowed.test still reachable" open_ 198.18.0.3 8080
touch "$work/hold.trigger"
wait_for_file "$work/hold.result" 10
expect "the connection opened before the block is reset on its next use" grep -E '^reset' "$work/hold.result"
expect "forwarded (LAN client) connection to blocked.test refused" client python3 "$here/nettool.py" check 198.18.0.2 8080 refused
expect "DoH stand-in refused on 443" refused 198.18.0.4 443
expect "DoH stand-in refused on 853" refused 198.18.0.4 853
expect "DoH stand-in still reachable on 53 (plain DNS)" open_ 198.18.0.4 53
expect "the hosts section lists blocked.test and Firefox's DoH canary" sh -c "grep -q ' blocked.test' '$root/etc/hosts' && grep -q ' use-application-dns.net' '$root/etc/hosts' && echo yes"
expect "lockctl status shows the enforcer's addresses and resolution" sh -c "'$bin/lockctl' --root '$root' status | grep -E 'nftables +ok +[0-9]+ address(es)?.*resolved'"
expect "the unrelated table is unchanged" sh -c '[ "$(nft list table inet other)" = "$0" ] && echo same' "$other_before"

echo "# the daemon restores a table someone deletes or flushes"
nft delete table inet simplylock
expect "deleted table restored within 2 s (ms)" time_until 2000 sh -c 'nft list set inet simplylock block4 | grep -q 198.18.0.2 && python3 "$0" check 198.18.0.2 8080 refused' "$here/nettool.py"
nft flush table inet simplylock
expect "flushed rules restored within 2 s (ms)" time_until 2000 sh -c '[ "$(nft list chain inet simplylock enforce | grep -c reject)" -ge 4 ]'
expect "and blocks again" refused 198.18.0.2 8080
expect "lockctl status counts the restores" sh -c "'$bin/lockctl' --root '$root' status | grep -E 'nftables.*restored'"

echo "# a clean stop of the daemon leaves an active block in force; a restart keeps it"
if stop_daemon; then ok "SIGTERM stops the daemon cleanly"; else not_ok "SIGTERM stops the daemon cleanly"; fi
expect "the table stays while the block is active" table_exists
expect "blocked.test still refused with the daemon stopped" refused 198.18.0.2 8080
start_daemon || exit 1
expect "after the restart blocked.test is still refused" refused 198.18.0.2 8080

echo "# lockctl stop blocked"
expect "lockctl stop" lockctl stop blocked
expect "the table is gone" sh -c '! nft list table inet simplylock 2>/dev/null && echo gone'
expect "blocked.test reachable again (IPv4)" open_ 198.18.0.2 8080
expect "blocked.test reachable again (IPv6)" open_ fd00:18::2 8080
expect "the ruleset is byte-identical to before the block" sh -c '[ "$(nft list ruleset)" = "$0" ] && echo identical' "$ruleset_before"

echo "# addresses and CIDR ranges from a profile"
expect "lockctl start nets 10m" lockctl start nets 10m
expect "198.18.0.2/31 blocks .2" refused 198.18.0.2 8080
expect "198.18.0.2/31 blocks .3" refused 198.18.0.3 8080
expect "198.18.0.2/31 leaves .4" open_ 198.18.0.4 8080
expect "fd00:18::2/127 blocks fd00:18::3" refused fd00:18::3 8080
expect "lockctl profiles add-address during the block applies in place" lockctl profiles add-address nets 198.18.0.4
expect "and .4 is refused now" refused 198.18.0.4 8080
python3 "$here/nettool.py" hammer 198.18.0.2 8080 "$work/hammer.stop" >"$work/hammer.out" 2>&1 &
hammer_pid=$!
pids+=("$hammer_pid")
switches=0
for i in $(seq 10); do
    lockctl profiles add-address nets 198.18.0.9 >/dev/null && switches=$((switches + 1))
    lockctl profiles remove-address nets 198.18.0.9 >/dev/null && switches=$((switches + 1))
done
touch "$work/hammer.stop"
wait "$hammer_pid" 2>/dev/null
expect "20 in-place changes of the running block applied" sh -c "[ $switches = 20 ] && echo 20"
expect "no connection to the blocked address got through while they were applied (successes attempts)" \
    sh -c "read s a <'$work/hammer.out'; echo \$s \$a; [ \"\$s\" = 0 ] && [ \"\$a\" -gt 20 ]"
expect "lockctl stop nets" lockctl stop nets

echo "# allowlist mode"
expect "lockctl start only-allowed 10m" lockctl start only-allowed 10m
expect "allowed.test's address is allowed within 5 s (ms)" time_until 5000 set_has allow4 198.18.0.3
expect "allowed.test IPv4 reachable" open_ 198.18.0.3 8080
expect "allowed.test IPv6 reachable" open_ fd00:18::3 8080
expect "another IPv4 address refused" refused 198.18.0.2 8080
expect "another IPv6 address refused" refused fd00:18::2 8080
expect "another address refused on any port" refused 198.18.0.4 53
expect "loopback still works" open_ 127.0.0.1 8081
expect "DNS to the configured resolver still works" sh -c "python3 -c 'import socket; print(socket.gethostbyname(\"allowed.test\"))' | grep 198.18.0.3"
expect "lockctl check names the allowlist" sh -c "'$bin/lockctl' --root '$root' check example.org | grep -q 'not on the allowlist' && echo yes"
expect "lockctl stop only-allowed" lockctl stop only-allowed
expect "the ruleset is byte-identical after the allowlist was lifted" sh -c '[ "$(nft list ruleset)" = "$0" ] && echo identical' "$ruleset_before"

stop_daemon
expect "SIGTERM with nothing blocked leaves no table" sh -c '! nft list table inet simplylock 2>/dev/null && echo none' 

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
