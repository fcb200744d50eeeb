#!/usr/bin/env python3
"""Hostile clients against a running simplylockd: each scenario asserts what the daemon must do.

Usage: http_abuse.py SOCKET DAEMON_PID HOSTS_FILE

Run as root. Clients that must be ordinary users switch to uid/gid 65534 in a child process.
Prints "ok NAME" or "not ok NAME: why" per scenario and exits non-zero when any failed.
"""
import json
import os
import socket
import subprocess
import sys
import time

SOCK, PID, HOSTS = sys.argv[1], int(sys.argv[2]), sys.argv[3]
NOBODY = 65534
failures = []


def report(name, problem=None):
    if problem:
        failures.append(name)
        print(f"not ok {name}: {problem}", flush=True)
    else:
        print(f"ok {name}", flush=True)


def connect(timeout=5.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(SOCK)
    return s


def exchange(raw, timeout=5.0, half_close=False):
    """Sends raw bytes and reads until the server closes; returns the whole answer."""
    s = connect(timeout)
    s.sendall(raw)
    if half_close:
        s.shutdown(socket.SHUT_WR)
    chunks = []
    try:
        while True:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
    except socket.timeout:
        pass
    s.close()
    return b"".join(chunks)


def status_line(answer):
    return answer.split(b"\r\n", 1)[0].decode("latin-1")


def answers_within(seconds):
    """True when GET /v1/status answers 200 within `seconds` (as root)."""
    start = time.monotonic()
    try:
        answer = exchange(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=seconds)
    except OSError:
        return False
    return status_line(answer).startswith("HTTP/1.1 200") and time.monotonic() - start <= seconds


def rss_kib():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def fd_count():
    return len(os.listdir(f"/proc/{PID}/fd"))


def as_nobody(function, *args):
    """Runs `function(*args)` in a child process as uid 65534; returns its exit status."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            function(*args)
            os._exit(0)
        except BaseException as error:  # noqa: BLE001 - the child reports and exits
            print(f"  child failed: {error!r}", flush=True)
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def empty_query_keys():
    for query in ["?=", "?a&=", "?=x&=y", "?&&&=", "?%zz=1"]:
        answer = exchange(f"GET /v1/status{query} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        if not status_line(answer).startswith("HTTP/1.1 400"):
            raise AssertionError(f"{query}: {status_line(answer)}")


def scenario_empty_query_keys():
    code = as_nobody(empty_query_keys)
    if code != 0:
        return report("empty query keys from an ordinary user get 400", f"child exited {code}")
    if not answers_within(1.0):
        return report("empty query keys from an ordinary user get 400", "the daemon no longer answers")
    report("empty query keys from an ordinary user get 400")


def hold_connections(count, seconds, ready_path):
    held = []
    for _ in range(count):
        try:
            held.append(connect())
        except OSError:
            break
    with open(ready_path, "w") as f:
        f.write(str(len(held)))
    time.sleep(seconds)


def scenario_idle_connections():
    name = "1000 idle connections of one user neither starve others nor enforcement, and are cut"
    fds_before = fd_count()
    ready = f"/tmp/simplylock-abuse-{os.getpid()}"
    pid = os.fork()
    if pid == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        hold_connections(1000, 30, ready)
        os._exit(0)
    deadline = time.monotonic() + 20
    while not os.path.exists(ready) and time.monotonic() < deadline:
        time.sleep(0.1)
    started = time.monotonic()
    problems = []
    if not answers_within(1.0):
        problems.append("status did not answer within 1 s while the connections were held")
    # Enforcement keeps its descriptors: a truncated hosts file is repaired.
    with open(HOSTS, "r+b") as f:
        f.truncate(0)
    repaired = False
    for _ in range(30):
        time.sleep(0.1)
        with open(HOSTS, "rb") as f:
            if b"# BEGIN simplylock" in f.read():
                repaired = True
                break
    if not repaired:
        problems.append("a truncated hosts file was not repaired within 3 s")
    held = fd_count()
    if held > fds_before + 100:
        problems.append(f"descriptors grew from {fds_before} to {held}: the per-user cap did not hold")
    # The client still holds its end; the server must have cut the idle connections by now.
    time.sleep(max(0, 13 - (time.monotonic() - started)))
    if fd_count() > fds_before + 10:
        problems.append(f"idle connections were not cut: {fd_count()} descriptors, {fds_before} before")
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    if os.path.exists(ready):
        os.unlink(ready)
    report(name, "; ".join(problems) or None)


def scenario_slowloris():
    name = "a client sending its head a byte at a time is cut after the request deadline"
    s = connect(timeout=30)
    start = time.monotonic()
    request = b"GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40
    cut = None
    for byte in request:
        try:
            s.send(bytes([byte]))
            s.settimeout(1.0)
            if s.recv(1) == b"":
                cut = time.monotonic() - start
                break
        except socket.timeout:
            continue
        except OSError:
            cut = time.monotonic() - start
            break
    s.close()
    if cut is None:
        report(name, "the connection stayed open for the whole slow request")
    elif cut > 15:
        report(name, f"cut only after {cut:.1f} s")
    else:
        report(name)


def big_bodies(count, size):
    body = b"x" * size
    head = f"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n".encode()
    sockets = []
    for _ in range(count):
        try:
            s = connect(timeout=10)
            s.sendall(head)
            sockets.append(s)
        except OSError:
            break
    refused = 0
    for s in sockets:
        try:
            s.sendall(body[:65536])
        except OSError:
            pass
        try:
            answer = s.recv(4096)
            if answer.startswith(b"HTTP/1.1 403") or answer.startswith(b"HTTP/1.1 503"):
                refused += 1
        except OSError:
            pass
        s.close()
    if refused < len(sockets):
        raise AssertionError(f"{len(sockets) - refused} of {len(sockets)} bodies were not refused from the head")


def scenario_big_bodies():
    name = "4 MiB bodies from an ordinary user are refused from the head and cost no memory"
    before = rss_kib()
    code = as_nobody(big_bodies, 200, 4 << 20)
    after = rss_kib()
    problems = []
    if code != 0:
        problems.append(f"child exited {code}")
    if after - before > 60 * 1024:
        problems.append(f"RSS grew by {(after - before) // 1024} MiB")
    if not answers_within(1.0):
        problems.append("the daemon no longer answers")
    report(name, "; ".join(problems) or None)


def scenario_http_semantics():
    name = "Connection: close, HTTP/1.0, half-closed clients, HEAD and Allow"
    problems = []
    answer = exchange(b"GET /v1/status HTTP/1.0\r\n\r\n", timeout=5)
    if not answer.startswith(b"HTTP/1.0 200") or b'"version"' not in answer:
        problems.append(f"HTTP/1.0: {status_line(answer)}")
    answer = exchange(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=5)
    if b"connection: close" not in answer.lower():
        problems.append("Connection: close was not answered with close")
    answer = exchange(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n", timeout=5, half_close=True)
    if not answer.startswith(b"HTTP/1.1 200"):
        problems.append(f"a half-closed client got {status_line(answer)!r}")
    answer = exchange(b"HEAD /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=5)
    head, _, rest = answer.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200") or rest != b"" or b"content-length:" not in head.lower():
        problems.append(f"HEAD: {head[:60]!r} with {len(rest)} body bytes")
    answer = exchange(b"PUT /v1/status HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", timeout=5)
    if not answer.startswith(b"HTTP/1.1 405") or b"allow: get, head" not in answer.lower():
        problems.append(f"405 without Allow: {answer[:200]!r}")
    # Two requests on one connection: keep-alive works and the second is answered.
    answer = exchange(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/profiles HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    if answer.count(b"HTTP/1.1 200") != 2:
        problems.append("a keep-alive connection did not answer two requests")
    report(name, "; ".join(problems) or None)


def scenario_connection_cap():
    name = "one user's connections are capped and answered 503 past the cap; root still gets through"

    def flood():
        held, refused = [], 0
        for _ in range(200):
            try:
                s = connect(timeout=5)
            except OSError:
                break
            s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n")  # an unfinished head keeps the slot
            held.append(s)
        time.sleep(0.5)
        for s in held:
            s.settimeout(0.2)
            try:
                if s.recv(64).startswith(b"HTTP/1.1 503"):
                    refused += 1
            except (socket.timeout, OSError):
                pass
        if refused == 0:
            raise AssertionError("no connection was refused with 503")
        if not answers_within(1.0) and os.getuid() == 0:
            raise AssertionError("root was locked out")
        for s in held:
            s.close()

    code = as_nobody(flood)
    problems = [] if code == 0 else [f"child exited {code}"]
    if not answers_within(1.0):
        problems.append("root was locked out")
    report(name, "; ".join(problems) or None)


def main():
    baseline_rss, baseline_fds = rss_kib(), fd_count()
    scenario_empty_query_keys()
    scenario_http_semantics()
    scenario_connection_cap()
    scenario_big_bodies()
    scenario_slowloris()
    scenario_idle_connections()
    time.sleep(1)
    rss, fds = rss_kib(), fd_count()
    print(f"# rss {baseline_rss} KiB -> {rss} KiB, descriptors {baseline_fds} -> {fds}", flush=True)
    if fds > baseline_fds + 10:
        report("descriptors come back after the abuse", f"{baseline_fds} -> {fds}")
    print(f"# {len(failures)} failed", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
