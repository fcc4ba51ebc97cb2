"""The least energy any causal governor can spend on a generated trace at a given number of misses.

A governor sees only its samples. This module gives one more than any real governor has: the
generator's whole state before each window and every event that lasts (the scene's level, a
loading screen, a video's scale and its I-frames, a CPU burst on the memory bus once it has
started, a gesture's start, length and first frame, the camera's mode and captures, an
inference's level, the desktop's blinks and a popup once it shows). What it is not told is what
each window draws independently of everything before it: a frame's jitter, the bus's other
traffic, an idle frame's cost, and whether an event of a chance of its own each window comes in
it (a heavy game frame, a CPU burst's start, a popup's start): no governor can know that before
the window. What remains is the window's law: the distribution of its work given all that, read
off the generator's code.

Such an event weighs, in each window it could come in, the share of those windows it came in on
the trace (`Chances`), not its rate: a trace with fewer heavy frames than its rate promises is
then no harder in the bound than it is. The draws left are many and independent, so realised
misses stay near the expected ones: `allowance()` widens a misses budget by two standard
deviations of a sum of independent misses, plus one, before a trace is called out of reach.

Over those laws, the informed governor picks each window's point but the first's, which runs where
the device starts (as under devfreq-replay and its optimum); it misses when the work exceeds the
window's capacity at that point. Relaxed further in its favour, work it misses costs the
least V^2 of the table and carries nothing into the next window. Minimising expected energy plus
a price on expected misses, window by window, and searching the price until the expected misses
reach the budget gives a lower bound on the expected energy of every causal governor with that
many expected misses (Lagrangian relaxation; a mix of two prices covers the budget exactly). The
energy model is devfreq-replay's (devfreq-replay(1), CLOSED LOOP): V^2 a cycle, and static power
of 0.1 x f_top x V_top^2 scaled by V / V_top for the whole window.

A law is a uniform draw cut into STEPS equal slices, each taken at its low end: below the true
draw in every quantile, so the bound stays below the true problem's. `laws(..., side=1)` takes the
high ends instead, for the tests.

Every family is modelled whose work is due by the end of its own window: game, membus, scrolling
and desktop always, video with one frame of buffer, camera with one frame in flight, inference
with a budget of one window; not compile, whose work is due windows later (the bound would have to
let work move between windows). For each trace the replica recomputes the shares from the
generator's own draws beside the laws, and `laws()` refuses to answer when they differ from
tools/trace-gen's (the replica fell behind).
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


class Chances:
    """The windows in which an event drawn by a chance of its own each window may come (a heavy
    frame, a CPU burst's or a popup's start). Their laws are mixes of the window without the event
    and with it, weighed once the trace is drawn by the share of those windows in which it came:
    the bound expects as many events as the trace holds, so a trace with fewer than its rate
    promises is not harder in the bound than it is. The replica appends every window's law through
    it, so windows of the same laws share one (a trace has thousands of windows, and a few laws)."""

    def __init__(self):
        self.could, self.came, self.pending, self.kinds = 0, 0, [], {}

    def _shared(self, kind):
        return self.kinds.setdefault(kind, kind)

    def known(self, laws, law):
        """Appends the law of a window in which the event cannot come."""
        laws.append(self._shared(capped(law)))

    def window(self, laws, without, with_event, came):
        """Appends the law of a window in which the event may come (weighed later, by laws_of())."""
        self.could += 1
        self.came += came
        self.pending.append((len(laws), self._shared((tuple(without), tuple(with_event)))))
        laws.append(None)

    def laws_of(self, laws):
        chance = self.came / self.could if self.could else 0.0
        mixed = {}
        for i, kind in self.pending:
            if kind not in mixed:
                without, with_event = kind
                mixed[kind] = capped([(v, q * (1.0 - chance)) for v, q in without] +
                                     [(v, q * chance) for v, q in with_event])
            laws[i] = mixed[kind]
        return laws


MODELLED = ("game", "membus", "video", "inference", "scrolling", "camera", "desktop")


def game(rng, p, k, side):
    """tools/trace-gen's game_shares(): scenes and loading screens are known; whether a frame is a
    heavy one (a chance of its own each frame) and its jitter are not."""
    fps, n = p["fps"], p["seconds"] * p["fps"]
    level = rng.uniform(p["level_lo"], p["level_hi"])
    next_scene = tg.every(rng, p["scene"] * fps)
    next_loading = tg.every(rng, p["loading_every"] * fps)
    loading_left, shares, laws, heavy = 0, [], [], Chances()
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
            heavy.known(laws, ((p["loading_level"] * u, q) for u, q in uniform(0.5, 1.5, k, side)))
        else:
            cost = level * rng.jitter(p["jitter"])
            came = rng.chance(p["spike_rate"])
            if came:
                cost *= p["spike"]
            jitter = uniform(1 - p["jitter"], 1 + p["jitter"], k, side)
            heavy.window(laws, [(level * u, q) for u, q in jitter], [(level * p["spike"] * u, q) for u, q in jitter],
                         came)
        shares.append(min(cost, tg.MAX_SHARE))
    return shares, heavy.laws_of(laws)


def video(rng, p, k, side):
    """tools/trace-gen's video(): scenes and I-frames are known, each frame's jitter is not."""
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
    """tools/trace-gen's membus(): the GPU's laws (its family's above) plus the bus's other
    traffic, whose jitter is not known, and CPU bursts: one going on is known, whether one starts
    in a window (a chance of its own each window) is not."""
    src = tg.draw_params(rng, p["source"])
    gpu_shares, gpu_laws = (game if p["source"] == "game" else video)(rng, src, k, side)
    per_second = 1000000 / tg.fps_interval(src["fps"])
    rate = p["burst_rate"] / per_second
    other = uniform(0.7, 1.3, k, side)

    def bus(gpu_law, burst):
        return [(p["ratio"] * g + p["floor"] * o + burst, qg * qo) for g, qg in gpu_law for o, qo in other]
    burst_left, shares, laws, bursts = 0, [], [], Chances()
    for s, gl in zip(gpu_shares, gpu_laws):
        may_start = burst_left == 0
        came = may_start and rng.chance(rate)
        if came:
            burst_left = rng.integer(1, p["burst_len"])
        extra = p["burst_level"] if burst_left > 0 else 0.0
        burst_left = max(0, burst_left - 1)
        share = p["ratio"] * s + p["floor"] * rng.jitter(0.3) + extra
        if may_start:
            bursts.window(laws, bus(gl, 0.0), bus(gl, p["burst_level"]), came)
        else:
            bursts.known(laws, bus(gl, extra))
        shares.append(min(share, tg.MAX_SHARE))
    return shares, bursts.laws_of(laws)


def inference(rng, p, k, side):
    """tools/trace-gen's inference(): an inference's level is known from its start, each window's
    own jitter is not."""
    n = p["seconds"] * 1000 // p["interval_ms"]
    period = p["period_ms"] / p["interval_ms"]
    nothing = ((0.0, 1.0),)
    first = tg.every(rng, period)
    shares, laws = [0.0] * min(first, n), [nothing] * min(first, n)
    while len(shares) < n:
        level = p["level"] * rng.jitter(p["jitter"])
        for _ in range(p["windows"]):
            shares.append(min(level * rng.jitter(p["jitter"] / 2), tg.MAX_SHARE))
            half = p["jitter"] / 2
            laws.append(capped((level * u, q) for u, q in uniform(1 - half, 1 + half, k, side)))
        gap = int(period) if p["periodic"] else tg.every(rng, period)
        shares += [0.0] * max(0, gap - p["windows"])
        laws += [nothing] * max(0, gap - p["windows"])
    return shares[:n], laws[:n]


def scrolling(rng, p, k, side):
    """tools/trace-gen's scrolling(): a gesture's start, length and first cost are known; an idle
    frame's cost and each fling frame's jitter are not."""
    fps, n = p["fps"], p["seconds"] * p["fps"]
    shares, laws = [], []
    idle = capped((p["idle"] * u, q) for u, q in uniform(0.0, 1.0, k, side))
    while len(shares) < n:
        for _ in range(tg.every(rng, p["gap"] * fps)):
            shares.append(p["idle"] * rng.unit())
            laws.append(idle)
        first = p["fling"] * rng.uniform(0.6, 1.0)
        length = tg.every(rng, p["fling_len"] * fps)
        for i in range(length):
            level = first * (1.0 - (1.0 - p["tail"]) * i / length)
            shares.append(min(level * rng.jitter(p["jitter"]), tg.MAX_SHARE))
            laws.append(capped((level * u, q) for u, q in uniform(1 - p["jitter"], 1 + p["jitter"], k, side)))
    return shares[:n], laws[:n]


def camera(rng, p, k, side):
    """tools/trace-gen's camera(): the mode and the captures are known, each frame's jitter is not."""
    fps, n = p["fps"], p["seconds"] * p["fps"]
    recording, next_mode = False, tg.every(rng, p["mode"] * fps)
    next_capture, capture_left, shares, laws = tg.every(rng, p["capture_every"] * fps), 0, [], []
    for i in range(n):
        if i == next_mode:
            recording = not recording
            next_mode = i + tg.every(rng, p["mode"] * fps)
        if i == next_capture:
            capture_left = p["capture_len"]
            next_capture = i + p["capture_len"] + tg.every(rng, p["capture_every"] * fps)
        cost = p["preview"] * (p["record"] if recording else 1.0)
        if capture_left > 0:
            capture_left -= 1
            cost *= p["capture"]
        shares.append(min(cost * rng.jitter(p["jitter"]), tg.MAX_SHARE))
        laws.append(capped((cost * u, q) for u, q in uniform(1 - p["jitter"], 1 + p["jitter"], k, side)))
    return shares, laws


def desktop(rng, p, k, side):
    """tools/trace-gen's desktop(): blinks are known, and so is a popup once it shows; whether one
    starts in a frame (a chance of its own each frame), each frame's jitter and an idle frame's
    cost are not."""
    fps, n = 60, p["seconds"] * 60
    blink = max(1, int(p["blink"] * fps))
    rate = p["popup_rate"] / fps
    popup = [(p["popup"] * u, q) for u, q in uniform(0.8, 1.2, k, side)]
    popup_left, shares, laws, popups = 0, [], [], Chances()
    for i in range(n):
        may_start = popup_left == 0
        came = may_start and rng.chance(rate)
        if came:
            popup_left = p["popup_len"]
        if i % blink == 0 or i % fps == fps - 1:
            other = [(p["blink_cost"] * u, q) for u, q in uniform(0.8, 1.2, k, side)]
        else:
            other = [(p["idle"] * u, q) for u, q in uniform(0.0, 1.0, k, side)]
        if popup_left > 0:
            popup_left -= 1
            cost = p["popup"] * rng.jitter(0.2)
        elif i % blink == 0 or i % fps == fps - 1:
            cost = p["blink_cost"] * rng.jitter(0.2)
        else:
            cost = p["idle"] * rng.unit()
        shares.append(min(cost, tg.MAX_SHARE))
        if may_start:
            popups.window(laws, other, popup, came)
        else:
            popups.known(laws, popup)
    return shares, popups.laws_of(laws)


REPLICAS = {"game": game, "membus": membus, "video": video, "inference": inference, "scrolling": scrolling,
            "camera": camera, "desktop": desktop}
# The parameter that sets a family's deadline: only work due by the end of its own window is modelled.
DEADLINE = {"video": "buffer", "inference": "slack", "camera": "depth"}


def laws(family, seed, side=0):
    """(params, interval in us, [law a window]) of one trace, or None when not modelled. Side 0
    gives laws below the true ones (what the bound takes), side 1 above them (uniform())."""
    if family not in REPLICAS:
        return None
    rng = tg.Rng((seed << 8) | tg.family_index(family))
    p = tg.draw_params(rng, family)
    if p.get(DEADLINE.get(family), 1) > 1:
        return None
    twin = tg.Rng((seed << 8) | tg.family_index(family))
    interval, windows = tg.WORK[family](twin, tg.draw_params(twin, family))
    expected = [s for s, _ in windows]
    k = STEPS if family != "membus" else STEPS // 2
    shares, window_laws = REPLICAS[family](rng, p, k, side)
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
    return frontier(table, interval, window_laws, voltages)(budget)


def frontier(table, interval, window_laws, voltages, first=-1):
    """bound() as a function of the budget alone: each law's energy and misses at each point are
    worked out once, for every budget asked after. The first window runs at point `first` (an
    index into the table; the top, where devfreq-replay starts a run, by default): a governor
    chooses a point only after its first sample."""
    pts = points(table, voltages)
    top = pts[-1][0]
    top_cycles = top * interval // 1000000
    v_top, v_least = pts[-1][1], min(v for _, v in pts)
    caps = [f * interval // 1000000 for f, _ in pts]

    def at(law, k):
        """(expected energy, expected misses) of a window of `law` at point k."""
        v, cap = pts[k][1], caps[k]
        energy = STATIC_POWER * top * v_top * v * interval / 1e6
        miss = 0.0
        for share, q in law:
            cycles = int(share * top_cycles)
            done = min(cycles, cap)
            energy += q * (done * v * v + (cycles - done) * v_least * v_least)
            miss += q if cycles > cap else 0.0
        return energy, miss

    fixed = at(window_laws[0], first % len(pts)) if window_laws else (0.0, 0.0)
    counts = {}
    for law in window_laws[1:]:
        counts[law] = counts.get(law, 0) + 1
    rows = [(n, [at(law, k) for k in range(len(pts))]) for law, n in counts.items()]

    def solve(price):
        energy, misses = fixed
        for n, row in rows:
            e, m = min(row, key=lambda r: r[0] + price * r[1])
            energy += n * e
            misses += n * m
        return energy, misses

    def least(budget):
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

    return least
