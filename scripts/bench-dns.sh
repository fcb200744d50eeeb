#!/usr/bin/env bash
# DNS filter figures: dnsperf against the forwarder vs against dnsmasq directly (loopback, same
# query file, same run: p50/p99 latency and throughput ratios), a synthetic 1 000 000-name list
# (parse + build time, memory against a Set<String>, lookup time per query), and the longest
# query stall while the list is rebuilt and swapped under load; then the same list through the real
# daemon (lockctl lists import time, apply time, RSS with the list in force, the longest stall while
# a re-import swaps it, time from lockctl start returning to a blocked answer; this part needs root,
# for the socket mark of the DNS filter). Loopback only; a scratch root, nothing of the machine's DNS.
#
#   scripts/bench-dns.sh [--names N] [--seconds S] [--rate QPS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/bench-build.sh
bench_build dns-bench simplylockd lockctl
if bench_short; then set -- --names 20000 --seconds 1 --rate 500 "$@"; fi
exec python3 scripts/bench-dns.py "$bin" "$@"
