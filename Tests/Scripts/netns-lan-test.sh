#!/usr/bin/env bash
# The LAN enforcers (unbound, then dnsmasq) through the real simplylockd and lockctl, in
# private network namespaces.
#
#   Tests/Scripts/netns-lan-test.sh BIN_DIR DATA_DIR      (as root)
#
#   kids client namespace   10.77.1.10 ──veth── 10.77.1.1  router namespace (this one):
#   other client namespace  10.77.2.10 ──veth── 10.77.2.1  Unbound (or dnsmasq) on both addresses,
#                                                           simplylockd driving it
#   upstream namespace      198.19.0.2 ──veth── 198.19.0.1  dnsmasq answering *.test with 198.19.0.3
#
# simplylockd.toml names two device groups: kids = ["10.77.1.0/24"], other = ["10.77.2.10"].
# With Unbound: a block for kids is NXDOMAIN for blocked.test and m.blocked.test from the kids
# client and resolves from the other one; an exception resolves; a block for the whole lan
# holds for both; blocks lift when their session ends; after Unbound restarts during a block
# the block is back within 1 s of Unbound answering; a 20 000-name profile goes through the
# include file. With dnsmasq: a device group is refused, a lan block holds for both clients and
# lifts. Prints "ok - …" / "not ok - …", figures as "# …", and "N passed, M failed"; exits 0
# only when all passed, 77 after "SKIP: reason" when the machine cannot run it.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:?usage: $0 BIN_DIR DATA_DIR}"
data="${2:?usage: $0 BIN_DIR DATA_DIR}"

. "$here/netns-lib.sh"

netns_enter 240 unbound dnsmasq dig

# ---- inside the router namespace ------------------------------------------------------------

netns_setup netns-lan-test

netns upstream
netns kids
netns other
link "$upstream" up0 198.19.0.1 up1 198.19.0.2
link "$kids" kid0 10.77.1.1 kid1 10.77.1.10
link "$other" oth0 10.77.2.1 oth1 10.77.2.10

nsenter -t "$upstream" -n dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=198.19.0.2 --port=53 --user=root --group=root --pid-file="$work/upstream.pid" \
    --local-ttl=60 --address=/test/198.19.0.3 &
pids+=("$!")
for _ in $(seq 100); do dig +time=1 +tries=1 @198.19.0.2 x.test >/dev/null 2>&1 && break; sleep 0.05; done

# dig from a client namespace: the status, and the address when there is one ("NXDOMAIN",
# "NOERROR 198.19.0.3").
ask() { # ask CLIENT_PID SERVER NAME
    nsenter -t "$1" -n dig +time=1 +tries=1 @"$2" "$3" A | awk '
        /status:/ { sub(",", "", $6); status = $6 }
        /^[^;].*\tIN\tA\t/ { address = $NF }
        END { print status (address ? " " address : "") }'
}
kids_get() { ask "$kids" 10.77.1.1 "$1"; }
other_get() { ask "$other" 10.77.2.1 "$1"; }
is_blocked() { # is_blocked CLIENT NAME: NXDOMAIN or 0.0.0.0
    local answer; answer="$("$1"_get "$2")"; echo "$answer"
    [ "$answer" = NXDOMAIN ] || [ "$answer" = "NOERROR 0.0.0.0" ]
}
resolves() { local answer; answer="$("$1"_get "$2")"; echo "$answer"; [ "$answer" = "NOERROR 198.19.0.3" ]; }

# Starts the block with lockctl ARGS… from the client's namespace, then asks the server for
# NAME over UDP until the answer is NXDOMAIN or 0.0.0.0; prints the milliseconds from lockctl
# returning to that answer, and the longest time any query took meanwhile.
blocked_after() { # blocked_after CLIENT_PID SERVER NAME lockctl-arguments…
    local client="$1" server="$2" name="$3"; shift 3
    nsenter -t "$client" -n python3 - "$server" "$name" "$bin/lockctl" --root "$root" "$@" <<'PY'
import socket, struct, subprocess, sys, time
server, name, command = sys.argv[1], sys.argv[2], sys.argv[3:]
subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
returned = time.monotonic()
labels = b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\x00"
longest = 0.0
while time.monotonic() - returned < 5:
    query = struct.pack(">HHHHHH", 0x5151, 0x0100, 1, 0, 0, 0) + labels + struct.pack(">HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(2)
        sent = time.monotonic()
        s.sendto(query, (server, 53))
        try:
            answer = s.recv(512)
        except socket.timeout:
            continue
        longest = max(longest, time.monotonic() - sent)
    if answer[3] & 0x0F == 3 or answer[-4:] == b"\x00\x00\x00\x00":
        print(f"{(time.monotonic() - returned) * 1000:.1f} ms; longest query {longest * 1000:.1f} ms")
        sys.exit(0)
    time.sleep(0.001)
print("not blocked within 5 s"); sys.exit(1)
PY
}

mkdir -p "$root/etc/simplylock/profiles.d"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
cat >"$root/etc/simplylock/simplylockd.toml" <<EOF
checkpoint_interval = "1s"

[lan]
kids = ["10.77.1.0/24"]
other = ["10.77.2.10"]

[unbound]
control = "$work/unbound.ctl"
include = "$work/unbound.d/simplylock.conf"
log = "$work/unbound.log"

[dnsmasq]
servers_file = "$work/dnsmasq.servers"
pid_file = "$work/dnsmasq.pid"
EOF
python3 - "$root/etc/simplylock/profiles.d/big.toml" <<'PY'
import sys
names = ", ".join(f'"n{i}.big.test"' for i in range(20000))
open(sys.argv[1], "w").write(f'name = "big"\ndomains = [{names}]\n')
PY

start_daemon() { # start_daemon ENFORCERS
    "$bin/simplylockd" --root "$root" --data-dir "$data" --enforcers "$1" --log-level debug >>"$work/daemon.log" 2>&1 &
    daemon_pid=$!
    for _ in $(seq 200); do lockctl status >/dev/null 2>&1 && return 0; sleep 0.05; done
    echo "simplylockd did not answer"; tail -20 "$work/daemon.log"; return 1
}
stop_daemon() { kill -TERM "$daemon_pid"; wait "$daemon_pid"; local status=$?; daemon_pid=; return $status; }

mkdir -p "$work/unbound.d"
cat >"$work/unbound.conf" <<EOF
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
EOF
start_unbound() {
    unbound -d -c "$work/unbound.conf" >>"$work/unbound.out" 2>&1 &
    server_pid=$!
    for _ in $(seq 200); do
        [ "$(kids_get x.test)" = "NOERROR 198.19.0.3" ] && return 0
        sleep 0.02
    done
    echo "Unbound did not answer"; tail -5 "$work/unbound.out" "$work/unbound.log"; return 1
}
stop_server() { kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=; }

echo "# Unbound $(unbound -V | head -1 | cut -d' ' -f2)"
start_unbound || exit 1
start_daemon hosts,unbound || exit 1
expect "profile created" lockctl profiles create site --domain blocked.test --allow ok.blocked.test
expect "the unbound enforcer reports in status" sh -c "'$bin/lockctl' --root '$root' status | grep -E '^ +unbound +ok'"
expect "doctor finds the control socket and the include file" sh -c "'$bin/lockctl' --root '$root' doctor | grep -E 'unbound include file' | grep -v problem"
expect "blocked.test resolves for kids before the block" resolves kids m.blocked.test

echo "# lockctl start site 10m --for kids"
expect "kids get NXDOMAIN for m.blocked.test this soon after lockctl start returned" \
    blocked_after "$kids" 10.77.1.1 m.blocked.test start site 10m --for kids
for name in blocked.test m.blocked.test a.b.blocked.test BLOCKED.test.; do
    expect "$name is blocked for kids" is_blocked kids "$name"
done
expect "the exception ok.blocked.test resolves for kids" resolves kids ok.blocked.test
expect "blocked.test resolves for the other group" resolves other m.blocked.test
expect "other.test resolves for kids" resolves kids other.test
expect "status shows the session for kids" sh -c "'$bin/lockctl' --root '$root' status | grep -E 'site +manual +kids '"
expect "check answers blocked for kids, not for this machine" \
    sh -c "'$bin/lockctl' --root '$root' check m.blocked.test --for kids && ! '$bin/lockctl' --root '$root' check m.blocked.test"
expect "blocked attempts are counted for the kids group (Unbound's log-local-actions)" \
    sh -c "sleep 0.5; '$bin/lockctl' --root '$root' status | grep -oE 'blocked attempts: kids [0-9]+'"
expect "status has the lan line of the unbound enforcer" sh -c "'$bin/lockctl' --root '$root' status | grep -E '^ +unbound +ok +[0-9]+ zones? +lan kids: 1 names, groups: kids other'"
expect "an unknown group is refused with the groups there are" \
    sh -c "! '$bin/lockctl' --root '$root' start site 5m --for kid 2>&1 && '$bin/lockctl' --root '$root' start site 5m --for kid 2>&1 | grep 'unknown device group'"

echo "# Unbound restarts during the block"
stop_server
restart_start=$(date +%s%3N)
start_unbound || exit 1
answering=$(date +%s%3N)
restored() {
    local deadline=$((answering + 3000)) now
    while true; do
        if is_blocked kids m.blocked.test >/dev/null; then
            now=$(date +%s%3N); echo "$((now - answering)) ms after Unbound answered again ($((answering - restart_start)) ms to start)"
            [ $((now - answering)) -le 1000 ]; return
        fi
        now=$(date +%s%3N); [ "$now" -ge "$deadline" ] && { echo "not restored within 3 s"; return 1; }
        sleep 0.01
    done
}
expect "the block is back within 1 s of Unbound answering again" restored
expect "the other group still resolves after the restart" resolves other m.blocked.test

echo "# lockctl stop"
expect "stopped" lockctl stop site
lifted() { for _ in $(seq 100); do resolves kids m.blocked.test >/dev/null && { resolves kids m.blocked.test; return 0; }; sleep 0.02; done; kids_get m.blocked.test; return 1; }
expect "m.blocked.test resolves for kids again" lifted

echo "# lockctl start site 10m --for lan"
expect "both clients get NXDOMAIN once lockctl start returned" blocked_after "$other" 10.77.2.1 blocked.test start site 10m --for lan
expect "blocked for kids" is_blocked kids m.blocked.test
expect "blocked for the other group" is_blocked other m.blocked.test
expect "stopped" lockctl stop site
expect "lifted for the other group" sh -c "sleep 0.1; $(declare -f ask other_get resolves); kids=$kids other=$other; resolves other m.blocked.test"

echo "# a block started while Unbound is down"
stop_server
expect "lockctl start --for lan while Unbound is down: saved, not yet in force (exit 8)" \
    sh -c "'$bin/lockctl' --root '$root' start site 10m --for lan >'$work/start.out'; [ \$? -eq 8 ] && grep -q 'site saved for lan' '$work/start.out' && grep -q 'not yet in force for lan' '$work/start.out'"
expect "status says the block waits for Unbound" sh -c "'$bin/lockctl' --root '$root' status | grep -E '^ +unbound .*applied when Unbound answers'"
start_unbound || exit 1
answering=$(date +%s%3N)
expect "the block is in force within 1 s of Unbound answering" restored
expect "stopped" lockctl stop site

echo "# a schedule file aimed at kids, starting in 3 s for 3 s"
start_at=$(( $(date +%s) + 3 ))
mkdir -p "$root/etc/simplylock/schedules.d"
printf 'name = "kids-now"\nprofile = "site"\non = "@%s"\nfor = "3s"\nwarn = "off"\ntarget = ["kids"]\n' "$start_at" \
    >"$root/etc/simplylock/schedules.d/kids-now.toml"
expect "the schedule is read" sh -c "'$bin/lockctl' --root '$root' reload && '$bin/lockctl' --root '$root' schedules list | grep kids-now"
on_time() { # on_time EDGE_SECONDS CHECK...: waits for CHECK; prints how late it was after the edge (at most 2 s: a loaded machine runs late)
    local edge=$(( $1 * 1000 )) now; shift
    while true; do
        if "$@" >/dev/null 2>&1; then
            now=$(date +%s%3N)
            echo "$((now - edge)) ms after the edge"
            [ $((now - edge)) -ge -50 ] && [ $((now - edge)) -le 2000 ]; return
        fi
        now=$(date +%s%3N)
        [ "$now" -ge $((edge + 3000)) ] && { echo "not within 3 s of the edge"; return 1; }
        sleep 0.01
    done
}
expect "the scheduled block is in force for kids on time" on_time "$start_at" is_blocked kids m.blocked.test
expect "and not for the other group" resolves other m.blocked.test
expect "the scheduled block ends on time" on_time $((start_at + 3)) resolves kids m.blocked.test
rm "$root/etc/simplylock/schedules.d/kids-now.toml"
lockctl reload >/dev/null

echo "# a 20 000-name profile for kids (through the include file and reload_keep_cache)"
expect "kids get NXDOMAIN for n19999.big.test this soon after lockctl start returned" \
    blocked_after "$kids" 10.77.1.1 n19999.big.test start big 10m --for kids
expect "a subdomain of a listed name is blocked for kids" is_blocked kids x.n123.big.test
expect "the other group resolves the listed names" resolves other n5.big.test
expect "status says the include file carried it" sh -c "'$bin/lockctl' --root '$root' status --json | grep -q 'include file and reload_keep_cache' && echo include"
expect "stopped" lockctl stop big
expect "lifted for kids" sh -c "sleep 0.2; $(declare -f ask kids_get resolves); kids=$kids; resolves kids n19999.big.test"
stop_daemon
stop_server

echo "# dnsmasq"
: >"$work/dnsmasq.servers"
dnsmasq --conf-file=/dev/null --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
    --listen-address=10.77.1.1,10.77.2.1 --port=53 --user=root --group=root --pid-file="$work/dnsmasq.pid" \
    --server=198.19.0.2 --servers-file="$work/dnsmasq.servers" --log-facility="$work/dnsmasq.log" &
server_pid=$!
for _ in $(seq 100); do [ "$(kids_get x.test)" = "NOERROR 198.19.0.3" ] && break; sleep 0.05; done
start_daemon hosts,dnsmasq || exit 1
expect "the dnsmasq enforcer reports in status" sh -c "'$bin/lockctl' --root '$root' status | grep -E '^ +dnsmasq +ok +0 names +for every client'"
expect "a device group is refused: dnsmasq answers every client alike" \
    sh -c "! '$bin/lockctl' --root '$root' start site 5m --for kids 2>&1 && '$bin/lockctl' --root '$root' start site 5m --for kids 2>&1 | grep 'cannot be blocked through dnsmasq'"
expect "m.blocked.test is NXDOMAIN from dnsmasq once lockctl start --for lan returned" \
    blocked_after "$kids" 10.77.1.1 m.blocked.test start site 10m --for lan
expect "blocked for the other client too" is_blocked other blocked.test
expect "the exception resolves" resolves other ok.blocked.test
expect "the servers-file holds the block" grep -x 'server=/blocked.test/' "$work/dnsmasq.servers"
expect "stopped" lockctl stop site
expect "lifted" sh -c "sleep 0.2; $(declare -f ask kids_get resolves); kids=$kids; resolves kids m.blocked.test"
stop_server
expect "a lan block while dnsmasq is down is saved, not in force (exit 8); the servers-file has it" \
    sh -c "'$bin/lockctl' --root '$root' start site 10m --for lan >'$work/start.out' 2>&1; [ \$? -eq 8 ] && grep -q 'not yet in force for lan: dnsmasq' '$work/start.out' && grep -x 'server=/blocked.test/' '$work/dnsmasq.servers'"
expect "status says dnsmasq reads it when it starts" sh -c "'$bin/lockctl' --root '$root' status | grep -E '^ +dnsmasq .*read when dnsmasq starts'"
stop_daemon

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
