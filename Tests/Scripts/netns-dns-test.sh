#!/usr/bin/env bash
# The dns enforcer (filtering forwarder + nftables redirect) through the real simplylockd and
# lockctl, in private network and mount namespaces.
#
#   Tests/Scripts/netns-dns-test.sh BIN_DIR DATA_DIR      (as root)
#
# Nothing outside the namespaces is touched: the machine's ruleset and /etc/resolv.conf stay
# as they are (/etc/resolv.conf is bind-mounted in the private mount namespace only).
#
#   test namespace (simplylockd, the programs)     veth0 198.18.0.1/24
#        |
#   peer namespace ("the internet's DNS")          veth1 198.18.0.2   dnsmasq on :53
#                                                  answers *.blocked.test → 198.18.0.3 fd00:18::3,
#                                                  *.allowed.test → 198.18.0.4 fd00:18::4,
#                                                  HTTPS (type 65) records for both
#
# Programs and the daemon both use nameserver 198.18.0.2. During a block of blocked.test
# (exception ok.blocked.test), getent, Python's getaddrinfo and dig must get no real address
# for blocked.test, its subdomains, BLOCKED.test. and type HTTPS; allowed.test and the exception
# resolve; the daemon's own upstream queries reach the peer; DoT is refused. After the block no
# redirect is left and the names resolve again. Prints "ok - …" / "not ok - …" and "N passed,
# M failed"; exits 0 only when all passed, 77 after "SKIP: reason" when the machine cannot run it.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

netns_enter 300 nft dnsmasq dig getent

# ---- inside the namespaces ------------------------------------------------------------------

netns_setup netns-dns-test
peer() { nsenter -t "$peer_pid" -n "$@"; }
start_daemon() {
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns --log-level debug \
        >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
    echo "simplylockd did not answer"; tail -20 "$work/daemon.log"; return 1
}
stop_daemon() { kill -TERM "$daemon_pid"; wait "$daemon_pid"; local status=$?; daemon_pid=; return $status; }

netns peer_pid
ip link add veth0 type veth peer name veth1 netns "$peer_pid"
ip addr add 198.18.0.1/24 dev veth0
ip -6 addr add fd00:18::1/64 dev veth0 nodad
ip link set veth0 up
peer ip link set lo up
peer ip addr add 198.18.0.2/24 dev veth1
peer ip -6 addr add fd00:18::2/64 dev veth1 nodad
peer ip link set veth1 up

nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=53 --user=root --group=root --pid-file="$work/peer-dnsmasq.pid" \
    --log-queries=extra --log-facility="$work/peer-dnsmasq.log" --local-ttl=60 \
    --address=/blocked.test/198.18.0.3 --address=/blocked.test/fd00:18::3 \
    --address=/allowed.test/198.18.0.4 --address=/allowed.test/fd00:18::4 \
    --dns-rr=blocked.test,65,000100 --dns-rr=allowed.test,65,000100 &
pids+=("$!")
# A stand-in DoT server, so that a refused connection is the firewall's doing, not the peer's.
nsenter -t "$peer_pid" -n python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("198.18.0.2", 853)); s.listen(8)
open("'"$work"'/dot.ready", "w").close()
while True: s.accept()[0].close()' &
pids+=("$!")
wait_for_file "$work/dot.ready" 10 || { echo "DoT stand-in did not start"; exit 1; }
for _ in $(seq 100); do dig +time=1 +tries=1 @198.18.0.2 allowed.test >/dev/null 2>&1 && break; sleep 0.05; done

mkdir -p "$root/etc/simplylock/profiles.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'nameserver 198.18.0.2\noptions timeout:2 attempts:2\n' >"$root/etc/resolv.conf"
printf 'checkpoint_interval = "1s"\n' >"$root/etc/simplylock/simplylockd.toml"
# Programs in this namespace resolve through the peer too; the bind mount exists only here.
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf

real_blocked='198\.18\.0\.3|fd00:18::3'
# Answered, and with nothing but the unspecified addresses.
sinkholed() { # sinkholed COMMAND...: output has 0.0.0.0 or ::, and no real address
    local output
    output="$("$@" 2>&1)"
    echo "$output" | tr '\n' ' '
    echo "$output" | grep -qE '(^|[^0-9.])0\.0\.0\.0|(^| |\x27)::($| |\x27)' && ! echo "$output" | grep -qE "$real_blocked"
}
getaddrinfo() {
    python3 -c 'import socket, sys; print(" ".join(sorted({a[4][0] for a in socket.getaddrinfo(sys.argv[1], 80, proto=socket.IPPROTO_TCP)})))' "$1"
}
resolves_to() { # resolves_to NAME ADDRESS
    local got
    got="$(dig +short +time=2 +tries=1 "$1" | tr '\n' ' ')"
    echo "$got"
    [ "$got" = "$2 " ]
}
https_empty() { # NOERROR and no answer for type HTTPS
    local output
    output="$(dig +time=2 +tries=1 -t TYPE65 "$1")"
    echo "$output" | grep -q 'status: NOERROR' && echo "$output" | grep -q 'ANSWER: 0,'
}
table_exists() { nft list table inet simplylock >/dev/null 2>&1; }

echo "# before the block"
start_daemon || exit 1
expect "profile with an exception created" lockctl profiles create site --domain blocked.test
expect "exception added" lockctl profiles add-allow site ok.blocked.test
expect "the daemon runs the dns enforcer" sh -c "'$bin/lockctl' --root '$root' status | grep -E '^ +dns +(ok|idle)'"
expect "no table, so no redirect, while nothing is blocked" sh -c '! nft list table inet simplylock 2>/dev/null && echo none'
expect "blocked.test resolves before the block" resolves_to m.blocked.test 198.18.0.3
expect "type HTTPS of blocked.test answered by the peer before the block" sh -c "dig +short -t TYPE65 blocked.test | grep -q ."

# Every event from here on, to see the blocked attempts go by.
"$bin/lockctl" --root "$root" events --json >"$work/events.ndjson" 2>&1 &
pids+=("$!")

echo "# lockctl start site 10m"
# Starts the block, then asks for m.blocked.test (over UDP, as a stub resolver would) until the
# answer is 0.0.0.0; prints the milliseconds from lockctl returning to that answer.
blocked_after_start() {
    python3 - "$bin/lockctl" "$root" <<'PY'
import socket, struct, subprocess, sys, time
subprocess.run([sys.argv[1], "--root", sys.argv[2], "start", "site", "10m"], check=True, stdout=subprocess.DEVNULL)
returned = time.monotonic()
query = struct.pack(">HHHHHH", 0x5151, 0x0100, 1, 0, 0, 0) + b"\x01m\x07blocked\x04test\x00" + struct.pack(">HH", 1, 1)
while time.monotonic() - returned < 2:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(0.5)
        s.sendto(query, ("198.18.0.2", 53))
        try:
            answer = s.recv(512)
        except socket.timeout:
            continue
    if answer[-4:] == b"\x00\x00\x00\x00":
        print(round((time.monotonic() - returned) * 1000, 1))
        sys.exit(0)
print("not blocked within 2 s"); sys.exit(1)
PY
}
expect "m.blocked.test answered 0.0.0.0 this soon after lockctl start returned (ms)" blocked_after_start
expect "the redirect rule is in the daemon's table" sh -c 'nft list chain inet simplylock dnsredirect | grep -E "redirect to :[0-9]+"'
for name in blocked.test m.blocked.test a.b.blocked.test BLOCKED.test.; do
    expect "getent ahosts $name: no real address" sinkholed getent ahosts "$name"
    expect "getaddrinfo $name: no real address" sinkholed getaddrinfo "$name"
    expect "dig A $name: 0.0.0.0" resolves_to "$name" 0.0.0.0
    expect "dig AAAA $name: ::" sh -c "[ \"\$(dig +short AAAA '$name')\" = '::' ]"
    expect "dig type HTTPS $name: empty NOERROR" https_empty "$name"
done
expect "dig over TCP m.blocked.test: 0.0.0.0" sh -c '[ "$(dig +tcp +short m.blocked.test)" = 0.0.0.0 ]'
expect "allowed.test resolves normally" resolves_to allowed.test 198.18.0.4
expect "allowed.test over TCP resolves normally" sh -c '[ "$(dig +tcp +short allowed.test)" = 198.18.0.4 ]'
expect "getent ahosts allowed.test resolves normally" sh -c 'getent ahosts allowed.test | grep -q 198.18.0.4'
expect "type HTTPS of allowed.test is the peer's answer" sh -c "dig +short -t TYPE65 allowed.test | grep -q ."
expect "the exception ok.blocked.test resolves normally" resolves_to ok.blocked.test 198.18.0.3
expect "the firewall resolved blocked.test's real address (its queries are not redirected)" \
    time_until 5000 sh -c 'nft list set inet simplylock block4 | grep -q 198.18.0.3'
expect "the daemon's own upstream queries reach the peer, not itself" sh -c "[ \$(grep -c 'query\[A\] allowed.test from 198.18.0.1' '$work/peer-dnsmasq.log') -ge 1 ]"
expect "no upstream failures or timeouts in the DNS filter" sh -c "'$bin/lockctl' --root '$root' status --json | python3 -c '
import json, sys
dns = [e for e in json.load(sys.stdin)[\"enforcers\"] if e[\"name\"] == \"dns\"][0][\"details\"]
print(dns[\"failed\"], dns[\"upstreamTimeouts\"], dns[\"blocked\"])
sys.exit(0 if int(dns[\"failed\"]) == 0 and int(dns[\"upstreamTimeouts\"]) == 0 and int(dns[\"blocked\"]) > 0 else 1)'"
expect "blocked names never reached the peer during the block" sh -c "! grep -E 'query\[[A-Z0-9]+\] (a\.b\.|BLOCKED\.)' '$work/peer-dnsmasq.log'"
expect "DNS over TLS refused" python3 -c '
import socket
try:
    socket.create_connection(("198.18.0.2", 853), timeout=2); raise SystemExit("connected")
except ConnectionRefusedError:
    print("refused")'

echo "# an imported list: a name from it blocked through dig while the block holds it, lifted when the list is removed"
printf '! test list\n||listed.allowed.test^\n0.0.0.0 hosts-style.allowed.test\n||x.com/path\n' >"$work/list.txt"
expect "lockctl lists import ads FILE" sh -c "'$bin/lockctl' --root '$root' lists import ads '$work/list.txt' | grep -q '2 names'"
expect "a name of the list resolves while no profile names it" resolves_to m.listed.allowed.test 198.18.0.4
expect "lockctl profiles add-list site ads (the running block picks it up)" lockctl profiles add-list site ads
expect "dig m.listed.allowed.test: 0.0.0.0" resolves_to m.listed.allowed.test 0.0.0.0
expect "getent ahosts hosts-style.allowed.test: no real address" sinkholed getent ahosts hosts-style.allowed.test
expect "a name beside the list still resolves" resolves_to other.allowed.test 198.18.0.4
expect "check names the list and the dns enforcer blocks it" sh -c "'$bin/lockctl' --root '$root' check a.listed.allowed.test --json | python3 -c '
import json, sys
answer = json.load(sys.stdin)
dns = [e for e in answer[\"enforcers\"] if e[\"name\"] == \"dns\"][0]
print(answer[\"blocked\"], answer[\"matches\"][0][\"list\"], dns[\"detail\"])
sys.exit(0 if answer[\"blocked\"] and dns[\"blocks\"] and answer[\"matches\"][0][\"list\"] == \"ads\" else 1)'"
expect "the list's names are not in the hosts file" sh -c "! grep -q listed.allowed.test '$root/etc/hosts'"
expect "the firewall does not resolve the list's names" sh -c "! grep -E 'query\[A+\] listed.allowed.test from 198.18.0.1' '$work/peer-dnsmasq.log'"
expect "lockctl lists remove ads" lockctl lists remove ads
expect "m.listed.allowed.test resolves again once the list is removed" time_until 10000 resolves_to m.listed.allowed.test 198.18.0.4
expect "check m.blocked.test says blocked by the dns enforcer only" sh -c "'$bin/lockctl' --root '$root' check m.blocked.test --json | python3 -c '
import json, sys
answer = json.load(sys.stdin)
blocks = {e[\"name\"]: e[\"blocks\"] for e in answer[\"enforcers\"]}
print(blocks)
sys.exit(0 if answer[\"blocked\"] and blocks == {\"hosts\": False, \"dns\": True, \"nftables\": False} else 1)'"
# Blocked attempts: each name the filter answered as blocked, once per client within 10 s
# however often it was asked (above: getent, getaddrinfo, dig A, AAAA, HTTPS, over TCP).
attempts_of() { # attempts_of NAME: the insights count of NAME
    "$bin/lockctl" --root "$root" insights --days 1 --json | python3 -c '
import json, sys
counts = {site["name"]: site["attempts"] for site in json.load(sys.stdin)["topSites"]}
print(counts.get(sys.argv[1], 0))' "$1"
}
collapsed() { # collapsed NAME: counted at least once and at most 3 times
    local count
    count="$(attempts_of "$1")"
    echo "$count"
    [ "$count" -ge 1 ] && [ "$count" -le 3 ]
}
expect "blocked lookups show up as attempts (blocked.test, repeats collapsed)" time_until 3000 collapsed blocked.test
expect "a.b.blocked.test counted as its own name" collapsed a.b.blocked.test
expect "allowed.test is no attempt" sh -c "[ \"\$('$bin/lockctl' --root '$root' insights --days 1 --json | grep -c '\"allowed.test\"')\" = 0 ]"
expect "site.blocked events with the profile and the time left" time_until 3000 sh -c \
    "grep '\"site.blocked\"' '$work/events.ndjson' | grep '\"profile\":\"site\"' | grep -q timeLeftSeconds"
# A connection walking past the filter to the address the firewall resolved: refused, and
# reported at once through NFLOG (counted by the named counters too).
expect "a connection to blocked.test's address is refused" python3 -c '
import socket
try:
    socket.create_connection(("198.18.0.3", 80), timeout=2); raise SystemExit("connected")
except ConnectionRefusedError:
    print("refused")'
expect "the firewall's refusal is an attempt as it happens (NFLOG)" time_until 3000 sh -c \
    "grep '\"site.blocked\"' '$work/events.ndjson' | grep '\"source\":\"firewall\"' | grep -q blocked.test"
expect "the attempt counters are in the daemon's table" sh -c "nft list counters table inet simplylock | grep -A2 'comment \"blocked.test\"' | grep -qE 'packets [1-9]'"

echo "# borrowing the daemon's DNS exemption (issue 24, row 4)"
dns_check() { # dns_check NAME: the dns enforcer's answer of lockctl check NAME, exit 0 when it blocks
    "$bin/lockctl" --root "$root" check "$1" --json | python3 -c '
import json, sys
dns = [e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "dns"][0]
print(dns["detail"]); sys.exit(0 if dns["blocks"] else 1)'
}
# A root process's own table marking every DNS packet with the daemon's mark: the redirect reads
# the socket's mark, which a table cannot set, so nothing gets past.
nft -f - <<'EOF2'
table inet borrow {
	chain out {
		type filter hook output priority -300; policy accept;
		meta l4proto { tcp, udp } th dport 53 meta mark set 0x534c
	}
}
EOF2
expect "another table marks DNS packets 0x534c" sh -c 'nft list table inet borrow | grep -q "mark set 0x0000534c"'
expect "... m.blocked.test is still 0.0.0.0 (the redirect reads the socket's mark)" resolves_to x1.m.blocked.test 0.0.0.0
expect "... over TCP too" sh -c '[ "$(dig +tcp +short x2.m.blocked.test)" = 0.0.0.0 ]'
expect "... and check still says the dns enforcer blocks it, truly" dns_check m.blocked.test
nft delete table inet borrow
# A root process's own NAT chain sending port 53 straight to the peer, at dstnat (-100) and at
# -150: the filter's redirect runs first (-199), so its rewrite never happens.
for priority in -100 -150; do
    nft -f - <<EOF2
table inet detour {
	chain out {
		type nat hook output priority $priority; policy accept;
		meta l4proto { tcp, udp } th dport 53 dnat ip to 198.18.0.2:53
	}
}
EOF2
    expect "another table's DNAT of port 53 at priority $priority: m.blocked.test is still 0.0.0.0" resolves_to "p${priority#-}.m.blocked.test" 0.0.0.0
    nft delete table inet detour
done
# A root process's socket with SO_MARK 0x534c that sends one query and closes at once, between
# two looks at the sockets: the table counts port-53 traffic carrying the mark, the daemon
# counts its own, and the difference is reported from then on (until the block ends).
expect "before: check says the dns enforcer blocks m.blocked.test" dns_check m.blocked.test
python3 -c '
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 36, 0x534c)
s.sendto(struct.pack(">6H", 0x5454, 0x0100, 1, 0, 0, 0) + b"\x01z\x01m\x07blocked\x04test\x00" + struct.pack(">2H", 1, 1), ("198.18.0.2", 53))
s.close()'
counted_in_check() { local out; out="$(dns_check m.blocked.test)" && return 1; echo "$out"; echo "$out" | grep -q "1 UDP datagram to port 53 carried the daemon's exemption mark"; }
counted_in_status() {
    "$bin/lockctl" --root "$root" status --json | python3 -c '
import json, sys
dns = [e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "dns"][0]
print(dns.get("lastError")); sys.exit(0 if "1 UDP datagram to port 53" in (dns.get("lastError") or "") and not dns["applied"] else 1)'
}
doctor_fails_counting() {
    local out status
    out="$("$bin/lockctl" --root "$root" doctor 2>&1)"
    status=$?
    echo "exit $status: $(echo "$out" | grep -i "exemption count" | head -1)"
    [ $status = 1 ] && echo "$out" | grep -q "1 UDP datagram to port 53"
}
expect "a short-lived marked socket's one query: check no longer claims the dns block" counted_in_check
expect "... status: the dns enforcer is not applied, its error says what was counted" counted_in_status
expect "... doctor fails (exit 1) saying so" doctor_fails_counting
expect "... and it stays said (the next look)" counted_in_check
# A socket with SO_MARK 0x534c that stays open: its queries skip the redirect; the daemon must
# name the process.
python3 "$here/marked_query.py" 0x534c 198.18.0.2 y.m.blocked.test "$work/borrow.out" &
borrower=$!
pids+=("$borrower")
wait_for_file "$work/borrow.out" 10
expect "a socket with SO_MARK 0x534c gets the real answer (the bypass exists)" grep -qw 198.18.0.3 "$work/borrow.out"
names_borrower_in_check() { local out; out="$(dns_check m.blocked.test)" && return 1; echo "$out"; echo "$out" | grep -q "process $borrower (python3)"; }
names_borrower_in_status() {
    "$bin/lockctl" --root "$root" status --json | python3 -c '
import json, sys
dns = [e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "dns"][0]
print(dns.get("lastError")); sys.exit(0 if f"process {sys.argv[1]} (python3)" in (dns.get("lastError") or "") else 1)' "$borrower"
}
doctor_fails_naming_borrower() {
    local out status
    out="$("$bin/lockctl" --root "$root" doctor 2>&1)"
    status=$?
    echo "exit $status: $(echo "$out" | grep "process $borrower" | head -2)"
    [ $status = 1 ] && echo "$out" | grep -q "process $borrower (python3)"
}
expect "check m.blocked.test: the dns enforcer no longer claims it, naming the process" names_borrower_in_check
expect "status: the dns enforcer's error names the process" names_borrower_in_status
expect "doctor fails (exit 1) naming the process" doctor_fails_naming_borrower
kill "$borrower"; wait "$borrower" 2>/dev/null
not_named() { local out; out="$(dns_check m.blocked.test)" && return 1; echo "$out"; ! echo "$out" | grep -q "process $borrower"; }
expect "with the process gone, it is no longer named, and check still does not claim the block (what was borrowed stays said)" \
    time_until 5000 not_named

echo "# lockctl stop site"
expect "lockctl stop" lockctl stop site
expect "the table and its redirect are gone" sh -c '! nft list table inet simplylock 2>/dev/null && echo none'
expect "m.blocked.test resolves again within the TTL (ms)" time_until 10000 resolves_to m.blocked.test 198.18.0.3
expect "getent ahosts blocked.test resolves again" sh -c 'getent ahosts blocked.test | grep -q 198.18.0.3'
expect "DoT reachable again" python3 -c 'import socket; socket.create_connection(("198.18.0.2", 853), timeout=2); print("open")'

echo "# another table's NAT chain at the redirect's own priority (-199), created during the block"
expect "lockctl start site 10m (a new block)" lockctl start site 10m
expect "r0.m.blocked.test is 0.0.0.0" time_until 3000 resolves_to r0.m.blocked.test 0.0.0.0
# Of two hooks at one priority the kernel runs the one registered last first, and the first NAT
# chain to map a flow decides where it goes: this one wins the tie, and DNS walks past the filter.
nft -f - <<'EOF2'
table ip rival {
	chain out {
		type nat hook output priority -199; policy accept;
		meta l4proto { tcp, udp } th dport 53 dnat to 198.18.0.2:53
	}
}
EOF2
expect "the rival chain wins the tie: r.m.blocked.test gets the real answer" resolves_to r.m.blocked.test 198.18.0.3
rival_in_check() { local out; out="$(dns_check m.blocked.test)" && return 1; echo "$out"; echo "$out" | grep -q "table ip rival has NAT chain out at priority -199"; }
doctor_names_rival() {
    local out status
    out="$("$bin/lockctl" --root "$root" doctor 2>&1)"
    status=$?
    echo "exit $status: $(echo "$out" | grep "table ip rival" | head -1)"
    [ $status = 1 ] && echo "$out" | grep -q "table ip rival"
}
expect "check does not claim the dns block, naming the rival table" rival_in_check
expect "doctor fails (exit 1) naming the rival table" doctor_names_rival
nft delete table ip rival
expect "with the rival gone, r2.m.blocked.test is 0.0.0.0 again" resolves_to r2.m.blocked.test 0.0.0.0
expect "... and check says the dns enforcer blocks (a new block starts with nothing borrowed)" time_until 5000 dns_check m.blocked.test
expect "lockctl stop site" lockctl stop site
stop_daemon
status=$?
expect "the daemon stops cleanly (exit status)" test "$status" = 0
expect "nothing of the daemon left in the ruleset" sh -c '[ -z "$(nft list ruleset)" ] && echo empty'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || { echo "--- daemon log (last 40 lines)"; tail -40 "$work/daemon.log"; }
[ "$failed" = 0 ]
