# Sourced by the bench scripts. `bench_build` builds the release binaries the way `make build`
# does (static Swift standard library, function sections, link order): `swift build -c release
# --product lockctl` alone fails to link (static Foundation's ICU symbols), and its output went to
# /dev/null under `set -e`, so four scripts printed nothing and exited 1. The build's output is
# kept in a log and its end shown when it fails; any other stop says where and why.
#
# BENCH_SHORT=1 (as scripts/test.sh runs them): small sizes and few runs, a check that the script
# still works end to end, not a measurement.

trap 'status=$?; echo "$(basename "$0"): stopped at line $LINENO (exit $status): $BASH_COMMAND" >&2' ERR

bench_short() { [ "${BENCH_SHORT:-}" = 1 ]; }

bench_build() {
    local log=.build/bench-build.log
    mkdir -p .build
    if ! make --no-print-directory build >"$log" 2>&1; then
        trap - ERR
        echo "$(basename "$0"): the release build (make build) failed; the end of its output (all of it in $log):" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
    bin=$(swift build -c release --static-swift-stdlib --show-bin-path)
    for product in "$@"; do
        [ -x "$bin/$product" ] || { echo "$(basename "$0"): make build did not leave $bin/$product" >&2; exit 1; }
    done
}
