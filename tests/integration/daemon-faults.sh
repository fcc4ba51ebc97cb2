#!/usr/bin/env bash
# Faults: write errors keep the device at its last good frequency, show in the log and in
# LastError, and the next evaluation after the fault is gone writes, even a decision back at that
# frequency (a pin whose second limit failed is made whole); a foreign write is detected,
# logged with both values and overwritten; a removed device directory detaches the device.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
busy=$root/sys/devices/platform/ff9a0000.gpu/busy
dmc_load=$root/sys/devices/platform/dmc/load
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_load_section)

[device dmc]
path = /sys/class/devfreq/dmc
mode = govern
governor = simple_ondemand
polling-interval = 50ms
load = percent:/sys/devices/platform/dmc/load

$(cpu_ondemand_section)
EOF
start_bus
start_daemon

faults=$root/fakekernel.faults
set_freq() { kread "$gpu/userspace/set_freq"; }
gpu_at() { [[ $(set_freq) == "$1" && $(prop gpu CurrentFrequency) == "$1" ]]; }
error_has() { [[ $(prop "$1" LastError) == *"$2"* ]]; }
# One new sample for the gpu (its counters move), so it evaluates.
gpu_load() { "$setload" "$busy" "$1" 100; }

declare -A text=([EBUSY]="Device or resource busy" [EIO]="Input/output error" [EINVAL]="Invalid argument"
        [ENODEV]="No such device")

await "the gpu load is sampled" 5 samples_used_above gpu 0
is "gpu starts at its highest point" "$(set_freq)" 800000000

# --- the gpu's userspace/set_freq
for e in EBUSY EIO EINVAL ENODEV; do
        mark=$(wc -l <"$daemon_log")
        echo "${gpu#/}/userspace/set_freq $e" >"$faults"
        gpu_load 10
        if wait_until 5 error_has gpu "${text[$e]}"; then
                ok "gpu, $e on set_freq: LastError says '${text[$e]}'"
        else
                not_ok "gpu, $e on set_freq: LastError says '${text[$e]}'"
                diag "LastError: $(prop gpu LastError)"
        fi
        contains "gpu, $e: the log names the attribute and the error" "$(log_after "$mark")" \
                "gpu: write $gpu/userspace/set_freq: ${text[$e]}"
        check "gpu, $e: the daemon keeps running" daemon_alive
        check "gpu, $e: still at its last good frequency (set_freq and CurrentFrequency)" gpu_at 800000000
        rm -f "$faults"
        gpu_load 10
        check "gpu, $e removed: the next evaluation writes" wait_until 5 gpu_at 200000000
        gpu_load 100
        await "gpu goes back up" 5 gpu_at 800000000
done
contains "a write that works again is logged" "$(log_after 0)" "gpu: writing works again"

# --- the dmc: no userspace governor, min_freq/max_freq pinned; percent load samples every tick
dmc_at() {
        [[ $(kread "$dmc/min_freq") == "$1" && $(kread "$dmc/max_freq") == "$1" &&
                $(prop dmc CurrentFrequency) == "$1" ]]
}
"$setload" --percent "$dmc_load" 10
check "dmc, 10% load: pinned to its lowest point" wait_until 5 dmc_at 200000000
for e in EBUSY EIO EINVAL ENODEV; do
        mark=$(wc -l <"$daemon_log")
        # Going up, max_freq is raised first: failing it changes nothing.
        echo "${dmc#/}/max_freq $e" >"$faults"
        "$setload" --percent "$dmc_load" 100
        if wait_until 5 error_has dmc "${text[$e]}"; then
                ok "dmc, $e on max_freq: LastError says '${text[$e]}'"
        else
                not_ok "dmc, $e on max_freq: LastError says '${text[$e]}'"
                diag "LastError: $(prop dmc LastError)"
        fi
        contains "dmc, $e: the log names the attribute and the error" "$(log_after "$mark")" \
                "dmc: write $dmc/max_freq: ${text[$e]}"
        retried() { grep -q "^<7>dmc: write $dmc/max_freq: ${text[$e]} (again)" < <(log_after "$mark"); }
        await "dmc, $e: a later tick retries and fails again" 5 retried
        check "dmc, $e: the daemon keeps running" daemon_alive
        check "dmc, $e: min_freq, max_freq and CurrentFrequency unchanged" dmc_at 200000000
        is "dmc, $e: the error was logged once at error level, not at every tick" \
                "$(log_after "$mark" | grep -c "^<3>dmc: write $dmc/max_freq: ${text[$e]}")" 1
        rm -f "$faults"
        check "dmc, $e removed: the next tick writes" wait_until 5 dmc_at 800000000
        "$setload" --percent "$dmc_load" 10
        await "dmc goes back down" 5 dmc_at 200000000
done

# A pin written half-way: going up, max_freq lands and min_freq fails, which leaves the kernel's own
# governor free between 200 and 800 MHz. The load falls while the fault lasts, so the decision is
# 200 MHz again, the frequency devfreqd last applied: a failed write makes the next evaluation write
# whatever it decides, so once the fault is gone the pin is whole again.
mark=$(wc -l <"$daemon_log")
echo "${dmc#/}/min_freq EBUSY" >"$faults"
"$setload" --percent "$dmc_load" 100
await "dmc, EBUSY on min_freq going up: LastError says so" 5 \
        error_has dmc "write $dmc/min_freq: ${text[EBUSY]}"
is "dmc, half pinned: max_freq raised, min_freq not" "$(kread "$dmc/min_freq") $(kread "$dmc/max_freq")" \
        "200000000 800000000"
is "dmc, half pinned: CurrentFrequency stays at the last good 200 MHz" \
        "$(prop dmc CurrentFrequency)" 200000000
"$setload" --percent "$dmc_load" 10
target_is() { [[ $(prop dmc TargetFrequency) == "$1" ]]; }
await "dmc, the load falls while the fault lasts: the decision is 200 MHz again" 5 target_is 200000000
rm -f "$faults"
if wait_until 5 dmc_at 200000000; then
        ok "dmc, fault removed: pinned at 200 MHz again (min_freq, max_freq and CurrentFrequency)"
else
        not_ok "dmc, fault removed: pinned at 200 MHz again (min_freq, max_freq and CurrentFrequency)"
        diag "min_freq $(kread "$dmc/min_freq"), max_freq $(kread "$dmc/max_freq")," \
                "CurrentFrequency $(prop dmc CurrentFrequency): the decision equal to the frequency last" \
                "applied was not written again after the failed write"
fi
contains "... and the log says writing works again" "$(log_after "$mark")" "dmc: writing works again"

# --- a foreign writer changes set_freq behind the daemon's back
gpu_load 10
await "gpu is at its lowest point" 5 gpu_at 200000000
mark=$(wc -l <"$daemon_log")
kwrite "$gpu/userspace/set_freq" 600000000
gpu_load 10
check "a foreign write to set_freq is overwritten at the next evaluation" wait_until 5 gpu_at 200000000
await "... and logged with both values" 5 logged_since "$mark" \
        "userspace/set_freq was changed to 600 MHz by another writer (devfreqd wrote 200 MHz); overwriting"
like "... and recorded in LastError" "$(prop gpu LastError)" 'another writer'
is "... the overwrite is no write that 'works again' (none failed)" \
        "$(log_after "$mark" | grep -c 'gpu: writing works again' || true)" 0

# --- a foreign writer switches the kernel governor (userspace/set_freq disappears with it)
mark=$(wc -l <"$daemon_log")
kwrite "$gpu/governor" performance
gpu_load 10
governed() {
        [[ $(kread "$gpu/governor") == userspace && $(kread "$gpu/cur_freq") == 200000000 ]] && gpu_at 200000000
}
check "a foreign kernel governor is replaced by userspace at the next evaluation, even with a steady load" \
        wait_until 5 governed
await "... and the log says so, naming it" 5 logged_since "$mark" \
        "the kernel governor was changed to performance by another writer; selected userspace again"
like "... and LastError" "$(prop gpu LastError)" 'kernel governor was changed to performance'

# ... and on a cpufreq policy, where scaling_setspeed stays but reads "<unsupported>"
"$setload" --procstat "$root" 0 10 90
cpu_low() {
        [[ $(kread "$policy0/scaling_governor") == userspace && $(kread "$policy0/scaling_cur_freq") == 800000 ]]
}
check "cpu: a light load takes policy0 to its lowest point" wait_until 5 cpu_low
kwrite "$policy0/scaling_governor" performance
is "cpu: the foreign governor runs it at 2400000 kHz meanwhile" "$(kread "$policy0/scaling_cur_freq")" 2400000
"$setload" --procstat "$root" 0 10 90
check "cpu: userspace is selected again and 800000 kHz written at the next evaluation" wait_until 5 cpu_low

# --- the gpu's devfreq directory disappears
mark=$(wc -l <"$daemon_log")
rm -rf "${root:?}$gpu"
gpu_load 50
gone() { ! bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager GetDevice s gpu \
        >/dev/null 2>&1; }
check "a removed device directory detaches the device: its bus object is gone" wait_until 5 gone
contains "... and the log says so" "$(log_after "$mark")" "gpu: $gpu is gone, detaching the device"
like "... ListDevices has the cpu and the dmc only" \
        "$(bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager ListDevices)" \
        '^a\(so\) 2 "cpu" "[^"]*" "dmc" "[^"]*"$'
check "... the daemon keeps running" daemon_alive
check "... and its originals entry is dropped" bash -c "! grep -q 'ff9a0000' '$tmp/run/originals'"
"$setload" --percent "$dmc_load" 100
check "the dmc is still governed" wait_until 5 dmc_at 800000000

stop_daemon
is "SIGTERM: exit status 0" "$daemon_status" 0
tap_done
