#!/usr/bin/env bash
# The figures of issue 16 (client cost, daemon memory, list-size independence, binary sizes), each
# printed as "ours / baseline = ratio" against baselines built and measured in the same run:
# a statically linked Swift program printing one JSON line, curl, a bare SwiftNIO server (and one
# that also starts the daemon's libraries: the floor its idle memory stands on), and a
# shell one-liner writing the same hosts file. Release builds under scratch roots; run by hand.
# The nftables rows run last, in a private network namespace (root only).
set -euo pipefail
cd "$(dirname "$0")/.."
# The binaries as `make` builds them (release, static Swift standard library).
. scripts/bench-build.sh
bench_build simplylockd lockctl
mkdir -p .build/perf
gcc -O2 -o .build/perf/measure scripts/perf-baselines/runner/measure.c
swiftc -O -static-executable scripts/perf-baselines/bare-json/main.swift -o .build/perf/bare-json 2>/dev/null
swift build -c release --package-path scripts/perf-baselines/nio-server --scratch-path .build/perf/nio >/dev/null
swift build -c release --static-swift-stdlib --package-path scripts/perf-baselines/nio-stack --scratch-path .build/perf/nio-stack \
    >/dev/null
python3 scripts/bench-perf.py "$bin" "$PWD/config" "$PWD/.build/perf/bare-json" "$PWD/.build/perf/nio/release/NIOBaseline" \
    "$PWD/.build/perf/measure" "$PWD/.build/perf/nio-stack/release/NIOStackBaseline"
if [ "$(id -u)" = 0 ]; then
    unshare -n python3 scripts/bench-nftables.py "$bin" "$PWD/config"
else
    echo "bench-perf: the nftables rows need root (a private network namespace); skipped" >&2
fi
