#!/usr/bin/env bash
# Builds SimplyLock and runs a short demo under a scratch root: the real /etc/hosts is never
# touched. Starts simplylockd, blocks deep-work for 45 minutes with lockctl, shows the status
# and the managed hosts section, then shuts the daemon down cleanly and removes the scratch root.
# The build's output goes to a log file (named below), not to the screen.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build
log=$PWD/.build/demo-build.log
echo "== building (log: $log)"
if ! { scripts/setup.sh --demo && swift build; } > "$log" 2>&1; then
    echo "the build failed; the last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
fi

bin=$(swift build --show-bin-path)
root=$(mktemp -d /tmp/simplylock-demo.XXXXXX)
daemon=
cleanup() {
    if [[ -n $daemon ]]; then kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null || true; fi
    rm -rf "$root"
}
trap cleanup EXIT
mkdir -p "$root/etc"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n# your own entries stay exactly as they are\n' > "$root/etc/hosts"
lockctl() { "$bin/lockctl" --root "$root" "$@"; }
show() { echo; echo "\$ lockctl $*"; lockctl "$@" || true; }

echo "== scratch root: $root (removed at the end)"
# --enforcers hosts: the nftables enforcer would change this machine's real firewall.
"$bin/simplylockd" --root "$root" --data-dir "$PWD/config" --enforcers hosts 2> "$root/simplylockd.log" &
daemon=$!
for _ in $(seq 100); do lockctl status >/dev/null 2>&1 && break; sleep 0.1; done

show start deep-work 45m
show status
show check www.youtube.com
echo; echo "== managed section of the scratch hosts file (long lines cut at 100 characters)"
sed -n '/^# BEGIN simplylock/,/^# END simplylock/p' "$root/etc/hosts" | cut -c1-100

echo; echo "== stopping simplylockd (SIGTERM)"
kill -TERM "$daemon"
status=0; wait "$daemon" || status=$?
daemon=
echo "simplylockd exited with status $status; on a real machine the block would stay in the hosts file"
echo "and resume at the next start. The scratch root is removed now."
