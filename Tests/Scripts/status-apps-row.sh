#!/usr/bin/env bash
# Runs inside `unshare -m`: what `lockctl status` says the apps enforcer holds while an open
# limit only counts a profile's apps (nothing blocks them), through the real daemon
# (`--enforcers hosts,apps`) and lockctl. The app is a program of this run's own bytes on a
# tmpfs mounted only in this namespace; only that tmpfs is ever marked, and nothing is strict.
# First with the proc connector (which cannot count launches), then with fanotify.
# Prints "ok …" / "not ok …" lines.
# Usage: status-apps-row.sh ROOT BINDIR DATADIR
set -u
root=$1 bin=$2 data=$3
apps=$root/apps
mkdir -p "$apps" "$root/etc/simplylock"
chmod 755 "$root"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs "$apps" || { echo "not ok cannot mount a tmpfs"; exit 1; }
printf 'int main(void) { return 0; } /* %s */\n' "status-apps-row-$$-$RANDOM$RANDOM" >"$apps/game.c"
gcc -O1 -o "$apps/fakegame" "$apps/game.c" || { echo "not ok cannot build the fake app"; exit 1; }
mkdir -p "$apps/share/applications"
printf '[Desktop Entry]\nType=Application\nName=Fake Game\nExec=%s/fakegame\nCategories=Game;\n' "$apps" \
    >"$apps/share/applications/fakegame.desktop"
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
daemon=
start_daemon() {
    printf '[apps]\ndata_dirs = ["%s/share"]\nmechanism = "%s"\n' "$apps" "$1" >"$root/etc/simplylock/simplylockd.toml"
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers "${2:-hosts,apps}" >>"$root/daemon.log" 2>&1 &
    daemon=$!
    for _ in $(seq 150); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "not ok the daemon did not start; log:"; tail -20 "$root/daemon.log" | sed 's/^/# /'
    return 1
}
stop_daemon() { kill -TERM "$daemon"; wait "$daemon" 2>/dev/null; daemon=; }
cleanup() { [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null; umount -l "$apps" 2>/dev/null; }
trap cleanup EXIT
# The HOLDS column of the apps row, as a line of its own.
holds() { lockctl status | awk '$1 == "apps" { sub(/^ *apps +[a-z]+ +/, ""); sub(/  .*/, ""); print }'; }
check() {
    local got
    got=$(holds)
    if [ "$got" = "$2" ]; then echo "ok $1"; else echo "not ok $1: the apps row holds \"$got\", expected \"$2\""; fi
}
eventually_holds() { for _ in $(seq 50); do [ "$(holds)" = "$2" ] && break; sleep 0.1; done; check "$@"; }

notice() { lockctl status | grep -q "! open limits are NOT enforced: $1"; }

# Without the apps enforcer there is no apps row: status says the limit is not enforced.
start_daemon proc-connector hosts || exit 1
lockctl profiles create game --app fakegame >/dev/null || echo "not ok cannot create the profile"
lockctl allowances add play --profile game --opens 2 >/dev/null || echo "not ok cannot add the allowance"
if notice "the apps enforcer is not running"; then echo "ok without the apps enforcer status says the open limit is not enforced"
else echo "not ok no notice without the apps enforcer: $(lockctl status | tr '\n' '|')"; fi
stop_daemon

start_daemon proc-connector || exit 1
lockctl allowances remove play >/dev/null || echo "not ok cannot remove the allowance"
check "nothing blocked or counted: 0 programs" "0 programs"
lockctl allowances add play --profile game --opens 2 >/dev/null || echo "not ok cannot add the allowance"
eventually_holds "the proc connector cannot count launches, and the row says so" "0 programs, launches of 1 app NOT counted"
if notice "the proc connector cannot refuse launches"; then echo "ok and a notice says why"
else echo "not ok no notice under the proc connector: $(lockctl status | tr '\n' '|')"; fi
stop_daemon

start_daemon fanotify || exit 1
eventually_holds "an open limit alone: no program blocked, the app's launches counted" "0 programs, launches of 1 app counted"
if notice ""; then echo "not ok a notice says open limits are not enforced while fanotify counts them"
else echo "ok no notice while fanotify counts the launches"; fi
lockctl status --json | python3 -c '
import json, sys
apps = [e for e in json.load(sys.stdin)["enforcers"] if e["name"] == "apps"][0]
sys.exit(0 if apps["elements"] == 0 and apps["details"]["counted"] == "fakegame" else 1)' \
    && echo "ok --json agrees: 0 elements, fakegame counted" || echo "not ok --json disagrees with the row"
lockctl start game 10m >/dev/null || echo "not ok cannot start the block"
eventually_holds "a block of the profile: its program blocked, launches still counted" "1 program, launches of 1 app counted"
lockctl stop game >/dev/null || echo "not ok cannot stop the block"
lockctl allowances remove play >/dev/null || echo "not ok cannot remove the allowance"
eventually_holds "without the block or the allowance: nothing is claimed" "0 programs"
stop_daemon
