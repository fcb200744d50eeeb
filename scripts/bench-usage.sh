#!/usr/bin/env bash
# Usage (screen time) over a year of synthetic minutes: the API round trip of GET /v1/usage for
# a year by app, category, site and group against GET /v1/status as the baseline measured in the
# same run, and lockctl usage as a whole process against lockctl status; then the app meter's
# cost: daemon CPU per metered hour (a fake app running, 10 s samples) and wakeups per idle
# minute, each against the same daemon with the meter slowed to one sample per 10 minutes.
# Release builds (CONFIGURATION=debug for a quick look), scratch root.
# Usage: scripts/bench-usage.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
configuration=${CONFIGURATION:-release}
scripts/setup.sh
swift build -c "$configuration" --product simplylockd >/dev/null
swift build -c "$configuration" --product lockctl >/dev/null
bin=$(swift build -c "$configuration" --show-bin-path)
exec python3 scripts/bench-usage.py "$bin" "$PWD/config" "$@"
