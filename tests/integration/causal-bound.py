#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tests/bench/causal_bound.py: the informed governor's bound against devfreq-replay's own figures.

For every family, on seeds of the tuning set and beyond: a bound exactly when all the trace's
work is due by the end of its own window (read from the trace's lines). Where there is one: the
model's replica of the generator gives tools/trace-gen's shares exactly (a replica that drifts is
refused, and a drifted one is seen); each window's work lies between its law's low side and its
high side, and each law's chances sum to 1; with the table's voltages and without, the bound with
no misses allowed is within 3 % of the range from the exact offline optimum (which knows the
future) to `performance` (the top point throughout, which never misses), both from devfreq-replay,
code the bound shares nothing with; the low side's bound is below the high side's; and a larger
misses budget never raises it. An event that comes by a chance of its own each window (a heavy
frame, a burst's or a popup's start) weighs, in every window it could come in, the share of those
windows it came in.
TAP on stdout.

Usage: causal-bound.py [DEVFREQ-REPLAY] (default $top_builddir/tools/devfreq-replay)
"""

import os
import re
import subprocess
import sys
import tempfile

TOP = os.environ.get("top_srcdir", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(TOP, "tests", "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import causal_bound as cb  # noqa: E402
import tap  # noqa: E402

SEEDS = [1000, 1001, 1002, 1003, 1004, 77]
def replay_energy(replay, path, opp, interval, governor):
    p = subprocess.run([replay, "--work", "--summary", "--opp", opp, "--interval", "%dus" % interval,
                        "--governor", governor, "--optimum-states", "400000000", path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("devfreq-replay: %s" % p.stderr.strip())
    energy = float(re.search(r"^Energy *: (\S+)", p.stdout, re.M).group(1))
    misses = int(re.search(r"^Misses *: (\d+)", p.stdout, re.M).group(1))
    optimum = float(re.search(r"^Optimum energy *: (\S+)", p.stdout, re.M).group(1))
    return energy, misses, optimum


def check_trace(t, replay, tmp, family, seed, modelled):
    p, interval, laws = modelled
    above = cb.laws(family, seed, side=1)[2]
    text = cb.tg.trace(family, seed)
    cycles = [int(l.split(",")[0]) for l in text.splitlines() if l and not l.startswith(("#", "cycles"))]
    top_cycles = cb.tg.top_hz(cb.tg.read_opp(p["opp"])) * interval // 1000000
    outside = []
    for k, (c, law, up) in enumerate(zip(cycles, laws, above)):
        lo, hi = min(v for v, _ in law), max(v for v, _ in up)
        if not lo * top_cycles - 1 <= c <= hi * top_cycles + 1:
            outside.append("window %d: %d cycles, law from %.0f to %.0f" % (
                k, c, lo * top_cycles, hi * top_cycles))
    t.ok(len(laws) == len(cycles) and not outside,
           "%s %d: %d windows, each within its law (from the low side's least to the high side's most)" % (
               family, seed, len(cycles)), outside)
    unsure = ["window %d: %.6f" % (k, sum(q for _, q in law)) for k, law in enumerate(laws)
              if abs(sum(q for _, q in law) - 1.0) > 1e-9]
    t.ok(not unsure, "%s %d: every window's law is a distribution (its chances sum to 1)" % (family, seed),
         unsure[:5])
    path = os.path.join(tmp, "%s-%d.csv" % (family, seed))
    with open(path, "w") as f:
        f.write(text)
    line = cb.tg.read_opp(p["opp"])
    for voltages in (True, False):
        opp = line if voltages else re.sub(r"@[0-9.]+[mu]?V", "", line)
        perf, perf_misses, optimum = replay_energy(replay, path, opp, interval, "performance")
        b0 = cb.bound(p["opp"], interval, laws, voltages, 0.0)
        b10 = cb.bound(p["opp"], interval, laws, voltages, cb.allowance(10))
        b_all = cb.bound(p["opp"], interval, laws, voltages, float(len(laws)))
        up0 = cb.bound(p["opp"], interval, above, voltages, 0.0)
        up10 = cb.bound(p["opp"], interval, above, voltages, cb.allowance(10))
        mode = "with voltages" if voltages else "without"
        # With no misses allowed every window is covered: about what the optimum spends on the work
        # that came, and at most the top point throughout. Expectations against one realisation,
        # so within 3 %; a wrong energy model or capacity is further off.
        t.ok(optimum * 0.97 <= b0 and up0 <= perf * 1.03 and perf_misses == 0,
               "%s %d %s: optimum %.4g, bound with no misses %.4g (high side %.4g), performance %.4g" % (
                   family, seed, mode, optimum, b0, up0, perf))
        t.ok(b0 <= up0 and b10 <= up10,
               "%s %d %s: the low side's bound is below the high side's (%.4g <= %.4g, %.4g <= %.4g)" % (
                   family, seed, mode, b0, up0, b10, up10))
        t.ok(b0 >= b10 >= b_all > 0, "%s %d %s: the bound falls as the budget grows (%.4g, %.4g, %.4g)" % (
            family, seed, mode, b0, b10, b_all))


def check_chances(t):
    """An event of a chance of its own each window weighs, in every window it could come in, the share
    of those windows in which it came."""
    chances, laws = cb.Chances(), ["known"]
    for came in (True, False, False, False):
        chances.window(laws, [(0.1, 0.5), (0.2, 0.5)], [(0.9, 1.0)], came)
    laws.append("known too")
    laws = chances.laws_of(laws)
    want = ((0.1, 0.375), (0.2, 0.375), (0.9, 0.25))
    t.ok(laws[0] == "known" and laws[-1] == "known too" and all(
        len(law) == 3 and all(v == w and abs(q - wq) < 1e-12 for (v, q), (w, wq) in zip(law, want))
        for law in laws[1:5]), "an event that came in 1 of 4 windows weighs 0.25 in each of them", [repr(laws)])
    none = cb.Chances()
    empty = none.laws_of(["known"])
    t.ok(empty == ["known"], "a trace with no window an event could come in keeps its laws", [repr(empty)])


def main(t):
    check_chances(t)
    replay = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ["top_builddir"], "tools",
                                                                 "devfreq-replay")
    seen = {f: 0 for f in cb.MODELLED}
    wrong = []
    with tempfile.TemporaryDirectory() as tmp:
        for family in cb.tg.FAMILIES:
            for seed in SEEDS:
                try:
                    modelled = cb.laws(family, seed)
                except RuntimeError as e:
                    t.ok(False, "%s %d: the replica gives the generator's shares" % (family, seed), [str(e)])
                    continue
                # Modelled exactly when all the work is due by the end of its own window.
                later = re.search(r"^\d+,\d+us$", cb.tg.trace(family, seed), re.M) is not None
                if (modelled is None) != later:
                    wrong.append("%s %d: %s, deadlines %s" % (
                        family, seed, "no bound" if modelled is None else "a bound",
                        "beyond the window" if later else "at the window's end"))
                if modelled is None:
                    continue
                seen[family] += 1
                check_trace(t, replay, tmp, family, seed, modelled)
    t.ok(all(seen.values()), "every modelled family has traces among the seeds: %s" % seen)
    t.ok(not wrong, "a bound exactly for the traces whose work is all due by the end of its window", wrong)
    # A replica that falls behind the generator is refused: perturb one frame of the generator's game.
    real = cb.tg.WORK["game"]

    def drifted(rng, p):
        interval, windows = real(rng, p)
        windows[len(windows) // 2] = (windows[len(windows) // 2][0] * 1.001, None)
        return interval, windows

    cb.tg.WORK["game"] = drifted
    try:
        cb.laws("game", 1000)
        refused = False
    except RuntimeError:
        refused = True
    finally:
        cb.tg.WORK["game"] = real
    t.ok(refused, "a generator the replica no longer matches is refused")


if __name__ == "__main__":
    tap.run(main)
