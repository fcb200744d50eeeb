#!/usr/bin/env bash
# Runs inside `unshare -m`: the app walls' harder cases through the real daemon and lockctl
# (issue 23), every attempt as nobody (setpriv):
#   - root-made copies of the dynamic loader, dash and python3 under names that say nothing,
#     in a tmpfs of this namespace, recognised by content;
#   - a copy of a strictly blocked game run from a tmpfs mounted in a user namespace of its own
#     (`unshare -Urm`), which fanotify cannot see until the daemon finds that namespace (the
#     time it ran is printed as a "#" line);
#   - a stopped daemon (SIGSTOP): its sentinel refuses the game to interpreters and the loader
#     but lets `cat` read it.
# Only tmpfs filesystems this script mounts are ever marked (`user_writable` and the mount scope
# are under ROOT), and the games are built here, of their own bytes. Prints "ok …" / "not ok …".
# Usage: appwall-daemon.sh ROOT BINDIR DATADIR
set -u
root=$1 bin=$2 data=$3
apps=$root/apps home=$root/home
mkdir -p "$apps" "$home" "$root/etc/simplylock"
chmod 755 "$root"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs "$apps" || { echo "not ok cannot mount a tmpfs"; exit 1; }
mount -t tmpfs -o mode=1777 tmpfs "$home" || { echo "not ok cannot mount a tmpfs"; exit 1; }
token="appwall-test-$$-$RANDOM$RANDOM"
cat >"$apps/game.c" <<END
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) { (void)argv; if (argc > 1) for (;;) pause(); puts("game running $token"); return 0; }
END
gcc -O1 -o "$apps/fakegame" "$apps/game.c" || { echo "not ok cannot build the fake game"; exit 1; }
printf '#!/bin/sh\necho "script game %s"\n' "$token" >"$apps/game.sh" && chmod 755 "$apps/game.sh"
printf 'print("python game %s")\n' "$token" >"$apps/game.py"
cp /lib64/ld-linux-x86-64.so.2 "$apps/runner"
cp /bin/dash "$apps/shellish"
cp "$(readlink -f /usr/bin/python3)" "$apps/snake"
mkdir -p "$apps/share/applications"
for id in fakegame scriptgame pygame; do
    case $id in
    fakegame) exec_line="$apps/fakegame" ;;
    scriptgame) exec_line="$apps/game.sh" ;;
    pygame) exec_line="/usr/bin/python3 $apps/game.py" ;;
    esac
    printf '[Desktop Entry]\nType=Application\nName=%s\nExec=%s\nCategories=Game;\n' "$id" "$exec_line" \
        >"$apps/share/applications/$id.desktop"
done
printf '[apps]\ndata_dirs = ["%s/share"]\nuser_writable = ["%s"]\nmechanism = "fanotify"\nterminate_grace = "1s"\n' \
    "$apps" "$home" >"$root/etc/simplylock/simplylockd.toml"
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
daemon=
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
# Runs a command as nobody with a time limit: a hung exec is a failure, never a hung test.
user() { out=$(timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups "$@" 2>&1); code=$?; }
refused() { [ $code -ne 0 ] && echo "$out" | grep -q 'Operation not permitted' && ! echo "$out" | grep -q "$token"; }
ended() {
    for _ in $(seq 100); do
        [ -e "/proc/$1" ] && ! grep -q ') Z' "/proc/$1/stat" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}
cleanup() {
    [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null
    [ -n "${holder:-}" ] && kill -KILL "$holder" 2>/dev/null
    umount -l "$apps" "$home" 2>/dev/null
}
trap cleanup EXIT

start_daemon || exit 1
lockctl profiles create games --app fakegame --app scriptgame --app pygame >/dev/null || echo "not ok cannot create the profile"

# 1. Root-made copies of the loader and interpreters under other names.
user "$apps/runner" "$apps/fakegame"
check "before the block the game runs through the root-made loader copy (exit $code: $out)" "[ $code -eq 0 ]"
setpriv --reuid=65534 --regid=65534 --clear-groups "$apps/runner" "$apps/fakegame" sleep >/dev/null 2>&1 &
running=$!
for _ in $(seq 100); do [ "$(readlink /proc/$running/exe)" = "$apps/runner" ] && break; sleep 0.05; done
lockctl start games 10m >/dev/null || echo "not ok cannot start the block"
check "a game started through the loader copy before the block is stopped" "ended $running"
wait "$running" 2>/dev/null
user "$apps/runner" "$apps/fakegame"
check "the root-made loader copy cannot start the blocked game (exit $code: $out)" "refused"
user "$apps/runner" /bin/true
check "it still runs an unblocked program (exit $code: $out)" "[ $code -eq 0 ]"
user "$apps/shellish" "$apps/game.sh"
check "a root-made copy of dash cannot run the blocked script (exit $code: $out)" "refused"
user "$apps/shellish" -c 'echo fine'
check "it still runs other scripts (exit $code: $out)" "[ $code -eq 0 ] && [ \"\$out\" = fine ]"
user "$apps/snake" "$apps/game.py"
check "a root-made copy of python3 cannot run the blocked script (exit $code: $out)" "refused"
user "$apps/snake" -c 'print(42)'
check "it still runs other code (exit $code: $out)" "[ $code -eq 0 ] && [ \"\$out\" = 42 ]"
user cat "$apps/game.py"
check "cat still reads the blocked script (exit $code)" "[ $code -eq 0 ]"

# 3. The daemon stopped (SIGSTOP): its sentinel answers within about 2 s, refusing the game to
# interpreters and the loader (by name, header or size) but letting cat read the script.
# SIGSTOP takes effect as each thread is next scheduled: wait until every one is stopped.
stop_all() {
    kill -STOP "$daemon"
    for _ in $(seq 100); do
        ! grep -qv '^[0-9]* ([^)]*) [tT]' /proc/"$daemon"/task/*/stat 2>/dev/null && return 0
        sleep 0.02
    done
}
timed() { local start=$(date +%s%N); user "$@"; took=$(( ($(date +%s%N) - start) / 1000000 )); }
stop_all
timed cat "$apps/game.py"
check "daemon stopped: cat reads the blocked script within the bound (exit $code, ${took} ms)" \
    "[ $code -eq 0 ] && echo \"\$out\" | grep -q '$token' && [ $took -lt 4000 ]"
for attempt in "/usr/bin/python3 $apps/game.py" "$apps/snake $apps/game.py" "$apps/shellish $apps/game.sh" "$apps/runner $apps/fakegame" "$apps/fakegame"; do
    timed $attempt
    check "daemon stopped: $attempt is refused within the bound (exit $code, ${took} ms)" "refused && [ $took -lt 4000 ]"
done
user "$apps/runner" /bin/true
check "daemon stopped: the loader copy runs an unblocked program (exit $code: $out)" "[ $code -eq 0 ]"
kill -CONT "$daemon"
check "status counts what the sentinel refused" \
    "lockctl status --json | json \"int([e for e in d['enforcers'] if e['name'] == 'apps'][0]['details'].get('sentinelRefused', 0)) >= 5\""

lockctl stop games >/dev/null
user "$apps/runner" "$apps/fakegame"
check "after the block the loader copy runs the game again (exit $code: $out)" "[ $code -eq 0 ] && echo \"\$out\" | grep -q '$token'"

# 2. A strict block, and a copy of the game run from a tmpfs of a new user and mount namespace
# (`unshare -Urm`): no mount table the daemon reads has it, so the exec itself is not refused,
# but the daemon's sweep finds the namespace, stops the copy within about a second, and marks the
# filesystem so that later execs from it are refused. (Last: a strict block cannot be stopped.)
lockctl start games 10m --strict >/dev/null || echo "not ok cannot start the strict block"
user sh -c "cp $apps/fakegame $home/copy && $home/copy"
check "strict: a copy in the user-writable tmpfs is refused (exit $code: $out)" "refused"
mkdir -p "$home/ns1" "$home/ns2" && chown 65534:65534 "$home/ns1" "$home/ns2"
start=$(date +%s%N)
user unshare -Urm sh -c "mount -t tmpfs tmpfs $home/ns1 && cp $apps/fakegame $home/ns1/g && exec $home/ns1/g sleep"
ran_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "# a copy started in a new user and mount namespace ran ${ran_ms} ms before it was stopped (exit $code)"
check "strict: a copy started in a new user+mount namespace is stopped within 3 s (exit $code, ${ran_ms} ms)" \
    "[ $code -eq 143 ] || [ $code -eq 137 ] && [ $ran_ms -lt 3000 ]"
user unshare -Urm sh -c "mount -t tmpfs tmpfs $home/ns2 && cp $apps/fakegame $home/ns2/g && cp /bin/true $home/ns2/t && sleep 2.5 && $home/ns2/t && echo other ran && $home/ns2/g"
check "strict: once the namespace is found, its copy is refused at exec and other programs there run (exit $code: $out)" \
    "refused && echo \"\$out\" | grep -q 'other ran'"
check "doctor gives the bound for other mount namespaces" \
    "lockctl doctor --json | json \"any('unshare -Urm' in c['message'] and 'about 1 s' in c['message'] for c in d['checks'])\""
stop_daemon
