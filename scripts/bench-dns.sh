#!/usr/bin/env bash
# DNS filter figures: dnsperf against the forwarder vs against dnsmasq directly (loopback, same
# query file, same run: p50/p99 latency and throughput ratios), a synthetic 1 000 000-name list
# (parse + build time, memory against a Set<String>, lookup time per query), and the longest
# query stall while the list is rebuilt and swapped under load. Unprivileged; loopback only.
#
#   scripts/bench-dns.sh [--names N] [--seconds S] [--rate QPS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product dns-bench >/dev/null
bin=$(swift build -c release --show-bin-path)
exec python3 scripts/bench-dns.py "$bin" "$@"
