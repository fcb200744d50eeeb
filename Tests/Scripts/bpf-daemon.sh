#!/usr/bin/env bash
# Runs inside `unshare -m`: the BPF LSM exec guard through the real daemon (`--enforcers hosts,bpf`)
# and lockctl. The guard is machine-wide, so only a fake game of this run's own bytes, on a tmpfs
# mounted only in this namespace, is ever put in its map; its pins live in a bpf filesystem mounted
# here too, so they vanish with the namespace whatever happens (the EXIT trap unmounts it first).
# Every exec of the game runs as nobody (setpriv). Prints "ok …" / "not ok …" lines.
# Usage: bpf-daemon.sh ROOT BINDIR DATADIR MODE   (MODE: enforce, or refused where the kernel
# does not allow the guard: then only the truthful answers are checked)
set -u
root=$1 bin=$2 data=$3 mode=$4
apps=$root/apps pins=$root/sys/fs/bpf
mkdir -p "$apps" "$pins" "$root/etc/simplylock"
mount --make-rprivate / 2>/dev/null
mount -t tmpfs -o mode=0755 tmpfs "$apps" || { echo "not ok cannot mount a tmpfs"; exit 1; }
mount -t bpf bpf "$pins" || { echo "not ok cannot mount a bpf filesystem"; exit 1; }
token="bpf-guard-test-$$-$RANDOM$RANDOM"
printf '#include <stdio.h>\nint main(void) { puts("game running %s"); return 0; }\n' "$token" >"$apps/game.c"
gcc -O1 -o "$apps/fakegame" "$apps/game.c" || { echo "not ok cannot build the fake game"; exit 1; }
gcc -O1 -o "$apps/other" -x c - <<<'int main(void) { return 0; }' || exit 1
# memfd_create + copy + fexecve, as an ordinary user would write it (issue 23, row 3).
cat >"$apps/memfd-exec.c" <<'END'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv) {
    int in = open(argv[1], O_RDONLY), out = memfd_create("x", 0);
    struct stat st;
    if (in < 0 || out < 0 || fstat(in, &st) || sendfile(out, in, NULL, st.st_size) != st.st_size) return 2;
    char *args[] = {argv[1], NULL}, *env[] = {NULL};
    fexecve(out, args, env);
    perror("fexecve");
    return 126;
}
END
gcc -O1 -o "$apps/memfd-exec" "$apps/memfd-exec.c" || exit 1
mkdir -p "$apps/home" "$apps/share/applications" && chmod 1777 "$apps/home"
cat >"$apps/share/applications/fakegame.desktop" <<END
[Desktop Entry]
Type=Application
Name=Fake Game
Exec=$apps/fakegame
Categories=Game;
END
printf '[apps]\ndata_dirs = ["%s/share"]\n' "$apps" >"$root/etc/simplylock/simplylockd.toml"
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
daemon=
start_daemon() {
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,bpf --log-level debug >>"$root/daemon.log" 2>&1 &
    daemon=$!
    for _ in $(seq 150); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "not ok the daemon did not start; log:"; tail -20 "$root/daemon.log" | sed 's/^/# /'
    return 1
}
check() { if eval "$2"; then echo "ok $1"; else echo "not ok $1"; fi; }
json() { python3 -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if ($1) else 1)"; }
user() { timeout 10 setpriv --reuid=65534 --regid=65534 --clear-groups "$@" 2>&1; }
run_game() { out=$(user "$apps/fakegame"); code=$?; }
runs() { [ $code -eq 0 ] && [ "$out" = "game running $token" ]; }
cleanup() {
    [ -n "$daemon" ] && kill -KILL "$daemon" 2>/dev/null
    # Unpinned and unmounted first: the guard detaches once no process holds it.
    umount -l "$pins" 2>/dev/null
    umount -l "$apps" 2>/dev/null
}
trap cleanup EXIT

start_daemon || exit 1
run_game
check "the game runs before any block (exit $code: $out)" "runs"
lockctl profiles create game --app fakegame --strict >/dev/null
started=$(lockctl start game 10m 2>&1); start_code=$?

if [ "$mode" = refused ]; then
    # Never a half-applied block: a block of apps the guard cannot hold is refused as a whole.
    check "the block is refused, naming the guard (exit $start_code: $started)" \
        "[ $start_code -ne 0 ] && echo \"\$started\" | grep -q 'bpf: BPF exec guard loading'"
    check "status: bpf is not applied and says why" \
        "lockctl status --json | json \"[e for e in d['enforcers'] if e['name'] == 'bpf'][0]['applied'] == False and [e for e in d['enforcers'] if e['name'] == 'bpf'][0]['lastError']\""
    check "doctor: the guard cannot run here, and what is not covered" \
        "lockctl doctor --json | json \"any(c['name'] == 'bpf' and c['state'] == 'problem' and 'not covered' in c['message'] for c in d['checks'])\""
    check "nothing is pinned" "[ -z \"\$(ls -A $pins/simplylock 2>/dev/null)\" ]"
    exit 0
fi

check "the block starts (exit $start_code: $started)" "[ $start_code -eq 0 ]"
check "status: bpf applied, one file, memfds refused" \
    "lockctl status --json | json \"[(e['applied'], e['elements'], e['details']['memfd']) for e in d['enforcers'] if e['name'] == 'bpf'] == [(True, 1, 'refused')]\""
run_game
check "exec as nobody is refused (exit $code: $out)" "[ $code -eq 126 ] && echo \"\$out\" | grep -q 'Operation not permitted'"
user cp /lib64/ld-linux-x86-64.so.2 "$apps/home/x" >/dev/null
out=$(user "$apps/home/x" "$apps/fakegame"); code=$?
check "through a copied dynamic loader it is refused (exit $code: $out)" "[ $code -ne 0 ] && ! echo \"\$out\" | grep -q '$token'"
out=$(user "$apps/memfd-exec" "$apps/fakegame"); code=$?
check "through memfd_create + fexecve it is refused (exit $code: $out)" "[ $code -ne 0 ] && ! echo \"\$out\" | grep -q '$token'"
out=$(user "$apps/other"); code=$?
check "an unblocked program runs (exit $code: $out)" "[ $code -eq 0 ]"
out=$(user "$apps/home/x" "$apps/other"); code=$?
check "an unblocked program runs through the copied loader (exit $code: $out)" "[ $code -eq 0 ]"
out=$(user bash -c 'echo fine'); code=$?
check "bash keeps working during the strict block (exit $code: $out)" "[ $code -eq 0 ] && [ \"\$out\" = fine ]"
out=$(user python3 -c 'import ctypes; f = ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 7); print(f())'); code=$?
check "python3 with a ctypes callback keeps working (exit $code: $out)" "[ $code -eq 0 ] && [ \"\$out\" = 7 ]"

kill -KILL "$daemon"; wait "$daemon" 2>/dev/null; daemon=
run_game
check "after kill -9 of the daemon the pinned guard still refuses it (exit $code)" "[ $code -eq 126 ]"
out=$(user "$apps/other"); code=$?
check "and unblocked programs run (exit $code)" "[ $code -eq 0 ]"
start_daemon || exit 1
check "the restarted daemon adopts the pinned guard" \
    "lockctl status --json | json \"[e['details'].get('adopted') for e in d['enforcers'] if e['name'] == 'bpf'] == ['yes']\""
run_game
check "still refused after the restart (exit $code)" "[ $code -eq 126 ]"
kill -KILL "$daemon"; wait "$daemon" 2>/dev/null; daemon=
"$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,bpf --release >/dev/null 2>&1
check "--release removes the pins" "[ ! -e $pins/simplylock ]"
run_game
check "the game runs again after --release (exit $code: $out)" "runs"
