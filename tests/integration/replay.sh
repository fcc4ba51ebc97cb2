#!/usr/bin/env bash
# devfreq-replay end to end: the shared vectors through the tool, its errors, its summary.
set -euo pipefail
source "$(dirname "$0")/tap.sh"
source "$(dirname "$0")/replay-lib.sh"

replay=$top_builddir/tools/devfreq-replay
vectors=$top_srcdir/tests/vectors
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Vectors spell frequencies as NNNMHz; the tool prints Hz.
hz() {
        case $1 in
        maximum) echo 18446744073709551615 ;;
        *MHz) echo "${1%MHz}000000" ;;
        *) echo "$1" ;;
        esac
}

# --- every simple_ondemand row: busy,total,current fed as one line, the governor column checked
while IFS=, read -r busy total current up dd expected; do
        [[ $busy == busy ]] && continue
        out=$("$replay" --opp 100MHz,800MHz --governor simple_ondemand --tunable "upthreshold=$up" \
                --tunable "downdifferential=$dd" - <<<"$busy,$total,$current" | sed -n 2p)
        is "simple_ondemand $busy,$total,$current up=$up dd=$dd" "$(cut -d, -f4 <<<"$out")" "$expected"
done <"$vectors/simple_ondemand.csv"

# --- every evaluation row: the value as the userspace governor's line, requests as --min/--max
while IFS='|' read -r points mins maxs value range applied; do
        [[ -z ${points// /} || $points == \#* ]] && continue
        args=(--opp "$(tr -d ' ' <<<"$points")" --governor userspace)
        for m in $(tr ',' ' ' <<<"${mins// /}"); do [[ $m == - ]] || args+=(--min "$m"); done
        for m in $(tr ',' ' ' <<<"${maxs// /}"); do [[ $m == - ]] || args+=(--max "$m"); done
        value=$(tr -d ' ' <<<"$value")
        out=$("$replay" "${args[@]}" - <<<"$(hz "$value")" | sed -n 2p)
        is "evaluation ${args[*]} value=$value" "$(cut -d, -f5 <<<"$out")" "$(hz "$(tr -d ' ' <<<"$applied")")"
done <"$vectors/evaluation.txt"

# --- a trace steps as the governor predicts, and the current column follows the applied point
printf '%s\n' busy,total 95,100 10,100 10,100 87,100 0,0 >"$tmp/trace.csv"
out=$("$replay" --opp 100MHz,200MHz,400MHz,800MHz --governor simple_ondemand --initial 200MHz "$tmp/trace.csv")
expected='busy,total,current,governor,target
95,100,200000000,18446744073709551615,800000000
10,100,800000000,90909090,100000000
10,100,100000000,11363636,100000000
87,100,100000000,100000000,100000000
0,0,100000000,18446744073709551615,800000000'
is "trace output, header skipped, zero total answered with the maximum" "$out" "$expected"
out=$("$replay" --opp 100MHz,800MHz --governor performance - <<<$'# a comment, then an empty line\n\nbusy,total\n95,100')
is "a header after comments and empty lines is skipped too" "$out" $'busy,total,current,governor,target\n95,100,800000000,18446744073709551615,800000000'
out=$("$replay" --help)
check "--help lists the governors a replay can run, not passive" \
        eval '[[ $out == *" simple_ondemand"* && $out != *" passive"* ]]'

# --- ondemand and conservative: the kernel's own numbers, the target column checked
targets() { # targets EXPECTED... -- REPLAY-ARGS... : the target column, in MHz
        local want=() got
        while [[ $1 != -- ]]; do want+=("$1"); shift; done
        shift
        got=$("$replay" "$@" | sed 1d | cut -d, -f5 | sed 's/000000$//' | xargs)
        is "targets of $(printf '%s ' "$@" | sed 's/ - $//')" "$got" "${want[*]}"
}
opp10=100MHz,200MHz,300MHz,400MHz,500MHz,600MHz,700MHz,800MHz,900MHz,1000MHz
# cs_dbs_update(): 5 % of policy->max (500 MHz, a point) is 25 MHz a step.
targets 100 100 100 200 -- --opp $opp10 --governor conservative --max 500MHz --initial 100MHz - \
        <<<$'100,100\n100,100\n100,100\n100,100'
# ... a 350 MHz ceiling is policy->max 300 MHz (cpufreq_set_policy()), steps of 15 MHz: idle
# 285 ... 210 (300 MHz), 195, 180, 165 (200 MHz); busy 180, 195 (100 MHz), 210 (200 MHz).
targets 300 300 300 300 300 300 200 200 200 100 100 200 -- --opp $opp10 --governor conservative --max 350MHz \
        --initial 300MHz - <<<"$(printf '0,100\n%.0s' {1..9}; printf '100,100\n%.0s' {1..3})"
# ... its early return at the top: the frequency forced to 500 MHz stays.
targets 1000 500 -- --opp $opp10 --governor conservative --initial 1000MHz - <<<$'100,100\n100,100,500000000'
# ... the governor starts from --initial clamped into the range: 500 - 250 = 250, lowest above 300.
targets 300 -- --opp $opp10 --governor conservative --tunable freq_step=50 --max 500MHz --initial 1000MHz - \
        <<<'0,100'
# od_update(): sampling_down_factor is rate_mult, set only on a jump to the top from below.
targets 100 100 -- --opp 100MHz,200MHz,400MHz,800MHz --governor ondemand --tunable sampling_down_factor=2 - \
        <<<$'0,100\n0,100'
targets 800 800 400 -- --opp 100MHz,200MHz,400MHz,800MHz --governor ondemand --tunable sampling_down_factor=2 \
        --initial 100MHz - <<<$'100,100\n0,100\n100,100'
# dbs_update()'s long-idle rule: a 1 s sample of a 100 ms interval reuses the 50 % before it, once.
targets 400 400 100 -- --opp 100MHz,200MHz,400MHz,800MHz --governor ondemand - <<<$'50,100\n0,100,,1s\n0,100,,1s'
targets 400 100 -- --opp 100MHz,200MHz,400MHz,800MHz --governor ondemand --interval 500ms - \
        <<<$'50,100\n0,100,,1s'
targets 400 400 -- --opp 100MHz,200MHz,400MHz,800MHz --governor ondemand --interval 500ms - \
        <<<$'50,100\n0,100,400000000,1001ms'
# --kind cpufreq: a policy's governors count in whole kHz, as the kernel's do. conservative,
# freq_step 1 of 1600099 kHz: 16000 kHz a step (16000.99 truncated); from 800000 kHz the requests
# 816000, 832000, 848000 kHz give 800000, 800000, 832001 kHz. In Hz (devfreq) the second request
# is 832001980 Hz, past 832001 kHz already.
column5() { "$replay" "$@" | sed 1d | cut -d, -f5 | xargs; }
khz=800000kHz,832001kHz,1600099kHz
is "--kind cpufreq: conservative steps in whole kHz" "$(column5 --kind cpufreq --opp $khz --governor conservative \
        --tunable freq_step=1 --initial 800000kHz - <<<$'81,100\n81,100\n81,100')" "800000000 800000000 832001000"
is "... on devfreq in Hz" "$(column5 --kind devfreq --opp $khz --governor conservative \
        --tunable freq_step=1 --initial 800000kHz - <<<$'81,100\n81,100\n81,100')" "800000000 832001000 832001000"
# ondemand, load 50 on 100000-1000001 kHz: 100000 + 50 * 900001 / 100 = 550000 kHz, a tie between
# 500000 and 600000 kHz that goes to the lower; in Hz 550000500 Hz, nearer 600000 kHz.
khz=100000kHz,500000kHz,600000kHz,1000001kHz
is "--kind cpufreq: ondemand's proportional target in whole kHz" \
        "$(column5 --kind cpufreq --opp $khz --governor ondemand - <<<'50,100')" 500000000
is "... and in Hz without it" "$(column5 --opp $khz --governor ondemand - <<<'50,100')" 600000000
out=$("$replay" --opp 100MHz,800MHz --governor ondemand --summary - <<<$'busy,total,current,duration\n0,100,,1s\n0,100')
like "per-line durations add up in the summary" "$out" '# 2 samples, 1\.1 s in all'
contains "... and in the time in state" "$out" '* 100000000:         0         0      1100'

# --- bad input: one line on stderr naming the problem, exit status 2
printf '%s\n' 10,100 '# comment' '' 10,abc >"$tmp/bad-field.csv"
printf '%s\n' 10,100 10 >"$tmp/one-field.csv"
printf '%s\n' 1,2,3,4s,5 >"$tmp/five-fields.csv"
printf '%s\n' 1,2,3,4 1,2,,0 >"$tmp/durations.csv"
printf '%s\n' 99999999999999999999,100 >"$tmp/overflow.csv"
printf '%s\n' 400MHz fast >"$tmp/userspace.csv"
printf '%s\n' 10,100 >"$tmp/good.csv"
replay_bad "malformed field names file and line" "bad-field.csv:4: total: 'abc' is not a whole number" \
        --opp 100MHz --governor performance "$tmp/bad-field.csv"
replay_bad "--kind names the two kinds" "--kind: 'gpu' is neither devfreq nor cpufreq" \
        --kind gpu --opp 100MHz --governor performance "$tmp/good.csv"
replay_bad "missing field names the line" "one-field.csv:2:" --opp 100MHz --governor performance "$tmp/one-field.csv"
replay_bad "too many fields names the line" "five-fields.csv:1: expected busy,total\\[,current\\[,duration\\]\\], got more" \
        --opp 100MHz --governor performance "$tmp/five-fields.csv"
replay_bad "a duration needs a unit" "durations.csv:1: duration: '4' is not a duration above 0" \
        --opp 100MHz --governor ondemand "$tmp/durations.csv"
sed -i 1d "$tmp/durations.csv"
replay_bad "a duration of 0 is refused" "durations.csv:1: duration: '0' is not a duration above 0" \
        --opp 100MHz --governor ondemand "$tmp/durations.csv"
printf '%s\n' 1,2,,99999999999999999999ms >"$tmp/long-duration.csv"
replay_refused "a duration beyond 64 bits of microseconds is too large" \
        "$tmp/long-duration.csv:1: duration: '99999999999999999999ms' is too large" \
        --opp 100MHz --governor ondemand "$tmp/long-duration.csv"
replay_refused "an --interval beyond 64 bits of microseconds is too large" \
        "--interval: '18446744073709552s' is too large" \
        --opp 100MHz --governor ondemand --interval 18446744073709552s "$tmp/durations.csv"
# The clock of a replay counts 2^64 - 1 us: two samples of 2^63 - 1 us fit, a third is refused, as
# is a trace of per-line durations that together pass it.
printf '%s\n' 50,100 60,100 70,100 >"$tmp/long-samples.csv"
out=$("$replay" --opp 200MHz@800mV,400MHz@900mV --governor simple_ondemand --interval 9223372036854775807us \
        --summary - < <(sed 2q "$tmp/long-samples.csv"))
contains "two samples that fill the clock: their whole time in state" "$out" \
        '* 400000000:         0         018446744073709551'
replay_refused "a sample the clock cannot hold the end of is refused, naming its line" \
        "$tmp/long-samples.csv:3: the samples would last longer than 18446744073709.551615 s in all" \
        --opp 200MHz@800mV,400MHz@900mV --governor simple_ondemand --interval 9223372036854775807us \
        --summary "$tmp/long-samples.csv"
printf '%s\n' 0,100,,18446744073709551615us 0,100,,1us >"$tmp/long-durations.csv"
replay_refused "... and so is a duration that passes it after the others" \
        "$tmp/long-durations.csv:2: the samples would last longer than 18446744073709.551615 s in all" \
        --opp 100MHz --governor ondemand "$tmp/long-durations.csv"
: >"$tmp/empty.csv"
replay_refused "an empty trace is refused, in one line naming it" "$tmp/empty.csv: no samples" \
        --opp 200MHz@800mV,400MHz@900mV --governor simple_ondemand --summary "$tmp/empty.csv"
replay_refused "... and so is one of comments and a header only" "<stdin>: no samples" \
        --opp 200MHz --governor performance - <<<$'# nothing yet\nbusy,total'
replay_refused "an --interval of 0 is refused" "--interval: '0ms' is not a duration above 0 (e.g. 100ms)" \
        --opp 100MHz --governor ondemand --interval 0ms "$tmp/durations.csv"
printf '%s\n' 10,100, >"$tmp/empty-current.csv"
replay_bad "an empty current needs a duration after it" "empty-current.csv:1: current: '' is not a whole number" \
        --opp 100MHz --governor ondemand "$tmp/empty-current.csv"
replay_bad "overflowing counter is an error, not wrapped" "overflow.csv:1: busy: .* too large" \
        --opp 100MHz --governor simple_ondemand "$tmp/overflow.csv"
replay_bad "userspace line that is not a frequency" "userspace.csv:2: 'fast' is not a frequency" \
        --opp 100MHz --governor userspace "$tmp/userspace.csv"
replay_bad "unknown governor" "unknown governor 'turbo'" --opp 100MHz --governor turbo "$tmp/good.csv"
replay_bad "passive has no parent in a replay" "passive" --opp 100MHz --governor passive "$tmp/good.csv"
replay_bad "tunable out of range" "upthreshold=101 is outside 1-100" \
        --opp 100MHz --governor simple_ondemand --tunable upthreshold=101 "$tmp/good.csv"
replay_bad "tunables that conflict" "do not fit together" --opp 100MHz --governor simple_ondemand \
        --tunable upthreshold=10 --tunable downdifferential=20 "$tmp/good.csv"
replay_bad "unknown tunable" "has no tunable 'speed'" --opp 100MHz --governor simple_ondemand --tunable speed=1 "$tmp/good.csv"
replay_bad "tunable that is not a number" "'-1' is not a whole number" \
        --opp 100MHz --governor ondemand --tunable up_threshold=-1 "$tmp/good.csv"
replay_bad "empty OPP list" "the list of points is empty" --opp , --governor performance "$tmp/good.csv"
replay_bad "OPP garbage" "'fastest' is not a frequency" --opp 100MHz,fastest --governor performance "$tmp/good.csv"
replay_bad "duplicate OPP" "listed twice" --opp 100MHz,100000kHz --governor performance "$tmp/good.csv"
replay_bad "bad voltage" "'lots' is not a voltage" --opp 100MHz@lots --governor performance "$tmp/good.csv"
replay_bad "missing trace file" "nope.csv: No such file" --opp 100MHz --governor performance "$tmp/nope.csv"
replay_bad "no --opp" "--opp is required" --governor performance "$tmp/good.csv"
replay_bad "unknown option" "unknown" --opp 100MHz --governor performance --turbo "$tmp/good.csv"

# --- summary: time in state in the trans_stat layout and the energy when voltages are known
out=$("$replay" --opp 100MHz@800mV,200MHz@1V --governor userspace --initial 100MHz --interval 10ms --summary - \
        <<<$'100MHz\n200MHz\n200MHz\n100MHz')
table='* 100000000:         0         1        20
  200000000:         1         0        20
Total transition : 2'
contains "summary has the trans_stat table" "$out" "$table"
# 100 MHz for 2 samples of 10 ms at 0.8 V: 2*0.64*1e8*0.01 = 1.28e6; 200 MHz for 2 at 1 V: 4e6.
like "summary energy is sum of V^2*f*t" "$out" 'Relative dynamic energy : 5\.28e\+06'

# --- no leak on a long trace (valgrind cannot run under ASan)
if [[ ${DF_SANITIZERS:-no} == yes ]]; then
        skip "valgrind leak check (sanitizer build)"
elif ! command -v valgrind >/dev/null; then
        skip "valgrind leak check (valgrind not installed)"
else
        awk 'BEGIN { srand(7); for (i = 0; i < 100000; i++) printf "%d,100\n", int(rand() * 101) }' >"$tmp/long.csv"
        quiet_valgrind() {
                valgrind -q --leak-check=full --errors-for-leak-kinds=all --error-exitcode=1 "$@" >/dev/null
        }
        check "valgrind: no leak and no error on a 100,000-line trace" quiet_valgrind \
                "$replay" --opp 100MHz,200MHz,400MHz,800MHz --governor simple_ondemand --summary "$tmp/long.csv"
fi

tap_done
