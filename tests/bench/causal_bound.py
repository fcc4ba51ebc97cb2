# SPDX-License-Identifier: LGPL-2.1-or-later
"""The least energy any causal governor can spend on a generated trace at a given number of misses.

A governor sees only its samples, so it cannot know a window's own random draws (a game frame's
jitter, whether it is a heavy one, a memory bus's other traffic, the start of a CPU burst): they
are drawn independently of everything before them. This module gives a governor more than any
real one has: the generator's whole state before each window (the scene's level, a loading screen,
a video's scale and its I-frames, whether a burst is under way). What remains unknown is the
window's law: the distribution of its work given that state, read off the generator's own code.

Over those laws, an informed governor picks each window's point; it misses when the work exceeds
the window's capacity at that point. Relaxed further in its favour, work it misses costs the
least V^2 of the table and carries nothing into the next window. Minimising expected energy plus
a price on expected misses, window by window, and searching the price until the expected misses
reach the budget gives a lower bound on the expected energy of every causal governor with that
many expected misses (Lagrangian relaxation; a mix of two prices covers the budget exactly). The
energy model is devfreq-replay's (devfreq-replay(1), CLOSED LOOP): V^2 a cycle, and static power
of 0.1 x f_top x V_top^2 scaled by V / V_top for the whole window.

Realised misses scatter around the expected ones: `allowance()` widens a budget by two standard
deviations of a sum of independent misses, plus one, before a trace is called out of reach.

A law is a uniform draw cut into STEPS equal slices, each taken at its low end: below the true
draw in every quantile, so the bound stays below the true problem's. `laws(..., side=1)` takes the
high ends instead, for the tests.

The families modelled are those whose work is due by the end of its own window and whose noise is
drawn a window at a time: game, membus, and video with a buffer of one frame. For each, the
replica recomputes the trace's shares from the generator's own draws beside the laws, and
`laws()` refuses to answer when they differ from tools/trace-gen's (the replica fell behind).
"""

import importlib.machinery
import importlib.util
import math
import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Points a uniform draw is split into: the laws' resolution.
STEPS = 32
STATIC_POWER = 0.1
MODELLED = ("game", "membus", "video")


def load_generator(path=os.path.join(TOP, "tools", "trace-gen")):
    loader = importlib.machinery.SourceFileLoader("trace_gen", path)
    spec = importlib.util.spec_from_loader("trace_gen", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


tg = load_generator()


def uniform(lo, hi, k, side):
    """A uniform draw on [lo, hi) as k equally likely values: the low end of each k-th of the range
    (side 0: below the draw in every quantile, so every miss and every cycle is counted at most)
    or its high end (side 1: above it)."""
    return [(lo + (hi - lo) * (i + side) / k, 1.0 / k) for i in range(k)]


def capped(law):
    return tuple((min(v, tg.MAX_SHARE), p) for v, p in law)


def game(rng, p, k, side):
    """tools/trace-gen's game_shares(), with each frame's law beside its share."""
    fps, n = p["fps"], p["seconds"] * p["fps"]
    level = rng.uniform(p["level_lo"], p["level_hi"])
    next_scene = tg.every(rng, p["scene"] * fps)
    next_loading = tg.every(rng, p["loading_every"] * fps)
    loading_left, shares, laws = 0, [], []
    for i in range(n):
        if i == next_loading:
            loading_left = tg.every(rng, p["loading_len"] * fps)
            next_loading = i + loading_left + tg.every(rng, p["loading_every"] * fps)
        if i == next_scene:
            level = rng.uniform(p["level_lo"], p["level_hi"])
            next_scene = i + tg.every(rng, p["scene"] * fps)
        if loading_left > 0:
            loading_left -= 1
            cost = p["loading_level"] * rng.jitter(0.5)
            law = [(p["loading_level"] * u, q) for u, q in uniform(0.5, 1.5, k, side)]
        else:
            cost = level * rng.jitter(p["jitter"])
            if rng.chance(p["spike_rate"]):
                cost *= p["spike"]
            plain = [(level * u, q) for u, q in uniform(1 - p["jitter"], 1 + p["jitter"], k, side)]
            law = [(v, q * (1 - p["spike_rate"])) for v, q in plain]
            law += [(v * p["spike"], q * p["spike_rate"]) for v, q in plain if p["spike_rate"] > 0]
        shares.append(min(cost, tg.MAX_SHARE))
        laws.append(capped(law))
    return shares, laws


def video(rng, p, k, side):
    """tools/trace-gen's video(), with each frame's law beside its share."""
    n = p["seconds"] * p["fps"]
    scale, next_scene, shares, laws = 1.0, tg.every(rng, p["scene"] * p["fps"]), [], []
    for i in range(n):
        if i == next_scene:
            scale = rng.uniform(1.0 - p["scene_swing"], 1.0 + p["scene_swing"])
            next_scene = i + tg.every(rng, p["scene"] * p["fps"])
        cost = p["frame"] * scale * rng.jitter(p["jitter"])
        law = [(p["frame"] * scale * u, q) for u, q in uniform(1 - p["jitter"], 1 + p["jitter"], k, side)]
        if i % p["gop"] == 0:
            cost = p["frame"] * scale * p["iframe"]
            law = [(cost, 1.0)]
        shares.append(min(cost, tg.MAX_SHARE))
        laws.append(capped(law))
    return shares, laws


def membus(rng, p, k, side):
    """tools/trace-gen's membus(): the GPU's laws under the bus's own other traffic and bursts."""
    src = tg.draw_params(rng, p["source"])
    gpu_shares, gpu_laws = (game if p["source"] == "game" else video)(rng, src, k, side)
    per_second = 1000000 / tg.fps_interval(src["fps"])
    rate = p["burst_rate"] / per_second
    other = uniform(0.7, 1.3, k, side)
    burst_left, shares, laws = 0, [], []
    for s, gl in zip(gpu_shares, gpu_laws):
        under_way = burst_left > 0
        if burst_left == 0 and rng.chance(rate):
            burst_left = rng.integer(1, p["burst_len"])
        extra = p["burst_level"] if burst_left > 0 else 0.0
        burst_left = max(0, burst_left - 1)
        share = p["ratio"] * s + p["floor"] * rng.jitter(0.3) + extra
        starts = 1.0 if under_way else rate
        law = []
        for g, qg in gl:
            for o, qo in other:
                base = p["ratio"] * g + p["floor"] * o
                law.append((base + p["burst_level"], qg * qo * starts))
                if starts < 1.0:
                    law.append((base, qg * qo * (1 - starts)))
        shares.append(min(share, tg.MAX_SHARE))
        laws.append(capped(law))
    return shares, laws


def laws(family, seed, side=0):
    """(params, interval in us, [law a window]) of one trace, or None when not modelled. Side 0
    gives laws below the true ones (what the bound takes), side 1 above them (uniform())."""
    if family not in MODELLED:
        return None
    rng = tg.Rng((seed << 8) | tg.family_index(family))
    p = tg.draw_params(rng, family)
    if family == "video" and p["buffer"] > 1:
        return None
    twin = tg.Rng((seed << 8) | tg.family_index(family))
    interval, windows = tg.WORK[family](twin, tg.draw_params(twin, family))
    expected = [s for s, _ in windows]
    k = STEPS if family != "membus" else STEPS // 2
    shares, window_laws = {"game": game, "membus": membus, "video": video}[family](rng, p, k, side)
    if shares != expected:
        raise RuntimeError("%s %d: the model's shares differ from tools/trace-gen's" % (family, seed))
    return p, interval, window_laws


def points(table, voltages):
    """[(Hz, V)] of a point table of tests/traces; without voltages V is f / f_top."""
    pts = []
    for item in tg.read_opp(table).split(","):
        f, _, v = item.partition("@")
        m = re.fullmatch(r"([0-9.]+)(m|u)?V", v)
        volts = float(m.group(1)) * {"m": 1e-3, "u": 1e-6, None: 1.0}[m.group(2)] if m else None
        pts.append((tg.top_hz(f), volts))
    if not voltages or any(v is None for _, v in pts):
        pts = [(f, f / pts[-1][0]) for f, _ in pts]
    return pts


def allowance(misses):
    """A budget of expected misses that a governor with `misses` realised ones may have had."""
    return misses + 2.0 * math.sqrt(misses) + 1.0


def bound(table, interval, window_laws, voltages, budget):
    """The least expected energy (devfreq-replay's units) of an informed governor whose expected
    misses are at most `budget`."""
    pts = points(table, voltages)
    top = pts[-1][0]
    top_cycles = top * interval // 1000000
    v_top, v_least = pts[-1][1], min(v for _, v in pts)
    caps = [f * interval // 1000000 for f, _ in pts]
    counts = {}
    for law in window_laws:
        counts[law] = counts.get(law, 0) + 1
    rows = []
    for law, n in counts.items():
        row = []
        for (f, v), cap in zip(pts, caps):
            energy = STATIC_POWER * top * v_top * v * interval / 1e6
            miss = 0.0
            for share, q in law:
                cycles = int(share * top_cycles)
                done = min(cycles, cap)
                energy += q * (done * v * v + (cycles - done) * v_least * v_least)
                miss += q if cycles > cap else 0.0
            row.append((energy, miss))
        rows.append((n, row))

    def solve(price):
        energy = misses = 0.0
        for n, row in rows:
            e, m = min(row, key=lambda r: r[0] + price * r[1])
            energy += n * e
            misses += n * m
        return energy, misses

    e0, m0 = solve(0.0)
    if m0 <= budget:
        return e0
    lo, hi = 0.0, 1.0
    while solve(hi)[1] > budget and hi < 1e30:
        hi *= 4.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if solve(mid)[1] > budget:
            lo = mid
        else:
            hi = mid
    (e1, m1), (e2, m2) = solve(lo), solve(hi)
    if m1 <= m2:
        return e2
    # A mix of the two choices that spends exactly the budget.
    t = (m1 - budget) / (m1 - m2)
    return e1 + t * (e2 - e1)
