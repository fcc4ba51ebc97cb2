#!/usr/bin/python3
"""A NOTIFY_SOCKET for tests: receive sd_notify datagrams, append each message to a file, and
also to FILE.PID for the sender's PID (so a test can wait for one process's READY=1 without
mistaking a late datagram of an earlier one for it)."""
import socket
import struct
import sys

path, out = sys.argv[1], sys.argv[2]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
sock.bind(path)
creds = struct.Struct("3i")  # struct ucred: pid, uid, gid
with open(out, "ab", buffering=0) as f:
    f.write(b"")
    while True:
        data, ancillary, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(creds.size))
        msg = data.rstrip(b"\n") + b"\n--\n"
        # The shared file first: a test that saw a message in FILE.PID finds it in FILE too.
        f.write(msg)
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and len(payload) >= creds.size:
                with open("%s.%d" % (out, creds.unpack(payload[: creds.size])[0]), "ab") as g:
                    g.write(msg)
