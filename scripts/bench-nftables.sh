#!/usr/bin/env bash
# nftables enforcer figures through the real daemon, in a private network namespace (the
# machine's own ruleset is never touched): time to apply 1 000, 10 000 and 100 000 addresses
# (`lockctl start` returns once the table is committed), the same with the `nft` program for
# comparison, and simplylockd's memory with 100 000 elements. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
[ "$(id -u)" = 0 ] || { echo "bench-nftables: needs root (network namespaces, CAP_NET_ADMIN)" >&2; exit 1; }
. scripts/bench-build.sh
bench_build simplylockd lockctl
exec unshare -n python3 scripts/bench-nftables.py "$bin" "$PWD/config" "$@"
