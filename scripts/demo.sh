#!/usr/bin/env bash
# Builds SimplyLock and runs a short demo under a scratch root: the real /etc/hosts is never
# touched. Starts simplylockd, blocks deep-work for 45 minutes with lockctl, shows the status
# and the managed hosts section, then shuts the daemon down cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build

bin=$(swift build --show-bin-path)
root=$(mktemp -d /tmp/simplylock-demo.XXXXXX)
mkdir -p "$root/etc"
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n# your own entries stay exactly as they are\n' > "$root/etc/hosts"
lockctl() { "$bin/lockctl" --root "$root" "$@"; }

echo "== scratch root: $root"
# --enforcers hosts: the nftables enforcer would change this machine's real firewall.
"$bin/simplylockd" --root "$root" --data-dir "$PWD/config" --enforcers hosts 2> "$root/simplylockd.log" &
daemon=$!
trap 'kill $daemon 2>/dev/null || true' EXIT
for _ in $(seq 100); do lockctl status >/dev/null 2>&1 && break; sleep 0.1; done

echo; echo "\$ lockctl start deep-work 45m"; lockctl start deep-work 45m
echo; echo "\$ lockctl status"; lockctl status
echo; echo "\$ lockctl check www.youtube.com"; lockctl check www.youtube.com || true
echo; echo "== managed section of $root/etc/hosts (long lines cut at 110 characters)"
sed -n '/^# BEGIN simplylock/,/^# END simplylock/p' "$root/etc/hosts" | cut -c1-110

echo; echo "== stopping simplylockd (SIGTERM)"
kill -TERM "$daemon"
status=0; wait "$daemon" || status=$?
trap - EXIT
echo "simplylockd exited with status $status; the 45-minute block stays in the scratch hosts file"
echo "and would resume on the next start. Daemon log: $root/simplylockd.log"
