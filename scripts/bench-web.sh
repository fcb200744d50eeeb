#!/usr/bin/env bash
# Web-wall figures (issue 24), same run, in private network namespaces (the machine's ruleset
# and DNS are never touched): TLS handshake set-up time p50/p99 of 1 000 handshakes to a server
# in a peer namespace with no block and with a block of another name in force; throughput of one
# established connection, both ways; and DNS through the daemon's redirect (a block in force, the
# queries sent to the peer's dnsmasq and forwarded to it by the filter) against the same dnsmasq
# asked directly, with dnsperf: p50/p99 latency and throughput ratios. The handshakes are also
# measured with the connection check's tables removed (the same block otherwise), and with a
# block of a name on the server's own address, which the firewall hands over to the check (a
# site sharing an address with a blocked name); the packets queued to the daemon are counted.
# Needs root.
#
#   scripts/bench-web.sh [BIN_DIR]     (default: a release build)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench-web: needs root (network namespaces, CAP_NET_ADMIN)" >&2; exit 1; }
for tool in unshare nsenter ip nft dnsmasq dnsperf openssl python3; do
    command -v "$tool" >/dev/null || { echo "bench-web: $tool not found (apt-get install nftables dnsmasq dnsperf openssl)" >&2; exit 1; }
done
if [ $# -ge 1 ]; then
    bin="$1"
else
    . scripts/bench-build.sh
    bench_build simplylockd lockctl
fi
exec unshare -n -m python3 scripts/bench-web.py "$bin" "$PWD/config"
