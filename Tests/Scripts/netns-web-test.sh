#!/usr/bin/env bash
# The connection-time name check (issue 24) through the real simplylockd and lockctl, in
# private network and mount namespaces.
#
#   Tests/Scripts/netns-web-test.sh BIN_DIR DATA_DIR      (as root)
#
#   test namespace: simplylockd (hosts, nftables, dns, connections), curl as uid 65534; veth0 198.18.0.1;
#                   a router for the client namespace (veth2 198.18.1.1, the client 198.18.1.2)
#   peer namespace: veth1 198.18.0.2 (dnsmasq on :53 giving blocked.test and allowed.test one
#                   shared address, 198.18.0.5 and fd00:5::5, and on :5353 a second resolver
#                   that the redirect does not see, giving its names 198.18.0.7), 198.18.0.5 and
#                   198.18.0.7 (HTTPS on :443 and :8443 serving blocked.test's and allowed.test's
#                   self-signed certificates by SNI, HTTP on :80 echoing Host)
#
# blocked.test and allowed.test share 198.18.0.5, as sites on a CDN do; the firewall blocks it
# (blocked.test resolves to it) and hands its TCP over to the connection check; 198.18.0.7 is an
# address the firewall does not know. During a block of blocked.test, as an ordinary user: a TLS
# connection naming m.blocked.test is reset whatever address it goes to and however it was
# learnt, one naming allowed.test to the shared address works; the same for HTTP Host; TCP to the
# shared address without a name (junk, TLS without SNI) is reset, UDP to it refused; HTTP/3 (UDP
# 443) is refused; an allowed connection's later packets are not queued; SYNs to the shared
# address are no firewall attempts. With the daemon killed, TCP to the shared address is dropped
# while connections elsewhere go on unchecked (bypass; what the README says); restarted, the
# check is back; stopped normally, the queue tables are gone and the firewall refuses the shared
# address outright again. Prints "ok - …" / "not ok - …" and "N passed, M failed"; exits 0 only
# when all passed, 77 after "SKIP: reason" when it cannot run.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

# Checked before entering: the connection check queues packets through nft_compat's xtables
# NFQUEUE target (what iptables-nft uses too).
if [ "${NETNS_INNER:-}" != 1 ] && [ "$(id -u)" = 0 ] && command -v iptables >/dev/null; then
    unshare -n iptables -w -A OUTPUT -p tcp -j NFQUEUE --queue-num 21324 --queue-bypass >/dev/null 2>&1 ||
        skip "the kernel cannot queue packets from nftables (nft_compat with xt_NFQUEUE: CONFIG_NFT_COMPAT, CONFIG_NETFILTER_XT_TARGET_NFQUEUE)"
fi
netns_enter 240 nft iptables dnsmasq dig curl openssl setpriv

# ---- inside the namespaces ------------------------------------------------------------------

netns_setup netns-web-test
peer() { nsenter -t "$peer_pid" -n "$@"; }
start_daemon() {
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,nftables,dns,connections --log-level debug \
        >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
    echo "simplylockd did not answer"; tail -20 "$work/daemon.log"; return 1
}

netns peer_pid
ip link add veth0 type veth peer name veth1 netns "$peer_pid"
ip addr add 198.18.0.1/24 dev veth0
ip link set veth0 up
peer ip link set lo up
peer ip addr add 198.18.0.2/24 dev veth1
peer ip addr add 198.18.0.5/24 dev veth1
peer ip addr add 198.18.0.7/24 dev veth1
peer ip link set veth1 up
# A client behind this namespace as a router (its connections take the forward hook).
netns client_pid
link "$client_pid" veth2 198.18.1.1 veth3 198.18.1.2
nsenter -t "$client_pid" -n ip route add default via 198.18.1.1
peer ip route add 198.18.1.0/24 via 198.18.0.1
sysctl -qw net.ipv4.ip_forward=1
ip -6 addr add fd00:5::1/64 dev veth0 nodad
peer ip -6 addr add fd00:5::5/64 dev veth1 nodad

for name in blocked.test allowed.test; do
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$name" -addext "subjectAltName=DNS:$name,DNS:*.$name" \
        -keyout "$work/$name.key" -out "$work/$name.crt" >/dev/null 2>&1
done
nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=53 --user=root --group=root --pid-file="$work/dns53.pid" \
    --address=/blocked.test/198.18.0.5 --address=/blocked.test/fd00:5::5 \
    --address=/allowed.test/198.18.0.5 --address=/allowed.test/fd00:5::5 --address=/later.test/198.18.0.7 &
pids+=("$!")
nsenter -t "$peer_pid" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=5353 --user=root --group=root --pid-file="$work/dns5353.pid" \
    --address=/blocked.test/198.18.0.7 &
pids+=("$!")
# nsenter itself, not the peer function (a subshell): $! is then the server's own pid, which the
# cleanup kills. The system's python3, which uid 65534 can run too.
nsenter -t "$peer_pid" -n /usr/bin/python3 - "$work" <<'PY' &
import http.server, socket, socketserver, ssl, sys, threading
work = sys.argv[1]
class Echo(http.server.BaseHTTPRequestHandler):
    # A client the check refused never sends its ClientHello: its handshake times out in its
    # own thread (do_handshake_on_connect=False) instead of holding up the accepting one.
    timeout = 5
    def do_GET(self):
        body = (self.headers.get("Host", "") or "").encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
contexts = {}
for name in ("blocked.test", "allowed.test"):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); context.load_cert_chain(f"{work}/{name}.crt", f"{work}/{name}.key")
    contexts[name] = context
default = contexts["allowed.test"]
def pick(connection, name, _):
    if name:
        for suffix, context in contexts.items():
            if name == suffix or name.endswith("." + suffix):
                connection.context = context
default.sni_callback = pick
https = Server(("0.0.0.0", 443), Echo)
https.socket = default.wrap_socket(https.socket, server_side=True, do_handshake_on_connect=False)
other = Server(("0.0.0.0", 8443), Echo)
other.socket = default.wrap_socket(other.socket, server_side=True, do_handshake_on_connect=False)
threading.Thread(target=other.serve_forever, daemon=True).start()
class Server6(Server):
    address_family = socket.AF_INET6
six = Server6(("fd00:5::5", 443), Echo)
six.socket = default.wrap_socket(six.socket, server_side=True, do_handshake_on_connect=False)
threading.Thread(target=six.serve_forever, daemon=True).start()
plain = Server(("0.0.0.0", 80), Echo)
threading.Thread(target=plain.serve_forever, daemon=True).start()
open(f"{work}/web.ready", "w").close()
https.serve_forever()
PY
pids+=("$!")
wait_for_file "$work/web.ready" 10 || { echo "web server did not start"; exit 1; }

mkdir -p "$root/etc/simplylock/profiles.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'nameserver 198.18.0.2\n' >"$root/etc/resolv.conf"
mount --bind "$root/etc/resolv.conf" /etc/resolv.conf

user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
https_get() { # https_get NAME [ADDRESS [PORT]]: the body, or curl's failure, as an ordinary user
    user curl -sS -k --max-time 5 --resolve "$1:${3:-443}:${2:-198.18.0.5}" "https://$1:${3:-443}/"
}
# curl's exit status for NAME at the shared address within 3 s: 28 is a timeout (dropped), 7, 35
# and 56 a refusal (reset) seen at once.
https_status() { user curl -sS -k --max-time 3 --resolve "$1:443:198.18.0.5" "https://$1/" >/dev/null 2>&1; echo $?; }
reset_at_once() { local status; status="$(https_status "$1")"; echo "curl exit $status"; case "$status" in 7 | 35 | 56) ;; *) false ;; esac; }
dropped() { local status; status="$(https_status "$1")"; echo "curl exit $status"; [ "$status" = 28 ]; }
# A connection to ADDRESS:PORT that sends BYTES (Python literal) and reads: "reset" when it is reset,
# else what came back.
raw_tcp() {
    user /usr/bin/python3 -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5)
s.sendall(eval(sys.argv[3]))
try:
    data = s.recv(100)
    print(data.split(b"\r\n")[0].decode() if data else "closed")
except ConnectionResetError:
    print("reset")' "$@"
}
tls_without_sni() {
    user /usr/bin/python3 -c '
import socket, ssl
context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
raw = socket.create_connection(("198.18.0.5", 443), timeout=5)
try:
    s = context.wrap_socket(raw)
    s.sendall(b"GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n"); print(s.recv(100).split(b"\r\n")[0].decode())
except (ConnectionResetError, ssl.SSLError) as error:
    print("reset:", error)'
}
# Packets the firewall counted as attempts for blocked.test (its named counter).
firewall_attempts() {
    nft list counters table inet simplylock | awk '/comment "blocked.test"/ { found = 1 } found && /packets/ { print $2; exit }'
}
http_get() { user curl -sS --max-time 5 -H "Host: $1" "http://198.18.0.5/"; }
body_is() { # body_is TEXT command...: the command prints exactly TEXT
    local want="$1" got; shift
    got="$("$@" 2>&1)"; echo "$got"; [ "$got" = "$want" ]
}
# Packets queued so far (the queue's id sequence).
queued() { awk '$1 == 21324 { print $8 }' /proc/net/netfilter/nfnetlink_queue; }
fails() { ! "$@"; }
connections_detail() {
    "$bin/lockctl" --root "$root" status --json | python3 -c '
import json, sys
print([e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "connections"][0]["details"].get(sys.argv[1], ""))' "$1"
}

start_daemon || exit 1
# After every table of ours (filter + 20): packets that still carry a bit of the check's.
nft -f - <<'NFT'
table inet markwatch {
    counter leaked {}
    chain output { type filter hook output priority filter + 20; meta mark & 0x00f00000 != 0 counter name leaked; }
    chain forward { type filter hook forward priority filter + 20; meta mark & 0x00f00000 != 0 counter name leaked; }
}
NFT
leaked() { nft list counter inet markwatch leaked | awk '/packets/ { print $2 }'; }
expect "before the block, m.blocked.test over TLS works" https_get m.blocked.test
expect "profile created" lockctl profiles create site --domain blocked.test
expect "lockctl start site 10m" lockctl start site 10m
expect "the queue tables queue new connections" sh -c 'nft list table ip simplylock_queue | grep -E "queue.*21324 bypass|NFQUEUE"'
expect "... and mark TCP before the main table (filter - 5)" sh -c 'nft list chain ip simplylock_queue present_output | grep -E "priority (filter - 5|-5)"'
expect "the firewall hands TCP to blocked.test's addresses over to the check" sh -c 'nft list chain inet simplylock enforce | grep -c "jump handoff"'
nftables_detail() {
    "$bin/lockctl" --root "$root" status --json | python3 -c '
import json, sys
print([e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "nftables"][0]["details"].get(sys.argv[1], ""))' "$1"
}
handoff_shown() { local detail; detail="$(nftables_detail handoff)"; echo "$detail"; [[ "$detail" == *"connection check"* ]]; }
expect "status shows the handoff" handoff_shown
doctor_says() { local out; out="$("$bin/lockctl" --root "$root" doctor 2>&1)"; grep -F "$1" <<<"$out" || { echo "$out" | tail -5; false; }; }
expect "doctor says sites sharing blocked names' addresses keep working" doctor_says "sites sharing them keep working"
expect "check blocked.test: the firewall refuses all but TCP, which the connection check judges" sh -c "'$bin/lockctl' --root '$root' check blocked.test --json | python3 -c '
import json, sys
e = [e for e in json.load(sys.stdin)[\"enforcers\"] if e[\"name\"] == \"nftables\"][0]
print(e[\"detail\"]); sys.exit(0 if e[\"blocks\"] and \"judged by the connection check\" in e[\"detail\"] else 1)'"
expect "TLS naming m.blocked.test to the shared address is reset" fails https_get m.blocked.test
expect "TLS naming blocked.test to it is reset" fails https_get blocked.test
expect "TLS naming m.blocked.test on port 8443 is reset" fails https_get m.blocked.test 198.18.0.5 8443
expect "TLS naming allowed.test on the same address works" body_is allowed.test https_get allowed.test
expect "... and on port 8443" body_is allowed.test:8443 https_get allowed.test 198.18.0.5 8443
expect "HTTP Host: old.blocked.test is reset" fails http_get old.blocked.test
expect "HTTP Host: allowed.test on the same address works" body_is allowed.test http_get allowed.test
address="$(dig +short +time=2 +tries=1 @198.18.0.2 -p 5353 old.blocked.test)"
expect "a resolver on port 5353 answers old.blocked.test ($address)" test "$address" = 198.18.0.7
expect "... and connecting to that address naming old.blocked.test is reset" fails https_get old.blocked.test "$address"
expect "TLS naming m.blocked.test over IPv6 is reset" fails https_get m.blocked.test "[fd00:5::5]"
expect "TLS naming allowed.test over IPv6 works" body_is allowed.test https_get allowed.test "[fd00:5::5]"
expect "TCP to the shared address sending no name (junk) is reset" body_is reset raw_tcp 198.18.0.5 80 'b"hello\r\n\r\n"'
answered() { local out; out="$(raw_tcp "$@" 2>&1)"; echo "$out"; [ -n "$out" ] && [ "$out" != reset ] && [ "$out" != closed ]; }
expect "... the same to an address no blocked name has is answered" answered 198.18.0.7 80 'b"hello\r\n\r\n"'
expect "an HTTP request without Host to the shared address is reset" body_is reset raw_tcp 198.18.0.5 80 'b"GET / HTTP/1.1\r\n\r\n"'
tls_reset() { local out; out="$(tls_without_sni 2>&1)"; echo "$out"; [[ "$out" == reset* ]]; }
expect "TLS without SNI to the shared address is reset" tls_reset
fast_open() { # fast_open ADDRESS: an HTTP request sent with the SYN (TCP Fast Open); "reset" or the answer
    user timeout 10 /usr/bin/python3 -c '
import socket, sys
s = socket.socket()  # blocking: with a timeout, sendto returns EINPROGRESS
try:
    s.sendto(b"GET / HTTP/1.0\r\nHost: allowed.test\r\n\r\n", socket.MSG_FASTOPEN, (sys.argv[1], 80))
    s.settimeout(5)
    print(s.recv(100).split(b"\r\n")[0].decode() or "closed")
except (ConnectionResetError, ConnectionRefusedError) as error:
    print("reset:", error)' "$1"
}
fast_open_reset() { local out; out="$(fast_open "$1" 2>&1)"; echo "$out"; [[ "$out" == reset:* ]]; }
expect "a SYN asking for TCP Fast Open to the shared address is reset" fast_open_reset 198.18.0.5
expect "... to an address no blocked name has it is answered" body_is "HTTP/1.0 200 OK" fast_open 198.18.0.7
udp_refused() { # udp_refused ADDRESS PORT: sending fails at once or the answer is an ICMP refusal
    user /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2); s.connect((sys.argv[1], int(sys.argv[2])))
try:
    s.send(b"x" * 20); s.recv(100); raise SystemExit("answered")
except (ConnectionRefusedError, PermissionError, OSError) as error:
    if isinstance(error, TimeoutError): raise SystemExit("no refusal")
    print("refused:", error.strerror)' "$@"
}
attempts_before="$(firewall_attempts)"
for _ in 1 2 3; do https_get allowed.test >/dev/null 2>&1; done
attempts_after="$(firewall_attempts)"
expect "SYNs of allowed connections to the shared address are no firewall attempts ($attempts_before, then $attempts_after)" \
    test "$attempts_before" = "$attempts_after"
expect "UDP to the shared address is refused" udp_refused 198.18.0.5 5000
attempts_grew() { local now; now="$(firewall_attempts)"; echo "$now"; [ "$now" -gt "$1" ]; }
expect "... and counted as an attempt by the firewall" attempts_grew "$attempts_after"
# The machine's own hosts file (this mount namespace's) names the shared address directly.
printf '127.0.0.1 localhost\n198.18.0.5 www.blocked.test www.allowed.test\n' >"$work/hosts.direct"
chmod 644 "$work/hosts.direct"
mount --bind "$work/hosts.direct" /etc/hosts
expect "an /etc/hosts line for www.blocked.test: its TLS connection is reset" fails user curl -sS -k --max-time 5 https://www.blocked.test/
expect "... and www.allowed.test's through the same file works" body_is www.allowed.test user curl -sS -k --max-time 5 https://www.allowed.test/
# Sending to a rejected UDP port fails at once (EPERM) or on the next read (ICMP: refused).
expect "HTTP/3 (UDP 443) is refused" user /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2); s.connect(("198.18.0.5", 443))
try:
    s.send(b"\xc0" + b"\0" * 1199); s.recv(100); raise SystemExit("answered")
except (ConnectionRefusedError, PermissionError) as error:
    print("refused:", error.strerror)'
before="$(queued)"
echo "# queued so far: $before"
expect "an allowed connection of 300 writes works" user /usr/bin/python3 -c '
import socket, ssl
context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
raw = socket.create_connection(("198.18.0.5", 443), timeout=5); raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
s = context.wrap_socket(raw, server_hostname="allowed.test")
request = b"GET / HTTP/1.1\r\nHost: allowed.test\r\nX-Pad: " + b"x" * 4800 + b"\r\n\r\n"
for i in range(0, len(request), 16): s.send(request[i:i + 16])
print(s.recv(4096).split(b"\r\n")[0].decode())'
after="$(queued)"
expect "... only its first packets were queued ($((after - before)) of 300+)" test $((after - before)) -le 4
expect "no packet left our tables with a bit of the check's in its mark ($(leaked))" test "$(leaked)" = 0
refused_at_least() { local n; n="$(connections_detail refused)"; echo "$n"; [ "$n" -ge "$1" ]; }
expect "status counts the refused connections" refused_at_least 7
attempts_of() { # attempts_of NAME: the insights count of NAME
    "$bin/lockctl" --root "$root" insights --days 1 --json | python3 -c '
import json, sys
counts = {site["name"]: site["attempts"] for site in json.load(sys.stdin)["topSites"]}
print(counts.get(sys.argv[1], 0))' "$1"
}
at_least_one() { local n; n="$(attempts_of "$1")"; echo "$n"; [ "$n" -ge 1 ]; }
# No lookup of old.blocked.test went through the DNS filter (port 5353, --resolve): these are the
# connection check's.
expect "insights count the refused connections to old.blocked.test" time_until 3000 at_least_one old.blocked.test
expect "... and to m.blocked.test" at_least_one m.blocked.test
expect "allowed.test is no attempt" sh -c "[ \"\$('$bin/lockctl' --root '$root' insights --days 1 --json | grep -c '\"allowed.test\"')\" = 0 ]"
expect "check old.blocked.test: the connections enforcer blocks it" sh -c "'$bin/lockctl' --root '$root' check old.blocked.test --json | python3 -c '
import json, sys
answer = json.load(sys.stdin)
e = [e for e in answer[\"enforcers\"] if e[\"name\"] == \"connections\"][0]
print(e[\"detail\"]); sys.exit(0 if e[\"blocks\"] else 1)'"
expect "routed: a client behind this machine naming m.blocked.test is reset" \
    fails nsenter -t "$client_pid" -n curl -sS -k --max-time 5 --resolve m.blocked.test:443:198.18.0.5 https://m.blocked.test/
expect "routed: ... naming allowed.test works" body_is allowed.test \
    nsenter -t "$client_pid" -n curl -sS -k --max-time 5 --resolve allowed.test:443:198.18.0.5 https://allowed.test/
# Two connections to 198.18.0.7 held open while it becomes a blocked name's address (a second
# block, of later.test): the one whose name was read and allowed goes on, the one let go without
# a name is reset, as every connection to a newly blocked address was before the handoff.
# ($work is its owner's only: the handshake files go where the ordinary user can write.)
held="$(mktemp -d /tmp/netns-web-held.XXXXXX)"
chmod 777 "$held"
user /usr/bin/python3 - "$held" <<'PY' >"$work/held.out" 2>&1 &
import os, socket, ssl, sys, time
work = sys.argv[1]
context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
held = {name: context.wrap_socket(socket.create_connection(("198.18.0.7", 443), timeout=5), server_hostname=name,
                                  suppress_ragged_eofs=False)
        for name in ("allowed.test", None)}
open(f"{work}/ready", "w").close()
while not os.path.exists(f"{work}/go"): time.sleep(0.05)
for name, tls in held.items():
    try:
        tls.sendall(b"GET / HTTP/1.0\r\nHost: allowed.test\r\n\r\n")
        print(name, tls.recv(100).split(b"\r\n")[0].decode() or "closed")
    except OSError as error:
        print(name, "reset:", error)
PY
held_pid=$!
wait_for_file "$held/ready" 10
lockctl profiles create later --domain later.test >/dev/null
expect "a second block, of later.test" lockctl start later 10m
in_block4() { nft list set inet simplylock block4 | grep -q 198.18.0.7; }
expect "... puts its address 198.18.0.7 in the firewall's handed-over set" time_until 10000 in_block4
touch "$held/go"
wait "$held_pid"
rm -rf "$held"
expect "a connection to it allowed by name before goes on" grep -q "^allowed.test HTTP/1.0 200" "$work/held.out"
expect "... one let go without a name is reset ($(tr '\n' ' ' <"$work/held.out"))" grep -q "^None reset" "$work/held.out"
expect "... and new connections naming allowed.test to it work" body_is allowed.test https_get allowed.test 198.18.0.7
expect "lockctl stop later" lockctl stop later
# One block ending and the next starting at once (a schedule's edge, a Pomodoro phase): the new
# reader binds the queue while the old one's thread may still be reading.
lockctl stop site >/dev/null
expect "a block started right after the last one ended" lockctl start site 10m
reading_again() { local reading; reading="$(connections_detail reading) $(connections_detail tables)"; echo "$reading"; [[ "$reading" == "yes ip and ip6"* ]]; }
expect "... has the check reading its queue again" reading_again
expect "... and allowed.test on the shared address works at once" body_is allowed.test https_get allowed.test
expect "... while m.blocked.test is reset" fails https_get m.blocked.test
echo "# the daemon killed mid-block"
kill -KILL "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
expect "TCP to the shared address is dropped (no bypass for handed-over packets): allowed.test" dropped allowed.test
expect "... and m.blocked.test" dropped m.blocked.test
expect "elsewhere new connections are not cut off (queue bypass): allowed.test works" body_is allowed.test https_get allowed.test 198.18.0.7
expect "... and names are not checked while it is gone (as the README says)" https_get m.blocked.test 198.18.0.7
start_daemon
expect "restarted, the block's check is back" time_until 5000 fails https_get m.blocked.test 198.18.0.7
expect "... and allowed.test on the shared address works again" time_until 5000 body_is allowed.test https_get allowed.test
echo "# the daemon stopped normally mid-block"
kill -TERM "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
expect "stopped, the queue tables are gone" sh -c '! nft list tables | grep simplylock_queue'
expect "... the firewall's table stays" nft list chain inet simplylock enforce
attempts_before="$(firewall_attempts)"
expect "... and refuses TCP to the shared address outright again: allowed.test" reset_at_once allowed.test
expect "... counting its SYN as an attempt again" attempts_grew "$attempts_before"
expect "... UDP too" udp_refused 198.18.0.5 5000
expect "... while other addresses work" body_is allowed.test https_get allowed.test 198.18.0.7
start_daemon
expect "started again, allowed.test on the shared address works" time_until 5000 body_is allowed.test https_get allowed.test
expect "lockctl stop site" lockctl stop site
expect "after the block, the queue tables are gone" sh -c '! nft list tables | grep simplylock_queue'
expect "after the block, m.blocked.test works again" body_is m.blocked.test https_get m.blocked.test
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || { echo "--- daemon log (last 40 lines)"; tail -40 "$work/daemon.log"; }
[ "$failed" = 0 ]
