#!/usr/bin/env bash
# The web UI (lockctl ui): time from `lockctl ui --no-open` starting to the first paint in
# headless Chromium, against `python3 -m http.server` serving the same files as the baseline
# (ratio); page weight per tab (the app's files and the API answers); resident memory of the
# UI server idle and with the page open, against the baseline server's. Release builds, scratch
# root; BIN_DIR=DIR uses binaries already built there instead (e.g. a debug build).
# Usage: scripts/bench-ui.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/bench-build.sh
if [ -n "${BIN_DIR:-}" ]; then
    bin=$BIN_DIR
else
    bench_build simplylockd lockctl simplylock-ui
fi
if bench_short && [ $# -eq 0 ]; then set -- 1; fi
exec .build/test-venv/bin/python3 scripts/bench-ui.py "$bin" "$PWD/config" "$PWD/web/ui" "$@"
