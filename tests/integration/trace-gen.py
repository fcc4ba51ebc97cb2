#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/trace-gen: the same seed gives the same bytes; every family stays within the ranges
tests/traces/README.md documents; the seed sets of tests/traces/sets do not overlap.

The ranges are read from the README's tables, not from the generator, and each trace's header
parameters and lines are checked against them: the header must name exactly the documented
parameters, each within its range, every listed choice must turn up over the seeds, and the
lines must be as many as the length and rate say, within the window's capacity at the top
point, with the deadline the parameters give. TAP on stdout.

Usage: trace-gen.py [TOP_SRCDIR] (default $top_srcdir)
"""

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

TOP = sys.argv[1] if len(sys.argv) > 1 else os.environ["top_srcdir"]
TOOL = os.path.join(TOP, "tools", "trace-gen")
TRACES = os.path.join(TOP, "tests", "traces")
# Seeds checked beside the two sets: a spread of small and large ones.
EXTRA_SEEDS = list(range(0, 8)) + [99991, 2**31 - 1, 2**40 + 7]

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402


def load_generator():
    loader = importlib.machinery.SourceFileLoader("trace_gen", TOOL)
    spec = importlib.util.spec_from_loader("trace_gen", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def documented_ranges():
    """{family: {param: ("choice", [values]) or ("range", lo, hi)}} from the README's tables."""
    with open(os.path.join(TRACES, "README.md")) as f:
        text = f.read()
    section = text[text.index("### Families and their parameters"):text.index("### The points")]
    families = {}
    for block in re.split(r"^#### ", section, flags=re.M)[1:]:
        name = block.split(None, 1)[0]
        params = {}
        for line in block.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 3 or cells[0] in ("parameter", "---"):
                continue
            m = re.fullmatch(r"(-?[0-9.]+)–(-?[0-9.]+)", cells[1])
            if m:
                params[cells[0]] = ("range", float(m.group(1)), float(m.group(2)))
            else:
                params[cells[0]] = ("choice", [v.strip() for v in cells[1].split(",")])
        families[name] = params
    return families


def header(text):
    h, params = {}, {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"# param (\S+): (\S+)$", line)
        if m:
            params[m.group(1)] = m.group(2)
            continue
        m = re.match(r"# (interval|opp|family|seed): (\S+)$", line)
        if m:
            h[m.group(1)] = m.group(2)
    return h, params


def check_value(ranges, name, value):
    """None, or what is wrong with the value of one parameter."""
    if name not in ranges:
        return "%s is not documented" % name
    r = ranges[name]
    if r[0] == "choice":
        return None if value in r[1] else "%s=%s is not one of %s" % (name, value, ", ".join(r[1]))
    if not re.fullmatch(r"-?\d+(\.\d{1,4})?", value):
        return "%s=%s is not a number of at most four decimals" % (name, value)
    if not r[1] <= float(value) <= r[2]:
        return "%s=%s is outside %s-%s" % (name, value, r[1], r[2])
    return None


def top_capacity(gen, table, interval_us):
    return gen.top_hz(gen.read_opp(table)) * interval_us // 1000000


def check_lines(gen, family, h, p, text):
    """What is wrong with the work lines of a trace, given its header."""
    interval = int(h["interval"][:-2])
    fps = int(p["fps"]) if "fps" in p else 60 if family == "desktop" else None
    if family == "membus":
        fps = int(p["source_fps"])
    seconds = int(p["source_seconds"] if family == "membus" else p["seconds"])
    if fps is not None:
        want_lines, want_interval = seconds * fps, (1000000 + fps // 2) // fps
    else:
        want_lines, want_interval = seconds * 1000 // int(p["interval_ms"]), int(p["interval_ms"]) * 1000
    problems = []
    if interval != want_interval:
        problems.append("interval %dus, expected %dus" % (interval, want_interval))
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    if lines[0] != "cycles,deadline":
        problems.append("no cycles,deadline header line")
    work = lines[1:]
    if len(work) != want_lines:
        problems.append("%d lines, expected %d" % (len(work), want_lines))
    windows = {"video": "buffer", "camera": "depth", "compile": "slack", "inference": "slack"}.get(family)
    due = int(p[windows]) if windows else 1
    cap = top_capacity(gen, h["opp"], interval)
    most = cap if family == "compile" else int(0.95 * cap)
    for k, line in enumerate(work):
        m = re.fullmatch(r"(\d+)(?:,(\d+)us)?", line)
        if not m:
            problems.append("line %d: '%s' is not cycles[,deadline]" % (k, line))
            break
        if int(m.group(1)) > most:
            problems.append("line %d: %s cycles, more than %d" % (k, m.group(1), most))
            break
        deadline = int(m.group(2)) if m.group(2) else interval
        if deadline != interval * due and not (m.group(1) == "0" and deadline == interval):
            problems.append("line %d: deadline %dus, expected %dus" % (k, deadline, interval * due))
            break
    return problems


def check_sets(path):
    """What is wrong with a sets file: overlaps, a missing set, a held-out set below 40 traces."""
    ranges, problems = {}, []
    with open(path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if words:
                if len(words) != 3 or not (words[1].isdigit() and words[2].isdigit()):
                    problems.append("bad line: %s" % line.strip())
                    continue
                ranges[words[0]] = (int(words[1]), int(words[2]))
    for name in ("tuning", "held-out"):
        if name not in ranges:
            problems.append("no %s set" % name)
    names = sorted(ranges)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if ranges[a][0] <= ranges[b][1] and ranges[b][0] <= ranges[a][1]:
                problems.append("%s %d-%d overlaps %s %d-%d" % (a, *ranges[a], b, *ranges[b]))
    if "held-out" in ranges and (ranges["held-out"][1] - ranges["held-out"][0] + 1) * 8 < 40:
        problems.append("the held-out set has fewer than 40 traces")
    return ranges, problems


def main(t):
    gen = load_generator()
    doc = documented_ranges()
    ranges, problems = check_sets(os.path.join(TRACES, "sets"))

    # --- the sets
    t.ok(not problems, "tests/traces/sets: tuning and held-out, disjoint, held-out of 40 traces or more",
           problems)
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "sets")
        with open(bad, "w") as f:
            f.write("tuning 1000 1011\nheld-out 1011 1020\n")
        t.ok(any("overlaps" in p for p in check_sets(bad)[1]), "... and the check sees an overlap of one seed")
    t.ok(sorted(doc) == sorted(gen.FAMILIES) and len(doc) >= 8,
           "the README documents the generator's %d families" % len(gen.FAMILIES),
           ["README %s, generator %s" % (sorted(doc), sorted(gen.FAMILIES))])

    # --- same seed, same bytes: two processes (different hash seeds), and --set against --seed
    with tempfile.TemporaryDirectory() as tmp:
        different = []
        for family in gen.FAMILIES:
            for seed in (ranges["held-out"][0],):
                runs = [subprocess.run([TOOL, "--family", family, "--seed", str(seed)], capture_output=True,
                                       env=dict(os.environ, PYTHONHASHSEED=str(h))).stdout for h in (1, 2)]
                if runs[0] != runs[1] or not runs[0]:
                    different.append("%s %d" % (family, seed))
        t.ok(not different, "same family and seed, same bytes, in two processes", different)
        subprocess.run([TOOL, "--set", "tuning", "--dir", tmp], check=True)
        files = sorted(os.listdir(tmp))
        first, last = ranges["tuning"]
        want = sorted("%s-%d.csv" % (f, s) for f in gen.FAMILIES for s in range(first, last + 1))
        mismatch = [f for f in files if open(os.path.join(tmp, f)).read() !=
                    gen.trace(f.rsplit("-", 1)[0], int(f.rsplit("-", 1)[1][:-4]))]
        t.ok(files == want and not mismatch, "--set tuning writes each family once a seed, as --seed does",
               mismatch or ["files %s" % files[:5]])
    other = gen.trace("game", 1001)
    t.ok(gen.trace("game", 1000) != other and gen.trace("video", 1000) != gen.trace("video", 5000),
           "other seeds, other traces")

    # --- every family within its documented ranges, over both sets and more seeds
    seeds = sorted(set(range(ranges["tuning"][0], ranges["tuning"][1] + 1)) |
                   set(range(ranges["held-out"][0], ranges["held-out"][1] + 1)) | set(EXTRA_SEEDS))
    for family in gen.FAMILIES:
        bad_params, bad_lines, seen = [], [], {}
        for seed in seeds:
            text = gen.trace(family, seed)
            h, p = header(text)
            if h.get("family") != family or h.get("seed") != str(seed):
                bad_params.append("seed %d: header names %s/%s" % (seed, h.get("family"), h.get("seed")))
            own = {k: v for k, v in p.items() if not k.startswith("source_")}
            own["opp"] = h["opp"]
            if set(own) != set(doc[family]):
                bad_params.append("seed %d: parameters %s, documented %s" % (seed, sorted(own), sorted(doc[family])))
            for k, v in own.items():
                err = check_value(doc[family], k, v)
                if err:
                    bad_params.append("seed %d: %s" % (seed, err))
                seen.setdefault(k, set()).add(v)
            if family == "membus":
                src = {k[7:]: v for k, v in p.items() if k.startswith("source_")}
                if set(src) != set(doc[p["source"]]) - {"opp"}:
                    bad_params.append("seed %d: source parameters %s" % (seed, sorted(src)))
                for k, v in src.items():
                    err = check_value(doc[p["source"]], k, v)
                    if err:
                        bad_params.append("seed %d: source %s" % (seed, err))
            bad_lines += ["seed %d: %s" % (seed, x) for x in check_lines(gen, family, h, p, text)]
        unseen = ["%s=%s never drawn" % (k, v) for k, r in doc[family].items() if r[0] == "choice"
                  for v in r[1] if v not in seen.get(k, ())]
        t.ok(not bad_params and not unseen,
               "%s: %d seeds, every parameter documented and within its range, every choice drawn" %
               (family, len(seeds)), bad_params + unseen)
        t.ok(not bad_lines, "%s: lines as many as the length says, within the top point's capacity, "
               "due when the parameters say" % family, bad_lines)

    # --- errors: one line, non-zero
    for args, what in ((["--family", "nosuch", "--seed", "1"], "an unknown family"),
                       (["--family", "game"], "no seed"),
                       (["--family", "game", "--seed", "-1"], "a negative seed"),
                       (["--set", "nosuch", "--dir", "/nonexistent"], "an unknown set"),
                       (["--family", "game", "--seed", "1", "--out", "/nonexistent/x"], "an unwritable output")):
        r = subprocess.run([TOOL] + args, capture_output=True, text=True)
        t.ok(r.returncode != 0 and r.stdout == "" and len(r.stderr.splitlines()) == 1 and
               r.stderr.startswith("trace-gen: "),
               "%s is refused with a message" % what, [r.stderr.strip()])


if __name__ == "__main__":
    tap.run(main)
