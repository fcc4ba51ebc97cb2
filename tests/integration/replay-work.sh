#!/usr/bin/env bash
# devfreq-replay --work end to end: a hand-computed closed loop and its summary, windows after the
# trace, a governor driven step by step through a pipe, open-loop output unchanged on a pipe, and
# the errors.
set -euo pipefail
source "$(dirname "$0")/tap.sh"
source "$(dirname "$0")/replay-lib.sh"

replay=$top_builddir/tools/devfreq-replay
driver=$top_srcdir/tests/integration/replay-pipe.py
PYTHON3=${PYTHON3:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- a closed loop computed by hand: 100/200/400 MHz at 0.8/0.9/1 V, 100 ms windows.
# Window 0 at 400 MHz (the initial point) does 25 M; 1 does 25,000,001 (62.500003 ms busy);
# 2 is idle, so simple_ondemand drops to 100 MHz; 3 gets 50 M due in 200 ms and does 10 M
# (saturated: to 400 MHz); 4 does the 40 M left (the job ends at 500 ms, in time) with 10 M due at
# 500 ms arriving behind them; a window after the trace finishes those at 525 ms: one miss.
printf '%s\n' '# comment' cycles,deadline 25000000 25000001 0 50000000,200ms 10000000 >"$tmp/hand.csv"
out=$("$replay" --work --opp 100MHz@800mV,200MHz@900mV,400MHz@1V --governor simple_ondemand \
        --interval 100ms --summary "$tmp/hand.csv")
csv='cycles,done,backlog,missed,busy,total,current,governor,target
25000000,25000000,0,0,62500000,100000000,400000000,284090763,400000000
25000001,25000001,0,0,62500003,100000000,400000000,284090763,400000000
0,0,0,0,0,100000000,400000000,0,100000000
50000000,10000000,40000000,0,100000000,100000000,100000000,18446744073709551615,400000000
10000000,40000000,10000000,0,100000000,100000000,400000000,18446744073709551615,400000000
0,10000000,0,1,25000000,100000000,400000000,113636072,200000000'
is "closed-loop CSV, window by window" "$(sed -n '1,/^$/p' <<<"$out" | sed '/^$/d')" "$csv"
contains "summary counts the window after the trace" "$out" "# 6 windows of 100 ms (1 after the trace)"
# Dynamic V^2 per cycle: 50,000,001 + 0.64 x 10 M + 50 M at 1 V = 106,400,001; static 0.1 x 400 MHz x
# 1 V x V x 100 ms = 4 M x V a window: 5 windows at 1 V and one at 0.8 V = 23.2 M. Total 129,600,001.
like "energy: V^2 per cycle plus static power" "$out" 'Energy +: 1\.296e\+08'
like "cycles done" "$out" 'Cycles done +: 110000001'
like "misses out of jobs" "$out" 'Misses +: 1 of 4 jobs'
# Delays 62.5, 62.500003, 200 and 125 ms: nearest rank 50 % is the 2nd, 99 % the 4th.
like "p50 completion delay" "$out" 'Completion delay p50 +: 62\.500003 ms'
like "p99 completion delay" "$out" 'Completion delay p99 +: 200\.000000 ms'
like "transitions" "$out" 'Transitions +: 3'
# The optimum: 400 MHz for the first two windows (58,000,001), 100 MHz while idle (3.2 M), 200 then
# 400 MHz for the 50 M (20 M x 0.81 + 3.6 M + 40 M + 4 M: the 10 M behind at 400 MHz too), or
# the other order: 125,000,001 in all.
like "the offline optimum" "$out" 'Optimum energy +: 1\.25e\+08 \(0\.9645 of this run\)'
contains "time in state counts each window at its point" "$out" "  400000000:         1         1         0       500"
out2=$("$replay" --work --opp 100MHz@800mV,200MHz@900mV,400MHz@1V --governor simple_ondemand \
        --interval 100ms --summary --no-optimum "$tmp/hand.csv")
is "--no-optimum: the same run, the summary without its last line" "$out2" "$(sed '$d' <<<"$out")"

# Without voltages V is proportional to f; the static power can be set.
out=$("$replay" --work --opp 100MHz,400MHz --governor powersave --initial 100MHz --interval 10ms \
        --static-power 0 --summary - <<<$'2000000\n1000000')
# 100 MHz (V 0.25): 1 M a window, 3 M in three windows, 0.0625 each: 187,500.
like "V proportional to f, no static power" "$out" 'Energy +: 187500[^0-9.]'
like "work left over at the end runs extra windows" "$out" '# 3 windows of 10 ms \(1 after the trace\)'
like "misses of the carried-over work" "$out" 'Misses +: 2 of 2 jobs'
# The optimum's first window runs where the run starts, as every governor's: 0.5 M cycles at the
# default start, the top (V 1): 500,000; from 100 MHz (V 0.25), 0.0625 a cycle: 31,250.
like "the optimum's first window runs at the starting point, the top by default" \
        "$("$replay" --work --opp 100MHz,400MHz --governor powersave --interval 10ms --static-power 0 \
                --summary - <<<500000)" 'Energy +: 500000[^0-9.].*Optimum energy +: 500000 \(1\.0000 of this run\)'
like "... and at --initial when given" \
        "$("$replay" --work --opp 100MHz,400MHz --governor performance --initial 100MHz --interval 10ms \
                --static-power 0 --summary - <<<500000)" 'Optimum energy +: 31250 '
like "no optimum when even the top misses" "$("$replay" --work --opp 100MHz --governor performance \
        --interval 10ms --summary - <<<3000000)" 'Optimum energy +: none'

# --- streaming: a driver writes a line only after it has read the answer to the previous one
out=$("$PYTHON3" "$driver" work "$replay" --work --opp 100MHz,200MHz,400MHz --governor energy_aware \
        --interval 10ms --initial 100MHz)
is "pipe: header first" "$(sed -n 1p <<<"$out")" "header cycles,done,backlog,missed,busy,total,current,governor,target"
is "pipe: one answer per line sent" "$(grep -c '^[0-9]' <<<"$out")" 8
is "pipe: the first window saturates at 100 MHz and goes to the top" "$(sed -n 2p <<<"$out")" \
        "2000000 2000000,1000000,1000000,0,10000000,10000000,100000000,18446744073709551615,400000000"
is "pipe: the carried-over work is done next, one job late" "$(sed -n 3p <<<"$out")" \
        "2000000 2000000,3000000,0,1,7500000,10000000,400000000,400000000,400000000"
is "pipe: the tool ends cleanly" "$(tail -n1 <<<"$out")" "status 0"
out=$("$PYTHON3" "$driver" load "$replay" --opp 100MHz,200MHz,400MHz --governor simple_ondemand)
is "pipe (load trace): one answer per line sent" "$(grep -c '^[0-9]' <<<"$out")" 8
is "pipe (load trace): the governor answers each sample" "$(sed -n 3p <<<"$out")" \
        "5,100 5,100,400000000,22727272,100000000"

# --- open-loop traces on a pipe: the same bytes as from a file
awk 'BEGIN { srand(3); for (i = 0; i < 2000; i++) printf "%d,100\n", int(rand() * 101) }' >"$tmp/load.csv"
args=(--opp 100MHz@800mV,200MHz@900mV,400MHz@1V --governor simple_ondemand --summary)
check "open loop: a pipe gives the same output as a file" cmp -s \
        <("$replay" "${args[@]}" "$tmp/load.csv") <(cat "$tmp/load.csv" | "$replay" "${args[@]}" -)

# --- the governor list and the errors
like "--help lists energy_aware" "$("$replay" --help)" 'one of:.* energy_aware '
printf '%s\n' 100 12x >"$tmp/bad-cycles.csv"
printf '%s\n' 100 100,soon >"$tmp/bad-deadline.csv"
printf '%s\n' 100,0ms >"$tmp/zero-deadline.csv"
printf '%s\n' 1,2ms,3 >"$tmp/three.csv"
printf '%s\n' 100000000000000000000 >"$tmp/huge.csv"
w=(--work --opp 100MHz,200MHz --governor energy_aware --interval 10ms)
replay_bad "cycles that are not a number" "bad-cycles.csv:2: cycles: '12x' is not a whole number" "${w[@]}" "$tmp/bad-cycles.csv"
replay_bad "a deadline that is not a duration" "bad-deadline.csv:2: deadline: 'soon'" "${w[@]}" "$tmp/bad-deadline.csv"
replay_bad "a zero deadline" "zero-deadline.csv:1: deadline: '0ms' is not a duration above 0" "${w[@]}" "$tmp/zero-deadline.csv"
# A deadline is kept in nanoseconds: more than 64 bits of them is too large, as is one the
# duration parser cannot hold at all.
printf '%s\n' 1000,18446744073710s >"$tmp/far-deadline.csv"
printf '%s\n' 1000,99999999999999999999ms >"$tmp/huge-deadline.csv"
replay_refused "a deadline beyond 64 bits of nanoseconds is too large" \
        "$tmp/far-deadline.csv:1: deadline: '18446744073710s' is too large" "${w[@]}" "$tmp/far-deadline.csv"
replay_refused "a deadline beyond 64 bits of microseconds is too large" \
        "$tmp/huge-deadline.csv:1: deadline: '99999999999999999999ms' is too large" "${w[@]}" "$tmp/huge-deadline.csv"
replay_refused "an --interval beyond 64 bits of nanoseconds is too large for --work, naming the bound" \
        "--interval: 18446744073.709552 s is too large for --work (at most 18446744073.709551 s)" \
        --work --opp 100MHz --governor performance --interval 18446744073709552us "$tmp/three.csv"
# The windows are kept in nanoseconds: 2^64 - 1 of them in all, those after the trace too.
printf '%s\n' 1000 1000 1000 >"$tmp/long-windows.csv"
replay_refused "a window the clock cannot hold the end of is refused, naming its line" \
        "$tmp/long-windows.csv:3: the windows would last longer than 18446744073.709551 s in all" \
        --work --opp 200MHz,400MHz --governor simple_ondemand --interval 9223372036854775us "$tmp/long-windows.csv"
printf '%s\n' 18000000000000000000 >"$tmp/long-drain.csv"
replay_refused "... and so is a window after the trace" \
        "$tmp/long-drain.csv: the windows after the trace would last longer than 18446744073.709551 s in all" \
        --work --opp 100MHz --governor powersave --interval 9223372036854775us "$tmp/long-drain.csv"
: >"$tmp/empty.csv"
replay_refused "an empty trace is refused, in one line naming it" "$tmp/empty.csv: no work lines" \
        --work --summary --opp 200MHz@800mV,400MHz@900mV --governor simple_ondemand "$tmp/empty.csv"
replay_refused "... and so is one of comments and a header only" "<stdin>: no work lines" \
        "${w[@]}" - <<<$'# nothing yet\ncycles,deadline'
replay_bad "three fields" "three.csv:1: expected cycles\[,deadline\]" "${w[@]}" "$tmp/three.csv"
replay_bad "cycles beyond 64 bits" "huge.csv:1: cycles: .* too large" "${w[@]}" "$tmp/huge.csv"
replay_bad "voltages on some points only" "give every point a voltage or none" \
        --work --opp 100MHz@800mV,200MHz --governor performance "$tmp/bad-cycles.csv"
replay_bad "an initial frequency off the table" "--initial: 150 MHz is not one of the points" \
        "${w[@]}" --initial 150MHz "$tmp/bad-cycles.csv"
replay_bad "a window too short for one cycle" "holds no whole cycle at 1 Hz" \
        --work --opp 1Hz --governor performance "$tmp/bad-cycles.csv"
replay_bad "--no-optimum without --summary" "only applies to --work --summary" \
        --work --no-optimum --opp 100MHz --governor performance "$tmp/bad-cycles.csv"
replay_bad "--static-power without --work" "only applies to --work" \
        --opp 100MHz --governor performance --static-power 0.2 "$tmp/bad-cycles.csv"
replay_bad "--static-power that is not a fraction" "--static-power: 'lots' is not a fraction" \
        "${w[@]}" --static-power lots "$tmp/bad-cycles.csv"
replay_bad "negative --static-power" "--static-power: '-1'" "${w[@]}" --static-power -1 "$tmp/bad-cycles.csv"

# ================================================================ bounds on time and memory
# Work due far ahead lets the exact optimum's front grow with every window: the search stops at its
# bound and says so, in seconds rather than minutes (13 bytes of trace took 39 s before the bound).
printf '%s\n' 999999999,99s >"$tmp/far.csv"
set +e
out=$(timeout 120 "$replay" --work --summary --opp 100MHz@800mV,200MHz@850mV,400MHz@900mV,800MHz@1V \
        --governor simple_ondemand --interval 1ms "$tmp/far.csv" 2>&1)
status=$?
set -e
is "work due far ahead: the run ends (status 0)" "$status" 0
contains "... the optimum is not computed, naming its bound" "$out" \
        "Optimum energy          : not computed (the exact search would examine more than 4000000 states"
# More work than the points can finish: the empty windows after the trace stop at their bound.
printf '%s\n' 18000000000000000000 >"$tmp/endless.csv"
# --initial outside --min/--max: the first window runs at the point the governor starts from, so
# the run and the optimum use the same points. 8 cycles due in a 1 ms window of 4 kHz at most:
# a miss for both; 2 cycles at a 4 kHz floor: the run spends what the optimum spends.
out=$("$replay" --work --summary --opp 2kHz,4kHz,8kHz --interval 1ms --governor performance --max 4kHz - \
        <<<$'8\n0')
like "--initial above --max: the first window runs at 4 kHz" "$(sed -n 2p <<<"$out")" '^8,4,4,0,[0-9]+,[0-9]+,4000,'
like "... where the deadline is missed, as the optimum says it must be" "$out" \
        'Misses +: 1 of 1 jobs.*Optimum energy +: none'
out=$("$replay" --work --summary --opp 2kHz,4kHz,8kHz --interval 1ms --governor powersave --min 4kHz \
        --initial 2kHz - <<<2)
like "--initial below --min: the first window runs at 4 kHz" "$(sed -n 2p <<<"$out")" '^2,2,0,0,[0-9]+,[0-9]+,4000,'
like "... and spends no less than the optimum over the same points" "$out" \
        'Optimum energy +: 0\.9 \(1\.0000 of this run\)'

replay_bad "work the points cannot finish: an error after the bound of empty windows" \
        "work is left after 1000000 empty windows past the trace" \
        --work --opp 100MHz --governor powersave --interval 1ms "$tmp/endless.csv"

tap_done
