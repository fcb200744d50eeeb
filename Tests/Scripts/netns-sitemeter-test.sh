#!/usr/bin/env bash
# The site meter (DNS filter answers → usage minutes, meter "dns") and a site allowance through
# the real simplylockd and lockctl, in private network and mount namespaces.
#
#   Tests/Scripts/netns-sitemeter-test.sh BIN_DIR DATA_DIR      (as root)
#
# Nothing outside the namespaces is touched: the machine's ruleset and /etc/resolv.conf stay as
# they are (/etc/resolv.conf is bind-mounted in the private mount namespace only).
#
#   test namespace (simplylockd, dig)      veth0 198.18.0.1/24
#        |
#   peer namespace ("the internet's DNS")  veth1 198.18.0.2   dnsmasq on :53: *.video.test → 198.18.0.5,
#                                                              *.other.test → 198.18.0.6
#
# Profile clips lists video.test; nothing is blocked. Without an allowance the machine's DNS is
# left alone (no table). With allowance watch (20 s a day) the table holds the DNS redirect
# alone, video.test still resolves, and asking for it every second uses the 20 s up: a block of
# video starts (origin allowance:watch) and video.test gets 0.0.0.0. The minutes show up in
# `lockctl usage --by site --explain` with meter dns. A graceful stop with the allowance and no
# block leaves no table. Prints "ok - …" / "not ok - …" and "N passed, M failed"; exits 0 only
# when all passed, 77 after "SKIP: reason" when the machine cannot run it.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

netns_enter 300 nft dnsmasq dig

# ---- inside the namespaces ------------------------------------------------------------------

netns_setup netns-sitemeter-test
peer() { nsenter -t "$peer_pid" -n "$@"; }
start_daemon() {
    SIMPLYLOCK_USAGE_SAMPLE=1,1 DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/simplylock-bus \
        "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns --log-level debug \
        >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
    echo "simplylockd did not answer"; tail -20 "$work/daemon.log"; return 1
}
stop_daemon() { kill -TERM "$daemon_pid"; wait "$daemon_pid"; local status=$?; daemon_pid=; echo "exit $status"; return $status; }
# `expect` runs its command in a subshell, which cannot wait for the daemon: stop it here, then
# check the exit status it wrote.

netns peer_pid
ip link add veth0 type veth peer name veth1 netns "$peer_pid"
ip addr add 198.18.0.1/24 dev veth0
ip link set veth0 up
peer ip link set lo up
peer ip addr add 198.18.0.2/24 dev veth1
peer ip link set veth1 up

nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=53 --user=root --group=root --pid-file="$work/peer-dnsmasq.pid" \
    --log-queries --log-facility="$work/peer-dnsmasq.log" --local-ttl=1 \
    --address=/video.test/198.18.0.5 --address=/other.test/198.18.0.6 &
pids+=("$!")
for _ in $(seq 100); do dig +time=1 +tries=1 @198.18.0.2 other.test >/dev/null 2>&1 && break; sleep 0.05; done

mkdir -p "$root/etc/simplylock/profiles.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'nameserver 198.18.0.2\noptions timeout:2 attempts:2\n' >"$root/etc/resolv.conf"
printf 'checkpoint_interval = "1s"\n' >"$root/etc/simplylock/simplylockd.toml"
printf 'name = "clips"\ndomains = ["video.test"]\n' >"$root/etc/simplylock/profiles.d/clips.toml"
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf

resolves_to() { # resolves_to NAME ADDRESS
    local got
    got="$(dig +short +time=2 +tries=1 "$1" | tr '\n' ' ')"
    echo "$got"
    [ "$got" = "$2 " ]
}
table_exists() { nft list table inet simplylock >/dev/null 2>&1; }
redirected() { nft list chain inet simplylock dnsredirect 2>/dev/null | grep -qE 'redirect to :[0-9]+'; }
site_seconds() { # site_seconds NAME: seconds of NAME today by site
    lockctl usage --by site --days 2 --json | python3 -c '
import json, sys
print({i["name"]: i["seconds"] for i in json.load(sys.stdin)["items"]}.get(sys.argv[1], 0))' "$1"
}

echo "# no allowance: the machine's DNS is left alone"
start_daemon || exit 1
sleep 2
expect "no table while nothing is blocked and no allowance counts" sh -c '! nft list table inet simplylock 2>/dev/null && echo none'
expect "video.test resolves" resolves_to www.video.test 198.18.0.5

echo "# lockctl allowances add watch --profile clips --daily 20s"
expect "allowance added" lockctl allowances add watch --profile clips --daily 20s
expect "the table holds the DNS redirect for the meter within 3 s" time_until 3000 redirected
expect "and nothing else: no DNS-over-TLS refusal, nothing in the block sets" \
    sh -c '! nft list table inet simplylock | grep -q "dport 853" && ! nft list set inet simplylock block4 | grep -q elements'
expect "video.test still resolves, through the filter" resolves_to www.video.test 198.18.0.5
expect "the query reached the peer from the filter" sh -c "grep -q 'query\[A\] www.video.test from 198.18.0.1' '$work/peer-dnsmasq.log'"

echo "# asking for video.test every second until the 20 s are used up"
started=$(date +%s)
blocked_at=
for _ in $(seq 60); do
    answer="$(dig +short +time=1 +tries=1 m.video.test | head -1)"
    other="$(dig +short +time=1 +tries=1 other.test | head -1)"
    if [ "$answer" = 0.0.0.0 ]; then blocked_at=$(($(date +%s) - started)); break; fi
    sleep 1
done
expect "m.video.test answered 0.0.0.0 after the allowance was used (s)" sh -c "[ -n '$blocked_at' ] && [ '$blocked_at' -ge 15 ] && [ '$blocked_at' -le 40 ] && echo '$blocked_at'"
expect "the block's origin is allowance:watch" sh -c "'$bin/lockctl' --root '$root' status --json | grep -q 'allowance:watch'"
expect "other.test, on no profile, was answered throughout" resolves_to other.test 198.18.0.6
expect "the allowance says used up" sh -c "'$bin/lockctl' --root '$root' allowances list --json | python3 -c '
import json, sys
a = json.load(sys.stdin)
print(a)
items = a[\"allowances\"] if isinstance(a, dict) else a
w = [x for x in items if x[\"name\"] == \"watch\"][0]
sys.exit(0 if w.get(\"blocking\") else 1)'"
# Minutes are saved when they close (two minutes late), or at shutdown.
stop_daemon >"$work/stop.txt"
expect "simplylockd stops cleanly with the block in force" grep -x "exit 0" "$work/stop.txt"
expect "the block's table stays while the daemon is stopped" sh -c 'nft list table inet simplylock >/dev/null'
start_daemon || exit 1
used="$(site_seconds video.test)"
expect "usage by site: video.test about 20 s" sh -c "[ '$used' -ge 15 ] && [ '$used' -le 45 ] && echo '$used'"
other_used="$(site_seconds other.test)"
expect "other.test, on no profile and no service, is not metered" sh -c "[ '$other_used' = 0 ]"
expect "lockctl usage --explain names the dns meter" sh -c "'$bin/lockctl' --root '$root' usage --by site --explain | grep -E 'site:video.test' | grep -q ' dns'"

echo "# the allowance removed: the block ends, and with no allowance the redirect goes"
expect "allowance removed" lockctl allowances remove watch
expect "video.test resolves again" time_until 5000 resolves_to www.video.test 198.18.0.5
expect "no table left within 3 s" time_until 3000 sh -c '! nft list table inet simplylock'

echo "# a graceful stop lets go of the meter's redirect"
expect "allowance added again" lockctl allowances add watch2 --profile clips --daily 1h
expect "the redirect is back" time_until 3000 redirected
stop_daemon >"$work/stop.txt"
expect "simplylockd stops cleanly" grep -x "exit 0" "$work/stop.txt"
expect "no table after the stop: the machine's DNS does not wait for a stopped daemon" sh -c '! nft list table inet simplylock'
expect "names resolve with the daemon stopped" resolves_to www.video.test 198.18.0.5

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
