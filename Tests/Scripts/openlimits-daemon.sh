#!/usr/bin/env bash
# Runs inside `unshare -m`: open limits (`lockctl allowances add … --opens N --cooldown D`)
# through the real daemon (`--enforcers hosts,apps`) and lockctl. A tmpfs mounted only in this
# namespace holds a fake app of this run's own bytes that, run without arguments, execs itself
# once more as a child (a helper process); only that tmpfs is ever marked, and nothing is
# strict, so nothing outside the namespace ever waits for the guard. Every launch runs as nobody
# (setpriv). Prints "ok …" / "not ok …" lines.
# Usage: openlimits-daemon.sh ROOT BINDIR DATADIR
set -u
root=$1 bin=$2 data=$3
apps=$root/apps
mkdir -p "$apps" "$root/etc/simplylock"
chmod 755 "$root"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs "$apps" || { echo "not ok cannot mount a tmpfs"; exit 1; }
token="openlimits-test-$$-$RANDOM$RANDOM"
cat >"$apps/spawner.c" <<END
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "child") == 0) { puts("child running"); return 0; }
    if (argc > 1 && strcmp(argv[1], "sleep") == 0) { for (;;) pause(); }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) { execl(argv[0], argv[0], "child", (char *)0); perror("child exec"); _exit(126); }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("game running $token (child %d)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
END
gcc -O1 -o "$apps/fakegame" "$apps/spawner.c" || { echo "not ok cannot build the fake app"; exit 1; }
mkdir -p "$apps/share/applications"
cat >"$apps/share/applications/fakegame.desktop" <<END
[Desktop Entry]
Type=Application
Name=Fake Game
Exec=$apps/fakegame
Categories=Game;
END
printf '[apps]\ndata_dirs = ["%s/share"]\nmechanism = "fanotify"\n' "$apps" >"$root/etc/simplylock/simplylockd.toml"
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
daemon= events=
start_daemon() {
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,apps --log-level debug >>"$root/daemon.log" 2>&1 &
    daemon=$!
    for _ in $(seq 150); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "not ok the daemon did not start; log:"; tail -20 "$root/daemon.log" | sed 's/^/# /'
    return 1
}
stop_daemon() { kill -TERM "$daemon"; wait "$daemon" 2>/dev/null; daemon=; }
check() { if eval "$2"; then echo "ok $1"; else echo "not ok $1"; fi; }
json() { python3 -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if ($1) else 1)"; }
eventually() { for _ in $(seq 50); do "$@" && return 0; sleep 0.1; done; return 1; }
user() { timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups "$@" 2>&1; }
launch() { out=$(user "$apps/fakegame"); code=$?; }
ran() { [ $code -eq 0 ] && [ "$out" = "child running
game running $token (child 0)" ]; }
refused() { [ $code -eq 126 ] && echo "$out" | grep -q 'Operation not permitted'; }
allowance() { lockctl allowances list --json | json "[a for a in d['allowances'] if a['name'] == '$1'] and ($2 for a in [a for a in d['allowances'] if a['name'] == '$1'][:1])"; }
cleanup() {
    [ -n "$events" ] && kill "$events" 2>/dev/null
    [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null
    umount -l "$apps" 2>/dev/null
}
trap cleanup EXIT

start_daemon || exit 1
lockctl profiles create game --app fakegame >/dev/null || echo "not ok cannot create the profile"
launch
check "the app and its child run before any limit (exit $code: $out)" "ran"
lockctl events --json >"$root/events.log" 2>&1 &
events=$!
lockctl allowances add play --profile game --opens 2 >/dev/null || echo "not ok cannot add the allowance"
check "the apps enforcer counts the app's launches" \
    "lockctl status --json | json \"[e for e in d['enforcers'] if e['name'] == 'apps'][0]['details']['counted'] == 'fakegame'\""
launch
check "launch 1 of 2 runs, with its child (exit $code: $out)" "ran"
check "its child exec is not a launch: 1 counted" "allowance play \"a['opensToday'] == 1 and a['opensLeft'] == 1\""
# setpriv execs the app in its own process: $! is the app itself.
setpriv --reuid=65534 --regid=65534 --clear-groups "$apps/fakegame" sleep >/dev/null 2>&1 &
running=$!
check "launch 2 of 2 counted" "eventually allowance play \"a['opensToday'] == 2 and a['opensLeft'] == 0\""
launch
check "an exec while the app runs for the same user is not a launch (exit $code: $out)" "ran"
check "and is not counted" "allowance play \"a['opensToday'] == 2\""
kill "$running"; wait "$running" 2>/dev/null
launch
check "launch 3 is refused in the kernel as an ordinary user (exit $code: $out)" "refused"
check "allowances list says 2 of 2 used" "lockctl allowances list | grep -E '^play .*2 of 2 used'"
lockctl status >"$root/status.txt" 2>&1
check "status says no launches are left" "grep -q 'play no launches left until' '$root/status.txt'"
check "status --json has the allowance's launches" "lockctl status --json | json \"[a['opensLeft'] for a in d['allowances'] if a['name'] == 'play'] == [0]\""
refusal_event() { grep -q '"allowance.open_refused"' "$root/events.log" && grep '"allowance.open_refused"' "$root/events.log" | grep -q '"reason":"no-opens-left"'; }
check "the refusal is an allowance.open_refused event (no-opens-left)" "eventually refusal_event"
attempted() { lockctl insights --days 1 --json | json "[c['attempts'] for c in d['topApps'] if c['name'] == 'fakegame'][:1] >= [1]"; }
check "and a blocked attempt of fakegame in insights" "eventually attempted"
kill "$events" 2>/dev/null; events=

stop_daemon
start_daemon || exit 1
check "after a restart the app is counted again" \
    "eventually eval \"lockctl status --json | json \\\"[e for e in d['enforcers'] if e['name'] == 'apps'][0]['details'].get('counted') == 'fakegame'\\\"\""
launch
check "opens used today survive the restart: launch 3 still refused (exit $code: $out)" "refused"
check "the ledger says 2 used after the restart" "allowance play \"a['opensToday'] == 2\""

# A cooldown: a relaunch within it is refused, one after it runs.
lockctl allowances remove play >/dev/null || echo "not ok cannot remove the allowance"
launch
check "without the allowance the app runs again (exit $code)" "ran"
lockctl events --json >"$root/events.log" 2>&1 &
events=$!
lockctl allowances add pause --profile game --cooldown 3s >/dev/null || echo "not ok cannot add the cooldown"
launch
check "the first launch under a cooldown runs (exit $code: $out)" "ran"
launch
check "a relaunch within the cooldown is refused (exit $code: $out)" "refused"
check "allowances list shows the cooldown left" "allowance pause \"0 < a.get('cooldownLeftSeconds', 0) <= 3\""
cooling_event() { grep '"allowance.open_refused"' "$root/events.log" | grep -q '"reason":"cooling-down"'; }
check "the refusal is an allowance.open_refused event (cooling-down)" "eventually cooling_event"
sleep 3.2
launch
check "a relaunch after the cooldown runs (exit $code: $out)" "ran"

# The answer path is bounded: with the daemon stopped (SIGSTOP), its sentinel answers a launch
# within about 2 s: refused when a strict allowance counts the app, allowed (uncounted) otherwise.
lockctl allowances remove pause >/dev/null || echo "not ok cannot remove the cooldown"
lockctl allowances add firm --profile game --opens 5 --strict >/dev/null || echo "not ok cannot add the strict allowance"
timed_launch() { local start=$(date +%s%N); launch; took=$(( ($(date +%s%N) - start) / 1000000 )); }
# SIGSTOP takes effect when each thread is next scheduled: wait until every one is stopped, or an
# exec in between would be taken by the daemon before it stops (and wait for SIGCONT).
stop_all() {
    kill -STOP "$daemon"
    for _ in $(seq 100); do
        ! grep -qv '^[0-9]* ([^)]*) [tT]' /proc/"$daemon"/task/*/stat 2>/dev/null && return 0
        sleep 0.02
    done
}
stop_all
timed_launch
kill -CONT "$daemon"
check "daemon stopped: a strict allowance's launch is refused within the bound (exit $code, ${took} ms)" \
    "refused && [ $took -lt 4000 ]"
lockctl allowances remove firm >/dev/null || echo "not ok cannot remove the strict allowance"
lockctl allowances add lax --profile game --opens 5 >/dev/null || echo "not ok cannot add the lax allowance"
stop_all
timed_launch
kill -CONT "$daemon"
check "daemon stopped: a launch under a non-strict allowance runs within the bound (exit $code, ${took} ms)" \
    "ran && [ $took -lt 4000 ]"
check "and is not counted" "allowance lax \"a['opensToday'] == 0\""
launch
check "the daemon back, launches are counted again (exit $code)" "ran && allowance lax \"a['opensToday'] == 1\""

# A strict allowance that refuses launches cannot be removed to get one more.
lockctl allowances remove lax >/dev/null || echo "not ok cannot remove the lax allowance"
lockctl allowances add last --profile game --opens 1 --strict >/dev/null || echo "not ok cannot add the last allowance"
launch
launch
check "strict, --opens 1: the second launch is refused (exit $code)" "refused"
out=$(lockctl allowances remove last 2>&1); removed=$?
check "and the allowance cannot be removed while it refuses (exit $removed: $out)" \
    "[ $removed -ne 0 ] && echo \"\$out\" | grep -q 'strict and refuses launches'"
launch
check "so launches stay refused (exit $code)" "refused"
stop_daemon
launch
check "a stopped daemon lets launches through (exit $code)" "ran"
