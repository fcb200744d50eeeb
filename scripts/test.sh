#!/usr/bin/env bash
# Runs the whole test suite: unit tests and integration tests that drive the real simplylockd
# and lockctl binaries under temporary roots. Installs what a fresh machine lacks first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The code base follows .swift-format (140 columns); a file that does not fails the run here,
# before the build. `swift format format --in-place --recursive Sources Tests` fixes most.
swift format lint --strict --recursive --parallel Sources Tests Package.swift
swift build --build-tests
# Shell completions and man pages from the debug build, for the make install tests.
make --no-print-directory generated CONFIGURATION=debug BUILDDIR="$(swift build --show-bin-path)" >/dev/null
swift test --skip-build "$@"
# The release binaries as `make` links them (static lockctl, every function in its own section,
# link order, no exported symbols): their properties, one block end to end, then the integration
# tests against them. Skipped when the run is narrowed with test arguments.
if [ $# -eq 0 ]; then
    # `make` as a user runs it: the binaries, then what is generated beside them (the BPF
    # object next to the daemon, which make install and the bpf tests look for).
    make --no-print-directory all >/dev/null
    release=$(swift build -c release --static-swift-stdlib --show-bin-path)
    python3 scripts/release-check.py "$release"
    SIMPLYLOCK_BIN_DIR=$release swift test --skip-build --filter IntegrationTests
    # Each benchmark script once in its short mode (small sizes, few runs), on the release build
    # above, so that none can stop working unseen: about a minute in all. Those that need root
    # are skipped with the reason outside CI, and fail under CI=1 like any missing tool.
    for bench in bench-schedules bench-insights bench-dns bench-nftables bench-notify; do
        log=".build/$bench-short.log"
        started=$SECONDS
        missing=
        case $bench in
            bench-nftables) [ "$(id -u)" = 0 ] || missing="root (a private network namespace)" ;;
            bench-dns) command -v dnsperf >/dev/null && command -v dnsmasq >/dev/null || missing="dnsperf and dnsmasq" ;;
            bench-notify) command -v dbus-daemon >/dev/null && /usr/bin/python3 -c 'import dbus, gi' 2>/dev/null ||
                missing="dbus-daemon, python3-dbus and python3-gi" ;;
        esac
        if [ -n "$missing" ] && [ "${CI:-}" != 1 ]; then echo "scripts/$bench.sh: skipped (needs $missing)"; continue; fi
        if BENCH_SHORT=1 "scripts/$bench.sh" >"$log" 2>&1; then
            echo "scripts/$bench.sh (short): ok in $((SECONDS - started)) s"
        else
            echo "scripts/$bench.sh (short) failed; the end of its output (all of it in $log):" >&2
            tail -n 30 "$log" >&2
            exit 1
        fi
    done
fi
