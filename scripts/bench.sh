#!/usr/bin/env bash
# Prints the foundation's performance figures, measured on release builds under a scratch root:
#   - `lockctl status` whole-process time (hyperfine)
#   - simplylockd idle RSS, and RSS with a 10 000-domain block active
#   - time from `lockctl start` returning to the hosts file being in place, and the time
#     `lockctl start` itself takes, for a 10-domain and a 10 000-domain profile
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
. scripts/bench-build.sh
bench_build simplylockd lockctl
exec python3 scripts/bench.py "$bin" "$PWD/config" "$@"
