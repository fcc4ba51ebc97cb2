#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""energy_aware in devfreq-replay's closed loop on generated traces: properties, window by window.

For every family of tools/trace-gen, two seeds, with the table's voltages and without them, and
a range narrowed by --min/--max requests (a different one each run), with saturated_samples 1, 2
and 3 in turn: the governor's answer is a point within the range or "the highest"; the point
applied is within the range; and after saturated_samples saturated windows in a row (busy equal
to total) the point applied is the top of the range. Two runs in three must see the saturation rule
fire (an idle desktop never does), so the last property is exercised. TAP on stdout.

Usage: energy-aware-traces.py [DEVFREQ-REPLAY] (default $top_builddir/tools/devfreq-replay)
"""

import os
import re
import subprocess
import sys

TOP = os.environ.get("top_srcdir", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRACE_GEN = os.path.join(TOP, "tools", "trace-gen")
TRACES = os.path.join(TOP, "tests", "traces")
FAMILIES = ["video", "game", "compile", "membus", "inference", "scrolling", "camera", "desktop"]
SEEDS = [1000, 1001]  # of the tuning set
TOP_ANSWER = 2**64 - 1
UNITS = {"GHz": 10**9, "MHz": 10**6, "kHz": 10**3, "Hz": 1}

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402


def hz(text):
    for unit, mul in UNITS.items():
        if text.endswith(unit):
            whole, _, frac = text[: -len(unit)].partition(".")
            return int(whole) * mul + (int(frac) * mul // 10 ** len(frac) if frac else 0)
    return int(text)


def main(t):
    replay = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ["top_builddir"], "tools",
                                                                 "devfreq-replay")
    run = fired = 0
    for family in FAMILIES:
        for seed in SEEDS:
            text = subprocess.run([TRACE_GEN, "--family", family, "--seed", str(seed)], capture_output=True,
                                  text=True, check=True).stdout
            interval = re.search(r"^# interval: (\S+)", text, re.M).group(1)
            table = re.search(r"^# opp: (\S+)", text, re.M).group(1)
            with open(os.path.join(TRACES, table + ".opp")) as f:
                opp = [l.strip() for l in f if l.strip() and not l.startswith("#")][0]
            points = [hz(p.split("@")[0]) for p in opp.split(",")]
            for voltages in (True, False):
                run += 1
                # A range of its own: from one of the two lowest points to one of the two highest.
                lo, hi = points[run % 2], points[-1 - (run // 2) % 2]
                sat = 1 + run % 3
                args = [replay, "--work", "--governor", "energy_aware", "--interval", interval,
                        "--opp", opp if voltages else re.sub(r"@[0-9.]+[mu]?V", "", opp),
                        "--min", str(lo), "--max", str(hi), "--tunable", "saturated_samples=%d" % sat, "-"]
                p = subprocess.run(args, input=text, capture_output=True, text=True)
                problems = []
                if p.returncode != 0:
                    problems.append("exit %d: %s" % (p.returncode, p.stderr.strip()))
                in_range = [f for f in points if lo <= f <= hi]
                saturated = seen_saturated = 0
                for k, line in enumerate(p.stdout.splitlines()[1:]):
                    if not line:
                        break
                    _, _, _, _, busy, total, _, answer, target = map(int, line.split(","))
                    saturated = saturated + 1 if busy == total else 0
                    if answer != TOP_ANSWER and answer not in in_range:
                        problems.append("window %d: the governor answered %d, outside %d-%d" % (k, answer, lo, hi))
                    if target not in in_range:
                        problems.append("window %d: %d applied, outside %d-%d" % (k, target, lo, hi))
                    if saturated >= sat:
                        seen_saturated += 1
                        if target != in_range[-1]:
                            problems.append("window %d: %d after %d saturated windows, not the top %d" %
                                            (k, target, saturated, in_range[-1]))
                fired += seen_saturated > 0
                t.ok(not problems, "%s %d, %s voltages, range %d-%d MHz, saturated_samples %d: in range, "
                     "at the top after the saturation rule (%d times)" %
                     (family, seed, "with" if voltages else "without", lo // 10**6, hi // 10**6, sat,
                      seen_saturated), problems[:10])
    t.ok(fired * 3 >= run * 2, "the saturation rule fired in %d of %d runs (at least two thirds)" % (fired, run))


if __name__ == "__main__":
    tap.run(main)
