#!/usr/bin/env bash
# Reloading: a good changed file applies (drop-ins included), a broken one leaves the old
# configuration running and names file:line, a device a reload drops gets its originals back.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
busy=$root/sys/devices/platform/ff9a0000.gpu/busy
# write_config GPU_GOVERNOR [EXTRA_GPU_LINE [DMC_SECTION(yes/no) [CPU_MODE]]]
write_config() {
        {
                cat <<EOF
[daemon]
autodiscover = no

[device gpu]
path = /sys/class/devfreq/ff9a0000.gpu
mode = govern
governor = $1
polling-interval = 50ms
load = counters:/sys/devices/platform/ff9a0000.gpu/busy
${2:-}

[device cpu]
path = /sys/devices/system/cpu/cpufreq/policy0
mode = ${4:-govern}
EOF
                [[ ${4:-govern} == govern ]] && echo "governor = performance"
                [[ ${3:-yes} == yes ]] &&
                        printf '\n[device dmc]\npath = /sys/class/devfreq/dmc\nmode = govern\ngovernor = powersave\n'
                true
        } >"$tmp/devfreqd.conf"
}
write_config powersave
# dmc's originals inside its table, so they come back exactly (not as "no limit").
kwrite "$dmc/min_freq" 400000000
kwrite "$dmc/max_freq" 666000000
dmc_orig=$(cat "$root$dmc/governor" "$root$dmc/min_freq" "$root$dmc/max_freq")
cpu_orig_gov=$(cat "$root$policy0/scaling_governor")
# The daemon's log without the debug line of every idle tick.
logtext() { grep -v 'no complete load sample' "$daemon_log" || true; }
start_bus
start_daemon

manager=/org/devfreqd/Devfreq1
reload() {
        : >"$notify_log"
        kill -HUP "$daemon_pid"
        await "READY=1 after SIGHUP" 10 grep -q '^READY=1' "$notify_log"
}
set_freq() { kread "$gpu/userspace/set_freq"; }
gpu_at() { [[ $(set_freq) == "$1" ]]; }

is "start: gpu on powersave" "$(prop gpu Governor)" '"powersave"'
is "... at its lowest point" "$(set_freq)" 200000000
is "dmc is driven (pinned to its lowest point)" "$(kread "$dmc/max_freq")" 200000000

# --- a good, changed file
write_config performance
reload
is "SIGHUP, good file: the new governor is on the bus" "$(prop gpu Governor)" '"performance"'
is "... and applied" "$(set_freq)" 800000000
contains "... and the log says the configuration was reloaded" "$(logtext)" "Configuration reloaded: 3 devices"

# --- a reload checks the kernel governor: another writer's switch is named
kwrite "$gpu/governor" simple_ondemand
reload
is "another writer switched the kernel governor; SIGHUP: userspace again" "$(kread "$gpu/governor")" userspace
check "... at devfreqd's point" wait_until 5 gpu_at 800000000
contains "... the log names the governor found" "$(logtext)" \
        "gpu: the kernel governor was changed to simple_ondemand by another writer; selected userspace again"
like "... and so does LastError" "$(prop gpu LastError)" 'changed to simple_ondemand by another writer'

# --- a drop-in overrides a value of the main file
printf '[device gpu]\ngovernor = simple_ondemand\n' >"$tmp/conf.d/50-gpu.conf"
reload
is "a drop-in's governor wins after SIGHUP" "$(prop gpu Governor)" '"simple_ondemand"'
is "... polling at the configured 50 ms" "$(prop gpu PollingInterval)" 50
await "the load is sampled" 5 samples_used_above gpu 0
"$setload" "$busy" 10 100
check "... and following the load (10%: the lowest point)" wait_until 5 gpu_at 200000000

# --- a broken file: the old configuration stays in force
write_config performance 'upthreshhold = 80'
bad_line=$(grep -n '^upthreshhold' "$tmp/devfreqd.conf" | cut -d: -f1)
log_lines=$(wc -l <"$daemon_log")
reload
log_after=$(log_after "$log_lines")
contains "SIGHUP, broken file: the log names file:line" "$log_after" "$tmp/devfreqd.conf:$bad_line:"
contains "... and says the old configuration stays" "$log_after" "the old one stays in force"
check "the daemon is still running" daemon_alive
is "the old governor (the drop-in's) is still on the bus" "$(prop gpu Governor)" '"simple_ondemand"'
is "... and nothing was re-applied" "$(set_freq)" 200000000
"$setload" "$busy" 100 100
check "the gpu is still governed: a full load takes it to the top" wait_until 5 gpu_at 800000000
is "dmc still driven" "$(kread "$dmc/max_freq")" 200000000
err=$(bctl call org.devfreqd.Devfreq1 "$manager" org.devfreqd.Devfreq1.Manager Reload 2>&1 || true)
contains "Reload() over the bus: InvalidConfiguration with file:line" "$err" "$tmp/devfreqd.conf:$bad_line:"

# --- a reload that drops a device gives it its originals back; a mode change too
rm "$tmp/conf.d/50-gpu.conf"
write_config simple_ondemand '' no clamp
reload
is "dmc, dropped by the reload: its original governor, min and max are back" \
        "$(cat "$root$dmc/governor" "$root$dmc/min_freq" "$root$dmc/max_freq")" "$dmc_orig"
contains "... the log says it was released" "$(logtext)" "dmc: no longer configured, releasing it"
err=$(bctl call org.devfreqd.Devfreq1 "$manager" org.devfreqd.Devfreq1.Manager GetDevice s dmc 2>&1 || true)
contains "... and its bus object is gone" "$err" "No device 'dmc'"
check "... and its entry left the originals file" bash -c "! grep -q '/dmc' '$tmp/run/originals'"
is "cpu, govern -> clamp: Mode is clamp" "$(prop cpu Mode)" '"clamp"'
is "... and the kernel's own governor is back" "$(cat "$root$policy0/scaling_governor")" "$cpu_orig_gov"
is "gpu kept governing across the reloads" "$(kread "$gpu/governor")" userspace

# --- a FIFO in place of the file: Reload fails at once (opening it must not wait for a writer)
saved=$tmp/devfreqd.conf.saved
mv "$tmp/devfreqd.conf" "$saved"
mkfifo "$tmp/devfreqd.conf"
err=$(timeout 20 busctl --address="$bus_address" call org.devfreqd.Devfreq1 "$manager" \
        org.devfreqd.Devfreq1.Manager Reload 2>&1 || true)
contains "Reload() with a FIFO as the configuration: refused at once, saying what it is" "$err" \
        "$tmp/devfreqd.conf: not a regular file (a FIFO)"
check "... and the daemon still answers" bash -c "busctl --address='$bus_address' call org.devfreqd.Devfreq1 '$manager' org.devfreqd.Devfreq1.Manager GetDevice s gpu >/dev/null"
rm "$tmp/devfreqd.conf"
mv "$saved" "$tmp/devfreqd.conf"

# --- saved tunables apply as one set: each SetTunable fits with the values of its moment, so one at
# a time in file order would refuse downdifferential 95 (saved first) against the configured
# upthreshold 90, and erase it
dcall() { bctl call org.devfreqd.Devfreq1 "$manager/device/gpu" org.devfreqd.Devfreq1.Device "$@"; }
dcall SetTunable su downdifferential 80
dcall SetTunable su upthreshold 100
dcall SetTunable su downdifferential 95
pair='2 "upthreshold" 100 "downdifferential" 95'
is "three SetTunable calls: upthreshold 100 with downdifferential 95" "$(prop gpu Tunables)" "$pair"
saved_pair() { grep -c $'^gpu\ttunable:\(upthreshold\t100\|downdifferential\t95\)\t' "$tmp/state/state"; }
is "... both saved, downdifferential first" "$(saved_pair) $(grep -o 'tunable:[a-z]*' "$tmp/state/state" | xargs)" \
        "2 tunable:downdifferential tunable:upthreshold"
reload
is "SIGHUP with the same file keeps the saved pair" "$(prop gpu Tunables)" "$pair"
is "... and the state file too" "$(saved_pair)" 2
stop_daemon
start_daemon
is "a restart applies the saved pair" "$(prop gpu Tunables)" "$pair"
is "... and keeps it in the state file" "$(saved_pair)" 2
check "no saved tunable was forgotten" bash -c '! grep -q "forgetting the saved tunable" "$1"' _ "$daemon_log"

# A saved set that does not fit together as a whole is forgotten whole, and the log names it.
stop_daemon
sed -i $'s/^gpu\ttunable:upthreshold\t100\t/gpu\ttunable:upthreshold\t10\t/' "$tmp/state/state"
start_daemon
is "a saved set that does not fit: the configured tunables" "$(prop gpu Tunables)" \
        '2 "upthreshold" 90 "downdifferential" 5'
contains "... the log names the set and the governor" "$(logtext)" \
        "gpu: forgetting the saved tunables upthreshold = 10, downdifferential = 95: governor simple_ondemand's tunables would be upthreshold = 10, downdifferential = 95, which do not fit together"
check "... and the state file no longer holds them" bash -c '! grep -q "tunable:" "$1"' _ "$tmp/state/state"

stop_daemon
is "exit status 0" "$daemon_status" 0
tap_done
