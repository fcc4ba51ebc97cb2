#!/usr/bin/python3
"""A NOTIFY_SOCKET for tests: receive sd_notify datagrams, append each message to a file."""
import os
import socket
import sys

path, out = sys.argv[1], sys.argv[2]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.bind(path)
with open(out, "ab", buffering=0) as f:
    f.write(b"")
    while True:
        data = sock.recv(65536)
        f.write(data.rstrip(b"\n") + b"\n--\n")
