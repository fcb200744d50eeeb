# Shared by the namespace test scripts (sourced): TAP-style results that the Swift tests count,
# and the polling helpers. Needs $bin and $root; counts into $passed and $failed.

ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
expect() { # expect DESCRIPTION command...: one result, with the command's output (one line) beside it
    local description="$1"; shift
    local output status
    output="$("$@" 2>&1)"
    status=$?
    output="$(printf '%s' "$output" | tr '\n\t' '  ' | cut -c1-240)"
    if [ $status = 0 ]; then ok "$description ($output)"; else not_ok "$description ($output)"; fi
}
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
wait_for_file() { # wait_for_file PATH SECONDS
    local deadline=$((SECONDS + $2))
    while [ ! -e "$1" ]; do
        [ $SECONDS -ge $deadline ] && return 1
        sleep 0.05
    done
}
# Milliseconds until "$@" succeeds, polling every 5 ms; fails after $1 ms.
time_until() {
    local limit_ms="$1"; shift
    local start now
    start=$(date +%s%3N)
    while true; do
        if "$@" >/dev/null 2>&1; then now=$(date +%s%3N); echo $((now - start)); return 0; fi
        now=$(date +%s%3N)
        [ $((now - start)) -ge "$limit_ms" ] && { echo "more than $limit_ms"; return 1; }
        sleep 0.005
    done
}
