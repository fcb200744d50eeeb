#!/usr/bin/env bash
# Prints how late a scheduled block is in place after its start instant: the time from the
# instant a schedule's interval starts to the hosts file holding the block, median and worst
# over 20 runs, for a small profile and a 10 000-domain one. Release builds, scratch root.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/bench-build.sh
bench_build simplylockd lockctl
if bench_short && [ $# -eq 0 ]; then set -- 2; fi
exec python3 scripts/bench-schedules.py "$bin" "$PWD/config" "$@"
