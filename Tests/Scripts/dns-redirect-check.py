#!/usr/bin/env python3
"""Checks in the kernel what the nftables DNS redirect does, inside a private network namespace.

    unshare -n python3 dns-redirect-check.py RULESET PORT MARK

Loads RULESET (nft syntax) in the namespace, gives it a veth link with 192.0.2.10/24 (nobody on the other end), and
checks: plain DNS to a remote server (UDP and TCP) lands on 127.0.0.1:PORT; a packet carrying
MARK on its socket goes out unredirected (one another table marks does not); DNS to the machine's own addresses is left alone; DNS over TLS
(TCP 853) is refused at once. Prints "ok - ..." / "not ok - ..." and exits 1 on any failure.
Never run it outside a namespace of its own: it changes the namespace's ruleset and links.
"""
import socket
import subprocess
import sys

SO_MARK = 36
ruleset, port, mark = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0)
failures = 0


def check(description, condition):
    global failures
    print(("ok - " if condition else "not ok - ") + description)
    if not condition:
        failures += 1


def run(*command):
    subprocess.run(command, check=True)


run("ip", "link", "set", "lo", "up")
run("ip", "link", "add", "veth0", "type", "veth", "peer", "name", "veth1")  # no peer answers on it
run("ip", "addr", "add", "192.0.2.10/24", "dev", "veth0")
run("ip", "link", "set", "veth0", "up")
run("ip", "link", "set", "veth1", "up")
run("nft", "-f", ruleset)


def udp_listener(address, listen_port):
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind((address, listen_port))
    listener.settimeout(0.5)
    return listener


def received(listener):
    try:
        return listener.recvfrom(512)[0]
    except socket.timeout:
        return None


filter_udp = udp_listener("127.0.0.1", port)
plain = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
plain.sendto(b"redirect me", ("192.0.2.53", 53))
check("UDP DNS to a remote server reaches the filter", received(filter_udp) == b"redirect me")

marked = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
marked.setsockopt(socket.SOL_SOCKET, SO_MARK, mark)
marked.sendto(b"marked", ("192.0.2.53", 53))
check("a packet with the filter's mark is not redirected", received(filter_udp) is None)

# Another table marking everyone's DNS with the filter's mark before the redirect runs (issue 24,
# row 4): the exemption is the socket's mark, so these are redirected all the same.
borrower = f"""table inet borrower {{
    chain output {{
        type filter hook output priority -300; policy accept;
        udp dport 53 meta mark set {mark}
        tcp dport 53 meta mark set {mark}
    }}
}}
"""
subprocess.run(["nft", "-f", "-"], input=borrower.encode(), check=True)
plain.sendto(b"borrowed mark", ("192.0.2.53", 53))
check("a packet another table marks with the filter's mark is still redirected", received(filter_udp) == b"borrowed mark")
run("nft", "delete", "table", "inet", "borrower")

local_udp = udp_listener("192.0.2.10", 53)
plain.sendto(b"to myself", ("192.0.2.10", 53))
check("DNS to the machine's own address is left alone", received(local_udp) == b"to myself")
loop_udp = udp_listener("127.0.0.53", 53)
plain.sendto(b"to the stub", ("127.0.0.53", 53))
check("DNS to a loopback stub resolver is left alone", received(loop_udp) == b"to the stub")
check("... and did not reach the filter", received(filter_udp) is None)

filter_tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
filter_tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
filter_tcp.bind(("127.0.0.1", port))
filter_tcp.listen(4)
filter_tcp.settimeout(1)
client = socket.create_connection(("192.0.2.53", 53), timeout=1)
try:
    connection, _ = filter_tcp.accept()
    check("TCP DNS to a remote server reaches the filter", True)
    connection.close()
except socket.timeout:
    check("TCP DNS to a remote server reaches the filter", False)
client.close()

dot = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
dot.settimeout(1)
try:
    dot.connect(("192.0.2.53", 853))
    check("DNS over TLS is refused", False)
except ConnectionRefusedError:
    check("DNS over TLS is refused", True)
except OSError as error:
    check(f"DNS over TLS is refused (got {error!r})", False)

sys.exit(1 if failures else 0)
