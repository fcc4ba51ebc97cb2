#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The files of each folder call one way: read from the built objects, never from the text.

For lib/, daemon/ and dbus/, every source file's object is found in the build tree and `nm` says
what it defines and what it calls. A call from one file to a function another file of the same
folder defines is an arrow. No folder may hold a loop of arrows (two files calling each other is
the shortest). In daemon/ and dbus/ the internal header states the order of the files at its top;
each of those files may call only files listed before it. TAP on stdout.

Usage: layers.py   (reads $top_srcdir and $top_builddir)
"""

import os
import re
import subprocess
import sys

# The object names automake gives each folder's sources: per-target flags prefix the target; the
# I/O archive has none, so its objects bear the bare name.
OBJECT_PREFIXES = {
    "lib": ("libdevfreq_core_a-", "libdevfreq_io_a-", ""),
    "daemon": ("devfreqd-",),
    "dbus": ("daemon_devfreqd-",),
}
# The headers that state a folder's order, and which of its files the order covers.
ORDERS = {
    "daemon": ("daemon/manager-internal.h", re.compile(r"^manager(-[a-z]+)?\.c$")),
    "dbus": ("dbus/bus-internal.h", re.compile(r"^bus(-[a-z-]+)?\.c$")),
}

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402


def symbols(obj):
    """(defined functions and data, undefined symbols) of one object."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDRB":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
    return defined, undefined


def arrows(objects):
    """{(caller file, callee file): names} between the files of one folder."""
    defs, undefs, owner = {}, {}, {}
    for name, obj in objects.items():
        defs[name], undefs[name] = symbols(obj)
        for sym in defs[name]:
            owner[sym] = name
    edges = {}
    for name, syms in undefs.items():
        for sym in syms:
            callee = owner.get(sym)
            if callee and callee != name:
                edges.setdefault((name, callee), set()).add(sym)
    return edges


def loops(nodes, edges):
    """The strongly connected sets of more than one file (Tarjan), each sorted."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, stack, on, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return found


def stated_order(header, pattern):
    """The .c files named in the header's first comment, in the order they first appear."""
    text = open(header, encoding="utf-8").read()
    comment = text[text.index("/*", text.index("*/") + 2) if text.startswith("/* SPDX") else 0:]
    comment = comment[: comment.index("*/")]
    order = []
    for word in re.findall(r"[a-z][a-z-]*\.c\b", comment):
        if pattern.match(word) and word not in order:
            order.append(word)
    return order


def find_objects(top_srcdir, top_builddir, folder):
    sources = sorted(f for f in os.listdir(os.path.join(top_srcdir, folder)) if f.endswith(".c"))
    objects, missing = {}, []
    for src in sources:
        stem = src[:-2]
        hits = [os.path.join(top_builddir, folder, p + stem + ".o") for p in OBJECT_PREFIXES[folder]]
        hits = [h for h in hits if os.path.exists(h)]
        if hits:
            objects[src] = hits[0]
        else:
            missing.append(src)
    return objects, missing


def check_folder(t, top_srcdir, top_builddir, folder):
    objects, missing = find_objects(top_srcdir, top_builddir, folder)
    t.ok(not missing, f"{folder}/: every source file has its object", [f"no object for {m}" for m in missing])
    edges = arrows(objects)
    found = loops(objects.keys(), edges)
    diag = []
    for comp in found:
        diag.append("loop: " + ", ".join(comp))
        for (a, b), names in sorted(edges.items()):
            if a in comp and b in comp:
                diag.append(f"  {a} -> {b}: {' '.join(sorted(names))}")
    t.ok(not found, f"{folder}/: no loop of calls between its {len(objects)} files", diag)
    return objects, edges


def check_order(t, top_srcdir, folder, objects, edges):
    header, pattern = ORDERS[folder]
    order = stated_order(os.path.join(top_srcdir, header), pattern)
    covered = sorted(f for f in objects if pattern.match(f))
    unlisted = [f for f in covered if f not in order]
    t.ok(not unlisted and len(order) > 1, f"{header} lists all {len(covered)} of its files in order",
       [f"not listed: {f}" for f in unlisted] + [f"listed: {', '.join(order)}"])
    rank = {f: i for i, f in enumerate(order)}
    upward = [f"{a} -> {b}: {' '.join(sorted(n))}" for (a, b), n in sorted(edges.items())
              if a in rank and b in rank and rank[b] >= rank[a]]
    t.ok(not upward, f"{folder}/: each file calls only those {header} lists before it", upward)


def selftest(t):
    """The check can fail: a made-up folder a.c -> b.c -> c.c -> a.c is a loop, d.c stands apart."""
    edges = {("a.c", "b.c"): {"b"}, ("b.c", "c.c"): {"c"}, ("c.c", "a.c"): {"a"}, ("d.c", "a.c"): {"a"}}
    t.ok(loops(["a.c", "b.c", "c.c", "d.c"], edges) == [["a.c", "b.c", "c.c"]],
       "the loop finder finds a loop of three files and leaves the file that only calls into it")


def main(t):
    top_srcdir = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
    top_builddir = os.environ.get("top_builddir") or top_srcdir
    selftest(t)
    for folder in ("lib", "daemon", "dbus"):
        objects, edges = check_folder(t, top_srcdir, top_builddir, folder)
        if folder in ORDERS:
            check_order(t, top_srcdir, folder, objects, edges)
    names = {}
    for folder in ("lib", "daemon", "dbus", "tools"):
        for f in os.listdir(os.path.join(top_srcdir, folder)):
            if f.endswith(".c"):
                names.setdefault(f, []).append(folder)
    shared = [f"{f}: {', '.join(v)}" for f, v in sorted(names.items()) if len(v) > 1]
    t.ok(not shared, "no two of lib/, daemon/, dbus/ and tools/ hold a file of the same name", shared)


if __name__ == "__main__":
    tap.run(main)
