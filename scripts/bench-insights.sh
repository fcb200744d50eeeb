#!/usr/bin/env bash
# Insights over a year of synthetic history (10 000 sessions, 1 000 000 blocked attempts):
# whole-process time of `lockctl insights --month --json` and of a year-long window against
# `lockctl status --json` as the baseline, the API round trip alone, and the database size.
# Release builds, scratch root. Usage: scripts/bench-insights.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/bench-build.sh
bench_build simplylockd lockctl
if bench_short && [ $# -eq 0 ]; then set -- 2; fi
exec python3 scripts/bench-insights.py "$bin" "$PWD/config" "$@"
