#!/usr/bin/env bash
# Load drives frequency: a govern-mode simple_ondemand GPU follows scripted counter loads step
# by step, to exactly what devfreq-replay computes for the same samples; a cpufreq policy
# receives its frequencies in kHz.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
busy=$root/sys/devices/platform/ff9a0000.gpu/busy
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_load_section)

$(cpu_userspace_section)
EOF
start_bus
start_daemon


# The points the daemon uses, for replay: the node's own table, as a comma-separated list.
opps=$(kread "$gpu/available_frequencies" | xargs | tr ' ' ',')
is "the GPU is driven through the kernel's userspace governor" "$(kread "$gpu/governor")" userspace

# The first tick only primes the counters: a step before it would be lost as the baseline.
await "the load is sampled" 5 samples_used_above gpu 0

# replay_target BUSY TOTAL CURRENT: the point simple_ondemand applies for this one sample.
replay_target() {
        "$replay" --opp "$opps" --governor simple_ondemand - <<<"$1,$2,$3" | sed -n 2p | cut -d, -f5
}

gpu_at() { [[ $(kread "$gpu/userspace/set_freq") == "$1" && $(prop gpu CurrentFrequency) == "$1" ]]; }
load_is() { [[ $(prop gpu Load) == "$1" ]]; }

# Consecutive steps have different percentages, so "Load changed" proves the step was sampled.
steps=(95/100 40/100 70/100 60/100 95/100 55/100 30/100 88/100 10/100 100/100 20/100 45000000/50000000
        120/400 3/1000)
ups=0 downs=0 prev_load=-1
for step in "${steps[@]}"; do
        IFS=/ read -r b t <<<"$step"
        cur=$(kread "$gpu/userspace/set_freq")
        expected=$(replay_target "$b" "$t" "$cur")
        percent=$((b >= t ? 100 : b * 100 / t))
        ((percent != prev_load)) || { echo "Bail out! steps $step repeats the load $percent"; exit 1; }
        prev_load=$percent
        mark=$(wc -l <"$daemon_log")
        "$setload" "$busy" "$b" "$t"
        if wait_until 5 load_is "$percent" && wait_until 5 gpu_at "$expected"; then
                ok "load $b/$t at $cur Hz: $expected Hz, as devfreq-replay computes"
        else
                not_ok "load $b/$t at $cur Hz: $expected Hz, as devfreq-replay computes"
                diag "set_freq $(kread "$gpu/userspace/set_freq"), CurrentFrequency $(prop gpu CurrentFrequency)," \
                        "Load $(prop gpu Load)"
        fi
        if ((expected > cur)); then ups=$((ups + 1)); elif ((expected < cur)); then downs=$((downs + 1)); fi
done
check "the sequence stepped up ($ups) and down ($downs)" test "$ups" -ge 2 -a "$downs" -ge 2
is "the kernel's cur_freq follows set_freq" "$(kread "$gpu/cur_freq")" "$(kread "$gpu/userspace/set_freq")"

# Samples with no time in them (the counters did not move) are dropped: the frequency stays.
# The last step's sample is taken, then the ticks after it find the counters unchanged (logged once
# per run of dropped samples, from the mark taken before that step).
before=$(kread "$gpu/userspace/set_freq")
dropped() { logged_since "$mark" "gpu: no complete load sample"; }
await "a tick without a new sample comes" 5 dropped
is "ticks without a new sample keep the frequency" "$(kread "$gpu/userspace/set_freq")" "$before"

# --- energy_aware, chosen over the bus: it goes where devfreq-replay takes it on the same samples,
# history included (the switch itself evaluates the last sample, 3/1000, once more).
trace="3,1000,$(kread "$gpu/userspace/set_freq")"
replay_energy_aware() {
        "$replay" --opp "$opps" --governor energy_aware - <<<"$trace" | tail -n1 | cut -d, -f5
}
bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1/device/gpu org.devfreqd.Devfreq1.Device \
        SetGovernor s energy_aware
is "SetGovernor energy_aware" "$(prop gpu Governor)" '"energy_aware"'
expected=$(replay_energy_aware)
check "energy_aware on the last sample: $expected Hz" wait_until 5 gpu_at "$expected"
prev_load=0
for step in 100/100 50/100 7/100 6/100 5/100 4/100 60/100 3/100; do
        IFS=/ read -r b t <<<"$step"
        percent=$((b * 100 / t))
        "$setload" "$busy" "$b" "$t"
        trace+=$'\n'"$b,$t"
        expected=$(replay_energy_aware)
        if wait_until 5 load_is "$percent" && wait_until 5 gpu_at "$expected"; then
                ok "energy_aware, load $b/$t: $expected Hz, as devfreq-replay computes"
        else
                not_ok "energy_aware, load $b/$t: $expected Hz, as devfreq-replay computes"
                diag "set_freq $(kread "$gpu/userspace/set_freq"), Load $(prop gpu Load), trace: $trace"
        fi
done
top=$(tr ',' '\n' <<<"$opps" | tail -n1)
is "a saturated sample took it to the top" "$("$replay" --opp "$opps" --governor energy_aware - <<<"$trace" |
        sed -n 3p | cut -d, -f5)" "$top"

# --- cpufreq: Hz on the bus, kHz in sysfs
is "policy0 is under the kernel's userspace governor" "$(kread "$policy0/scaling_governor")" userspace
bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1/device/cpu org.devfreqd.Devfreq1.Device \
        SetFrequency t 1200000000
is "SetFrequency 1.2 GHz lands as 1200000 kHz in scaling_setspeed" "$(kread "$policy0/scaling_setspeed")" 1200000
is "... and the kernel runs at 1200000 kHz" "$(kread "$policy0/scaling_cur_freq")" 1200000
is "CurrentFrequency is in Hz" "$(prop cpu CurrentFrequency)" 1200000000
bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1/device/cpu org.devfreqd.Devfreq1.Device \
        SetFrequency t 1500000000
is "1.5 GHz, between points, goes up to 1600000 kHz" "$(kread "$policy0/scaling_setspeed")" 1600000
bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1/device/cpu org.devfreqd.Devfreq1.Device \
        SetGovernor s performance
is "performance: the highest point, 2400000 kHz" "$(kread "$policy0/scaling_setspeed")" 2400000
is "... and CurrentFrequency 2.4 GHz" "$(prop cpu CurrentFrequency)" 2400000000

check "the daemon is still running" daemon_alive
stop_daemon
is "SIGTERM: exit status 0" "$daemon_status" 0
tap_done
