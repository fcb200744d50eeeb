#!/usr/bin/env python3
"""Many uids holding idle connections must not lock out root or a reader of another uid.

Usage: connection_pools.py SOCKET UIDS PER_UID

Run as root. Each of UIDS uids (65500, 65501, …) opens PER_UID connections in a child process
and keeps them idle (an unfinished request head). Then a reader of a further uid and root must
each get an answer, and a uid past its share must be told which limit it met. Prints one line
of JSON with what each saw; the test asserts on it.
"""
import json
import os
import select
import socket
import sys
import time

SOCK, UIDS, PER_UID = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
FIRST_UID = 65500


def connect():
    # A full listen backlog answers EAGAIN at once on a Unix socket: wait for the daemon to accept.
    for _ in range(100):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(5)
        try:
            s.connect(SOCK)
            return s
        except BlockingIOError:
            s.close()
            time.sleep(0.05)
    raise TimeoutError("the listen backlog stayed full for 5 s")


def refused_body(s):
    """The 503's message when the daemon refused this connection at once, else None."""
    # Without waiting: idle connections are cut after 10 s, and the pools must be full at once.
    s.setblocking(False)
    try:
        data = s.recv(4096)
    except OSError:
        return None
    if not data.startswith(b"HTTP/1.1 503"):
        return None
    # The answer may arrive in more than one piece (head, then body); the daemon closes the
    # connection after it, so read to the end.
    s.setblocking(True)
    s.settimeout(2)
    try:
        while chunk := s.recv(4096):
            data += chunk
    except OSError:
        pass
    body = data.split(b"\r\n\r\n", 1)[-1]
    try:
        return json.loads(body)["error"]["message"]
    except (ValueError, KeyError):
        return body.decode("latin-1")


def status_as_current_user():
    s = connect()
    s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    try:
        while chunk := s.recv(65536):
            data += chunk
    except socket.timeout:
        pass
    s.close()
    return data.split(b"\r\n", 1)[0].decode("latin-1"), refused_body_from(data)


def refused_body_from(data):
    if not data.startswith(b"HTTP/1.1 503"):
        return None
    try:
        return json.loads(data.split(b"\r\n\r\n", 1)[-1])["error"]["message"]
    except (ValueError, KeyError):
        return None


def hold(uid, count, report, release):
    """Child: as `uid`, opens `count` idle connections, reports, waits for `release`."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    held, refused = [], []
    for _ in range(count):
        s = connect()
        s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: x\r\n")  # unfinished: the slot stays taken
        held.append(s)
    # A held connection gets nothing; a refused one its 503 at once. Read what arrives until
    # nothing more does for 0.3 s (well within the 10 s after which idle connections are cut).
    waiting = list(held)
    while waiting:
        readable, _, _ = select.select(waiting, [], [], 0.3)
        if not readable:
            break
        for s in readable:
            waiting.remove(s)
            message = refused_body(s)
            if message is not None:
                refused.append(message)
    os.write(report, (json.dumps({"uid": uid, "held": len(held) - len(refused), "refused": refused[:1], "refusedCount": len(refused)}) + "\n").encode())
    os.read(release, 1)
    os._exit(0)


def main():
    children, holders = [], []
    release_read, release_write = os.pipe()
    # One uid after the other, each keeping what it got, so that the pools fill in a known order.
    for index in range(UIDS):
        report_read, report_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(report_read)
            try:
                hold(FIRST_UID + index, PER_UID, report_write, release_read)
            except BaseException as error:  # noqa: BLE001 - the child reports and exits
                os.write(report_write, (json.dumps({"uid": FIRST_UID + index, "error": repr(error)}) + "\n").encode())
            os._exit(1)
        os.close(report_write)
        children.append(pid)
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(report_read, 65536)
            if not chunk:
                break
            line += chunk
        os.close(report_read)
        holders.append(json.loads(line) if line else {"error": "no report"})

    # While every holder still holds its connections: a reader of another uid, and root.
    reader_read, reader_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setgroups([])
        os.setgid(FIRST_UID + UIDS)
        os.setuid(FIRST_UID + UIDS)
        line, message = status_as_current_user()
        os.write(reader_write, json.dumps({"status": line, "message": message}).encode())
        os._exit(0)
    os.close(reader_write)
    os.waitpid(pid, 0)
    reader = json.loads(os.read(reader_read, 65536) or b"{}")
    root_status, _ = status_as_current_user()

    os.write(release_write, b"x" * UIDS)
    for pid in children:
        os.waitpid(pid, 0)
    print(json.dumps({"holders": holders, "reader": reader, "root": root_status}))


main()
