"""The figures of scripts/bench-web.sh; run inside `unshare -n -m` (see there)."""
import os
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

bin_dir, data_dir = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="bench-web-")
children = []


def run(*command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def peer(*command):
    return ["nsenter", "-t", str(peer_ns.pid), "-n", *command]


run("ip", "link", "set", "lo", "up")
peer_ns = subprocess.Popen(["unshare", "-n", "sleep", "3600"])
children.append(peer_ns)
while os.readlink(f"/proc/{peer_ns.pid}/ns/net") == os.readlink("/proc/self/ns/net"):
    time.sleep(0.01)
run("ip", "link", "add", "veth0", "type", "veth", "peer", "name", "veth1", "netns", str(peer_ns.pid))
run("ip", "addr", "add", "198.18.0.1/24", "dev", "veth0")
run("ip", "link", "set", "veth0", "up")
for command in (["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", "198.18.0.2/24", "dev", "veth1"],
                ["ip", "addr", "add", "198.18.0.5/24", "dev", "veth1"], ["ip", "link", "set", "veth1", "up"]):
    run(*peer(*command))

# The peer: dnsmasq answering from its own data, and a TLS server (ECDSA, so that the server's
# signature does not drown what is measured) that also takes bulk uploads.
run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
    "-subj", "/CN=allowed.test", "-keyout", f"{work}/key.pem", "-out", f"{work}/cert.pem")
with open(f"{work}/hosts", "w") as f:
    for i in range(1000):
        f.write(f"198.18.1.{i % 250 + 1} q{i}.allowed.test\n")
    # A blocked name on the server's own address, as a CDN's neighbours are: the firewall hands
    # TCP to it over to the connection check, which lets allowed.test through.
    f.write("198.18.0.5 neighbour.test\n")
children.append(subprocess.Popen(peer(
    "dnsmasq", "--conf-file=/dev/null", "--keep-in-foreground", "--no-resolv", "--no-hosts", f"--addn-hosts={work}/hosts",
    "--bind-interfaces", "--listen-address=198.18.0.2", "--port=53", "--user=root", "--group=root", "--cache-size=10000",
    f"--pid-file={work}/dnsmasq.pid"), stderr=subprocess.DEVNULL))
server = r'''
import socket, ssl, sys, threading
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); context.load_cert_chain(sys.argv[1], sys.argv[2])
def serve(connection):
    try:
        tls = context.wrap_socket(connection, server_side=True)
        while tls.recv(1 << 16): pass
    except Exception: pass
    finally: connection.close()
listener = socket.socket(); listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("198.18.0.5", 443)); listener.listen(512)
print("ready", flush=True)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
'''
tls_server = subprocess.Popen(peer("python3", "-c", server, f"{work}/cert.pem", f"{work}/key.pem"), stdout=subprocess.PIPE, text=True)
children.append(tls_server)
tls_server.stdout.readline()

client_context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
client_context.load_verify_locations(f"{work}/cert.pem")


def handshake_times(count):
    """Microseconds from connect() to a finished TLS handshake, `count` times, in sequence."""
    times = []
    for _ in range(count):
        start = time.perf_counter_ns()
        with socket.create_connection(("198.18.0.5", 443)) as raw:
            with client_context.wrap_socket(raw, server_hostname="allowed.test"):
                times.append((time.perf_counter_ns() - start) / 1000)
    return times


def percentiles(times):
    times = sorted(times)
    return times[len(times) // 2], times[int(len(times) * 0.99)]


def handshakes(count=1000):
    return percentiles(handshake_times(count))


def throughput(megabytes=512):
    """MB/s of one established TLS connection sending `megabytes`."""
    chunk = b"x" * (1 << 20)
    with socket.create_connection(("198.18.0.5", 443)) as raw:
        with client_context.wrap_socket(raw, server_hostname="allowed.test") as tls:
            start = time.perf_counter()
            for _ in range(megabytes):
                tls.sendall(chunk)
            return megabytes / (time.perf_counter() - start)


def queued():
    """Packets queued to the daemon so far (the queue's id sequence; 0 before it is bound)."""
    with open("/proc/net/netfilter/nfnetlink_queue") as f:
        for line in f:
            fields = line.split()
            if fields[0] == "21324":
                return int(fields[7])
    return 0


def dnsperf(queries, seconds=5):
    out = run("dnsperf", "-s", "198.18.0.2", "-p", "53", "-d", queries, "-l", str(seconds), "-q", "100", "-v").stdout
    latencies = sorted(float(line.rsplit(" ", 1)[1]) * 1e6 for line in out.splitlines() if line.startswith("> "))
    qps = float(next(line.split(":")[1] for line in out.splitlines() if "Queries per second:" in line))
    return statistics.median(latencies), latencies[int(len(latencies) * 0.99)], qps


queries = f"{work}/queries.txt"
with open(queries, "w") as f:
    for i in range(1000):
        f.write(f"q{i}.allowed.test A\n")

root = benchlib.scratch_root("bench-web-root-")
with open(f"{root}/etc/resolv.conf", "w") as f:
    f.write("nameserver 198.18.0.2\n")
enforcers = "hosts,nftables,dns,connections"
daemon = benchlib.start_daemon(bin_dir, root, data_dir, enforcers)


def lockctl(*arguments):
    return run(f"{bin_dir}/lockctl", "--root", root, *arguments)


lockctl("profiles", "create", "site", "--domain", "blocked.test")
lockctl("profiles", "create", "shared", "--domain", "neighbour.test")


def start_shared():
    """Starts the block of neighbour.test and waits until the firewall hands its address over."""
    lockctl("start", "shared", "10m")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        table = subprocess.run(["nft", "list", "table", "inet", "simplylock"], capture_output=True, text=True).stdout
        if "jump handoff" in table and "198.18.0.5" in table:
            return
        time.sleep(0.05)
    status = lockctl("status", "--json").stdout
    raise SystemExit(f"bench-web: the firewall did not hand 198.18.0.5 over to the connection check within 15 s\n{table}\n{status}")
try:
    handshakes(100)  # warm-up
    dnsperf(queries, 1)
    idle = {"throughput": max(throughput(), throughput()), "dns": dnsperf(queries)}
    lockctl("start", "site", "10m")
    checking = "21324" in run("nft", "list", "table", "ip", "simplylock_queue").stdout
    handshakes(100)
    dnsperf(queries, 1)
    before = queued()
    blocked = {"throughput": max(throughput(), throughput())}
    throughput_packets = queued() - before
    blocked["dns"] = dnsperf(queries)
    status = lockctl("status", "--json").stdout
    # The same block without the connection check: its tables removed by hand (the daemon puts
    # them back at its next apply).
    run("nft", "delete", "table", "ip", "simplylock_queue")
    run("nft", "delete", "table", "ip6", "simplylock_queue")
    unchecked = {"throughput": max(throughput(), throughput())}
    lockctl("stop", "site")
    start_shared()
    handshakes(100)
    shared = {"throughput": max(throughput(), throughput())}
    lockctl("stop", "shared")
    # Handshakes in five rounds of 200 per setting, interleaved, so that the machine's other load
    # weighs on the three alike: no block; the block; the block with the check's tables removed.
    samples = {"idle": [], "blocked": [], "unchecked": [], "shared": []}
    handshake_packets = 0
    shared_packets = 0
    for _ in range(5):
        handshake_times(20)
        samples["idle"] += handshake_times(200)
        lockctl("start", "site", "10m")
        handshake_times(20)
        before = queued()
        samples["blocked"] += handshake_times(200)
        handshake_packets += queued() - before
        run("nft", "delete", "table", "ip", "simplylock_queue")
        run("nft", "delete", "table", "ip6", "simplylock_queue")
        samples["unchecked"] += handshake_times(200)
        lockctl("stop", "site")
        start_shared()
        handshake_times(20)
        before = queued()
        samples["shared"] += handshake_times(200)
        shared_packets += queued() - before
        lockctl("stop", "shared")
    idle["handshake"], blocked["handshake"], unchecked["handshake"], shared["handshake"] = (
        percentiles(samples[k]) for k in ("idle", "blocked", "unchecked", "shared"))
finally:
    daemon.terminate()
    daemon.wait()
    for child in children:
        child.kill()

print(f"binaries: {bin_dir}")
print(f"connection check's queue tables during the block: {'yes' if checking else 'no (kernel without nft_compat/xt_NFQUEUE?)'}")
(p50, p99), (b50, b99), (u50, u99) = idle["handshake"], blocked["handshake"], unchecked["handshake"]
s50, s99 = shared["handshake"]
print("\n== TLS handshakes (1 000 per setting, sequential, 5 interleaved rounds of 200, veth to a peer namespace) ==")
print(f"no block:                        p50 {p50:8.0f} µs   p99 {p99:8.0f} µs")
print(f"block of blocked.test:           p50 {b50:8.0f} µs   p99 {b99:8.0f} µs   (+{b50 - p50:.0f} µs p50; goal <= +100)")
print(f"same block, check's tables gone: p50 {u50:8.0f} µs   p99 {u99:8.0f} µs   (the check: +{b50 - u50:.0f} µs p50)")
print(f"packets queued to the daemon: {handshake_packets} for 1 000 connections ({handshake_packets / 1000:.1f} each)")
print(f"block of neighbour.test, on the server's own address (handed over to the check): "
      f"p50 {s50:8.0f} µs   p99 {s99:8.0f} µs   (+{s50 - b50:.0f} µs p50 against the block of blocked.test)")
print(f"packets queued to the daemon, handed over: {shared_packets} for 1 000 connections ({shared_packets / 1000:.1f} each)")
print("\n== throughput of one established TLS connection (best of 2, 512 MB) ==")
print(f"no block {idle['throughput']:.0f} MB/s, block {blocked['throughput']:.0f} MB/s: "
      f"{blocked['throughput'] / idle['throughput']:.2f}x (goal: unchanged); without the check's tables "
      f"{unchecked['throughput']:.0f} MB/s; packets queued for the two 512 MB connections: {throughput_packets}; "
      f"to a blocked name's address, handed over: {shared['throughput']:.0f} MB/s")
(d50, d99, dq), (r50, r99, rq) = idle["dns"], blocked["dns"]
print("\n== DNS to 198.18.0.2 (dnsmasq answering from its own data), dnsperf -q 100, 5 s ==")
print(f"dnsmasq directly (no block):      p50 {d50:7.0f} µs  p99 {d99:7.0f} µs  {dq:9.0f} q/s")
print(f"through the filter (redirected):  p50 {r50:7.0f} µs  p99 {r99:7.0f} µs  {rq:9.0f} q/s")
print(f"ratio filter / dnsmasq: p50 {r50 / d50:.2f}x (goal <= 1.5x)  throughput {rq / dq:.2f}x (goal >= 0.8x)")
