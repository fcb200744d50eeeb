#!/usr/bin/env bash
# Usage (screen time) over a year of synthetic minutes: the API round trip of GET /v1/usage for
# a year by app, category, site and group against GET /v1/status as the baseline measured in the
# same run, and lockctl usage as a whole process against lockctl status; then the app meter's
# cost: daemon CPU per metered hour (a fake app running, 10 s samples) and wakeups per idle
# minute, each against the same daemon with the meter slowed to one sample per 10 minutes; then
# the site meter with the firewall's byte counters (scripts/bench-usage-sites.sh, in namespaces,
# as root with nft and dnsmasq; SKIP_SITES=1 leaves it out).
# Release builds as `make build` makes them (CONFIGURATION=debug for a quick look at the debug
# binaries), scratch root.
# Usage: scripts/bench-usage.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ "${CONFIGURATION:-release}" = debug ]; then
    swift build --product simplylockd >/dev/null
    swift build --product lockctl >/dev/null
    bin=$(swift build --show-bin-path)
else
    # `swift build -c release --product lockctl` alone fails to link (static Foundation's ICU
    # symbols): the release binaries are the ones `make build` leaves, as for the other benches.
    . scripts/bench-build.sh
    bench_build simplylockd lockctl
fi
python3 scripts/bench-usage.py "$bin" "$PWD/config" "$@"
[ -n "${SKIP_SITES:-}" ] || scripts/bench-usage-sites.sh "$bin" "$PWD/config"
