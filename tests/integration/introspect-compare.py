#!/usr/bin/python3
"""Compare one interface of a shipped introspection file with what the daemon introspects.

Usage: introspect-compare.py SHIPPED_XML LIVE_XML INTERFACE

Members (methods, signals, properties) are matched by kind and name; for each one both sides
have, its arguments (name, type, direction), type, access and annotations are compared. One
line per result on stdout, for the shell test to turn into TAP:
    PASS<TAB>description
    FAIL<TAB>description<TAB>what differs
A member on one side only is a FAIL. Also checks that every member of the shipped file is
preceded by a comment saying what it does. Exit status 0 even when members differ (the lines
say so); 2 when a file cannot be read or lacks the interface.
"""
import sys
import xml.etree.ElementTree as ET

EMITS = "org.freedesktop.DBus.Property.EmitsChangedSignal"


def parse(path):
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    with open(path, "rb") as f:
        return ET.parse(f, parser=parser).getroot()


def find_interface(root, name):
    for iface in root.iter("interface"):
        if iface.get("name") == name:
            return iface
    return None


def annotations(elem):
    return {a.get("name"): a.get("value") for a in elem.findall("annotation")}


def describe(elem):
    """Everything that matters about one member, as comparable values."""
    kind = elem.tag
    d = {"annotations": annotations(elem)}
    if kind == "property":
        d["type"] = elem.get("type")
        d["access"] = elem.get("access")
    else:
        args = []
        for a in elem.findall("arg"):
            # Method arguments are "in" unless said otherwise; signal arguments have no direction.
            direction = a.get("direction", "in") if kind == "method" else "out"
            args.append((a.get("name"), a.get("type"), direction))
        d["args"] = args
    return d


def members(iface):
    out = {}
    for elem in iface:
        if elem.tag in ("method", "signal", "property"):
            out[(elem.tag, elem.get("name"))] = elem
    return out


def fmt_args(args):
    return ", ".join(f"{t} {n or '?'} {d}" for n, t, d in args) or "none"


def differences(shipped, live):
    diffs = []
    if "args" in shipped and shipped["args"] != live["args"]:
        diffs.append(f"arguments: shipped ({fmt_args(shipped['args'])}), daemon ({fmt_args(live['args'])})")
    for key in ("type", "access"):
        if key in shipped and shipped[key] != live[key]:
            diffs.append(f"{key}: shipped {shipped[key]!r}, daemon {live[key]!r}")
    a, b = shipped["annotations"], live["annotations"]
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            # sd-bus leaves out EmitsChangedSignal when it is "true" (the default).
            if name == EMITS and {a.get(name), b.get(name)} <= {None, "true"}:
                continue
            diffs.append(f"annotation {name}: shipped {a.get(name)!r}, daemon {b.get(name)!r}")
    return diffs


def undocumented(iface):
    missing = []
    previous = None
    for elem in iface:
        if elem.tag in ("method", "signal", "property") and previous is not ET.Comment:
            missing.append(f"{elem.tag} {elem.get('name')}")
        previous = elem.tag
    return missing


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    shipped_path, live_path, name = sys.argv[1:]
    short = name.rsplit(".", 1)[-1]
    try:
        shipped_root, live_root = parse(shipped_path), parse(live_path)
    except (OSError, ET.ParseError) as e:
        print(f"introspect-compare: {e}", file=sys.stderr)
        return 2
    shipped, live = find_interface(shipped_root, name), find_interface(live_root, name)
    if shipped is None or live is None:
        where = shipped_path if shipped is None else "the daemon's introspection"
        print(f"introspect-compare: no interface {name} in {where}", file=sys.stderr)
        return 2

    s, l = members(shipped), members(live)
    for key in sorted(set(s) | set(l)):
        kind, member = key
        desc = f"{short} {kind} {member}"
        if key not in l:
            print(f"FAIL\t{desc}\tin {shipped_path} but not served by the daemon")
        elif key not in s:
            print(f"FAIL\t{desc}\tserved by the daemon but missing from {shipped_path}")
        else:
            diffs = differences(describe(s[key]), describe(l[key]))
            if diffs:
                for d in diffs:
                    print(f"FAIL\t{desc}\t{d}")
            else:
                print(f"PASS\t{desc} matches")
    missing = undocumented(shipped)
    if missing:
        print(f"FAIL\t{short}: every shipped member has a comment\tno comment before: {', '.join(missing)}")
    else:
        print(f"PASS\t{short}: every shipped member has a comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
