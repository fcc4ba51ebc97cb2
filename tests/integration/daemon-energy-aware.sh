#!/usr/bin/env bash
# governor = energy_aware in the daemon chooses what devfreq-replay chooses on the same samples:
# a generated trace runs through devfreq-replay's closed loop on the GPU's points and voltages,
# and each window's sample (busy and total) is then fed to devfreqd through the fake kernel's
# load counters, one tick at a time; after each, the daemon's point must be the replay's.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

trace_gen=$top_srcdir/tools/trace-gen
windows=80
interval=20ms
# The fake GPU's points, each at a voltage of its own.
opps=(200MHz@800mV 300MHz@850mV 400MHz@900mV 600MHz@1V 800MHz@1.1V)

make_root
busy=$root/sys/devices/platform/ff9a0000.gpu/busy
is "the fake GPU has the points of the test" "$(kread "$gpu/available_frequencies")" \
        "200000000 300000000 400000000 600000000 800000000"

# A memory bus following a game (for an 800 MHz top, as these points): frames of varying cost and
# bursts that saturate the point in force.
"$trace_gen" --family membus --seed 1000 --out "$tmp/membus.csv"
awk -v n=$((windows + 1)) '/^cycles/ { on = 1 } on && n-- > 0' "$tmp/membus.csv" >"$tmp/work.csv"
"$replay" --work --opp "$(IFS=,; echo "${opps[*]}")" --governor energy_aware --interval 16667us \
        --initial 800MHz "$tmp/work.csv" | sed -n "2,$((windows + 1))p" >"$tmp/replay.csv"
IFS=, read -r -a first <"$tmp/replay.csv"
saturated=$(awk -F, '$5 == $6 && $5 > 0' "$tmp/replay.csv" | wc -l)
points=$(cut -d, -f9 "$tmp/replay.csv" | sort -u | wc -l)
# Busier than target_load (90) below the top, unsaturated: the estimate takes the demand at once.
busy_below_top=$(awk -F, '$5 < $6 && $5 * 100 > $6 * 90 && $7 < 800000000' "$tmp/replay.csv" | wc -l)
check "the replay's samples hold saturated windows ($saturated), busy ones below the top ($busy_below_top) and several points ($points)" \
        test "$saturated" -ge 1 -a "$busy_below_top" -ge 1 -a "$points" -ge 3

{
        printf '[daemon]\nautodiscover = no\n\n'
        printf '%s\n' "[device gpu]" "path = /sys/class/devfreq/ff9a0000.gpu" "mode = govern" \
                "governor = energy_aware" "polling-interval = $interval" "initial-frequency = 800MHz" \
                "load = counters:/sys/devices/platform/ff9a0000.gpu/busy"
        for p in "${opps[@]}"; do printf 'opp = %s %s\n' "${p%@*}" "${p#*@}"; done
} >"$tmp/devfreqd.conf"
start_bus
start_daemon

is "the daemon runs energy_aware" "$(prop gpu Governor)" '"energy_aware"'
await_first_sample gpu
gpu_at() { [[ $(kread "$gpu/userspace/set_freq") == "$1" ]]; }
check "the daemon starts at the replay's first point, ${first[6]} Hz" wait_until 5 gpu_at "${first[6]}"

k=0 agree=0
while IFS=, read -r _ _ _ _ b t current _ target; do
        k=$((k + 1))
        before=$(samples_used gpu)
        if ! gpu_at "$current"; then
                not_ok "window $k runs at $current Hz in both"
                diag "set_freq $(kread "$gpu/userspace/set_freq")"
                break
        fi
        "$setload" "$busy" "$b" "$t"
        if wait_until 5 samples_used_above gpu "$before" && gpu_at "$target"; then
                agree=$((agree + 1))
        else
                not_ok "window $k, sample $b/$t at $current Hz: the replay goes to $target Hz"
                diag "set_freq $(kread "$gpu/userspace/set_freq"), Load $(prop gpu Load)"
                tail -n 5 "$daemon_log" | sed 's/^/# /'
                break
        fi
done <"$tmp/replay.csv"
is "the daemon chose devfreq-replay's point on every one of the $windows samples" "$agree" "$windows"

check "the daemon is still running" daemon_alive
stop_daemon
is "SIGTERM: exit status 0" "$daemon_status" 0
tap_done
