#!/usr/bin/env bash
#
#   Tests/Scripts/netns-lanmeter-test.sh BIN_DIR DATA_DIR      (as root)
#
# The LAN group meter through the real simplylockd, lockctl and Unbound, in private network
# namespaces:
#
#   kids client namespace   10.77.1.10 ──veth── 10.77.1.1  router namespace (this one):
#   other client namespace  10.77.2.10 ──veth── 10.77.2.1  Unbound (log-queries) on both,
#                                                           simplylockd driving it
#   upstream namespace      198.19.0.2 ──veth── 198.19.0.1  dnsmasq answering *.test with 198.19.0.3
#
# Allowance kidstime (profile games, 20 s a day, --for kids): the kids client asks for a name
# every second; once 20 s of the kids group's time are used, a block of games starts for kids
# (NXDOMAIN for games.test from the kids client, still resolving from the other one). The
# minutes show up in `lockctl usage --by group --explain` as group:kids with meter lan-dns;
# the other group, which asked nothing, is not metered. Prints "ok - …" / "not ok - …" and
# "N passed, M failed"; exits 0 only when all passed, 77 after "SKIP: reason".
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

netns_enter 240 unbound dnsmasq dig

# ---- inside the router namespace ------------------------------------------------------------

netns_setup netns-lanmeter-test

netns upstream
netns kids
netns other
link "$upstream" up0 198.19.0.1 up1 198.19.0.2
link "$kids" kid0 10.77.1.1 kid1 10.77.1.10
link "$other" oth0 10.77.2.1 oth1 10.77.2.10

nsenter -t "$upstream" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.19.0.2 --port=53 --user=root --group=root --pid-file="$work/upstream.pid" \
    --local-ttl=0 --address=/test/198.19.0.3 &
pids+=("$!")
for _ in $(seq 100); do dig +time=1 +tries=1 @198.19.0.2 x.test >/dev/null 2>&1 && break; sleep 0.05; done

ask() { # ask CLIENT_PID SERVER NAME: "NXDOMAIN", "NOERROR 198.19.0.3"
    nsenter -t "$1" -n dig +time=1 +tries=1 @"$2" "$3" A | awk '
        /status:/ { sub(",", "", $6); status = $6 }
        /^[^;].*\tIN\tA\t/ { address = $NF }
        END { print status (address ? " " address : "") }'
}
kids_get() { ask "$kids" 10.77.1.1 "$1"; }
other_get() { ask "$other" 10.77.2.1 "$1"; }
resolves() { local answer; answer="$("$1"_get "$2")"; echo "$answer"; [ "$answer" = "NOERROR 198.19.0.3" ]; }
is_blocked() { local answer; answer="$("$1"_get "$2")"; echo "$answer"; [ "$answer" = NXDOMAIN ] || [ "$answer" = "NOERROR 0.0.0.0" ]; }

mkdir -p "$root/etc/simplylock/profiles.d" "$work/unbound.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
printf 'name = "games"\ndomains = ["games.test"]\n' >"$root/etc/simplylock/profiles.d/games.toml"
cat >"$root/etc/simplylock/simplylockd.toml" <<CONF
checkpoint_interval = "1s"

[lan]
kids = ["10.77.1.0/24"]
other = ["10.77.2.10"]

[unbound]
control = "$work/unbound.ctl"
include = "$work/unbound.d/simplylock.conf"
log = "$work/unbound.log"
CONF
cat >"$work/unbound.conf" <<CONF
server:
    interface: 10.77.1.1
    interface: 10.77.2.1
    port: 53
    access-control: 10.77.0.0/16 allow
    do-daemonize: no
    chroot: ""
    username: ""
    directory: "$work"
    pidfile: ""
    use-syslog: no
    logfile: "$work/unbound.log"
    verbosity: 1
    log-queries: yes
    log-local-actions: yes
    num-threads: 1
    module-config: "iterator"
    do-not-query-localhost: no
    local-zone: "test." nodefault
    domain-insecure: "test"
remote-control:
    control-enable: yes
    control-interface: "$work/unbound.ctl"
    control-use-cert: no
forward-zone:
    name: "."
    forward-addr: 198.19.0.2
include-toplevel: "$work/unbound.d/*.conf"
CONF
unbound -d -c "$work/unbound.conf" >>"$work/unbound.out" 2>&1 &
server_pid=$!
for _ in $(seq 200); do [ "$(kids_get x.test)" = "NOERROR 198.19.0.3" ] && break; sleep 0.02; done

start_daemon() {
    SIMPLYLOCK_USAGE_SAMPLE=1,1 "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers hosts,unbound --log-level debug \
        >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
    echo "simplylockd did not answer"; tail -20 "$work/daemon.log"; return 1
}
stop_daemon() { kill -TERM "$daemon_pid"; wait "$daemon_pid"; local status=$?; daemon_pid=; echo "exit $status"; return $status; }
group_seconds() { # group_seconds NAME
    lockctl usage --by group --days 2 --json | python3 -c '
import json, sys
print({i["name"]: i["seconds"] for i in json.load(sys.stdin)["items"]}.get(sys.argv[1], 0))' "$1"
}

start_daemon || exit 1
expect "games.test resolves for kids before" resolves kids m.games.test
expect "allowance for kids added" lockctl allowances add kidstime --profile games --daily 20s --for kids

echo "# the kids client asks for a name every second"
started=$(date +%s)
blocked_at=
for _ in $(seq 60); do
    kids_get "n$RANDOM.other.test" >/dev/null
    if is_blocked kids m.games.test >/dev/null; then blocked_at=$(($(date +%s) - started)); break; fi
    sleep 1
done
expect "games.test blocked for kids once the group's 20 s were used (s)" \
    sh -c "[ -n '$blocked_at' ] && [ '$blocked_at' -ge 15 ] && [ '$blocked_at' -le 45 ] && echo '$blocked_at'"
expect "the block's origin is allowance:kidstime" sh -c "'$bin/lockctl' --root '$root' status --json | grep -q 'allowance:kidstime'"

# Minutes are saved when they close (two minutes late), or at shutdown.
stop_daemon >"$work/stop.txt"
expect "simplylockd stops cleanly" grep -x "exit 0" "$work/stop.txt"
start_daemon || exit 1
used="$(group_seconds kids)"
expect "usage by group: kids about 20 s" sh -c "[ '$used' -ge 15 ] && [ '$used' -le 50 ] && echo '$used'"
other_used="$(group_seconds other)"
expect "the other group asked nothing: not metered" sh -c "[ '$other_used' = 0 ]"
expect "games.test is still blocked for kids after the restart" is_blocked kids m.games.test
expect "games.test resolves for the other group" resolves other m.games.test
expect "lockctl usage --explain names the lan-dns meter" sh -c "'$bin/lockctl' --root '$root' usage --by group --explain | grep 'group:kids' | grep -q 'lan-dns'"
stop_daemon >"$work/stop.txt"
expect "simplylockd stops cleanly" grep -x "exit 0" "$work/stop.txt"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
