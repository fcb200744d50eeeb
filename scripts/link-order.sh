#!/usr/bin/env bash
# Regenerates link-order/simplylockd.order and link-order/lockctl.order: the functions the release
# binaries run in a typical session, which the release link places side by side (gold's
# --section-ordering-file, see Package.swift). The kernel maps a program's code 64 KiB around
# each page it faults in (fault-around), so code used now and then, scattered over 25 MB of text,
# kept most of the text resident; packed, it takes a few pages. Needs valgrind (callgrind lists
# every function a run executes). Run by hand after large changes; a stale list costs memory,
# never correctness: names it lists that no longer exist are ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "link-order: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
make --no-print-directory build >/dev/null
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
exec python3 scripts/link-order.py "$bin" "$PWD/config" "$PWD/link-order"
