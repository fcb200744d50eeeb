#!/usr/bin/env bash
# The connection-time name check (issue 24) through the real simplylockd and lockctl, in
# private network and mount namespaces.
#
#   Tests/Scripts/netns-web-test.sh BIN_DIR DATA_DIR      (as root)
#
#   test namespace: simplylockd (hosts, nftables, dns, connections), curl; veth0 198.18.0.1
#   peer namespace: veth1 198.18.0.2 (dnsmasq on :53, and on :5353 a second resolver that the
#                   redirect does not see), 198.18.0.5 (HTTPS on :443 serving blocked.test's and
#                   allowed.test's self-signed certificates by SNI, HTTP on :80 echoing Host)
#
# During a block of blocked.test: a TLS connection naming m.blocked.test is reset whatever
# address it goes to, one naming allowed.test to the same address works; the same for HTTP
# Host; the resolver on port 5353 answering m.blocked.test does not help; HTTP/3 (UDP 443) is
# refused. With the daemon killed, connections go on (bypass), the blocked name included
# (what the README says); restarted, the check is back. Prints "ok - …" / "not ok - …" and
# "N passed, M failed"; exits 0 only when all passed, 77 after "SKIP: reason" when it cannot run.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

# Checked before entering: the connection check queues packets (nft_queue).
if [ "${NETNS_INNER:-}" != 1 ] && [ "$(id -u)" = 0 ] && command -v nft >/dev/null; then
    unshare -n nft -c -f - >/dev/null 2>&1 <<'EOF' || skip "the kernel cannot queue packets from nftables (nft_queue, CONFIG_NFT_QUEUE, is missing)"
table inet probe {
    chain output {
        type filter hook output priority filter; policy accept;
        meta l4proto tcp ct original packets 2-24 queue num 21324 bypass
    }
}
EOF
fi
netns_enter 240 nft dnsmasq dig curl openssl

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
peer ip link set veth1 up

for name in blocked.test allowed.test; do
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=$name" -addext "subjectAltName=DNS:$name,DNS:*.$name" \
        -keyout "$work/$name.key" -out "$work/$name.crt" >/dev/null 2>&1
done
peer dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=53 --user=root --group=root --pid-file="$work/dns53.pid" \
    --address=/blocked.test/198.18.0.5 --address=/allowed.test/198.18.0.5 &
pids+=("$!")
peer dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.18.0.2 --port=5353 --user=root --group=root --pid-file="$work/dns5353.pid" \
    --address=/blocked.test/198.18.0.5 &
pids+=("$!")
peer python3 - "$work" <<'PY' &
import http.server, socketserver, ssl, sys, threading
work = sys.argv[1]
class Echo(http.server.BaseHTTPRequestHandler):
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
https = Server(("198.18.0.5", 443), Echo)
https.socket = default.wrap_socket(https.socket, server_side=True)
plain = Server(("198.18.0.5", 80), Echo)
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

https_get() { # https_get NAME [ADDRESS]: the body, or curl's failure
    curl -sS -k --max-time 5 --resolve "$1:443:${2:-198.18.0.5}" "https://$1/"
}
http_get() { curl -sS --max-time 5 -H "Host: $1" "http://198.18.0.5/"; }
fails() { ! "$@"; }
connections_detail() {
    "$bin/lockctl" --root "$root" status --json | python3 -c '
import json, sys
print([e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "connections"][0]["details"].get(sys.argv[1], ""))' "$1"
}

start_daemon || exit 1
expect "before the block, m.blocked.test over TLS works" https_get m.blocked.test
expect "profile created" lockctl profiles create site --domain blocked.test
expect "lockctl start site 10m" lockctl start site 10m
expect "the table queues new connections" sh -c 'nft list chain inet simplylock enforce | grep -E "queue (num|flags bypass to) 21324"'
expect "TLS naming m.blocked.test is reset (address from the peer directly)" fails https_get m.blocked.test
expect "TLS naming blocked.test is reset" fails https_get blocked.test
expect "TLS naming allowed.test on the same address works" sh -c '[ "$(curl -sS -k --max-time 5 --resolve allowed.test:443:198.18.0.5 https://allowed.test/)" = allowed.test ]'
expect "HTTP Host: old.blocked.test is reset" fails http_get old.blocked.test
expect "HTTP Host: allowed.test on the same address works" sh -c '[ "$(curl -sS --max-time 5 -H "Host: allowed.test" http://198.18.0.5/)" = allowed.test ]'
address="$(dig +short +time=2 +tries=1 @198.18.0.2 -p 5353 old.blocked.test)"
expect "a resolver on port 5353 answers old.blocked.test ($address)" test "$address" = 198.18.0.5
expect "... and connecting to that address naming old.blocked.test is reset" fails https_get old.blocked.test "$address"
expect "HTTP/3 (UDP 443) is refused" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2); s.connect(("198.18.0.5", 443)); s.send(b"\xc0" + b"\0" * 1199)
try:
    s.recv(100); raise SystemExit("answered")
except ConnectionRefusedError:
    print("refused")'
refused_at_least() { local n; n="$(connections_detail refused)"; echo "$n"; [ "$n" -ge "$1" ]; }
expect "status counts the refused connections" refused_at_least 4
expect "check old.blocked.test: the connections enforcer blocks it" sh -c "'$bin/lockctl' --root '$root' check old.blocked.test --json | python3 -c '
import json, sys
answer = json.load(sys.stdin)
e = [e for e in answer[\"enforcers\"] if e[\"name\"] == \"connections\"][0]
print(e[\"detail\"]); sys.exit(0 if e[\"blocks\"] else 1)'"
echo "# the daemon killed mid-block"
kill -KILL "$daemon_pid"; wait "$daemon_pid" 2>/dev/null; daemon_pid=
expect "new connections are not cut off (queue bypass): allowed.test works" sh -c '[ "$(curl -sS -k --max-time 5 --resolve allowed.test:443:198.18.0.5 https://allowed.test/)" = allowed.test ]'
expect "... and names are not checked while it is gone (as the README says)" https_get m.blocked.test
start_daemon
expect "restarted, the block's check is back" time_until 5000 fails https_get m.blocked.test
expect "lockctl stop site" lockctl stop site
expect "after the block, m.blocked.test works again" https_get m.blocked.test

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || { echo "--- daemon log (last 40 lines)"; tail -40 "$work/daemon.log"; }
[ "$failed" = 0 ]
