#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""devfreq-replay's ondemand and conservative against a small model of the kernel's governors.

The model below is written from the kernel sources, not from devfreqd's: drivers/cpufreq/
cpufreq_governor.c dbs_update(), cpufreq_ondemand.c od_update() and od_dbs_update(),
cpufreq_conservative.c cs_dbs_update() and get_freq_step(), and the table look-ups of
__cpufreq_driver_target() (the target clamped into policy->min/max, then RELATION_H, _L or _C).
It is run over random traces with fixed seeds, and every line's target must match.

How a trace maps onto the kernel's quantities (devfreq-replay(1), ONDEMAND AND CONSERVATIVE):
  - one line is one sample of one CPU; its time_elapsed and idle time, in the trace's own
    units, are `total` and `total - busy` (busy above total is a negative idle: load 100);
  - the idle time in microseconds, for the long-idle rule, is the idle share times the sample's
    duration (the fourth column, else --interval); the sampling rate is --interval;
  - policy->min/max are --min/--max resolved to points as cpufreq_set_policy() does since v5.16:
    the maximum to the highest point at or below it, the minimum to the lowest at or above it and
    not above the maximum; cpuinfo min/max are the lowest and highest point;
  - a forced `current` column is policy->cur changed behind the governor's back (always a
    point inside the limits, as the kernel's cur is);
  - the governor starts with policy->cur = --initial clamped into the limits.
Frequencies stay in Hz (the kernel's kHz): DEF_FREQUENCY_STEP is 5 kHz = 5000 Hz.

TAP on stdout. Usage: replay-model.py [DEVFREQ-REPLAY [TRACES-PER-GOVERNOR]]; the default is
$top_builddir/tools/devfreq-replay (make check). A differing trace is left in the current
directory as replay-model-GOVERNOR.csv, with the command line that replays it.
"""

import os
import random
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

UINT_MAX = 2**32 - 1
DEF_FREQUENCY_STEP = 5000


# --- __cpufreq_driver_target() on a sorted table, within the policy's limits -------------------
class Policy:
    def __init__(self, table, lo, hi, cur):
        self.table = table
        self.min = lo
        self.max = hi
        self.cpuinfo_min = table[0]
        self.cpuinfo_max = table[-1]
        self.cur = cur

    def _in_limits(self):
        return [f for f in self.table if self.min <= f <= self.max]

    def driver_target(self, target, relation):
        target = max(self.min, min(target, self.max))
        valid = self._in_limits()
        if relation == "H":  # highest at or below, else the lowest
            below = [f for f in valid if f <= target]
            new = below[-1] if below else valid[0]
        elif relation == "L":  # lowest at or above, else the highest
            above = [f for f in valid if f >= target]
            new = above[0] if above else valid[-1]
        else:  # "C": closest, a tie to the lower one
            new = min(valid, key=lambda f: (abs(f - target), f))
        self.cur = new


# --- dbs_update(): one CPU ---------------------------------------------------------------------
class Dbs:
    def __init__(self, sampling_rate_us):
        self.sampling_rate = sampling_rate_us
        self.rate_mult = 1  # cpufreq_dbs_governor_start()
        self.prev_load = 0
        self.idle_periods = UINT_MAX

    def update(self, busy, total, duration_us):
        sampling_rate = self.sampling_rate * self.rate_mult
        time_elapsed = total
        idle_time = max(total - busy, 0)
        idle_us = idle_time * duration_us // total if total else 0
        if time_elapsed == 0:
            load = self.prev_load
        elif idle_us > 2 * sampling_rate and self.prev_load:
            load = self.prev_load
            self.prev_load = 0
        else:
            load = 100 * (time_elapsed - idle_time) // time_elapsed
            self.prev_load = load
        idle_periods = UINT_MAX
        if idle_us > 2 * sampling_rate:
            idle_periods = min(idle_periods, idle_us // sampling_rate)
        self.idle_periods = idle_periods
        return load


# --- cpufreq_ondemand.c --------------------------------------------------------------------------
class Ondemand:
    def __init__(self, policy, interval_us, up_threshold, sampling_down_factor):
        self.policy = policy
        self.dbs = Dbs(interval_us)
        self.up_threshold = up_threshold
        self.sampling_down_factor = sampling_down_factor
        # The next od_dbs_update() runs sampling_rate * rate_mult later: that many samples.
        self.window = []

    def od_update(self, busy, total, duration_us):
        p, dbs = self.policy, self.dbs
        load = dbs.update(busy, total, duration_us)
        if load > self.up_threshold:
            if p.cur < p.max:
                dbs.rate_mult = self.sampling_down_factor
            p.driver_target(p.max, "H")  # dbs_freq_increase()
        else:
            freq_next = p.cpuinfo_min + load * (p.cpuinfo_max - p.cpuinfo_min) // 100
            dbs.rate_mult = 1
            p.driver_target(freq_next, "C")

    def sample(self, busy, total, duration_us):
        self.window.append((busy, total, duration_us))
        if len(self.window) < self.dbs.rate_mult:
            return
        sums = [sum(s[i] for s in self.window) for i in range(3)]
        self.window = []
        self.od_update(*sums)


# --- cpufreq_conservative.c ----------------------------------------------------------------------
class Conservative:
    def __init__(self, policy, interval_us, up_threshold, down_threshold, freq_step, sampling_down_factor):
        self.policy = policy
        self.dbs = Dbs(interval_us)
        self.up_threshold = up_threshold
        self.down_threshold = down_threshold
        self.freq_step = freq_step
        self.sampling_down_factor = sampling_down_factor
        self.requested_freq = policy.cur  # cs_start()
        self.down_skip = 0

    def get_freq_step(self):
        step = self.freq_step * self.policy.max // 100
        return step if step else DEF_FREQUENCY_STEP

    def sample(self, busy, total, duration_us):
        p, dbs = self.policy, self.dbs
        requested_freq = self.requested_freq
        load = dbs.update(busy, total, duration_us)
        if self.freq_step == 0:
            return
        if requested_freq > p.max or requested_freq < p.min:
            requested_freq = p.cur
            self.requested_freq = requested_freq
        freq_step = self.get_freq_step()
        if dbs.idle_periods < UINT_MAX:
            freq_steps = dbs.idle_periods * freq_step
            if requested_freq > p.min + freq_steps:
                requested_freq -= freq_steps
            else:
                requested_freq = p.min
            dbs.idle_periods = UINT_MAX
        if load > self.up_threshold:
            self.down_skip = 0
            if requested_freq == p.max:
                return
            requested_freq += freq_step
            if requested_freq > p.max:
                requested_freq = p.max
            p.driver_target(requested_freq, "H")
            self.requested_freq = requested_freq
            return
        self.down_skip += 1
        if self.down_skip < self.sampling_down_factor:
            return
        self.down_skip = 0
        if load < self.down_threshold:
            if requested_freq == p.min:
                return
            if requested_freq > freq_step:
                requested_freq -= freq_step
            else:
                requested_freq = p.min
            p.driver_target(requested_freq, "L")
            self.requested_freq = requested_freq


# --- random cases ----------------------------------------------------------------------------------
def random_case(rng, governor):
    mhz = sorted(rng.sample(range(50, 3000), rng.randint(1, 9)))
    table = [f * 1000000 + rng.choice([0, 0, 0, rng.randint(1, 999999)]) for f in mhz]
    lo_i, hi_i = 0, len(table) - 1
    if rng.random() < 0.4:
        lo_i = rng.randint(0, hi_i)
    if rng.random() < 0.4:
        hi_i = rng.randint(lo_i, hi_i)
    lo, hi = table[lo_i], table[hi_i]
    # A bound between two points, as a request or a configured bound can be.
    if lo_i > 0 and rng.random() < 0.3:
        lo = rng.randint(table[lo_i - 1] + 1, table[lo_i])
    if hi_i < len(table) - 1 and rng.random() < 0.3:
        hi = rng.randint(table[hi_i], table[hi_i + 1] - 1)
    case = {
        "governor": governor,
        "table": table,
        "min": lo if lo_i > 0 else None,
        "max": hi if hi_i < len(table) - 1 else None,
        "initial": rng.choice(table),
        "interval": rng.choice([1000, 10000, 50000, 100000, 250000]),
    }
    if governor == "ondemand":
        case["tunables"] = {
            "up_threshold": rng.choice([rng.randint(11, 100), 95, 80]),
            "sampling_down_factor": rng.choice([1, 1, 2, 3, 5, rng.randint(1, 20)]),
        }
    else:
        up = rng.randint(2, 100)
        case["tunables"] = {
            "up_threshold": up,
            "down_threshold": rng.randint(1, up - 1),
            "freq_step": rng.choice([0, 1, 5, 5, 10, 25, rng.randint(0, 100)]),
            "sampling_down_factor": rng.choice([1, 1, 2, rng.randint(1, 10)]),
        }

    limits = [f for f in table if table[lo_i] <= f <= table[hi_i]]
    lines = []
    level = rng.random()
    for _ in range(rng.randint(20, 200)):
        if rng.random() < 0.15:
            level = rng.choice([0.0, 0.02, 0.5, 0.9, 1.0, rng.random()])
        total = rng.choice([100, 1000, rng.randint(1, 100000)])
        if rng.random() < 0.03:
            total = 0
        busy = min(total, max(0, int(total * (level + rng.uniform(-0.1, 0.1)))))
        if rng.random() < 0.02:
            busy = total + rng.randint(1, 50)
        current = rng.choice(limits) if rng.random() < 0.05 else None
        duration = None
        if rng.random() < 0.2:
            duration = rng.choice([rng.randint(1, 3 * case["interval"]), rng.randint(1, 30) * case["interval"]])
        lines.append((busy, total, current, duration))
    case["lines"] = lines
    return case


# cpufreq_set_policy(): the limits resolved to points (__resolve_freq(), RELATION_H then _L), the
# maximum first and the minimum not above it (the order since v6.15).
def policy_limits(table, lo, hi):
    below = [f for f in table if f <= hi]
    hi = below[-1] if below else table[0]
    above = [f for f in table if f >= lo]
    lo = above[0] if above else table[-1]
    return min(lo, hi), hi


def model_targets(case):
    table = case["table"]
    lo, hi = policy_limits(table, case["min"] if case["min"] is not None else table[0],
                           case["max"] if case["max"] is not None else table[-1])
    policy = Policy(table, lo, hi, max(lo, min(case["initial"], hi)))
    t = case["tunables"]
    if case["governor"] == "ondemand":
        gov = Ondemand(policy, case["interval"], t["up_threshold"], t["sampling_down_factor"])
    else:
        gov = Conservative(
            policy, case["interval"], t["up_threshold"], t["down_threshold"], t["freq_step"],
            t["sampling_down_factor"])
    out = []
    for busy, total, current, duration in case["lines"]:
        if current is not None:
            policy.cur = current
        gov.sample(busy, total, duration if duration is not None else case["interval"])
        out.append(policy.cur)
    return out


def replay_args(case):
    args = ["--opp", ",".join(str(f) for f in case["table"]), "--governor", case["governor"],
            "--initial", str(case["initial"]), "--interval", "%dus" % case["interval"]]
    for name, value in case["tunables"].items():
        args += ["--tunable", "%s=%d" % (name, value)]
    if case["min"] is not None:
        args += ["--min", str(case["min"])]
    if case["max"] is not None:
        args += ["--max", str(case["max"])]
    return args


def trace_text(case):
    rows = []
    for busy, total, current, duration in case["lines"]:
        row = "%d,%d" % (busy, total)
        if duration is not None:
            row += ",%s,%dus" % ("" if current is None else current, duration)
        elif current is not None:
            row += ",%d" % current
        rows.append(row)
    return "\n".join(rows) + "\n"


def replay_targets(replay, case):
    res = subprocess.run([replay] + replay_args(case) + ["-"], input=trace_text(case),
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError("devfreq-replay exited %d: %s" % (res.returncode, res.stderr.strip()))
    return [int(line.split(",")[4]) for line in res.stdout.splitlines()[1:]]


def self_test():
    """The model itself, checked against numbers worked out by hand from the kernel's rules."""
    mhz = 1000000
    ten = [i * 100 * mhz for i in range(1, 11)]
    four = [100 * mhz, 200 * mhz, 400 * mhz, 800 * mhz]
    base = {"min": None, "max": None, "interval": 100000}
    cs = dict(base, governor="conservative",
              tunables={"up_threshold": 80, "down_threshold": 20, "freq_step": 5, "sampling_down_factor": 1})
    od = dict(base, governor="ondemand", tunables={"up_threshold": 95, "sampling_down_factor": 2})
    cases = [
        (dict(cs, table=ten, max=500 * mhz, initial=100 * mhz, lines=[(100, 100, None, None)] * 4),
         [100, 100, 100, 200]),
        (dict(cs, table=ten, initial=1000 * mhz, lines=[(100, 100, None, None), (100, 100, 500 * mhz, None)]),
         [1000, 500]),
        # A 350 MHz ceiling is policy->max 300 MHz: steps of 15 MHz from 300 MHz.
        (dict(cs, table=ten, max=350 * mhz, initial=300 * mhz,
              lines=[(0, 100, None, None)] * 9 + [(100, 100, None, None)] * 3),
         [300, 300, 300, 300, 300, 300, 200, 200, 200, 100, 100, 200]),
        (dict(od, table=four, initial=800 * mhz, lines=[(0, 100, None, None)] * 2), [100, 100]),
        (dict(od, table=four, initial=100 * mhz,
              lines=[(100, 100, None, None), (0, 100, None, None), (100, 100, None, None)]), [800, 800, 400]),
    ]
    return all([f // mhz for f in model_targets(c)] == want for c, want in cases)


def main(t):
    replay = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ["top_builddir"], "tools/devfreq-replay")
    per_governor = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    t.ok(self_test(), "the model gives the kernel's numbers for the documented examples")
    for seed, governor in ((11, "ondemand"), (12, "conservative")):
        rng = random.Random(seed)
        samples = 0
        bad = None
        for i in range(per_governor):
            case = random_case(rng, governor)
            samples += len(case["lines"])
            want, got = model_targets(case), replay_targets(replay, case)
            if want != got:
                bad = (i, case, want, got)
                break
        if bad is None:
            t.ok(True, "%s: %d random traces, %d samples, every target as the kernel model's"
                   % (governor, per_governor, samples))
            continue
        i, case, want, got = bad
        t.ok(False, "%s: random trace %d (seed %d) differs from the kernel model" % (governor, i, seed))
        line = next(k for k in range(max(len(want), len(got)))
                    if k >= len(want) or k >= len(got) or want[k] != got[k])
        path = os.path.abspath("replay-model-%s.csv" % governor)
        with open(path, "w") as f:
            f.write(trace_text(case))
        t.diag("devfreq-replay %s %s" % (" ".join(replay_args(case)), path))
        t.diag("line %d: model %s, devfreq-replay %s" % (
            line + 1, want[line] if line < len(want) else "-", got[line] if line < len(got) else "-"))


if __name__ == "__main__":
    tap.run(main)
