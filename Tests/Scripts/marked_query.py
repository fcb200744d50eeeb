#!/usr/bin/env python3
"""A root process borrowing the daemon's DNS exemption (issue 24, row 4), for the namespace tests.

  marked_query.py MARK SERVER NAME OUT

Opens a UDP socket with SO_MARK MARK (needs CAP_NET_ADMIN), asks SERVER:53 for NAME's A record,
writes the addresses of the answer (or "no answer") to OUT, then keeps the socket open until
killed, so that the daemon can find it.
"""
import socket
import struct
import sys
import time

SO_MARK = 36


def main():
    mark, server, name, out = int(sys.argv[1], 0), sys.argv[2], sys.argv[3], sys.argv[4]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_MARK, mark)
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\0"
    s.sendto(struct.pack(">6H", 0x5353, 0x0100, 1, 0, 0, 0) + question + struct.pack(">2H", 1, 1), (server, 53))
    s.settimeout(3)
    try:
        answer = s.recv(512)
        count = struct.unpack_from(">H", answer, 6)[0]
        position = 12 + len(question) + 4
        addresses = []
        for _ in range(count):
            position += 2 if answer[position] & 0xC0 == 0xC0 else len(question)
            kind, _, _, length = struct.unpack_from(">HHIH", answer, position)
            position += 10
            if kind == 1 and length == 4:
                addresses.append(socket.inet_ntoa(answer[position:position + 4]))
            position += length
        result = " ".join(addresses) or "empty"
    except OSError as error:
        result = f"no answer ({error})"
    with open(out + ".tmp", "w") as f:
        f.write(result + "\n")
    import os
    os.rename(out + ".tmp", out)
    time.sleep(600)


main()
