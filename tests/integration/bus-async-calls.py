#!/usr/bin/python3
"""Many method calls at once on one connection, for the integration tests.

Usage: bus-async-calls.py ADDRESS COUNT OBJECT INTERFACE.METHOD SIGNATURE [ARG...]
Sends COUNT calls without waiting, prints "sent", then, once every reply is in, one line
"NAME=COUNT ..." ("ok" for success, else the error name); then keeps the connection (so
nothing it started is dropped) until stdin closes. ARGs are parsed as the SIGNATURE says
(basic types only).
"""
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

CONVERT = {"s": str, "o": dbus.ObjectPath, "t": dbus.UInt64, "u": dbus.UInt32, "i": dbus.Int32,
           "b": lambda v: dbus.Boolean(v in ("true", "1", "yes"))}


def main():
    address, count, obj, method, sig, *args = sys.argv[1:]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(address)
    iface, member = method.rsplit(".", 1)
    values = [CONVERT[t](a) for t, a in zip(sig, args)]
    loop = GLib.MainLoop()
    counts = {}
    left = [int(count)]

    def done(key):
        counts[key] = counts.get(key, 0) + 1
        left[0] -= 1
        if left[0] == 0:
            print(" ".join(f"{k}={v}" for k, v in sorted(counts.items())), flush=True)

    for _ in range(int(count)):
        bus.call_async("org.devfreqd.Devfreq1", obj, iface, member, sig, values,
                       lambda *_: done("ok"), lambda e: done(e.get_dbus_name()), timeout=600)
    print("sent", flush=True)
    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP,
                      lambda *_: sys.stdin.readline() == "" and loop.quit() is None and False or True)
    loop.run()


if __name__ == "__main__":
    main()
