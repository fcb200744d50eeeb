#!/usr/bin/env bash
# Starts and stops the daemon many times, several at once, each polled with `lockctl status`
# until it answers, given a block, then stopped: what the integration suite does to it, without
# the suite. A start-up crash that the suite hit once in three runs (a readdir name read past its
# record) showed here in 4 of 150 starts under load; a crash prints its backtrace into the log
# kept under /tmp.
#
#   scripts/stress-starts.sh BIN_DIR [STARTS] [AT_ONCE]
#
# Scratch roots under /tmp, the hosts enforcer only: nothing of the machine is touched.
set -u

bin="${1:?usage: $0 BIN_DIR [STARTS] [AT_ONCE]}"
starts="${2:-200}"
at_once="${3:-4}"
data="$(cd "$(dirname "${BASH_SOURCE[0]}")/../config" && pwd)"
# The release daemon links the Swift runtime statically and finds no backtracer by itself.
backtracer="$(dirname "$(readlink -f "$(command -v swift)")")/../libexec/swift/linux/swift-backtrace-static"

one() {
    root=$(mktemp -d /tmp/stress-starts-XXXXXX)
    mkdir -p "$root/etc/simplylock"
    printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
    cp "$data/simplylockd.toml" "$root/etc/simplylock/"
    SWIFT_BACKTRACE="enable=yes,interactive=no,swift-backtrace=$backtracer" \
        "$bin/simplylockd" --root "$root" --data-dir "$data" --log-level debug --enforcers hosts >"$root/log" 2>&1 &
    pid=$!
    for _ in $(seq 1 500); do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid"
            echo "crashed: exit $? at start-up, log in $root/log"
            return
        fi
        "$bin/lockctl" --root "$root" status >/dev/null 2>&1 && break
        sleep 0.02
    done
    "$bin/lockctl" --root "$root" start news 1m >/dev/null 2>&1
    kill -TERM "$pid"
    wait "$pid"
    status=$?
    if [ "$status" -ne 0 ]; then echo "crashed: exit $status at stop, log in $root/log"; else rm -rf "$root"; fi
}
export -f one
export bin data backtracer

started=$SECONDS
results=$(seq 1 "$starts" | xargs -P "$at_once" -I{} bash -c one)
crashes=$(printf '%s' "$results" | grep -c '^crashed' || true)
[ -n "$results" ] && printf '%s\n' "$results"
echo "$starts starts, $at_once at a time, in $((SECONDS - started)) s: $crashes crashed"
[ "$crashes" -eq 0 ]
