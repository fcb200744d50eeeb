#!/usr/bin/env bash
# Runs inside `unshare -m`: the state directory is a small tmpfs that fills up between two runs
# of the daemon. Prints "ok …" / "not ok …" lines.
# Usage: full-state-dir.sh ROOT BINDIR DATADIR
set -u
root=$1 bin=$2 data=$3
state=$root/var/lib/simplylock
mkdir -p "$state"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o size=2m tmpfs "$state" || { echo "not ok cannot mount a tmpfs"; exit 1; }
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
start() {
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts >>"$root/daemon.log" 2>&1 &
    daemon=$!
    for _ in $(seq 100); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "not ok the daemon did not start; log:"; sed 's/^/# /' "$root/daemon.log" | tail -20
    return 1
}
stop() { kill -TERM "$daemon"; wait "$daemon"; }
check() { if eval "$2"; then echo "ok $1"; else echo "not ok $1"; fi; }

start || exit 1
lockctl start news 30m --strict >/dev/null
stop
# Fill the file system: nothing more can be written to the state directory.
dd if=/dev/zero of="$state/filler" bs=4k >/dev/null 2>&1
sync
start || exit 1
check "the saved strict block is restored with the state directory full" "lockctl status --json | grep -q '\"profile\" : \"news\"'"
check "and enforced" "grep -q ' news.ycombinator.com' '$root/etc/hosts'"
out=$(lockctl start social 10m 2>&1); code=$?
check "a change is refused with a clear reason (exit $code: $out)" "[ $code -ne 0 ] && echo \"\$out\" | grep -qi 'cannot save\|full\|read'"
check "doctor names the problem with the state" "lockctl doctor --json | python3 -c 'import json, sys; sys.exit(not any(c[\"name\"] == \"state\" and c[\"state\"] == \"problem\" for c in json.load(sys.stdin)[\"checks\"]))'"
# Which of the two depends on whether SQLite must write to open the database (the WAL files
# the last shutdown left or not): opened read-only, or open and every save refused.
check "the log says why" "grep -q 'can only be read\|database or disk is full' '$root/daemon.log'"
stop
rm -f "$state/filler"
umount "$state"

# A fresh state directory with no room at all: the daemon refuses to start with the real reason,
# not as if an older version had saved the database.
mount -t tmpfs -o size=1m tmpfs "$state" || { echo "not ok cannot mount a tmpfs"; exit 1; }
dd if=/dev/zero of="$state/filler" bs=4k >/dev/null 2>&1
sync
out=$(timeout 20 "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts 2>&1); code=$?
check "a fresh full state directory is refused for the real reason (exit $code: $(echo "$out" | tail -1))" \
    "[ $code -ne 0 ] && [ $code -ne 124 ] && echo \"\$out\" | grep -q 'cannot be created (.*full' && ! echo \"\$out\" | grep -q 'older version'"
rm -f "$state/filler"
umount "$state"
