#!/usr/bin/env bash
# The DNS filter with a local stub resolver as the machine's resolver (issue 24, row 3), through
# the real simplylockd and lockctl, in private network and mount namespaces.
#
#   Tests/Scripts/netns-stub-test.sh BIN_DIR DATA_DIR      (as root)
#
#   test namespace: dnsmasq stub on 127.0.1.1:53 (NetworkManager's address), upstream 198.18.0.2;
#                   resolv.conf (the daemon's, under its scratch root, and the namespace's via a
#                   bind mount) names only 127.0.1.1; simplylockd; veth0 198.18.0.1, fd00:18::1
#   peer namespace: dnsmasq on 198.18.0.2:53 and [fd00:18::2]:53, *.blocked.test → 198.18.0.3,
#                   *.allowed.test → 198.18.0.4; echo servers on 198.18.0.3:80 and [fd00:18::3]:80
#                   (blocked.test's real addresses); a second resolver on 198.18.0.5:53 that lies
#                   (blocked.test → 198.18.0.9), which ordinary users may ask
#
# With no `resolvers` setting, a block of blocked.test must redirect the machine's DNS (the
# stub's upstream queries included) through the filter: subdomains of blocked.test get 0.0.0.0
# through the stub, over UDP and TCP, other names resolve through the stub's own upstream, and a
# query sent straight to a server goes to that server. The firewall learns blocked.test's real
# addresses through the stub's own upstream (learnt by the filter from the stub's queries, never
# from an ordinary user's), and connecting to them by address as an ordinary user is refused.
# Prints "ok - …" / "not ok - …" and
# "N passed, M failed"; exits 0 only when all passed, 77 after "SKIP: reason" when it cannot run.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

netns_enter 240 nft dnsmasq dig getent setpriv

# ---- inside the namespaces ------------------------------------------------------------------

netns_setup netns-stub-test
peer() { nsenter -t "$peer_pid" -n "$@"; }

netns peer_pid
ip link add veth0 type veth peer name veth1 netns "$peer_pid"
ip addr add 198.18.0.1/24 dev veth0
ip -6 addr add fd00:18::1/64 dev veth0 nodad
ip link set veth0 up
peer ip link set lo up
peer ip addr add 198.18.0.2/24 dev veth1
peer ip -6 addr add fd00:18::2/64 dev veth1 nodad
peer ip addr add 198.18.0.3/24 dev veth1
peer ip addr add 198.18.0.5/24 dev veth1
peer ip -6 addr add fd00:18::3/64 dev veth1 nodad
peer ip link set veth1 up
nsenter -t "$peer_pid" -n python3 "$here/nettool.py" serve --ready "$work/serve.ready" 198.18.0.3:80 '[fd00:18::3]:80' &
pids+=("$!")
nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.5 --port=53 --user=root --group=root --pid-file="$work/liar-dnsmasq.pid" \
    --address=/blocked.test/198.18.0.9 --address=/allowed.test/198.18.0.9 &
pids+=("$!")

nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --listen-address=fd00:18::2 --port=53 --user=root --group=root \
    --pid-file="$work/peer-dnsmasq.pid" --log-queries --log-facility="$work/peer-dnsmasq.log" --local-ttl=60 \
    --address=/blocked.test/198.18.0.3 --address=/blocked.test/fd00:18::3 \
    --address=/allowed.test/198.18.0.4 --address=/allowed.test/fd00:18::4 --address=/tcponly.test/198.18.0.7 \
    $(for i in $(seq 120); do printf -- ' --address=/big.allowed.test/10.18.%d.%d' $((i / 200)) $((i % 200 + 1)); done) &
pids+=("$!")
# The machine's stub, as NetworkManager runs it: no cache, so that every answer shows what its
# upstream path gives now.
dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=127.0.1.1 --port=53 --user=root --group=root --pid-file="$work/stub-dnsmasq.pid" \
    --cache-size=0 --server=198.18.0.2 --log-queries --log-facility="$work/stub-dnsmasq.log" &
pids+=("$!")
for _ in $(seq 100); do dig +time=1 +tries=1 @127.0.1.1 allowed.test >/dev/null 2>&1 && break; sleep 0.05; done

mkdir -p "$root/etc/simplylock/profiles.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'nameserver 127.0.1.1\noptions timeout:2 attempts:2\n' >"$root/etc/resolv.conf"
printf 'checkpoint_interval = "1s"\n' >"$root/etc/simplylock/simplylockd.toml"
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf

"$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns --log-level debug >>"$work/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && break; sleep 0.05; done

resolves_to() { # resolves_to ADDRESS DIG-ARGS...
    local want="$1" got
    shift
    got="$(dig +short +time=2 +tries=1 "$@" | tr '\n' ' ')"
    echo "$got"
    [ "$got" = "$want " ]
}
dns_detail() { # dns_detail KEY: the dns enforcer's status detail
    "$bin/lockctl" --root "$root" status --json | python3 -c '
import json, sys
dns = [e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "dns"][0]["details"]
print(dns.get(sys.argv[1], ""))' "$1"
}
detail_matches() { # detail_matches KEY REGEX
    local value
    value="$(dns_detail "$1")"
    echo "$value"
    printf '%s\n' "$value" | grep -qE "$2"
}

expect "m.blocked.test resolves through the stub before the block" resolves_to 198.18.0.3 m.blocked.test
wait_for_file "$work/serve.ready" 10 || echo "# the echo servers did not start"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups env PATH=/usr/bin:/bin "$@"; }
expect "an ordinary user reaches blocked.test's address before the block" as_user python3 "$here/nettool.py" check 198.18.0.3 80 open
expect "profile created" lockctl profiles create site --domain blocked.test
expect "lockctl start site 10m" lockctl start site 10m --strict
log_lines_before_block=$(wc -l <"$work/peer-dnsmasq.log")
expect "the machine's DNS is redirected although the only resolver is a local stub" \
    sh -c 'nft list chain inet simplylock dnsredirect | grep -E "redirect to :[0-9]+"'
expect "status: redirected queries go to the server each was sent to" detail_matches redirectedQueriesGo '^to the server each was sent to$'
expect "status: no problem reported for the dns enforcer" detail_matches problem '^$'
for name in blocked.test m.blocked.test a.b.blocked.test; do
    expect "dig $name through the stub: 0.0.0.0" resolves_to 0.0.0.0 "$name"
    expect "dig AAAA $name through the stub: ::" resolves_to :: AAAA "$name"
done
expect "getent ahosts m.blocked.test: no real address" sh -c 'out="$(getent ahosts m.blocked.test)"; echo $out; ! echo "$out" | grep -q 198.18.0.3'
expect "dig +tcp m.blocked.test through the stub: 0.0.0.0" resolves_to 0.0.0.0 +tcp m.blocked.test
expect "allowed.test resolves through the stub and its upstream" resolves_to 198.18.0.4 allowed.test
expect "allowed.test over TCP through the stub" resolves_to 198.18.0.4 +tcp allowed.test
expect "a query sent straight to the peer over IPv6 goes there" resolves_to 198.18.0.4 @fd00:18::2 allowed.test
expect "a blocked name sent straight to the peer over IPv6: 0.0.0.0" resolves_to 0.0.0.0 @fd00:18::2 x.blocked.test
expect "the stub's upstream queries went on to the peer through the filter" detail_matches toOriginalDestination '^([3-9]|[1-9][0-9]+)$'
# (The firewall asks the peer for blocked.test and www.blocked.test itself, marked: not through the filter.)
expect "no subdomain of blocked.test asked through the filter reached the peer during the block" sh -c "! tail -n +$((log_lines_before_block + 1)) '$work/peer-dnsmasq.log' | grep -E 'query\[[A-Z]+\] (m|a\.b|x)\.blocked\.test from'"
echo "# the firewall behind the stub: blocked.test's real addresses, learnt through the stub's upstream"
expect "an ordinary user asks another resolver for names (it answers blocked.test with 198.18.0.9)" \
    as_user dig +short +time=2 +tries=1 @198.18.0.5 x.allowed.test
expect "the firewall's set holds blocked.test's real IPv4 address" \
    time_until 20000 sh -c 'nft list set inet simplylock block4 | grep -qw 198.18.0.3'
expect "... and its real IPv6 address" time_until 20000 sh -c 'nft list set inet simplylock block6 | grep -qw fd00:18::3'
expect "... and no sinkhole or lying answer" sh -c '! nft list table inet simplylock | grep -E "0\.0\.0\.0|198\.18\.0\.9"'
expect "status: the stub's upstream was learnt (198.18.0.2), the other resolver was not" \
    sh -c "out=\"\$('$bin/lockctl' --root '$root' status --json | python3 -c '
import json, sys
dns = [e for e in json.load(sys.stdin)[\"enforcers\"] if e[\"name\"] == \"dns\"][0][\"details\"]
print(dns.get(\"stubUpstreams\", \"\"))')\"; echo \"\$out\"; echo \"\$out\" | grep -qw 198.18.0.2 && ! echo \"\$out\" | grep -q 198.18.0.5"
expect "an ordinary user's connection to blocked.test's IPv4 address is refused" as_user python3 "$here/nettool.py" check 198.18.0.3 80 refused
expect "... and to its IPv6 address" as_user python3 "$here/nettool.py" check fd00:18::3 80 refused
expect "check blocked.test: the firewall refuses its real address" sh -c "'$bin/lockctl' --root '$root' check blocked.test --json | python3 -c '
import json, sys
nft = [e for e in json.load(sys.stdin)[\"enforcers\"] if e[\"name\"] == \"nftables\"][0]
print(nft[\"detail\"]); sys.exit(0 if nft[\"blocks\"] and \"198.18.0.3\" in nft[\"detail\"] else 1)'"
echo "# the DNS filter's answer cache (the stub keeps none): a repeat is answered from it, a block always wins"
answered_from_cache() { # answered_from_cache NAME ADDRESS: resolves to ADDRESS, and fromCache grew
    local before after
    before="$(dns_detail fromCache)"
    resolves_to "$2" "$1" || return 1
    after="$(dns_detail fromCache)"
    echo "fromCache $before -> $after"
    [ "$after" -gt "$before" ]
}
expect "later.allowed.test resolves through the stub" resolves_to 198.18.0.4 later.allowed.test
expect "asked again, it is answered from the filter's cache" answered_from_cache later.allowed.test 198.18.0.4
expect "the peer was asked once" sh -c "[ \$(grep -c 'query\[A\] later.allowed.test' '$work/peer-dnsmasq.log') = 1 ]"
expect "a block of later.allowed.test starts" sh -c "'$bin/lockctl' --root '$root' profiles create late --domain later.allowed.test >/dev/null && '$bin/lockctl' --root '$root' start late 10m"
expect "later.allowed.test is 0.0.0.0 at once: the kept answer is not served" resolves_to 0.0.0.0 later.allowed.test
expect "... over TCP too" resolves_to 0.0.0.0 +tcp later.allowed.test
expect "check m.blocked.test: the dns enforcer blocks it" sh -c "'$bin/lockctl' --root '$root' check m.blocked.test --json | python3 -c '
import json, sys
answer = json.load(sys.stdin)
dns = [e for e in answer[\"enforcers\"] if e[\"name\"] == \"dns\"][0]
print(dns[\"detail\"]); sys.exit(0 if dns[\"blocks\"] else 1)'"
expect "doctor reports no problem with the dns enforcer" sh -c "! '$bin/lockctl' --root '$root' doctor 2>&1 | grep -i 'resolvers = '"
echo "# the daemon killed mid-block (issue 24, row 6)"
kill -KILL "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
unanswered() { # unanswered MAX_MS DIG-ARGS...: no address comes back, and the failure is known within MAX_MS
    local limit="$1" start end output
    shift
    start=$(date +%s%3N)
    output="$(dig +short +time=3 +tries=1 "$@" 2>&1)"
    end=$(date +%s%3N)
    echo "$((end - start)) ms: $output"
    ! printf '%s\n' "$output" | grep -qE '^[0-9.]+$' && [ $((end - start)) -lt "$limit" ]
}
expect "with the daemon gone, allowed.test does not resolve through the stub (fails closed, its timeout)" unanswered 4000 allowed.test
expect "... and a query straight to the peer is refused at once" unanswered 1000 @198.18.0.2 allowed.test
"$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns --release >>"$work/daemon.log" 2>&1
expect "after release, m.blocked.test resolves through the stub again" time_until 5000 resolves_to 198.18.0.3 m.blocked.test

echo "# a stub that reaches its upstream over TCP only: the filter learns it from TCP queries"
# Unmarked UDP to the peer is cut before the redirect (the daemon's own marked queries pass), so
# the stub's upstream queries that reach the filter are the TCP ones clients' retries cause
# after a truncated answer. A new daemon knows no upstream yet; a block of tcponly.test needs
# its address (198.18.0.7), which only the stub's upstream gives.
nft -f - <<'EOF2'
table inet udpcut {
	chain out {
		type filter hook output priority -300; policy accept;
		meta l4proto udp th dport 53 ip daddr 198.18.0.2 socket mark != 0x534c drop
	}
}
EOF2
"$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns --log-level debug >>"$work/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && break; sleep 0.05; done
expect "a block of tcponly.test starts" sh -c "'$bin/lockctl' --root '$root' profiles create tcp --domain tcponly.test >/dev/null && '$bin/lockctl' --root '$root' start tcp 10m"
expect "status: no stub upstream learnt yet" detail_matches stubUpstreams '^none learnt yet'
expect "over UDP the stub gets no answer (its UDP upstream queries are cut)" sh -c '! dig +short +time=1 +tries=1 x.allowed.test | grep -qE "^[0-9]"'
expect "over TCP the stub answers y.allowed.test through its upstream" resolves_to 198.18.0.4 +tcp y.allowed.test
expect "status: the stub's upstream 198.18.0.2 was learnt from its TCP query" time_until 5000 detail_matches stubUpstreams '198\.18\.0\.2'
expect "the firewall's set holds tcponly.test's real address, resolved through the learnt upstream" \
    time_until 20000 sh -c 'nft list set inet simplylock block4 | grep -qw 198.18.0.7'
nft delete table inet udpcut
expect "a 120-record answer through the stub: truncated over UDP, then whole over TCP through the filter" \
    sh -c '[ "$(dig +short +time=3 +tries=1 big.allowed.test | grep -c "^10\.18\.")" = 120 ]'
expect "lockctl stop tcp" lockctl stop tcp
kill -TERM "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
"$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns --release >>"$work/daemon.log" 2>&1

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || { echo "--- daemon log (last 40 lines)"; tail -40 "$work/daemon.log"; }
[ "$failed" = 0 ]
