#!/usr/bin/python3
"""Send many calls of one method at once and count how they end.

Usage: bus-flood.py ADDRESS OBJECT METHOD COUNT SIZE [SECONDS]
Sends COUNT calls of org.devfreqd.Devfreq1.Device.METHOD (SetGovernor: a name of SIZE bytes;
AddRequest: a request type of SIZE bytes) or of org.freedesktop.DBus.ObjectManager.GetManagedObjects
(METHOD GetManagedObjects, SIZE ignored) without waiting between them, then waits up to
SECONDS (default 30) for their answers and prints one line "NAME=COUNT ..." with the error
names (or "ok") and how many calls ended so, plus "pending=N" for the unanswered ones, and
the length of the longest error message as "longest-message=N".
"""
import sys

from gi.repository import Gio, GLib

address, obj, method, count, size = sys.argv[1:6]
seconds = float(sys.argv[6]) if len(sys.argv) > 6 else 30.0
count, size = int(count), int(size)

conn = Gio.DBusConnection.new_for_address_sync(
    address,
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None,
    None,
)
name = "x" * size
interface = "org.devfreqd.Devfreq1.Device"
if method == "SetGovernor":
    args = GLib.Variant("(s)", (name,))
elif method == "GetManagedObjects":
    interface, args = "org.freedesktop.DBus.ObjectManager", None
else:
    args = GLib.Variant("(sta{sv})", (name, 0, {}))
results = {}
longest = [0]
left = [count]
loop = GLib.MainLoop()


def done(c, res, _data):
    try:
        c.call_finish(res)
        key = "ok"
    except GLib.Error as e:
        key = Gio.DBusError.get_remote_error(e) or "local"
        longest[0] = max(longest[0], len(e.message))
    results[key] = results.get(key, 0) + 1
    left[0] -= 1
    if left[0] == 0:
        loop.quit()


for _ in range(count):
    conn.call(
        "org.devfreqd.Devfreq1", obj, interface, method, args, None,
        Gio.DBusCallFlags.NONE, int(seconds * 1000) + 5000, None, done, None,
    )
GLib.timeout_add(int(seconds * 1000), loop.quit)
loop.run()
print(" ".join(f"{k}={v}" for k, v in sorted(results.items())), f"pending={left[0]}",
      f"longest-message={longest[0]}")
