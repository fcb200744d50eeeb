#!/usr/bin/env python3
"""A stand-in for simplylockd's event stream, for tests of clients: serves GET /v1/status from
STATUS (a JSON file) and GET /v1/events as the lines of EVENTS (a recorded stream, one JSON
object per line), then keeps the stream open, on the Unix socket SOCKET.

    fake_event_stream.py SOCKET STATUS EVENTS
"""
import os
import socketserver
import sys
import time
from http.server import BaseHTTPRequestHandler

SOCKET, STATUS, EVENTS = sys.argv[1:4]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def address_string(self):
        return "unix"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/v1/status":
            body = open(STATUS, "rb").read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/v1/events":
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Connection", "close")
            self.end_headers()
            for line in open(EVENTS, "rb"):
                self.wfile.write(line if line.endswith(b"\n") else line + b"\n")
                self.wfile.flush()
            time.sleep(3600)
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


if os.path.exists(SOCKET):
    os.unlink(SOCKET)
with Server(SOCKET, Handler) as server:
    print("ready", flush=True)
    server.serve_forever()
