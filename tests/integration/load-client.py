#!/usr/bin/python3
"""Many devfreqd clients at once, each keeping its own model of its live requests (load.sh).

Usage:
  load-client.py run ADDRESS SEED CLIENTS OPS MODEL_FILE DEVICE[:latency]...
      Opens CLIENTS bus connections (one client each) and runs OPS random operations per client,
      the clients taking turns: AddRequest (min-frequency, max-frequency, latency; random values
      and options), Update and Remove of one of the client's live requests, and a few invalid
      calls whose error is checked (the model stays as it was). ":latency" marks devices whose
      points have latency data. Then writes every client's model to MODEL_FILE as JSON
      ({"owner": unique name, "path": ..., "device": ..., "type": ..., "value": ...} items),
      prints "ready ADDS UPDATES REMOVES INVALID" and keeps the connections (and their requests)
      until stdin closes. Anything unexpected prints "error ..." and exits 1.
  load-client.py check ADDRESS MODEL_FILE... -- DEVICE...
      Compares the daemon with the union of the models: for each device one line
      "DEVICE QosMinFrequency=GOT/WANT QosMaxFrequency=GOT/WANT QosLatency=GOT/WANT Requests=GOT/WANT";
      then "objects GOT WANT" (request objects from GetManagedObjects, and how many of them are
      exactly the models' paths), or "objects-mismatch ..." when the sets differ.
"""
import json
import os
import random
import sys

import dbus

BUS_NAME = "org.devfreqd.Devfreq1"
MANAGER = "/org/devfreqd/Devfreq1"
MANAGER_IFACE = BUS_NAME + ".Manager"
DEVICE_IFACE = BUS_NAME + ".Device"
REQUEST_IFACE = BUS_NAME + ".Request"
REQUEST_PREFIX = MANAGER + "/request/"
INVALID_ARGS = "org.freedesktop.DBus.Error.InvalidArgs"
NO_SUCH_REQUEST = BUS_NAME + ".Error.NoSuchRequest"

U64_MAX = 2**64 - 1
U32_MAX = 2**32 - 1
POINTS = [200000000, 300000000, 400000000, 600000000, 800000000]
MAX_LIVE = 16  # per client, well under max-requests-per-client

DEFAULTS = {"min-frequency": 0, "max-frequency": U64_MAX, "latency": U32_MAX}


def aggregate(kind, values):
    if not values:
        return DEFAULTS[kind]
    return max(values) if kind == "min-frequency" else min(values)


class Client:
    def __init__(self, address, rng, devices, paths):
        self.bus = dbus.bus.BusConnection(address)
        self.name = self.bus.get_unique_name()
        self.rng = rng
        self.devices = devices  # [(name, has_latency)]
        self.paths = paths  # device name -> object path
        self.live = {}  # request path -> [device, type, value]
        self.gone = []  # paths this client removed
        self.counts = {"add": 0, "update": 0, "remove": 0, "invalid": 0}

    def call(self, path, iface, method, sig, args):
        return self.bus.call_blocking(BUS_NAME, path, iface, method, sig, args, timeout=120)

    def value_for(self, kind):
        # Mostly values spread wide, so that each aggregate is one request's value; now and then
        # a table point or an edge value (no floor, "the highest", no ceiling, "lowest latency").
        r = self.rng
        x = r.random()
        if kind == "min-frequency":
            return 0 if x < 0.005 else 10**12 if x < 0.01 else r.choice(POINTS) if x < 0.1 else r.randrange(1, 10**9)
        if kind == "max-frequency":
            return U64_MAX if x < 0.05 else r.choice(POINTS) if x < 0.15 else r.randrange(1, 2 * 10**9)
        return 0 if x < 0.005 else U32_MAX if x < 0.05 else r.randrange(1, 3000) if x < 0.5 else r.randrange(1, 10**7)

    def options(self):
        r = self.rng
        opts = dbus.Dictionary({}, signature="sv")
        if r.random() < 0.5:
            opts["reason"] = dbus.String("load %d " % r.randrange(10**6) + "x" * r.randrange(0, 200), variant_level=1)
        if r.random() < 0.3:
            opts["application-id"] = dbus.String("org.example.Load%d" % r.randrange(100), variant_level=1)
        if r.random() < 0.3:
            # A lease far longer than the test: it must not expire while the models are checked.
            ms = r.randrange(3600000, 86400000)
            opts["timeout-ms"] = dbus.UInt32(ms, variant_level=1) if r.random() < 0.5 else dbus.UInt64(ms, variant_level=1)
        return opts

    def add(self):
        name, has_latency = self.rng.choice(self.devices)
        kinds = ["min-frequency", "max-frequency"] + (["latency"] if has_latency else [])
        kind = self.rng.choice(kinds)
        value = self.value_for(kind)
        path = str(self.call(self.paths[name], DEVICE_IFACE, "AddRequest", "sta{sv}",
                             [kind, dbus.UInt64(value), self.options()]))
        if path in self.live or not path.startswith(REQUEST_PREFIX):
            raise RuntimeError("AddRequest returned %s twice or outside %s" % (path, REQUEST_PREFIX))
        self.live[path] = [name, kind, value]
        self.counts["add"] += 1

    def update(self):
        path = self.rng.choice(list(self.live))
        kind = self.live[path][1]
        value = self.value_for(kind)
        self.call(path, REQUEST_IFACE, "Update", "t", [dbus.UInt64(value)])
        self.live[path][2] = value
        self.counts["update"] += 1

    def remove(self):
        path = self.rng.choice(list(self.live))
        self.call(path, REQUEST_IFACE, "Remove", "", [])
        del self.live[path]
        self.gone.append(path)
        self.counts["remove"] += 1

    def expect_error(self, want, path, iface, method, sig, args):
        try:
            self.call(path, iface, method, sig, args)
        except dbus.DBusException as e:
            if e.get_dbus_name() != want:
                raise
            self.counts["invalid"] += 1
            return
        raise RuntimeError("%s on %s succeeded, expected %s" % (method, path, want))

    def invalid(self):
        r = self.rng
        name, has_latency = r.choice(self.devices)
        choice = r.randrange(5)
        if choice == 0:
            args = ["max-frequency", dbus.UInt64(0), dbus.Dictionary({}, signature="sv")]
        elif choice == 1:
            args = ["latency", dbus.UInt64(U32_MAX + 1 + r.randrange(10**9)), dbus.Dictionary({}, signature="sv")]
        elif choice == 2:
            args = ["min-frequency", dbus.UInt64(1), dbus.Dictionary({"colour": dbus.String("red", variant_level=1)},
                                                                     signature="sv")]
        elif choice == 3 and self.live:
            path = r.choice(list(self.live))
            kind = self.live[path][1]
            bad = 0 if kind == "max-frequency" else U32_MAX + 1 if kind == "latency" else None
            if bad is not None:
                return self.expect_error(INVALID_ARGS, path, REQUEST_IFACE, "Update", "t", [dbus.UInt64(bad)])
            args = ["max-frequency", dbus.UInt64(0), dbus.Dictionary({}, signature="sv")]
        elif choice == 4 and self.gone:
            return self.expect_error(NO_SUCH_REQUEST, r.choice(self.gone), REQUEST_IFACE, "Remove", "", [])
        else:
            args = ["max-frequency", dbus.UInt64(0), dbus.Dictionary({}, signature="sv")]
        if not has_latency and r.random() < 0.5:
            args = ["latency", dbus.UInt64(100), dbus.Dictionary({}, signature="sv")]
        self.expect_error(INVALID_ARGS, self.paths[name], DEVICE_IFACE, "AddRequest", "sta{sv}", args)

    def step(self):
        r = self.rng.random()
        n = len(self.live)
        if r < 0.03:
            self.invalid()
        elif n == 0 or (n < MAX_LIVE and r < 0.45):
            self.add()
        elif r < 0.75:
            self.update()
        else:
            self.remove()


def parse_devices(words):
    return [(w.split(":")[0], w.endswith(":latency")) for w in words]


def run(address, seed, nclients, nops, model_file, device_words):
    devices = parse_devices(device_words)
    first = dbus.bus.BusConnection(address)
    paths = {name: str(first.call_blocking(BUS_NAME, MANAGER, MANAGER_IFACE, "GetDevice", "s", [name]))
             for name, _ in devices}
    first.close()
    clients = [Client(address, random.Random("%s/%d" % (seed, i)), devices, paths) for i in range(nclients)]
    for _ in range(nops):
        for c in clients:
            c.step()
    model = [{"owner": c.name, "path": p, "device": d, "type": k, "value": v}
             for c in clients for p, (d, k, v) in c.live.items()]
    with open(model_file + ".tmp", "w") as f:
        json.dump(model, f)
    os.rename(model_file + ".tmp", model_file)
    totals = {k: sum(c.counts[k] for c in clients) for k in ("add", "update", "remove", "invalid")}
    print("ready %(add)d %(update)d %(remove)d %(invalid)d" % totals, flush=True)
    sys.stdin.read()  # hold the requests until the test lets go
    for c in clients:
        c.bus.close()


def check(address, model_files, device_names):
    model = []
    for name in model_files:
        with open(name) as f:
            model += json.load(f)
    bus = dbus.bus.BusConnection(address)
    for name in device_names:
        path = str(bus.call_blocking(BUS_NAME, MANAGER, MANAGER_IFACE, "GetDevice", "s", [name]))
        props = bus.call_blocking(BUS_NAME, path, "org.freedesktop.DBus.Properties", "GetAll", "s", [DEVICE_IFACE])
        mine = [m for m in model if m["device"] == name]
        want = {
            "QosMinFrequency": aggregate("min-frequency", [m["value"] for m in mine if m["type"] == "min-frequency"]),
            "QosMaxFrequency": aggregate("max-frequency", [m["value"] for m in mine if m["type"] == "max-frequency"]),
            "QosLatency": aggregate("latency", [m["value"] for m in mine if m["type"] == "latency"]),
        }
        parts = ["%s=%d/%d" % (k, int(props[k]), v) for k, v in want.items()]
        parts.append("Requests=%d/%d" % (len(props["Requests"]), len(mine)))
        listed = sorted(str(p) for p in props["Requests"])
        if listed != sorted(m["path"] for m in mine):
            parts.append("Requests-paths-differ")
        print(name, " ".join(parts))
    objects = bus.call_blocking(BUS_NAME, MANAGER, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", "", [])
    live = {str(p): ifaces for p, ifaces in objects.items() if str(p).startswith(REQUEST_PREFIX)}
    wanted = {m["path"]: m for m in model}
    bad = []
    for p, m in wanted.items():
        props = live.get(p, {}).get(REQUEST_IFACE)
        if props is None:
            bad.append("missing " + p)
        elif (str(props["Owner"]), str(props["Type"]), int(props["Value"])) != (m["owner"], m["type"], m["value"]):
            bad.append("differs %s: %s %s %d" % (p, props["Owner"], props["Type"], int(props["Value"])))
    bad += ["extra " + p for p in live if p not in wanted]
    if bad:
        print("objects-mismatch", len(live), len(wanted), *bad[:10])
    else:
        print("objects", len(live), len(wanted))


def main():
    if sys.argv[1] == "run":
        address, seed, nclients, nops, model_file = sys.argv[2:7]
        try:
            run(address, seed, int(nclients), int(nops), model_file, sys.argv[7:])
        except (dbus.DBusException, RuntimeError) as e:
            print("error", str(e).replace("\n", " "), flush=True)
            sys.exit(1)
    elif sys.argv[1] == "check":
        rest = sys.argv[3:]
        sep = rest.index("--")
        check(sys.argv[2], rest[:sep], rest[sep + 1:])
    else:
        sys.exit("usage: load-client.py run|check ...")


if __name__ == "__main__":
    main()
