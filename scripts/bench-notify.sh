#!/usr/bin/env bash
# What the tray icon costs lockctl notify: its memory and idle wakeups with the icon against the
# same notifier with --no-tray (the baseline, measured in the same run), and how soon the icon
# shows a block started with lockctl against how soon its notification arrives. On a private
# session bus with the tests' stand-ins (Tests/Scripts: the notification recorder, a
# StatusNotifierWatcher reading the icon as a panel does); release builds, scratch root.
# Usage: scripts/bench-notify.sh [IDLE_SECONDS] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/bench-build.sh
bench_build simplylockd lockctl
if bench_short && [ $# -eq 0 ]; then set -- 2 2; fi
exec /usr/bin/python3 scripts/bench-notify.py "$bin" "$PWD" "$@"
