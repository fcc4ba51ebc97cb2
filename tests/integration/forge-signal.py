#!/usr/bin/python3
"""Send a D-Bus signal as whoever runs this: a forger, or a stand-in for a real service.

Usage: forge-signal.py ADDRESS [OPTIONS] PATH INTERFACE MEMBER SIGNATURE ARGS
    ARGS           the arguments in GVariant text format, as a tuple of SIGNATURE
                   ("('net.hadess.PowerProfiles', {'ActiveProfile': <'power-saver'>}, @as [])")
    --to NAME      a unicast to NAME (default: a broadcast)
    --own NAME     own the well-known NAME first, and keep it while sending (a stand-in)
    --count N      send N signals (default 1)
    --seconds S    send for S seconds, as fast as the bus takes them (a flood), instead
    --every MS     wait MS milliseconds after each signal
    --alternate ARGS2  every second signal carries ARGS2 instead (a flip-flop)
    --ready FILE   create FILE once connected (and once NAME is owned), before sending
    --hold S       stay connected S seconds after the last signal
Prints "sent=N" once everything is flushed to the bus.
"""
import argparse
import time

from gi.repository import Gio, GLib

p = argparse.ArgumentParser()
p.add_argument("address")
p.add_argument("path")
p.add_argument("interface")
p.add_argument("member")
p.add_argument("signature")
p.add_argument("args")
p.add_argument("--to")
p.add_argument("--own")
p.add_argument("--count", type=int, default=1)
p.add_argument("--seconds", type=float)
p.add_argument("--every", type=float, default=0)
p.add_argument("--alternate")
p.add_argument("--ready")
p.add_argument("--hold", type=float, default=0)
a = p.parse_args()

conn = Gio.DBusConnection.new_for_address_sync(
    a.address,
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None,
    None,
)
if a.own:
    reply = conn.call_sync(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
        GLib.Variant("(su)", (a.own, 4)), None, Gio.DBusCallFlags.NONE, -1, None,
    )
    if reply.unpack()[0] != 1:
        raise SystemExit(f"could not own {a.own}")
if a.ready:
    open(a.ready, "w").close()

kind = GLib.VariantType.new(f"({a.signature})")
payloads = [GLib.Variant.parse(kind, a.args, None, None)]
if a.alternate:
    payloads.append(GLib.Variant.parse(kind, a.alternate, None, None))

sent = 0
end = time.monotonic() + a.seconds if a.seconds is not None else None
while (sent < a.count) if end is None else (time.monotonic() < end):
    conn.emit_signal(a.to, a.path, a.interface, a.member, payloads[sent % len(payloads)])
    sent += 1
    if a.every:
        conn.flush_sync(None)
        time.sleep(a.every / 1000)
    elif sent % 256 == 0:
        conn.flush_sync(None)  # keep the outgoing queue short: the bus sets the pace
conn.flush_sync(None)
if a.hold:
    time.sleep(a.hold)
print(f"sent={sent}", flush=True)
