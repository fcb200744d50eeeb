#!/usr/bin/env python3
"""TCP helpers for netns-nft-test.sh; only ever used inside the test's own network namespaces.

  nettool.py serve --ready FILE ADDR:PORT ...    echo servers until killed
  nettool.py check ADDR PORT open|refused        one connection; exit 0 when it behaves as expected
  nettool.py hold ADDR PORT TRIGGER RESULT       connect now; after TRIGGER exists, use the
                                                 connection again and write ok/reset/... to RESULT
  nettool.py hammer ADDR PORT STOPFILE           connect repeatedly until STOPFILE exists;
                                                 print "<successes> <attempts>"
"""
import errno
import os
import socket
import sys
import threading
import time

CONNECT_TIMEOUT = 3.0
# A refusal must come from a reset or an ICMP error, not from waiting out a timeout.
PROMPT = 1.0


def split_hostport(text):
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


def family_of(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def echo(conn):
    with conn:
        while True:
            try:
                data = conn.recv(4096)
            except OSError:
                return
            if not data:
                return
            try:
                conn.sendall(data)
            except OSError:
                return


def serve(args):
    ready = None
    if args and args[0] == "--ready":
        ready, args = args[1], args[2:]
    listeners = []
    for item in args:
        host, port = split_hostport(item)
        s = socket.socket(family_of(host), socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, port))
        s.listen(64)
        listeners.append(s)

    def accept_loop(s):
        while True:
            conn, _ = s.accept()
            threading.Thread(target=echo, args=(conn,), daemon=True).start()

    for s in listeners:
        threading.Thread(target=accept_loop, args=(s,), daemon=True).start()
    if ready:
        with open(ready, "w") as f:
            f.write("ready\n")
    while True:
        time.sleep(3600)


def connect(host, port):
    s = socket.socket(family_of(host), socket.SOCK_STREAM)
    s.settimeout(CONNECT_TIMEOUT)
    s.connect((host, port))
    return s


def check(host, port, expect):
    started = time.monotonic()
    try:
        s = connect(host, port)
        s.sendall(b"ping\n")
        reply = s.recv(16)
        s.close()
        outcome = "open" if reply == b"ping\n" else "bad-reply"
    except ConnectionRefusedError:
        outcome = "refused"
    except ConnectionResetError:
        outcome = "refused"
    except socket.timeout:
        outcome = "timeout"
    except OSError as e:
        outcome = "error:" + errno.errorcode.get(e.errno, str(e.errno))
    elapsed = time.monotonic() - started
    print(f"{host} port {port}: {outcome} after {elapsed:.3f}s")
    if outcome != expect:
        return 1
    if expect == "refused" and elapsed > PROMPT:
        print(f"refusal took {elapsed:.3f}s, longer than {PROMPT}s")
        return 1
    return 0


def hold(host, port, trigger, result):
    s = connect(host, port)
    s.sendall(b"hello\n")
    if s.recv(16) != b"hello\n":
        raise SystemExit("echo before the block failed")
    print("connected", flush=True)
    deadline = time.monotonic() + 120
    while not os.path.exists(trigger):
        if time.monotonic() > deadline:
            raise SystemExit("trigger never came")
        time.sleep(0.02)
    started = time.monotonic()
    try:
        s.settimeout(3.0)
        s.sendall(b"again\n")
        reply = s.recv(16)
        outcome = "ok" if reply == b"again\n" else ("closed" if reply == b"" else "bad-reply")
    except (ConnectionResetError, BrokenPipeError):
        outcome = "reset"
    except socket.timeout:
        outcome = "timeout"
    except OSError as e:
        outcome = "error:" + errno.errorcode.get(e.errno, str(e.errno))
    with open(result, "w") as f:
        f.write(f"{outcome} {time.monotonic() - started:.3f}\n")


def hammer(host, port, stopfile):
    successes = attempts = 0
    deadline = time.monotonic() + 120
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        attempts += 1
        try:
            s = socket.socket(family_of(host), socket.SOCK_STREAM)
            s.settimeout(0.5)
            s.connect((host, port))
            successes += 1
            s.close()
        except OSError:
            pass
    print(successes, attempts)


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "serve":
        serve(args)
    elif command == "check":
        sys.exit(check(args[0], int(args[1]), args[2]))
    elif command == "hold":
        hold(args[0], int(args[1]), args[2], args[3])
    elif command == "hammer":
        hammer(args[0], int(args[1]), args[2])
    else:
        raise SystemExit("unknown command " + command)


if __name__ == "__main__":
    main()
