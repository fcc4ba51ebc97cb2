#!/usr/bin/env bash
# Faults, beyond daemon-faults.sh: every errno of the fake kernel's fault file on every write path
# (devfreq set_freq and governor, pinned and clamped min_freq/max_freq, cpufreq scaling_setspeed,
# scaling_governor, pinned and clamped scaling_min_freq/scaling_max_freq, the statistics resets):
# the daemon keeps running, the device keeps its last good frequency or range, the error is in the
# log and in LastError, and the next evaluation after the fault is gone writes. Then a device
# directory removed and recreated comes back on reload; a killed dbus-daemon makes devfreqd restore
# every original and exit non-zero; and 50 runs killed with SIGKILL at a random moment, each followed
# by a new start and SIGTERM, leave every original value in place.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root --gpus 1 --policies 1
"$mkroot" --gpus 1 --policies 1 "$tmp/pristine"
gpu0=/sys/devices/platform/gpu0/devfreq/gpu0
policy4=/sys/devices/system/cpu/cpufreq/policy4
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)

$(dmc_powersave_section)

[device gpu0]
path = /sys/class/devfreq/gpu0
mode = clamp

$(cpu_userspace_section)

[device pstate]
path = /sys/devices/system/cpu/cpufreq/policy2
mode = govern
governor = powersave

[device cpu4]
path = /sys/devices/system/cpu/cpufreq/policy4
mode = clamp
EOF
record_originals "$gpu" "$dmc" "$gpu0" "$policy0" "$policy2" "$policy4"

errnos=(EBUSY EIO EINVAL ENODEV EACCES EPERM EAGAIN ENOSPC)
declare -A text=([EBUSY]="Device or resource busy" [EIO]="Input/output error" [EINVAL]="Invalid argument"
        [ENODEV]="No such device" [EACCES]="Permission denied" [EPERM]="Operation not permitted"
        [EAGAIN]="Resource temporarily unavailable" [ENOSPC]="No space left on device")
# daemon-faults.sh already runs EBUSY, EIO, EINVAL and ENODEV on gpu set_freq and on dmc max_freq.
others=(EACCES EPERM EAGAIN ENOSPC)

faults=$root/fakekernel.faults
fault() { printf '%s %s\n' "${1#/}" "$2" >>"$faults"; }
no_fault() { rm -f "$faults"; }
mark_log() { mark=$(wc -l <"$daemon_log"); }
error_has() { [[ $(dget "$1" LastError) == *"$2"* ]]; }
# attr_is PATH VALUE...: each sysfs attribute has its value (pairs).
attr_is() {
        while (($# >= 2)); do
                [[ $(kread "$1") == "$2" ]] || return 1
                shift 2
        done
}

# failed LABEL DEVICE ATTRIBUTE ERRNO: LastError and the log (once, at error level) name the write
# and its errno, and the daemon keeps running.
failed() {
        local label=$1 dev=$2 want="write $3: ${text[$4]}"
        if wait_until 5 error_has "$dev" "$want" && [[ $(log_after "$mark" | grep -cF "<3>$dev: $want") == 1 ]]; then
                ok "$label: LastError and one error line in the log say '$want'"
        else
                not_ok "$label: LastError and one error line in the log say '$want'"
                diag "LastError: $(dget "$dev" LastError)" "log: $(log_after "$mark" | grep -F "$dev:" | tail -n 3)"
        fi
        check "$label: the daemon keeps running" daemon_alive
}

# run_path NAME DEVICE ATTRIBUTE ERRNO...: for each errno, with the fault in place NAME_trigger
# makes the daemon decide something that needs the write; NAME_kept says the device is as it was;
# without the fault NAME_recover makes it evaluate again and NAME_recovered sees the write;
# NAME_reset goes back to where NAME_trigger starts from (NAME_base).
declare -A kept_text recovered_text
run_path() {
        local p=$1 dev=$2 attr=$3 e label
        shift 3
        for e in "$@"; do
                label="$dev, $e on ${attr##*/}"
                mark_log
                fault "$attr" "$e"
                "${p}_trigger"
                failed "$label" "$dev" "$attr" "$e"
                check "$label: ${kept_text[$p]}" "${p}_kept"
                no_fault
                "${p}_recover"
                check "$label removed: ${recovered_text[$p]}" wait_until 5 "${p}_recovered"
                "${p}_reset"
                await "$p goes back to where it starts from" 5 "${p}_base"
        done
}

# update REQUEST VALUE: the long-lived client updates one of its requests.
update() {
        local out
        out=$(client_cmd Q update "$1" "$2")
        [[ $out == ok ]] || diag "Update $1 to $2: $out"
}
# add DEVICE TYPE VALUE: the long-lived client adds a request; prints its path.
add() {
        local out
        out=$(client_cmd Q add "$@")
        [[ $out == "ok $manager_path/request/"* ]] || diag "AddRequest $*: $out" >&2
        echo "${out#ok }"
}
setf() { dcall "$1" SetFrequency t "$2" >/dev/null || diag "SetFrequency $1 $2 failed"; }
at() { [[ $(dget "$1" CurrentFrequency) == "$2" ]]; }
# lap WHAT: how long the part just finished took, as a diagnostic.
lap_start=$(date +%s)
lap() {
        diag "$1: $(($(date +%s) - lap_start))s"
        lap_start=$(date +%s)
}

start_bus
start_daemon
client_start Q
req_dmc=$(add dmc min-frequency 0)
req_gpu0_min=$(add gpu0 min-frequency 0)
req_gpu0_max=$(add gpu0 max-frequency 18446744073709551615)
req_pstate=$(add pstate min-frequency 0)
req_cpu4_min=$(add cpu4 min-frequency 0)
req_cpu4_max=$(add cpu4 max-frequency 18446744073709551615)

# ============================================================ devfreq userspace/set_freq
setf gpu 400000000
set_freq_base() { attr_is "$gpu/userspace/set_freq" 400000000 "$gpu/cur_freq" 400000000 && at gpu 400000000; }
set_freq_trigger() { setf gpu 600000000; }
set_freq_kept() { set_freq_base; }
kept_text[set_freq]="set_freq, cur_freq and CurrentFrequency stay at 400 MHz"
set_freq_recover() { setf gpu 600000000; }
set_freq_recovered() { attr_is "$gpu/userspace/set_freq" 600000000 "$gpu/cur_freq" 600000000 && at gpu 600000000; }
recovered_text[set_freq]="SetFrequency again writes 600 MHz"
set_freq_reset() { setf gpu 400000000; }
check "gpu: driven through userspace/set_freq at 400 MHz" set_freq_base
run_path set_freq gpu "$gpu/userspace/set_freq" "${others[@]}"
contains "gpu: a write that works again is logged" "$(cat "$daemon_log")" "gpu: writing works again"

# ============================================================ devfreq min_freq/max_freq, pinned (dmc)
dmc_pinned() { attr_is "$dmc/min_freq" "$1" "$dmc/max_freq" "$1" "$dmc/cur_freq" "$1" && at dmc "$1"; }
# Going up, max_freq is raised first: failing it changes nothing.
dmc_up_base() { dmc_pinned 200000000; }
dmc_up_trigger() { update "$req_dmc" 666000000; }
dmc_up_kept() { dmc_pinned 200000000; }
kept_text[dmc_up]="min_freq, max_freq, cur_freq and CurrentFrequency stay at 200 MHz"
dmc_up_recover() { update "$req_dmc" 800000000; }
dmc_up_recovered() { dmc_pinned 800000000; }
recovered_text[dmc_up]="the next floor pins 800 MHz"
dmc_up_reset() { update "$req_dmc" 0; }
check "dmc: pinned at 200 MHz (powersave, no userspace governor)" wait_until 5 dmc_up_base
run_path dmc_up dmc "$dmc/max_freq" "${others[@]}"
# Going down, min_freq is lowered first: failing it changes nothing.
dmc_down_base() { dmc_pinned 800000000; }
dmc_down_trigger() { update "$req_dmc" 0; }
dmc_down_kept() { dmc_pinned 800000000; }
kept_text[dmc_down]="min_freq, max_freq, cur_freq and CurrentFrequency stay at 800 MHz"
dmc_down_recover() { update "$req_dmc" 400000000; }
dmc_down_recovered() { dmc_pinned 400000000; }
recovered_text[dmc_down]="the next floor pins 400 MHz"
dmc_down_reset() { update "$req_dmc" 800000000; }
update "$req_dmc" 800000000
check "dmc: a floor of 800 MHz pins it there" wait_until 5 dmc_down_base
run_path dmc_down dmc "$dmc/min_freq" "${errnos[@]}"
update "$req_dmc" 0

# ============================================================ devfreq min_freq/max_freq, clamp (gpu0)
gpu0_range() { attr_is "$gpu0/min_freq" "$1" "$gpu0/max_freq" "$2"; }
gpu0_base() { gpu0_range 200000000 800000000; }
check "gpu0: clamped to its whole table" wait_until 5 gpu0_base
# A lower ceiling writes min_freq (unchanged) first, then max_freq.
gpu0_max_base() { gpu0_base; }
gpu0_max_trigger() { update "$req_gpu0_max" 400000000; }
gpu0_max_kept() { gpu0_base && [[ $(dget gpu0 MaxFrequency) == 400000000 ]]; }
kept_text[gpu0_max]="max_freq stays 800 MHz (the decision, MaxFrequency 400 MHz, stands)"
gpu0_max_recover() { update "$req_gpu0_max" 600000000; }
gpu0_max_recovered() { gpu0_range 200000000 600000000; }
recovered_text[gpu0_max]="the next ceiling writes max_freq 600 MHz"
gpu0_max_reset() { update "$req_gpu0_max" 18446744073709551615; }
run_path gpu0_max gpu0 "$gpu0/max_freq" "${errnos[@]}"
# A higher floor under the ceiling writes min_freq first.
gpu0_min_base() { gpu0_base; }
gpu0_min_trigger() { update "$req_gpu0_min" 600000000; }
gpu0_min_kept() { gpu0_base && [[ $(dget gpu0 MinFrequency) == 600000000 ]]; }
kept_text[gpu0_min]="min_freq stays 200 MHz (the decision, MinFrequency 600 MHz, stands)"
gpu0_min_recover() { update "$req_gpu0_min" 400000000; }
gpu0_min_recovered() { gpu0_range 400000000 800000000; }
recovered_text[gpu0_min]="the next floor writes min_freq 400 MHz"
gpu0_min_reset() { update "$req_gpu0_min" 0; }
run_path gpu0_min gpu0 "$gpu0/min_freq" "${errnos[@]}"

# ============================================================ cpufreq scaling_setspeed (policy0)
setf cpu 1600000000
setspeed_base() { attr_is "$policy0/scaling_setspeed" 1600000 "$policy0/scaling_cur_freq" 1600000 && at cpu 1600000000; }
setspeed_trigger() { setf cpu 2000000000; }
setspeed_kept() { setspeed_base; }
kept_text[setspeed]="scaling_setspeed, scaling_cur_freq and CurrentFrequency stay at 1.6 GHz"
setspeed_recover() { setf cpu 2000000000; }
setspeed_recovered() {
        attr_is "$policy0/scaling_setspeed" 2000000 "$policy0/scaling_cur_freq" 2000000 && at cpu 2000000000
}
recovered_text[setspeed]="SetFrequency again writes 2000000 kHz"
setspeed_reset() { setf cpu 1600000000; }
check "cpu: driven through scaling_setspeed at 1600000 kHz" setspeed_base
run_path setspeed cpu "$policy0/scaling_setspeed" "${errnos[@]}"

# ============================================================ cpufreq scaling_min/max_freq, pinned (intel_pstate)
pstate_pinned() {
        attr_is "$policy2/scaling_min_freq" "$1" "$policy2/scaling_max_freq" "$1" && at pstate $(($1 * 1000))
}
pstate_up_base() { pstate_pinned 400000; }
pstate_up_trigger() { update "$req_pstate" 2000000000; }
pstate_up_kept() { pstate_pinned 400000; }
kept_text[pstate_up]="scaling_min_freq, scaling_max_freq and CurrentFrequency stay at 400000 kHz"
pstate_up_recover() { update "$req_pstate" 3000000000; }
pstate_up_recovered() { pstate_pinned 3000000; }
recovered_text[pstate_up]="the next floor pins 3000000 kHz"
pstate_up_reset() { update "$req_pstate" 0; }
check "pstate: pinned at 400000 kHz (powersave; intel_pstate has no userspace governor)" wait_until 5 pstate_up_base
run_path pstate_up pstate "$policy2/scaling_max_freq" "${errnos[@]}"
pstate_down_base() { pstate_pinned 3000000; }
pstate_down_trigger() { update "$req_pstate" 0; }
pstate_down_kept() { pstate_pinned 3000000; }
kept_text[pstate_down]="scaling_min_freq, scaling_max_freq and CurrentFrequency stay at 3000000 kHz"
pstate_down_recover() { update "$req_pstate" 2000000000; }
pstate_down_recovered() { pstate_pinned 2000000; }
recovered_text[pstate_down]="the next floor pins 2000000 kHz"
pstate_down_reset() { update "$req_pstate" 3000000000; }
update "$req_pstate" 3000000000
check "pstate: a floor of 3 GHz pins it there" wait_until 5 pstate_down_base
run_path pstate_down pstate "$policy2/scaling_min_freq" "${errnos[@]}"
update "$req_pstate" 0

# ============================================================ cpufreq scaling_min/max_freq, clamp (policy4)
cpu4_range() { attr_is "$policy4/scaling_min_freq" "$1" "$policy4/scaling_max_freq" "$2"; }
cpu4_base() { cpu4_range 800000 2400000; }
check "cpu4: clamped to its whole table" wait_until 5 cpu4_base
cpu4_max_base() { cpu4_base; }
cpu4_max_trigger() { update "$req_cpu4_max" 1600000000; }
cpu4_max_kept() { cpu4_base && [[ $(dget cpu4 MaxFrequency) == 1600000000 ]]; }
kept_text[cpu4_max]="scaling_max_freq stays 2400000 kHz (the decision, MaxFrequency 1.6 GHz, stands)"
cpu4_max_recover() { update "$req_cpu4_max" 2000000000; }
cpu4_max_recovered() { cpu4_range 800000 2000000; }
recovered_text[cpu4_max]="the next ceiling writes scaling_max_freq 2000000 kHz"
cpu4_max_reset() { update "$req_cpu4_max" 18446744073709551615; }
run_path cpu4_max cpu4 "$policy4/scaling_max_freq" "${errnos[@]}"
cpu4_min_base() { cpu4_base; }
cpu4_min_trigger() { update "$req_cpu4_min" 2000000000; }
cpu4_min_kept() { cpu4_base && [[ $(dget cpu4 MinFrequency) == 2000000000 ]]; }
kept_text[cpu4_min]="scaling_min_freq stays 800000 kHz (the decision, MinFrequency 2 GHz, stands)"
cpu4_min_recover() { update "$req_cpu4_min" 1200000000; }
cpu4_min_recovered() { cpu4_range 1200000 2400000; }
recovered_text[cpu4_min]="the next floor writes scaling_min_freq 1200000 kHz"
cpu4_min_reset() { update "$req_cpu4_min" 0; }
run_path cpu4_min cpu4 "$policy4/scaling_min_freq" "${errnos[@]}"

# ============================================================ statistics resets (ResetStatistics, clamp mode)
# A few transitions by the kernel (a foreign writer moves the limits and back), so that a reset shows.
transitions() {
        local node=$1 lo=$2 hi=$3 min=min_freq max=max_freq
        [[ $node == */cpufreq/* ]] && min=scaling_min_freq max=scaling_max_freq
        kwrite "$node/$max" "$lo"
        kwrite "$node/$max" "$hi"
        kwrite "$node/$min" "$hi"
        kwrite "$node/$min" "$lo"
}
total() { dcall "$1" GetStatistics | awk '{print $NF}'; }
# reset_path DEVICE NODE ATTRIBUTE LO HI
reset_path() {
        local dev=$1 node=$2 attr=$2/$3 lo=$4 hi=$5 e label before
        for e in "${errnos[@]}"; do
                label="$dev, $e on ${attr##*/}"
                transitions "$node" "$lo" "$hi"
                before=$(dcall "$dev" GetStatistics)
                mark_log
                fault "$attr" "$e"
                fails "$label: ResetStatistics fails and says why" "${text[$e]}" dcall "$dev" ResetStatistics
                failed "$label" "$dev" "$attr" "$e"
                is "$label: the statistics are unchanged" "$(dcall "$dev" GetStatistics)" "$before"
                no_fault
                check "$label removed: ResetStatistics succeeds" dcall "$dev" ResetStatistics
                is "$label removed: ... and the total is 0" "$(total "$dev")" 0
        done
}
reset_path gpu0 "$gpu0" trans_stat 200000000 800000000
reset_path cpu4 "$policy4" stats/reset 800000 2400000
client_stop Q
lap "every errno on every write path"

# ============================================================ the kernel governor, selected at start-up
# gpu (devfreq governor) and cpu (cpufreq scaling_governor) fail to select userspace when they start.
# The kernel keeps its own governors and whatever frequency they left (the originals' SIGTERM
# restored the governors, not the frequencies).
start_kept() {
        attr_is "$gpu/governor" simple_ondemand "$gpu/cur_freq" "$gpu_cur" "$policy0/scaling_governor" schedutil \
                "$policy0/scaling_cur_freq" "$cpu_cur" && [[ ! -e $root$gpu/userspace/set_freq ]]
}
start_recovered() {
        attr_is "$gpu/governor" userspace "$gpu/userspace/set_freq" 300000000 "$policy0/scaling_governor" userspace \
                "$policy0/scaling_setspeed" 1200000 && at gpu 300000000 && at cpu 1200000000
}
for e in "${errnos[@]}"; do
        stop_daemon TERM
        check_restored "before the start with $e on the governors"
        gpu_cur=$(kread "$gpu/cur_freq") cpu_cur=$(kread "$policy0/scaling_cur_freq")
        mark_log
        fault "$gpu/governor" "$e"
        fault "$policy0/scaling_governor" "$e"
        if start_daemon; then ok "$e on both governors: the daemon starts and becomes ready"; else
                not_ok "$e on both governors: the daemon starts and becomes ready"
        fi
        failed "gpu, $e on governor at start-up" gpu "$gpu/governor" "$e"
        failed "cpu, $e on scaling_governor at start-up" cpu "$policy0/scaling_governor" "$e"
        check "$e on both governors: the kernel keeps its governors and frequencies" start_kept
        no_fault
        setf gpu 300000000
        setf cpu 1200000000
        check "$e removed: SetFrequency selects userspace and writes, on both" wait_until 5 start_recovered
done

lap "the governors at start-up"

# ============================================================ a device directory removed, then recreated
client_start R
req=$(client_cmd R add gpu min-frequency 600000000)
req=${req#ok }
mark_log
rm -rf "${root:?}$gpu"
setf gpu 800000000
gone() { ! mcall GetDevice s gpu >/dev/null 2>&1; }
check "gpu directory removed: the device is detached (no bus object)" wait_until 5 gone
contains "... and the log says so" "$(log_after "$mark")" "gpu: $gpu is gone, detaching the device"
check "... its request object is gone" wait_until 5 bash -c "! grep -qF '$req' < <(busctl --address='$bus_address' tree $name)"
check "... the daemon keeps running" daemon_alive
check "... the others are still served" serving dmc
cp -a "$tmp/pristine$gpu" "$root$gpu"
: >"$notify_log"
kill -HUP "$daemon_pid"
await "READY=1 after SIGHUP" 10 grep -q '^READY=1' "$notify_log"
check "gpu directory recreated, SIGHUP: the device is back on the bus" serving gpu
back() { attr_is "$gpu/governor" userspace && [[ $(kread "$gpu/userspace/set_freq") == $(dget gpu CurrentFrequency) ]]; }
check "... and driven again (userspace selected, set_freq written)" wait_until 5 back
setf gpu 600000000
check "... SetFrequency writes it" wait_until 5 attr_is "$gpu/userspace/set_freq" 600000000
client_stop R

# ============================================================ the dbus-daemon killed
kill -KILL "$bus_pid"
exited() { [[ ! -e /proc/$daemon_pid ]] || grep -q '^State:[[:space:]]*Z' "/proc/$daemon_pid/status"; }
check "dbus-daemon killed: devfreqd stops" wait_until 10 exited
stop_daemon TERM
check "... with a non-zero status (got $daemon_status) so that systemd restarts it" \
        test "$daemon_status" -ne 0 -a "$daemon_status" -lt 128
check_restored "dbus-daemon killed"
check "... and the originals file is gone" test ! -e "$tmp/run/originals"

lap "a device removed and recreated, the dbus-daemon killed"

# ============================================================ SIGKILL at a random moment, 50 times
rm -f "$tmp/bus.socket" "$tmp/bus.address"
start_bus
before_ready=0
mkfifo "$tmp/never.fifo"
for run in $(seq 50); do
        # A random moment in 0-300 ms, drawn as 300 ms x u^5 (u uniform) so that start-up, the few
        # ms until READY=1, is hit about as often as the time it runs (a third of the runs land in
        # the first 2 ms). The wait is bash's own read -t on a fifo nobody writes: no sleep process
        # to start first.
        r=$RANDOM
        us=$((300000 * r / 32767 * r / 32767 * r / 32767 * r / 32767 * r / 32767))
        spawn_daemon
        read -r -t "$((us / 1000000)).$(printf '%06d' $((us % 1000000)))" <>"$tmp/never.fifo" || true
        if daemon_ready; then
                when="$((us / 1000)).$(printf '%03d' $((us % 1000))) ms, after READY=1"
        else
                when="$((us / 1000)).$(printf '%03d' $((us % 1000))) ms, before READY=1"
                before_ready=$((before_ready + 1))
        fi
        stop_daemon KILL
        if ! start_daemon; then
                not_ok "run $run: the start after kill -9 (at $when) becomes ready"
                continue
        fi
        stop_daemon TERM
        bad=$(not_restored)
        if [[ $daemon_status == 0 && -z $bad && ! -e $tmp/run/originals ]]; then
                ok "run $run: kill -9 at $when, a new start, SIGTERM (exit 0): every original value is back"
        else
                not_ok "run $run: kill -9 at $when, a new start, SIGTERM: every original value is back"
                mapfile -t lines <<<"$bad"
                diag "exit status $daemon_status" "${lines[@]}"
        fi
done
check "kills came both during start-up, before READY=1, and after it ($before_ready of 50 before)" \
        test "$before_ready" -gt 0 -a "$before_ready" -lt 50
check_restored "after the 50 runs"
lap "50 runs killed at a random moment"
tap_done
