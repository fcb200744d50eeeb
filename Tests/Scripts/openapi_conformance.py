#!/usr/bin/env python3
"""Checks a running simplylockd against docs/openapi.yaml.

Usage: openapi_conformance.py SOCKET SPEC

Validates the document itself, then drives every operation it describes over the Unix socket
and validates each answer (status and body) against the document. Fails when the server
answers with an undocumented status or body, or when an operation of the document was not
exercised, so the document and the server cannot drift apart silently.
"""
import http.client
import json
import re
import socket
import sys
import time

import jsonschema
import yaml
from openapi_spec_validator import validate as validate_spec


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=10)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(self.unix_path)


def main():
    sock_path, spec_path = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    validate_spec(spec)

    templates = []
    for template, item in spec["paths"].items():
        regex = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        for method in item:
            if method in ("get", "post", "patch", "delete", "put"):
                templates.append((re.compile(regex), template, method))
    exercised = set()
    failures = []

    def resolve(node):
        while isinstance(node, dict) and "$ref" in node:
            target = spec
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            node = target
        return node

    def schema_for(template, method, status, content_type):
        responses = spec["paths"][template][method]["responses"]
        response = resolve(responses.get(str(status)))
        if response is None:
            return None, f"status {status} is not documented"
        content = response.get("content", {})
        if content_type not in content:
            return None, f"content type {content_type} is not documented for {status}"
        schema = dict(content[content_type]["schema"])
        schema["components"] = spec["components"]
        return schema, None

    def call(method, path, body=None, expect=None, text=None):
        conn = UnixConnection(sock_path)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        payload = json.dumps(body) if body is not None else None
        if text is not None:
            headers, payload = {"Content-Type": "text/plain"}, text.encode()
        conn.request(method.upper(), path, body=payload, headers=headers)
        response = conn.getresponse()
        raw = response.read()
        conn.close()
        bare = path.split("?")[0]
        match = [(t, m) for regex, t, m in templates if regex.match(bare) and m == method]
        if not match:
            failures.append(f"{method.upper()} {path}: not in the document")
            return None
        template, _ = match[0]
        exercised.add((template, method))
        if expect is not None and response.status != expect:
            failures.append(f"{method.upper()} {path}: expected {expect}, got {response.status}: {raw[:200]!r}")
        schema, problem = schema_for(template, method, response.status, "application/json")
        if problem:
            failures.append(f"{method.upper()} {path}: {problem}")
            return None
        try:
            value = json.loads(raw)
            jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator,
                                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        except Exception as error:  # noqa: BLE001 - every failure is reported the same way
            failures.append(f"{method.upper()} {path}: body does not match the document: {error}")
            return None
        return value

    call("get", "/v1/status", expect=200)
    call("get", "/v1/profiles", expect=200)
    call("get", "/v1/profiles/deep-work", expect=200)
    call("get", "/v1/profiles/no-such-profile", expect=404)
    call("post", "/v1/profiles", {"name": "conformance", "domains": ["example.com"], "services": ["youtube"],
                                  "categories": [], "allow": [], "addresses": ["203.0.113.0/24"], "strict": False}, expect=201)
    call("post", "/v1/profiles", {"name": "badnet", "domains": [], "services": [], "categories": [], "allow": [],
                                  "addresses": ["203.0.113.0/33"], "strict": False}, expect=400)
    call("post", "/v1/profiles", {"name": "conformance", "domains": [], "services": [], "categories": [],
                                  "allow": [], "strict": False}, expect=409)
    call("post", "/v1/profiles", {"name": "Bad Name", "domains": [], "services": [], "categories": [],
                                  "allow": [], "strict": False}, expect=400)
    call("patch", "/v1/profiles/conformance", {"addDomains": ["example.org"], "addAddresses": ["2001:db8::/32"],
                                               "removeAddresses": ["203.0.113.0/24"], "description": "test"}, expect=200)
    call("patch", "/v1/profiles/social", {"addDomains": ["example.org"]}, expect=409)
    call("patch", "/v1/profiles/nothing-here", {"addDomains": ["example.org"]}, expect=404)
    started = call("post", "/v1/sessions", {"profile": "conformance", "seconds": 600}, expect=201)
    call("post", "/v1/sessions", {"profile": "conformance", "seconds": 600}, expect=409)
    call("post", "/v1/sessions", {"profile": "ghost", "seconds": 600}, expect=404)
    call("post", "/v1/sessions", {"profile": "news"}, expect=400)
    call("post", "/v1/sessions", {"profile": "social", "seconds": 600, "strict": True}, expect=201)
    call("get", "/v1/check?name=www.example.com", expect=200)
    call("get", "/v1/check?name=bad..name", expect=400)
    call("get", "/v1/check", expect=400)
    call("get", "/v1/check?name=example.com&app=confgame", expect=400)
    # The test installs one app, confgame (category Game), under the daemon's root.
    call("get", "/v1/apps", expect=200)
    call("get", "/v1/apps?category=game", expect=200)
    call("get", "/v1/apps?category=gmae", expect=400)
    call("get", "/v1/check?app=confgame", expect=200)
    call("get", "/v1/check?app=no-such-app", expect=404)
    call("post", "/v1/profiles", {"name": "conf-apps", "domains": [], "services": [], "categories": [], "allow": [],
                                  "apps": ["confgame"], "appCategories": ["game"], "running": "freeze", "strict": False}, expect=201)
    call("post", "/v1/profiles", {"name": "conf-apps2", "domains": [], "services": [], "categories": [], "allow": [],
                                  "apps": ["no-such-app"], "strict": False}, expect=400)
    call("post", "/v1/profiles", {"name": "conf-apps3", "domains": [], "services": [], "categories": [], "allow": [],
                                  "running": "pause", "strict": False}, expect=400)
    call("patch", "/v1/profiles/conf-apps", {"removeApps": ["confgame"], "removeAppCategories": ["Game"],
                                             "addAppCategories": ["chat"], "running": "terminate"}, expect=200)
    call("patch", "/v1/profiles/conf-apps", {"addApps": ["Conformance Game"]}, expect=200)
    call("patch", "/v1/profiles/conf-apps", {"removeApps": ["steam"]}, expect=409)
    call("delete", "/v1/profiles/conf-apps", expect=200)
    call("post", f"/v1/sessions/{started['id'] if started else 'x'}/extend", {"seconds": 60}, expect=200)
    call("post", "/v1/sessions/conformance/extend", {"seconds": 0}, expect=400)
    call("post", "/v1/sessions/nothing/extend", {"seconds": 60}, expect=404)
    call("delete", "/v1/profiles/conformance", expect=409)
    call("delete", "/v1/sessions/social", expect=409)
    # Emergency access: the daemon runs without [friction], so a strict block allows no early end.
    call("post", "/v1/sessions/social/unlock", {}, expect=409)
    call("post", "/v1/sessions/conformance/unlock", {}, expect=409)
    call("post", "/v1/sessions/nothing/unlock", {}, expect=404)
    call("post", "/v1/sessions/social/unlock", {"challenge": "x"}, expect=400)
    call("delete", "/v1/sessions/conformance", expect=200)
    call("delete", "/v1/sessions/conformance", expect=404)
    call("delete", "/v1/profiles/conformance", expect=200)
    call("delete", "/v1/profiles/social", expect=409)
    call("delete", "/v1/profiles/conformance", expect=404)
    call("get", "/v1/history?limit=5", expect=200)
    call("get", "/v1/insights", expect=200)
    call("get", "/v1/insights?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z&tz=Europe/Berlin", expect=200)
    call("get", "/v1/insights?tz=Nowhere/Else", expect=400)
    call("get", "/v1/goals", expect=200)
    call("patch", "/v1/goals", {"dailySeconds": 10800, "weeklySeconds": 54000}, expect=200)
    call("patch", "/v1/goals", {"dailySeconds": -1}, expect=400)
    call("post", "/v1/reload", expect=200)
    call("get", "/v1/doctor", expect=200)

    # Screen time: usage by each grouping, and allowances added, listed and removed.
    call("get", "/v1/usage", expect=200)
    call("get", "/v1/usage?by=category&from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z&tz=Europe/Berlin&explain=true",
         expect=200)
    call("get", "/v1/usage?by=planet", expect=400)
    call("get", "/v1/allowances", expect=200)
    # The browser companion: its hello, the companions, its site meter, check by URL.
    call("post", "/v1/browser/hello", {"browser": "chromium", "extensionVersion": "0.1.0"}, expect=200)
    call("post", "/v1/browser/hello", {"browser": "bad name", "extensionVersion": "0.1.0"}, expect=400)
    call("get", "/v1/browser/companions", expect=200)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    call("post", "/v1/usage/samples", {"samples": [{"host": "www.example.org", "end": now, "seconds": 10}]}, expect=200)
    call("post", "/v1/usage/samples", {"samples": [{"host": "example.org", "end": now, "seconds": 1000}]}, expect=400)
    call("get", "/v1/check?url=https://www.example.org/shorts/x", expect=200)
    call("get", "/v1/check?url=ftp://example.org/x", expect=400)
    call("post", "/v1/browser/attempts", {"url": "https://www.example.org/x"}, expect=200)
    call("post", "/v1/browser/attempts", {"url": "ftp://example.org/x"}, expect=400)
    call("post", "/v1/allowances", {"name": "conf-allow", "profile": "news", "dailySeconds": 1800, "days": "mon-fri",
                                    "warnSeconds": 300, "opens": 3, "cooldownSeconds": 600}, expect=201)
    call("post", "/v1/allowances", {"name": "conf-ghost", "profile": "ghost", "dailySeconds": 1800}, expect=404)
    call("post", "/v1/allowances", {"name": "Bad Name", "profile": "news", "dailySeconds": 60}, expect=400)
    call("post", "/v1/allowances", {"name": "conf-none", "profile": "news"}, expect=400)
    call("get", "/v1/allowances", expect=200)
    call("delete", "/v1/allowances/conf-allow", expect=200)
    call("delete", "/v1/allowances/conf-allow", expect=404)

    # Imported blocklists: import (streamed text), show, the profiles that name them, removal and its refusal.
    call("get", "/v1/lists", expect=200)
    call("put", "/v1/lists/conf-ads?source=conformance", text="! list\n||ads.example^\n0.0.0.0 t.example\n/regex/\n", expect=200)
    call("put", "/v1/lists/conf-tmp", text="tmp.example\n", expect=200)
    call("put", "/v1/lists/Bad%20Name", text="x.example\n", expect=400)
    call("put", "/v1/lists/conf-empty", text="# nothing but comments\n", expect=400)
    call("get", "/v1/lists", expect=200)
    call("get", "/v1/lists/conf-ads", expect=200)
    call("get", "/v1/lists/ghost", expect=404)
    call("post", "/v1/profiles", {"name": "conf-listed", "domains": [], "services": [], "categories": [], "allow": [],
                                  "lists": ["conf-ads"], "strict": True}, expect=201)
    call("post", "/v1/profiles", {"name": "conf-ghost", "domains": [], "services": [], "categories": [], "allow": [],
                                  "lists": ["ghost-list"], "strict": False}, expect=400)
    call("post", "/v1/sessions", {"profile": "conf-listed", "seconds": 600}, expect=201)
    call("get", "/v1/check?name=m.ads.example", expect=200)
    call("delete", "/v1/lists/conf-ads", expect=409)
    call("delete", "/v1/lists/conf-tmp", expect=200)
    call("delete", "/v1/lists/conf-tmp", expect=404)

    # The Pomodoro timer: every action, its refusals, and the focus history.
    call("get", "/v1/pomodoro", expect=200)
    call("post", "/v1/pomodoro/pause", expect=404)
    call("post", "/v1/pomodoro", {"profile": "news", "focusSeconds": 0}, expect=400)
    call("post", "/v1/pomodoro", {"profile": "news", "longBreakSeconds": 108000}, expect=400)
    call("post", "/v1/pomodoro", {"profile": "ghost"}, expect=404)
    call("post", "/v1/pomodoro", {"profile": "news", "focusSeconds": 600, "shortBreakSeconds": 300, "cycles": 2}, expect=201)
    call("post", "/v1/pomodoro", {"profile": "news"}, expect=409)
    call("get", "/v1/pomodoro", expect=200)
    call("post", "/v1/pomodoro/next", expect=409)
    call("post", "/v1/pomodoro/pause", expect=200)
    call("post", "/v1/pomodoro/resume", expect=200)
    call("post", "/v1/pomodoro/skip", expect=200)
    call("post", "/v1/pomodoro/stop", expect=200)
    call("post", "/v1/pomodoro/resume", expect=404)
    call("post", "/v1/pomodoro", {"profile": "news", "focusSeconds": 600, "strict": True}, expect=201)
    call("post", "/v1/pomodoro/skip", expect=409)
    call("post", "/v1/pomodoro/stop", expect=409)
    call("get", "/v1/status", expect=200)
    call("get", "/v1/pomodoro/history?limit=5", expect=200)

    # Schedules: a weekly one, a strict one-off running now, a cron one.
    started_minute_ago = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time.time() - 60))
    call("get", "/v1/schedules", expect=200)
    call("post", "/v1/schedules", {"name": "conf-weekly", "profile": "news", "days": "mon-fri", "from": "09:00",
                                   "to": "12:30", "tz": "Europe/Berlin"}, expect=201)
    call("post", "/v1/schedules", {"name": "conf-now", "profile": "gaming", "on": started_minute_ago, "seconds": 3600,
                                   "tz": "UTC", "strict": True, "warnSeconds": 0, "now": True}, expect=201)
    call("post", "/v1/schedules", {"name": "conf-cron", "profile": "news", "cron": "0 8-17/2 * * 1-5", "seconds": 1800},
         expect=201)
    call("post", "/v1/schedules", {"name": "conf-cron", "profile": "news", "cron": "@daily", "seconds": 60}, expect=409)
    call("post", "/v1/schedules", {"name": "conf-bad", "profile": "news", "days": "mon", "from": "25:00", "to": "10:00"},
         expect=400)
    call("post", "/v1/schedules", {"name": "conf-bad", "profile": "ghost", "on": "daily", "seconds": 60}, expect=404)
    call("get", "/v1/schedules", expect=200)
    call("get", "/v1/schedules/conf-now", expect=200)
    call("get", "/v1/schedules/ghost", expect=404)
    call("patch", "/v1/schedules/conf-weekly", {"enabled": False}, expect=200)
    call("patch", "/v1/schedules/conf-weekly", {"enabled": "no"}, expect=400)
    call("patch", "/v1/schedules/conf-now", {"enabled": False}, expect=409)
    call("patch", "/v1/schedules/ghost", {"enabled": True}, expect=404)
    call("patch", "/v1/schedules/conf-now", {"profile": "news"}, expect=409)
    call("patch", "/v1/schedules/conf-cron", {"seconds": 2700, "warnSeconds": 600, "tz": "Europe/Berlin"}, expect=200)
    call("patch", "/v1/schedules/conf-cron", {"from": "25:00"}, expect=400)
    call("patch", "/v1/schedules/conf-cron", {"profile": "ghost"}, expect=404)
    call("get", "/v1/services", expect=200)
    call("get", "/v1/schedules/conf-weekly/next?count=3&after=2027-03-27T12:00:00Z", expect=200)
    call("get", "/v1/schedules/conf-cron/next", expect=200)
    call("get", "/v1/schedules/conf-cron/next?count=0", expect=400)
    call("get", "/v1/schedules/ghost/next", expect=404)
    call("delete", "/v1/schedules/conf-now", expect=409)
    call("delete", "/v1/schedules/conf-weekly", expect=200)
    call("delete", "/v1/schedules/conf-weekly", expect=404)
    call("get", "/v1/status", expect=200)

    # The event stream: the first line is a hello event that matches the Event schema.
    conn = UnixConnection(sock_path)
    conn.request("GET", "/v1/events")
    response = conn.getresponse()
    line = response.fp.readline()
    while line.strip() and all(c in b"0123456789abcdefABCDEF\r\n" for c in line):
        line = response.fp.readline()  # chunk-size line
    conn.close()
    exercised.add(("/v1/events", "get"))
    schema, problem = schema_for("/v1/events", "get", response.status, "application/x-ndjson")
    if problem:
        failures.append(f"GET /v1/events: {problem}")
    else:
        try:
            jsonschema.validate(json.loads(line), schema, cls=jsonschema.Draft202012Validator)
        except Exception as error:  # noqa: BLE001
            failures.append(f"GET /v1/events: {error}")

    missing = {(t, m) for _, t, m in templates} - exercised
    for template, method in sorted(missing):
        failures.append(f"{method.upper()} {template}: documented but not exercised by this check")

    if failures:
        print("\n".join(failures))
        sys.exit(1)
    print(f"ok: {len(exercised)} operations conform to {spec_path}")


if __name__ == "__main__":
    main()
