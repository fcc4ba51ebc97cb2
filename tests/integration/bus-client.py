#!/usr/bin/python3
"""A devfreqd client that stays connected for the integration tests.

Usage: bus-client.py ADDRESS
Reads one command a line on stdin, answers one line on stdout, and keeps its bus
connection (and so its requests) until stdin closes or it is killed:
    name                                  -> "ok UNIQUE_NAME"
    add DEVICE TYPE VALUE [OPTIONS_JSON]  -> "ok REQUEST_PATH" or "error ERROR_NAME MESSAGE"
        OPTIONS_JSON: {"reason": ["s", "text"], "timeout-ms": ["u", 200]}
    addn DEVICE TYPE VALUE COUNT          -> "ok" then "NAME=COUNT" pairs: successes under
        "ok", failures under their error name, in order of first appearance
    update PATH VALUE                     -> "ok" or "error ERROR_NAME MESSAGE"
    remove PATH                           -> "ok" or "error ERROR_NAME MESSAGE"
    getdevice NAME                        -> "ok PATH" or "error ERROR_NAME MESSAGE"
    quit                                  -> leaves the bus and exits
"""
import json
import sys

import dbus

BUS_NAME = "org.devfreqd.Devfreq1"
MANAGER = "/org/devfreqd/Devfreq1"
DEVICE_IFACE = "org.devfreqd.Devfreq1.Device"
REQUEST_IFACE = "org.devfreqd.Devfreq1.Request"
TYPES = {
    "s": dbus.String,
    "u": dbus.UInt32,
    "t": dbus.UInt64,
    "i": dbus.Int32,
    "b": dbus.Boolean,
}


def options(text):
    opts = dbus.Dictionary({}, signature="sv")
    for key, (sig, value) in json.loads(text).items():
        opts[key] = TYPES[sig](value, variant_level=1)
    return opts


def device(bus, name):
    path = bus.call_blocking(BUS_NAME, MANAGER, BUS_NAME + ".Manager", "GetDevice", "s", [name])
    return str(path)


def run(bus, words):
    cmd = words[0]
    if cmd == "name":
        return bus.get_unique_name()
    if cmd == "getdevice":
        return device(bus, words[1])
    if cmd in ("add", "addn"):
        path = device(bus, words[1])
        opts = options(words[4]) if cmd == "add" and len(words) > 4 else dbus.Dictionary({}, signature="sv")
        args = [words[2], dbus.UInt64(int(words[3])), opts]
        if cmd == "add":
            return str(bus.call_blocking(BUS_NAME, path, DEVICE_IFACE, "AddRequest", "sta{sv}", args))
        counts = {}
        for _ in range(int(words[4])):
            try:
                bus.call_blocking(BUS_NAME, path, DEVICE_IFACE, "AddRequest", "sta{sv}", args)
                key = "ok"
            except dbus.DBusException as e:
                key = e.get_dbus_name()
            counts[key] = counts.get(key, 0) + 1
        return " ".join(f"{k}={v}" for k, v in counts.items())
    if cmd == "update":
        bus.call_blocking(BUS_NAME, words[1], REQUEST_IFACE, "Update", "t", [dbus.UInt64(int(words[2]))])
        return ""
    if cmd == "remove":
        bus.call_blocking(BUS_NAME, words[1], REQUEST_IFACE, "Remove", "", [])
        return ""
    raise ValueError(f"unknown command {cmd}")


def main():
    bus = dbus.bus.BusConnection(sys.argv[1])
    for line in sys.stdin:
        words = line.split(maxsplit=4)
        if not words:
            continue
        if words[0] == "quit":
            break
        try:
            out = "ok " + run(bus, words)
        except dbus.DBusException as e:
            out = f"error {e.get_dbus_name()} {e.get_dbus_message()}"
        print(out.rstrip().replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
