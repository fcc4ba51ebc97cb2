#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tests/bench/governor-sets judges traces as the README says: the target with no tolerance, a
trace without an optimum not met, the misses limit, no more energy and misses than simple_ondemand, and the bar of a set
(90 % of its traces, rounded up, and the misses limit on all). The governors' figures come from a
stand-in runner, so every verdict here is worked out by hand from the figures given."""

import contextlib
import importlib.machinery
import importlib.util
import io
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(TOP, "tests", "bench", "governor-sets")


def load_bench():
    sys.path.insert(0, os.path.dirname(BENCH))
    loader = importlib.machinery.SourceFileLoader("governor_sets", BENCH)
    spec = importlib.util.spec_from_loader("governor_sets", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class Figures:
    """A runner that answers (energy, misses, optimum) per governor instead of devfreq-replay."""

    def __init__(self, ea, so, od, optimum):
        self.figures = {"energy_aware": ea, "simple_ondemand": so, "ondemand": od}
        self.optimum = optimum

    def run(self, trace, opp, interval, governor, tunables=(), optimum=False):
        energy, misses = self.figures[governor]
        return energy, misses, self.optimum if optimum else None


def main(t):
    gs = load_bench()
    with tempfile.TemporaryDirectory() as tmp:
        # A trace header without a seed: no causal bound, so every trace counts as within reach.
        trace = os.path.join(tmp, "video-1.csv")
        with open(trace, "w") as f:
            f.write("# interval: 16667us\n# opp: rk3399-gpu\n# family: video\ncycles,deadline\n1000,16.6ms\n")

        def judge(ea, so=(100.0, 10), od=(120.0, 8), optimum=80.0, voltages=True):
            return gs.judge(Figures(ea, so, od, optimum), trace, voltages, [])

        # With voltages the target is (1 + 80/100) / 2 = 0.9 of simple_ondemand's 100.
        r = judge((90.0, 8))
        t.ok(abs(r["target"] - 0.9) < 1e-12 and r["met"] and r["misses_ok"] and r["limit"] == 8,
             "0.9 of simple_ondemand with the target 0.900 and 8 misses (limit 8): met", [repr(r)])
        r = judge((90.001, 8))
        t.ok(not r["met"] and r["misses_ok"], "0.90001: over the target by 1e-5, not met", [repr(r)])
        r = judge((100.0, 8), optimum=None)
        t.ok(not r["met"] and r["target"] is None and r["optimum"] is None,
             "no optimum (none, or not computed): no target, not met", [repr(r)])
        r = judge((100.0, 8), optimum=None, voltages=False)
        t.ok(r["met"] and r["target"] == 1.0, "... without voltages the target is 1.0 all the same", [repr(r)])
        r = judge((85.0, 9))
        t.ok(not r["met"] and not r["misses_ok"] and r["limit"] == 8,
             "9 misses where ondemand has 8 and simple_ondemand 10: over the limit, not met", [repr(r)])
        r = judge((85.0, 7), so=(100.0, 6), od=(120.0, 9))
        t.ok(r["limit"] == 6 and not r["misses_ok"], "the limit is the fewer of the two (6, not 9)", [repr(r)])

        # Without voltages the target is simple_ondemand's own energy.
        r = judge((100.0, 10), voltages=False)
        t.ok(r["target"] == 1.0 and not r["met"] and r["beats_so"],
             "without voltages, 1.0 with simple_ondemand's 10 misses: no worse than it, "
             "but over ondemand's 8", [repr(r)])
        r = judge((100.001, 8), voltages=False)
        t.ok(not r["met"] and not r["beats_so"], "1.00001: more energy than simple_ondemand", [repr(r)])
        r = judge((70.0, 11), voltages=False)
        t.ok(not r["beats_so"], "0.7 with 11 misses against simple_ondemand's 10: not no worse", [repr(r)])
        r = judge((70.0, 10), so=(100.0, 10), od=(130.0, 12), voltages=False)
        t.ok(r["met"] and r["beats_so"], "0.7 with simple_ondemand's 10 misses, ondemand 12: met", [repr(r)])

        # A set: 48 traces need 44 met (90 % rounded up) and the limit on all 48.
        def verdict(rows, voltages):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                passed = gs.table("a set", rows, True, False, voltages)
            return passed, out.getvalue()

        good, bad = judge((80.0, 8)), judge((95.0, 8))
        passed, text = verdict([good] * 44 + [bad] * 4, True)
        t.ok(passed and "the bar needs 44: within reach" in text, "44 of 48 met, every limit kept: PASS",
             text.splitlines())
        passed, text = verdict([good] * 43 + [bad] * 5, True)
        t.ok(not passed and "target met on 43 of 48" in text, "43 of 48: FAIL", text.splitlines())
        passed, text = verdict([good] * 47 + [judge((80.0, 9))], True)
        t.ok(not passed and "misses within the limit on 47 of 48" in text,
             "47 met but one trace over its misses limit: FAIL", text.splitlines())
        passed, text = verdict([good] * 87 + [bad] * 9, True)
        t.ok(passed and "the bar needs 87" in text, "96 traces need 87 (86.4 rounded up)", text.splitlines())
        passed, text = verdict([good] * 13 + [bad] * 2, True)
        t.ok(not passed and "the bar needs 14" in text, "15 traces need 14 (13.5 rounded up): 13 fail",
             text.splitlines())

        # The line for simple_ondemand alone: asked of every trace without voltages.
        lean = judge((100.0, 10), voltages=False)
        dear = judge((100.001, 10), voltages=False)
        _, text = verdict([lean] * 3 + [dear], False)
        t.ok("no more energy at no more misses on 3 of 4 (reference: all)" in text,
             "without voltages: 3 of 4 no worse than simple_ondemand, against all", text.splitlines())
        _, text = verdict([good, judge((100.0, 8), optimum=None)], True)
        t.ok("| all         | 2      | 1 (50 %)   |" in text and "| 0.900         |" in text,
             "a trace without a target counts as not met, and the median target is the others'",
             text.splitlines())
        _, text = verdict([good] * 2, True)
        t.ok("no more energy at no more misses on 2 of 2\n" in text,
             "with voltages the line carries no reference", text.splitlines())


tap.run(main)
