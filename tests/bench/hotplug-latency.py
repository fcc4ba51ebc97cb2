#!/usr/bin/python3
"""Hotplug latency: a devfreq node appears, its uevent is sent, and the time until devfreqd's
InterfacesAdded for it arrives on the bus is measured, COUNT times.

Usage: hotplug-latency.py BUS_ADDRESS ROOT TEMPLATE_DIR COUNT   (run in the daemon's network
namespace; TEMPLATE_DIR is a devfreq node's platform directory, copied to gpuhN for run N)
Prints "median_ms=M max_ms=X runs=N".
"""
import os
import shutil
import subprocess
import sys
import time

from gi.repository import Gio, GLib

address, root, template, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sender = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "uevent-send.py")
sys.path.insert(0, os.path.dirname(sender))
uevent = __import__("uevent-send")

conn = Gio.DBusConnection.new_for_address_sync(
    address,
    Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
    None, None)
seen = {}


def on_signal(_c, _sender, _path, _iface, _member, params, _data):
    seen[params.unpack()[0]] = time.monotonic()


conn.signal_subscribe("org.devfreqd.Devfreq1", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
                      "/org/devfreqd/Devfreq1", None, Gio.DBusSignalFlags.NONE, on_signal, None)
ctx = GLib.MainContext.default()
times = []
for n in range(count):
    name = f"gpuh{n}"
    node = os.path.join(root, "sys/devices/platform", name)
    shutil.copytree(template, node, symlinks=True)
    inner = os.listdir(os.path.join(node, "devfreq"))[0]
    os.rename(os.path.join(node, "devfreq", inner), os.path.join(node, "devfreq", name))
    os.symlink(f"../../devices/platform/{name}/devfreq/{name}", os.path.join(root, "sys/class/devfreq", name))
    want = f"/org/devfreqd/Devfreq1/device/{name}"
    t0 = time.monotonic()
    uevent.main(["add", "devfreq", f"/devices/platform/{name}/devfreq/{name}"])
    deadline = t0 + 10
    while want not in seen and time.monotonic() < deadline:
        if not ctx.iteration(False):
            time.sleep(0.0002)
    if want in seen:
        times.append((seen[want] - t0) * 1000)
times.sort()
print(f"median_ms={times[len(times) // 2]:.2f} max_ms={times[-1]:.2f} runs={len(times)}" if times else "runs=0")
