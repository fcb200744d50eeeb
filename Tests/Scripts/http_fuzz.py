#!/usr/bin/env python3
"""A bounded raw-HTTP fuzz of a running simplylockd (as root, so requests reach every handler).

Usage: http_fuzz.py SOCKET DAEMON_PID [REQUESTS] [SEED]

Malformed heads, hostile numbers in every numeric field of every request body, empty and
repeated query keys, bad escapes, odd framing, and a few slow and idle clients. Every 100
requests the daemon must answer GET /v1/status within 1 s; at the end its RSS and descriptor
count must be back near where they started. Prints a summary and exits non-zero on failure.
"""
import json
import os
import random
import socket
import sys
import time

SOCK, PID = sys.argv[1], int(sys.argv[2])
REQUESTS = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 20261122
rng = random.Random(SEED)

HOSTILE_NUMBERS = ["0", "-0", "-1", "1", "0.5", "1e10", "1e19", "1e20", "1e21", "1e300", "-1e300", "1.7976931348623157e308",
                   "4.9e-324", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
                   "1" * 400, "2592000", "2592001", "86400.000000001", "\"NaN\"", "\"Infinity\"", "null", "true", "\"60\"", "[]",
                   "{}"]
HOSTILE_STRINGS = ["", " ", "news", "ghost", "../../etc/passwd", "a" * 70, "x" * 100_000, "\u0000", "é", "%00", "news\ncat",
                   "https://example.com\\@evil.com/", "xn--zz.com", "co.uk", "09:00", "25:00", "* * * * *", "Mon..Fri 09:30",
                   "Europe/Berlin", "Mars/Olympus", "mon-fri", "all", "1.2.3.4/33", "::/0"]
PROFILES = ["news", "social", "video", "deep-work", "ghost", "fuzzed"]

BODIES = {
    ("POST", "/v1/sessions"): {"profile": "s", "seconds": "n", "until": "s", "strict": "b"},
    ("POST", "/v1/sessions/{p}/extend"): {"seconds": "n"},
    ("POST", "/v1/profiles"): {"name": "s", "domains": "l", "services": "l", "categories": "l", "allow": "l",
                               "addresses": "l", "mode": "s", "strict": "b", "displayName": "s"},
    ("PATCH", "/v1/profiles/{p}"): {"addDomains": "l", "removeDomains": "l", "addServices": "l", "addAddresses": "l",
                                    "strict": "b", "description": "s"},
    ("POST", "/v1/pomodoro"): {"profile": "s", "focusSeconds": "n", "shortBreakSeconds": "n", "longBreakSeconds": "n",
                               "longEvery": "n", "cycles": "n", "manual": "b", "strict": "b"},
    ("POST", "/v1/schedules"): {"name": "s", "profile": "s", "days": "s", "from": "s", "to": "s", "on": "s", "cron": "s",
                                "seconds": "n", "tz": "s", "strict": "b", "warnSeconds": "n"},
    ("PATCH", "/v1/schedules/{p}"): {"enabled": "b"},
}
GETS = ["/v1/status", "/v1/profiles", "/v1/profiles/{p}", "/v1/check", "/v1/history", "/v1/doctor", "/v1/pomodoro",
        "/v1/pomodoro/history", "/v1/schedules", "/v1/schedules/{p}", "/v1/schedules/{p}/next"]
OTHERS = [("DELETE", "/v1/sessions/{p}"), ("DELETE", "/v1/profiles/{p}"), ("DELETE", "/v1/schedules/{p}"),
          ("POST", "/v1/pomodoro/pause"), ("POST", "/v1/pomodoro/stop"), ("POST", "/v1/pomodoro/hist%ory"),
          ("POST", "/v1/reload"), ("PUT", "/v1/status"), ("BREW", "/v1/status"), ("GET", "/status"), ("GET", "/v1/%zz")]
QUERIES = ["", "?", "?=", "?a&=", "?limit=0", "?limit=-3", "?limit=abc", "?limit=50", "?limit=10000", "?limit=10001",
           "?name=reddit.com", "?name=", "?name=%ff", "?count=5&after=2027-03-27T12:00:00Z", "?count=0", "?after=yesterday",
           "?limit=1&limit=2", "?" + "a=1&" * 500, "?name=" + "a" * 5000]


SANE = {"n": ["60", "600", "3600", "1500", "2"], "b": ["true", "false"], "l": ['["example.com"]', '[]', '["192.0.2.0/24"]'],
        "s": ['"news"', '"fuzzed"', '"deep-work"', '"09:00"', '"10:00"', '"all"', '"daily"', '"UTC"', '"2030-01-01T00:00:00Z"']}


def value(kind, sane=False):
    if sane:
        return rng.choice(SANE[kind])
    if kind == "n":
        return rng.choice(HOSTILE_NUMBERS)
    if kind == "b":
        return rng.choice(["true", "false", "1", "null", "\"yes\""])
    if kind == "l":
        return "[" + ",".join(json.dumps(rng.choice(HOSTILE_STRINGS)) for _ in range(rng.randint(0, 3))) + "]"
    return rng.choice([json.dumps(rng.choice(HOSTILE_STRINGS + PROFILES)), "7", "null", "[]"])


def body_for(fields):
    # Some bodies are mostly sensible, so that requests get past validation into the services.
    sane = rng.random() < 0.35
    parts = [f"{json.dumps(name)}:{value(kind, sane and rng.random() < 0.9)}" for name, kind in fields.items() if rng.random() < 0.7]
    text = "{" + ",".join(parts) + "}"
    mutation = rng.random()
    if mutation < 0.05:
        return text[: rng.randint(0, len(text))]
    if mutation < 0.08:
        return text + "garbage"
    return text


def request():
    choice = rng.random()
    if choice < 0.45:
        (method, template), fields = rng.choice(list(BODIES.items()))
        path = template.replace("{p}", rng.choice(PROFILES + ["fuzzed-schedule", "%20", "a" * 300]))
        body = body_for(fields).encode("utf-8", "surrogatepass")
    elif choice < 0.8:
        method, body = "GET", b""
        path = rng.choice(GETS).replace("{p}", rng.choice(PROFILES)) + rng.choice(QUERIES)
    else:
        method, path = rng.choice(OTHERS)
        path = path.replace("{p}", rng.choice(PROFILES))
        body = b""
    headers = [f"{method} {path} HTTP/1.1", "Host: x"]
    framing = rng.random()
    if framing < 0.04:
        headers.append("Content-Length: -5")
    elif framing < 0.07:
        headers.append(f"Content-Length: {len(body)}")
        headers.append(f"Content-Length: {len(body) + 3}")
    elif framing < 0.10:
        headers.append("Transfer-Encoding: chunked")
        body = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n" if rng.random() < 0.5 else b"zz\r\n" + body
    elif framing < 0.12:
        headers.append("X-Big: " + "h" * rng.choice([1000, 100_000]))
    elif framing < 0.14:
        headers[0] = method + " " + path + " HTTP/1.0"
    else:
        headers.append(f"Content-Length: {len(body)}")
    if rng.random() < 0.5:
        headers.append("Connection: close")
    raw = ("\r\n".join(headers) + "\r\n\r\n").encode("latin-1", "replace") + body
    if rng.random() < 0.03:
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 200)))
    return raw


def send(raw, timeout=3.0):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(SOCK)
        s.sendall(raw)
        s.shutdown(socket.SHUT_WR)
        answer = s.recv(64)
        return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.") else "none"
    except (socket.timeout, OSError):
        return "none"
    finally:
        s.close()


def alive():
    start = time.monotonic()
    status = send(b"GET /v1/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=1.0)
    return status == "200" and time.monotonic() - start <= 1.0


def rss_kib():
    with open(f"/proc/{PID}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def fds():
    return len(os.listdir(f"/proc/{PID}/fd"))


def main():
    start_rss, start_fds = rss_kib(), fds()
    statuses = {}
    problems = []
    slow = []
    for index in range(REQUESTS):
        if index % 500 == 0:
            # A few slow and idle clients alongside the stream of requests.
            for _ in range(5):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(SOCK)
                s.send(b"POST /v1/sessions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
                slow.append(s)
        status = send(request())
        statuses[status] = statuses.get(status, 0) + 1
        if status.startswith("5") and status not in ("503",):
            problems.append(f"request {index} got {status}")
        if index % 100 == 99 and not alive():
            problems.append(f"after request {index} the daemon did not answer within 1 s")
            break
        if not os.path.exists(f"/proc/{PID}"):
            problems.append(f"the daemon died at request {index}")
            break
    for s in slow:
        s.close()
    time.sleep(1.5)
    end_rss, end_fds = rss_kib(), fds()
    if not alive():
        problems.append("the daemon does not answer after the fuzz")
    if end_fds > start_fds + 10:
        problems.append(f"descriptors {start_fds} -> {end_fds}")
    if end_rss > start_rss + 64 * 1024:
        problems.append(f"RSS {start_rss} -> {end_rss} KiB")
    print(f"# seed {SEED}, {REQUESTS} requests; statuses: {dict(sorted(statuses.items()))}")
    print(f"# rss {start_rss} -> {end_rss} KiB, descriptors {start_fds} -> {end_fds}")
    for problem in problems[:20]:
        print(f"not ok {problem}")
    print("ok fuzz" if not problems else f"# {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
