#!/usr/bin/env bash
# Runs inside `unshare -m`: app blocking through the real daemon and lockctl. A tmpfs mounted
# only in this namespace holds a fake app (a copy of a static binary) and a .desktop entry
# naming it; the daemon runs with `--enforcers hosts,apps` and reads that data directory from
# its configuration. Every exec of the app happens from this shell, never from the daemon or
# the test runner; the guard only marks the tmpfs (nothing here is strict), so nothing outside
# the namespace ever waits for it. Prints "ok …" / "not ok …" lines.
# Usage: apps-daemon.sh ROOT BINDIR DATADIR GAME
set -u
root=$1 bin=$2 data=$3 game=$4
apps=$root/apps
mkdir -p "$apps" "$root/etc/simplylock"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs tmpfs "$apps" || { echo "not ok cannot mount a tmpfs"; exit 1; }
cp "$game" "$apps/fakegame"
cp /bin/true "$apps/other"
mkdir -p "$apps/share/applications"
cat >"$apps/share/applications/fakegame.desktop" <<END
[Desktop Entry]
Type=Application
Name=Fake Game
Exec=$apps/fakegame --fullscreen %U
Categories=Game;ActionGame;
END
configure() {
    printf '[apps]\ndata_dirs = ["%s/share"]\nterminate_grace = "1s"\nmechanism = "%s"\n' "$apps" "$1" \
        >"$root/etc/simplylock/simplylockd.toml"
}
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
daemon=
start_daemon() {
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,apps --log-level debug >>"$root/daemon.log" 2>&1 &
    daemon=$!
    for _ in $(seq 150); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "not ok the daemon did not start; log:"; tail -20 "$root/daemon.log" | sed 's/^/# /'
    return 1
}
check() { if eval "$2"; then echo "ok $1"; else echo "not ok $1"; fi; }
# Runs the fake game with a time limit: a hung exec is a failure, never a hung test.
run_game() { out=$(timeout 10 "$apps/fakegame" 2>&1); code=$?; }
# Waits up to 10 s for process $1 to end; true when it did.
ended() {
    for _ in $(seq 100); do
        [ -e "/proc/$1" ] && ! grep -q ') Z' "/proc/$1/stat" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}
json() { python3 -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if ($1) else 1)"; }
cleanup() { [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null; umount "$apps" 2>/dev/null; }
trap cleanup EXIT

configure automatic
start_daemon || exit 1
run_game
check "the app runs before any block (exit $code: $out)" "[ $code -eq 0 ] && [ \"\$out\" = 'game running' ]"
check "apps list shows the app with its category and program" \
    "lockctl apps list --category game --json | json \"[a['id'] for a in d['apps']] == ['fakegame'] and d['apps'][0]['executables'] == ['$apps/fakegame']\""
out=$(lockctl profiles create game --app fakegme 2>&1); code=$?
check "a misspelt app is refused with the closest match (exit $code: $out)" "[ $code -eq 2 ] && echo \"\$out\" | grep -q 'did you mean fakegame'"
check "a profile holds the app" "lockctl profiles create game --app fakegame >/dev/null"
check "profiles show lists it" "lockctl profiles show game | grep -q 'Blocks apps: *fakegame'"
check "check --app says it is not blocked (exit 1)" "lockctl check --app fakegame >/dev/null; [ \$? -eq 1 ]"

"$apps/fakegame" sleep &
running=$!
"$apps/other" && sleep 0.2
lockctl start game 10m >/dev/null
check "a running instance is terminated at block start" "ended $running"
wait "$running" 2>/dev/null; code=$?
check "by SIGTERM (exit $code)" "[ $code -eq 143 ]"
run_game
check "exec is denied during the block (exit $code: $out)" "[ $code -eq 126 ] && echo \"\$out\" | grep -q 'Operation not permitted'"
out=$(timeout 10 "$apps/other" 2>&1); code=$?
check "an unblocked program on the same filesystem runs (exit $code: $out)" "[ $code -eq 0 ]"
# The denied exec reaches insights as a blocked attempt of the app (recorded asynchronously).
app_attempted() { lockctl insights --days 1 --json | json "[c['attempts'] for c in d['topApps'] if c['name'] == 'fakegame'][:1] >= [1] and d['totals']['appAttempts'] >= 1"; }
eventually() { for _ in $(seq 50); do "$@" && return 0; sleep 0.1; done; return 1; }
check "the denied exec is a blocked attempt of fakegame in insights" "eventually app_attempted"
out=$(lockctl check --app fakegame); code=$?
check "check --app names the block (exit $code: $out)" "[ $code -eq 0 ] && echo \"\$out\" | grep -q 'Fake Game (fakegame) is blocked by game'"
check "check --app by display name" "lockctl check --app 'Fake Game' >/dev/null"
check "status shows the app and fanotify" \
    "lockctl status --json | json \"d['sessions'][0]['apps'] == ['fakegame'] and [e for e in d['enforcers'] if e['name'] == 'apps'][0]['details']['mode'] == 'fanotify'\""
check "doctor says fanotify is active" \
    "lockctl doctor --json | json \"any(c['name'] == 'apps' and c['state'] == 'ok' and 'fanotify' in c['message'] for c in d['checks'])\""
lockctl stop game >/dev/null
run_game
check "exec is allowed after stop (exit $code: $out)" "[ $code -eq 0 ] && [ \"\$out\" = 'game running' ]"
check "check --app says it is not blocked any more" "lockctl check --app fakegame >/dev/null; [ \$? -eq 1 ]"

# A killed daemon never leaves execs hanging; a restarted one blocks again from saved state.
lockctl start game 10m >/dev/null
run_game
check "blocked again (exit $code)" "[ $code -eq 126 ]"
kill -KILL "$daemon"; wait "$daemon" 2>/dev/null
run_game
check "after SIGKILL of the daemon, exec neither hangs nor is denied (exit $code: $out)" "[ $code -eq 0 ]"
start_daemon || exit 1
run_game
check "the restarted daemon blocks the saved session's app (exit $code)" "[ $code -eq 126 ]"
kill -TERM "$daemon"; wait "$daemon"
run_game
check "a stopped daemon lets execs through (exit $code)" "[ $code -eq 0 ]"

# Where fanotify cannot be used: the proc connector kills the app just after its exec.
configure proc-connector
start_daemon || exit 1
out=$(timeout 10 "$apps/fakegame" sleep 2>&1); code=$?
check "proc connector: the app is killed at exec (exit $code: $out)" "[ $code -eq 137 ]"
check "status shows the proc connector" \
    "lockctl status --json | json \"[e for e in d['enforcers'] if e['name'] == 'apps'][0]['details']['mode'] == 'proc-connector'\""
lockctl stop game >/dev/null
run_game
check "proc connector: allowed after stop (exit $code)" "[ $code -eq 0 ]"
kill -TERM "$daemon"; wait "$daemon"
daemon=

# Screen time: an allowance of the profile, once the running app has used it, starts a block
# that stops the app and refuses it afterwards (the meter samples every second here; no logind).
configure automatic
SIMPLYLOCK_USAGE_SAMPLE=1,1 DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/simplylock-bus start_daemon || exit 1
lockctl allowances add play --profile game --daily 4s >/dev/null
"$apps/fakegame" sleep &
running=$!
allowance_blocks() { lockctl status --json | json "any(s['origin'] == 'allowance:play' and s['apps'] == ['fakegame'] for s in d['sessions'])"; }
for _ in $(seq 200); do allowance_blocks && break; sleep 0.1; done
check "the used-up allowance starts a block of the app" "allowance_blocks"
check "which stops the running app" "ended $running"
wait "$running" 2>/dev/null
run_game
check "and refuses it afterwards (exit $code: $out)" "[ $code -eq 126 ]"
kill -TERM "$daemon"; wait "$daemon"
daemon=
