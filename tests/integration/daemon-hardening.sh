#!/usr/bin/env bash
# What a crash, a hostile file or a changed configuration must not do: reload after persisted
# choices met changed values (once a use-after-free), crash recovery before a mode change, the
# userspace governor's frequency restored, failed restores kept, untrusted records refused, the
# file modes, no write when the originals cannot be saved, and a state file that cannot be read
# left as it is.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

manager=/org/devfreqd/Devfreq1
dev_iface=org.devfreqd.Devfreq1.Device
dcall() {
        local dev=$1
        shift
        bctl call org.devfreqd.Devfreq1 "$manager/device/$dev" "$dev_iface" "$@"
}
reload() { bctl call org.devfreqd.Devfreq1 "$manager" org.devfreqd.Devfreq1.Manager Reload; }
state_has() { grep -q "$1" "$tmp/state/state"; }
orig_file=$tmp/run/originals
faults=$root/fakekernel.faults

# gpu_config EXTRA...: gpu governed by simple_ondemand, one more line per argument.
gpu_config() {
        {
                printf '[daemon]\nautodiscover = no\n\n'
                gpu_load_section 1s
                printf '%s\n' "$@"
        } >"$tmp/devfreqd.conf"
}

make_root
start_bus

# ---------------------------------------------------------------- persisted choices, then reload
gpu_config
start_daemon
dcall gpu SetTunable su upthreshold 70
dcall gpu SetOperatingPoint tb 200000000 false
check "a saved tunable and a saved point are in the state file" \
        bash -c "grep -q 'tunable:upthreshold' '$tmp/state/state' && grep -q 'opp:200000000' '$tmp/state/state'"
is "the state file is root's alone" "$(stat -c %a "$tmp/state/state")" 600
is "the originals file is root's alone" "$(stat -c %a "$orig_file")" 600

gpu_config "upthreshold = 80" "opp-disabled = 400MHz"
check "reload after both configured values changed answers" reload
check "... and the daemon still serves" daemon_alive
like "... the configuration's tunable wins" "$(prop gpu Tunables)" '"upthreshold" 80'
check "... the saved tunable is forgotten" bash -c "! grep -q 'tunable:upthreshold' '$tmp/state/state'"
like "... 400 MHz is disabled, as configured" "$(prop gpu OperatingPoints)" '400000000 0 0 false'

# governor and frequency: the configured governor changes after a saved one
dcall gpu SetGovernor s userspace
dcall gpu SetFrequency t 300000000
check "a saved governor and frequency" bash -c "grep -q 'frequency' '$tmp/state/state'"
{
        printf '[daemon]\nautodiscover = no\n\n'
        gpu_load_section 1s | sed 's/^governor = .*/governor = performance/'
        printf 'initial-frequency = 600MHz\n'
} >"$tmp/devfreqd.conf"
check "reload after the governor and initial frequency changed answers" reload
check "... and the daemon still serves" daemon_alive
is "... the configured governor wins" "$(prop gpu Governor)" '"performance"'
check "... the saved governor and frequency are forgotten" \
        bash -c "! grep -qE 'governor|frequency' '$tmp/state/state' 2>/dev/null"
stop_daemon
is "the daemon exits 0" "$daemon_status" 0

# ---------------------------------------------------------------- crash, then a mode change
rm -f "$tmp/state/state"
gov_before=$(kread "$gpu/governor")
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)
EOF
start_daemon
is "govern mode puts the kernel's userspace governor on the gpu" "$(kread "$gpu/governor")" userspace
stop_daemon KILL
sed -i 's/^mode = govern/mode = clamp/; /^governor = /d' "$tmp/devfreqd.conf"
start_daemon
is "after kill -9 and a switch to clamp mode, the kernel governor is the original one" \
        "$(kread "$gpu/governor")" "$gov_before"
is "... and the bus says so" "$(prop gpu Governor)" "\"$gov_before\""
stop_daemon

# ---------------------------------------------------------------- the userspace governor's frequency
kwrite "$gpu/governor" userspace
kwrite "$gpu/userspace/set_freq" 300000000
kwrite "$policy0/scaling_governor" userspace
kwrite "$policy0/scaling_setspeed" 1200000
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)
initial-frequency = 800MHz

[device cpu]
path = /sys/devices/system/cpu/cpufreq/policy0
mode = govern
governor = performance
EOF
start_daemon
is "the gpu is driven to 800 MHz" "$(kread "$gpu/userspace/set_freq")" 800000000
is "the policy is driven to 2.4 GHz" "$(kread "$policy0/scaling_setspeed")" 2400000
stop_daemon
is "SIGTERM: the gpu's set_freq from before the start is back" "$(kread "$gpu/userspace/set_freq")" 300000000
is "... and the policy's scaling_setspeed" "$(kread "$policy0/scaling_setspeed")" 1200000
is "... under the userspace governor" "$(kread "$gpu/governor") $(kread "$policy0/scaling_governor")" \
        "userspace userspace"
is "... and devfreqd exits 0" "$daemon_status" 0

# ---------------------------------------------------------------- a restore that fails at SIGTERM
start_daemon
echo "${gpu#/}/governor EBUSY" >"$faults"
log_at=$(wc -l <"$daemon_log")
stop_daemon
: >"$faults"
after=$(log_after "$log_at")
is "SIGTERM, the gpu's governor refused: devfreqd exits 1 (systemd sees the stop fail)" "$daemon_status" 1
contains "... the refusal is logged with the reason" "$after" \
        "gpu: restoring the original settings of $gpu failed: write $gpu/governor: Device or resource busy"
contains "... and what is left, with what to do" "$after" \
        "1 of 2 devices kept devfreqd's settings; their originals stay for devfreqd --restore"
check "... the gpu's record stays" grep -q "$gpu" "$orig_file"
check "... the policy's, written back, is gone" bash -c "! grep -q '$policy0' '$orig_file'"
is "... the policy's scaling_setspeed is back" "$(kread "$policy0/scaling_setspeed")" 1200000
out=$(LD_PRELOAD=$fakekernel "$devfreqd" --root "$root" --runtime-dir "$tmp/run" --restore 2>&1)
contains "--restore writes the gpu's back" "$out" "$gpu: original settings restored"
is "... its set_freq from before the start" "$(kread "$gpu/userspace/set_freq")" 300000000
check "... and the originals file is gone" test ! -e "$orig_file"
kwrite "$gpu/governor" simple_ondemand
kwrite "$policy0/scaling_governor" schedutil

# ---------------------------------------------------------------- a failed restore keeps its record
start_daemon
stop_daemon KILL
check "kill -9 leaves the gpu's record" grep -q "$gpu" "$orig_file"
echo "${gpu#/}/max_freq EBUSY" >"$faults"
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(dmc_clamp_section)
EOF
log_at=$(wc -l <"$daemon_log")
start_daemon
after=$(log_after "$log_at")
contains "a leftover node's failed restore is logged with the reason" "$after" \
        "restoring the original settings failed, keeping them to retry: write $gpu/max_freq: Device or resource busy"
check "... and its record stays" grep -q "$gpu" "$orig_file"
stop_daemon
: >"$faults"
out=$(LD_PRELOAD=$fakekernel "$devfreqd" --root "$root" --runtime-dir "$tmp/run" --restore 2>&1)
contains "--restore restores it once the fault is gone" "$out" "$gpu: original settings restored"
is "... the kernel governor is back" "$(kread "$gpu/governor")" simple_ondemand
check "... and the originals file is gone" test ! -e "$orig_file"

# ---------------------------------------------------------------- records that are not trusted
dmc_before=$(cat "$root$dmc/governor" "$root$dmc/max_freq")
cpu_before=$(kread "$policy0/scaling_max_freq")
kwrite "$gpu/governor" performance
printf '%s\n' "# devfreqd originals v1: path governor min max hw_min hw_max (node units)" \
        "$gpu	simple_ondemand	200000000	800000000	200000000	800000000" \
        "$dmc	userspace	200000000	800000000	200000000	800000000" \
        "$policy0	schedutil	800000	7	800000	2400000" \
        "/proc/sys/kernel	schedutil	800000	2400000	800000	2400000" \
        "/sys/class/devfreq/gone	simple_ondemand	0	0	100	200" >"$orig_file"
# A block of zeros in a record (a crash can leave one): that record goes, not the ones after it.
{ head -n 1 "$orig_file" && printf '%s\tsimple\0\0\0\0ondemand\t0\n' "$gpu" && tail -n +2 "$orig_file"; } >"$orig_file.new"
mv "$orig_file.new" "$orig_file"
printf '[daemon]\nautodiscover = no\n' >"$tmp/devfreqd.conf"
log_at=$(wc -l <"$daemon_log")
start_daemon
after=$(log_after "$log_at")
is "a first-release (six-field) record is restored" "$(kread "$gpu/governor")" simple_ondemand
contains "... and logged" "$after" "$gpu: original settings restored (left by an earlier run)"
is "a governor the node does not offer is not written" "$(cat "$root$dmc/governor" "$root$dmc/max_freq")" \
        "$dmc_before"
contains "... the record is refused with a warning" "$after" "the recorded governor 'userspace' is not one"
is "a frequency outside the hardware range is not written" "$(kread "$policy0/scaling_max_freq")" "$cpu_before"
contains "... refused with a warning" "$after" "the recorded max '7' is outside the hardware range"
contains "a /proc path is no record at all" "$after" "ignoring a malformed record"
contains "a record with NUL bytes is refused, line 2" "$after" "originals:2: ignoring a malformed record"
check "a record of an absent node is kept" grep -q "/sys/class/devfreq/gone" "$orig_file"
check "... the refused ones are not" bash -c "! grep -qE '^$dmc|^/proc/' '$orig_file'"
stop_daemon
rm -f "$orig_file"

# ---------------------------------------------------------------- the originals cannot be saved
if ((EUID == 0)) && unshare --mount true 2>/dev/null; then
        cat >"$tmp/ro-run.sh" <<'EOF'
#!/bin/bash
# The runtime directory read-only in this process's own mount namespace, then the daemon.
set -e
mount --bind "$RO_DIR" "$RO_DIR"
mount -o remount,bind,ro "$RO_DIR"
exec "$@"
EOF
        chmod +x "$tmp/ro-run.sh"
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)
initial-frequency = 400MHz
EOF
        gov_before=$(kread "$gpu/governor")
        sum_before=$(tree_sum)
        export RO_DIR=$tmp/run
        daemon_prefix=(unshare --mount --propagation private "$tmp/ro-run.sh")
        start_daemon
        daemon_prefix=()
        is "originals that cannot be saved: the gpu is not written" "$(tree_sum)" "$sum_before"
        like "... its LastError says why" "$(prop gpu LastError)" "recording the original settings failed"
        is "... its kernel governor is untouched" "$(kread "$gpu/governor")" "$gov_before"
        stop_daemon
        is "... and the daemon still exits 0" "$daemon_status" 0
else
        skip "originals that cannot be saved: needs root and mount namespaces (unshare --mount)"
fi

# ---------------------------------------------------------------- a state file with NUL bytes
# A block of zeros in one record: that record is ignored, the ones after it apply and are kept.
gpu_config
mkdir -p "$tmp/state"
{
        printf '# devfreqd state v1: device key value configuration-value-when-chosen\n'
        printf 'gpu\ttunable:upthreshold\t7\0\0\0\0garbage\t-\n'
        printf 'gone\tgovernor\tpowersave\tgovern:performance\n'
        printf 'gpu\tgovernor\tperformance\tgovern:simple_ondemand\n'
} >"$tmp/state/state"
log_at=$(wc -l <"$daemon_log")
start_daemon
contains "a state record with NUL bytes is ignored, line 2" "$(log_after "$log_at")" \
        "state:2: ignoring a malformed record"
is "... the record after it applies" "$(prop gpu Governor)" "\"performance\""
dcall gpu SetOperatingPoint tb 400000000 false
check "... the next save keeps it" state_has "gpu	governor	performance"
check "... and the record of an absent device" state_has "gone	governor	powersave"
stop_daemon
rm -f "$tmp/state/state"

# ---------------------------------------------------------------- a state file that cannot be read
# Over 16 MiB: read_file() refuses it (EFBIG). Its choices are not applied, and this run's choices
# must not replace them.
gpu_config
mkdir -p "$tmp/state"
truncate -s 17M "$tmp/state/state"
sum_state=$(md5sum <"$tmp/state/state")
start_daemon
check "an unreadable state file: the daemon starts" daemon_alive
check "... and says so" wait_until 5 grep -q "starting without saved choices and leaving the file as it is" "$daemon_log"
dcall gpu SetTunable su upthreshold 70
like "... a choice still applies" "$(prop gpu Tunables)" '"upthreshold" 70'
is "... but the file is left as it was" "$(md5sum <"$tmp/state/state")" "$sum_state"
stop_daemon
is "... and the daemon exits 0" "$daemon_status" 0
rm -f "$tmp/state/state"

tap_done
