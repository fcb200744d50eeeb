# Shared by the namespace test scripts (sourced after they set $here, $bin and $data): entering
# private network and mount namespaces, the work directory and its cleanup, new namespaces and
# veth links. The results themselves are tap.sh's.

skip() { echo "SKIP: $*"; exit 77; }

# netns_package TOOL: the Debian package that has it.
netns_package() {
    case $1 in
        nft) echo nftables ;; ip) echo iproute2 ;; unshare | nsenter) echo util-linux ;; dig) echo dnsutils ;;
        getent) echo libc-bin ;; timeout) echo coreutils ;; *) echo "$1" ;;
    esac
}

# netns_enter SECONDS TOOL...: outside the namespaces, checks what the calling script needs (root,
# the tools, the binaries in $bin, unshare; nft talking to a new namespace's kernel when nft is
# among the tools) and runs it again inside new network and mount namespaces, for SECONDS at most.
# Inside them it returns at once.
netns_enter() {
    [ "${NETNS_INNER:-}" = 1 ] && return 0
    local seconds=$1 tool
    shift
    [ "$(id -u)" = 0 ] || skip "needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN for namespaces)"
    for tool in unshare nsenter ip python3 timeout "$@"; do
        command -v "$tool" >/dev/null 2>&1 || skip "$tool not found (apt-get install $(netns_package "$tool"))"
    done
    [ -x "$bin/simplylockd" ] && [ -x "$bin/lockctl" ] || skip "simplylockd and lockctl are not built in $bin"
    unshare -n -m true 2>/dev/null || skip "unshare -n -m is not permitted here"
    if [[ " $* " == *" nft "* ]]; then
        unshare -n nft list ruleset >/dev/null 2>&1 || skip "nft cannot talk to the kernel in a new network namespace"
    fi
    exec timeout --kill-after=10 "$seconds" unshare -n -m env NETNS_INNER=1 bash "$0" "$bin" "$data"
}

# netns_setup NAME: inside the namespaces, a work directory (/tmp/NAME.XXXXXX, kept when
# KEEP_WORK=1) with the scratch root in it, the result counters, loopback up, and at exit every
# process the test started killed: the daemon ($daemon_pid), a server ($server_pid) and $pids.
netns_setup() {
    work="$(mktemp -d "/tmp/$1.XXXXXX")"
    root="$work/root"
    pids=()
    daemon_pid=
    server_pid=
    passed=0
    failed=0
    trap netns_cleanup EXIT
    . "$here/tap.sh"
    ip link set lo up
}

netns_cleanup() {
    [ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null
    [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    sleep 0.2
    for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    wait 2>/dev/null
    [ "${KEEP_WORK:-}" = 1 ] || rm -rf "$work"
}

# netns VARIABLE: a process holding a new network namespace; its pid goes in VARIABLE (and $pids).
netns() {
    unshare -n sleep 600 >/dev/null 2>&1 &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 100); do
        [ "$(readlink /proc/$pid/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
        sleep 0.02
    done
    printf -v "$1" %s "$pid"
}

# link PID LOCAL_IF LOCAL_ADDR PEER_IF PEER_ADDR: a veth pair to namespace PID, a /24 on each side.
link() {
    ip link add "$2" type veth peer name "$4" netns "$1"
    ip addr add "$3/24" dev "$2"
    ip link set "$2" up
    nsenter -t "$1" -n ip link set lo up
    nsenter -t "$1" -n ip addr add "$5/24" dev "$4"
    nsenter -t "$1" -n ip link set "$4" up
}
