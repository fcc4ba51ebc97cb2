#!/usr/bin/env bash
# Devices that come and go, through the daemon's real sd_device_monitor: uevents in udev's netlink
# format are sent inside a network namespace of the daemon's own (with /run/udev/control in its own
# mount namespace, libsystemd's sign that udev runs), while the fake root grows or loses nodes.
# Offline CPUs, and suspend/resume through python3-dbusmock's logind.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

if ((EUID != 0)) || ! unshare --net --mount true 2>/dev/null; then
        echo "1..0 # SKIP needs root and network and mount namespaces (unshare --net --mount)"
        exit 0
fi
if ! "$PYTHON3" -c 'import dbusmock' 2>/dev/null; then
        echo "1..0 # SKIP python3-dbusmock is not installed (tools/bootstrap installs it)"
        exit 0
fi

sender=$top_srcdir/tests/fixtures/uevent-send.py
make_root --gpus 1
gpu0=/sys/devices/platform/gpu0/devfreq/gpu0
# gpu0's driver is not bound yet: its node is kept aside, and made afresh each time it appears (a
# driver creates a new node; the old one's directory is gone for good).
mkdir -p "$tmp/away"
mv "$root/sys/devices/platform/gpu0" "$tmp/away/gpu0"
mv "$root/sys/class/devfreq/gpu0" "$tmp/away/gpu0.link"
appear() { cp -a "$tmp/away/gpu0" "$root/sys/devices/platform/gpu0" && cp -a "$tmp/away/gpu0.link" "$root/sys/class/devfreq/gpu0"; }
vanish() { rm -rf "$root/sys/devices/platform/gpu0" "$root/sys/class/devfreq/gpu0"; }

cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

[device gpu0]
path = /sys/class/devfreq/gpu0
mode = govern
governor = userspace
initial-frequency = 400MHz

$(gpu_userspace_section)
initial-frequency = 600MHz

$(cpu_userspace_section)
initial-frequency = 1.6GHz

$(dmc_clamp_section)
EOF

# The daemon in network and mount namespaces of its own; /run is a tmpfs there.
cat >"$tmp/hotplug-ns.sh" <<'EOS'
#!/bin/bash
set -e
mount -t tmpfs tmpfs /run
mkdir /run/udev
: >/run/udev/control
exec "$@"
EOS
chmod +x "$tmp/hotplug-ns.sh"
daemon_prefix=(unshare --net --mount --propagation private "$tmp/hotplug-ns.sh")
# uevent ARGS...: uevent-send.py in the daemon's network namespace.
uevent() { nsenter --net="/proc/$daemon_pid/ns/net" "$PYTHON3" "$sender" "$@"; }

start_bus
start_daemon
contains "a configured device absent at start: start-up goes on, and the log says it waits" \
        "$(cat "$daemon_log")" "gpu0: /sys/class/devfreq/gpu0 does not exist (yet); waiting for it to appear"
on_bus() { [[ $(mcall GetDevice s "$1" 2>/dev/null) == "o \"$(dev_path "$1")\"" ]]; }
not_on_bus() { ! on_bus "$1"; }
check "... and it is not on the bus" not_on_bus gpu0

# ================================================================ a node appears
# busctl itself in the background, so that the PID tracked for the cleanup is the monitor's.
busctl --address="$bus_address" --json=short monitor "$name" >"$tmp/monitor.json" 2>/dev/null &
track $!
"$devfreqctl" monitor >"$tmp/devfreqctl-monitor.out" 2>&1 &
track $!
appear
uevent add devfreq /devices/platform/gpu0/devfreq/gpu0
check "a devfreq node appears: attached and on the bus" wait_until $((5 * slow)) on_bus gpu0
is "... driven as configured" "$(kread "$gpu0/governor") $(kread "$gpu0/userspace/set_freq")" "userspace 400000000"
check "... its originals were saved first" grep -q "^$gpu0	simple_ondemand	" "$tmp/run/originals"
like "... Devices lists it" "$(getv "$manager_path" "$manager_iface" Devices)" "gpu0"
saw_added() { grep -q '"member":"InterfacesAdded".*gpu0' "$tmp/monitor.json"; }
check "... InterfacesAdded was sent" wait_until 5 saw_added

# kill -9 right after: the next start restores it from the originals file
stop_daemon KILL
log_at=$(wc -l <"$daemon_log")
start_daemon
contains "kill -9 after a hotplug: the next start restores the new node" \
        "$(log_after "$log_at")" "$gpu0: original settings restored (left by an earlier run)"
check "... and attaches it again" wait_until 5 on_bus gpu0

# ================================================================ it goes, and comes back
dcall gpu0 SetGovernor s performance
client_start a
req=$(client_cmd a add gpu0 min-frequency 300000000)
like "a request on gpu0" "$req" '^ok '
req=${req#ok }
# monitor_count TEXT: how many lines of devfreqctl monitor's output hold TEXT.
monitor_count() { grep -c "$1" "$tmp/devfreqctl-monitor.out" || true; }
removed_before=$(monitor_count "gpu0: device removed")
vanish
uevent remove devfreq /devices/platform/gpu0/devfreq/gpu0
check "the node goes: its object goes" wait_until $((5 * slow)) not_on_bus gpu0
saw_removed() { grep -q '"member":"InterfacesRemoved".*request' "$tmp/monitor.json"; }
check "... its request goes, with InterfacesRemoved" wait_until 5 saw_removed
check "... its originals record is dropped" bash -c "! grep -q '^$gpu0	' '$tmp/run/originals'"
client_stop a
added_before=$(monitor_count "gpu0: device added")
appear
uevent add devfreq /devices/platform/gpu0/devfreq/gpu0
check "it comes back: attached again" wait_until $((5 * slow)) on_bus gpu0
# more TEXT BEFORE: monitor's output holds TEXT on more lines than BEFORE.
more() { (($(monitor_count "$1") > $2)); }
check "devfreqctl monitor shows it leaving" wait_until 5 more "gpu0: device removed" "$removed_before"
check "... and arriving again" wait_until 5 more "gpu0: device added" "$added_before"
is "... with the governor persisted for its name" "$(dget gpu0 Governor)" performance

# ================================================================ replaced, its remove event lost
# A driver rebound while the remove uevent was lost: only the add is heard, for a path that is
# attached already. The node there is another one: the old device goes and the new one is attached.
client_start a
req=$(client_cmd a add gpu0 min-frequency 300000000)
like "a request on gpu0 before it is replaced" "$req" '^ok '
req=${req#ok }
vanish
appear
is "the new node starts as its driver made it" "$(kread "$gpu0/governor")" simple_ondemand
log_at=$(wc -l <"$daemon_log")
uevent add devfreq /devices/platform/gpu0/devfreq/gpu0
driven() { [[ $(kread "$gpu0/governor") == userspace ]]; }
check "only the add is heard: the new node is driven as configured" wait_until $((5 * slow)) driven
contains "... the log says the old one went and the path is attached afresh" \
        "$(log_after "$log_at")" "gpu0: $gpu0 went away and came back; attaching it afresh"
req_gone() { ! getp "$req" "$request_iface" Value >/dev/null 2>&1; }
check "... the old device's request went with it" wait_until 5 req_gone
check "... and gpu0 is on the bus" on_bus gpu0
check "... its originals are the new node's" grep -q "^$gpu0	simple_ondemand	" "$tmp/run/originals"
client_stop a

# ================================================================ unrelated and malformed uevents
sum=$(tree_sum)
devices=$(getv "$manager_path" "$manager_iface" Devices)
uevent --unrelated 1000
uevent --bad-header
uevent --no-devpath devfreq
uevent add devfreq "/devices/platform/../../../etc"
ln -s / "$root/sys/devices/platform/escape"
uevent add devfreq /devices/platform/escape/devfreq/x
check "after 1000 unrelated and some malformed uevents the daemon serves" serving gpu
is "... no device was attached" "$(getv "$manager_path" "$manager_iface" Devices)" "$devices"
is "... and nothing was written" "$(tree_sum)" "$sum"
contains "... a DEVPATH with .. is ignored with a debug line" "$(cat "$daemon_log")" \
        "ignoring DEVPATH '/devices/platform/../../../etc'"

# ================================================================ a CPU goes offline and comes back
echo >"$root$policy0/affected_cpus"
uevent offline cpu /devices/system/cpu/cpu0
uevent offline cpu /devices/system/cpu/cpu1
offline_logged() { grep -q "cpu: every CPU of the policy is offline" "$daemon_log"; }
check "every CPU of a policy offline: the daemon leaves it alone" wait_until 5 offline_logged
ino() { stat -c %i "$root$1"; }
before=$(ino "$policy0/scaling_setspeed")
dcall cpu SetFrequency t 1200000000
is "... a new frequency is not written while it is offline" "$(ino "$policy0/scaling_setspeed")" "$before"
kwrite "$policy0/scaling_governor" schedutil # the kernel set the policy up afresh
echo "0 1" >"$root$policy0/affected_cpus"
uevent online cpu /devices/system/cpu/cpu0
back() { [[ $(kread "$policy0/scaling_governor") == userspace && $(kread "$policy0/scaling_setspeed") == 1200000 ]]; }
check "a CPU online again: the policy is applied in full" wait_until 5 back

# ================================================================ the cpufreq driver reloaded
# Unregistering a cpufreq driver removes its policies' directories and registering it makes them
# afresh, with no `cpu` uevent; the driver's module sends its own (subsystem "module").
cp -a "$root$policy0" "$tmp/away/policy0"
rm -rf "$root$policy0"
uevent remove module /module/acpi_cpufreq
gone_logged() { grep -q "cpu: $policy0 went away" "$daemon_log"; }
check "a cpufreq driver's module unloaded: the gone policy is detached" wait_until 5 gone_logged
check "... and it is not on the bus" wait_until 5 not_on_bus cpu
cp -a "$tmp/away/policy0" "$root$policy0"
kwrite "$policy0/scaling_governor" schedutil # a new policy, under the kernel's default governor
printf '<unsupported>\n' >"$root$policy0/scaling_setspeed"
uevent add module /module/acpi_cpufreq
check "... loaded again: the new policy at the same path is attached" wait_until 5 on_bus cpu
fresh() { [[ $(kread "$policy0/scaling_governor") == userspace && $(kread "$policy0/scaling_setspeed") == 1200000 ]]; }
wait_until 5 fresh || true
is "... and applied in full (userspace, the 1.2 GHz set over the bus before, kept for its name)" \
        "$(kread "$policy0/scaling_governor") $(kread "$policy0/scaling_setspeed")" "userspace 1200000"

# ================================================================ a reload while its CPUs are offline
log_at=$(wc -l <"$daemon_log")
echo >"$root$policy0/affected_cpus"
uevent offline cpu /devices/system/cpu/cpu0
uevent offline cpu /devices/system/cpu/cpu1
offline_again() { logged_since "$log_at" "cpu: every CPU of the policy is offline"; }
check "offline again" wait_until 5 offline_again
sed -i 's/^initial-frequency = 1.6GHz$/initial-frequency = 800MHz\nmax-frequency = 800MHz/' "$tmp/devfreqd.conf"
check "a reload while a policy's CPUs are offline (nothing of it can be read) succeeds" eval 'mcall Reload >/dev/null'
check "... and keeps the policy on the bus" on_bus cpu
contains "... and says the new configuration waits for a CPU" "$(log_after "$log_at")" \
        "cpu: every CPU of the policy is offline; the new configuration reaches it when one is back"
echo "0 1" >"$root$policy0/affected_cpus"
uevent online cpu /devices/system/cpu/cpu0
at_800() { [[ $(kread "$policy0/scaling_setspeed") == 800000 ]]; }
check "... a CPU back: the reloaded configuration applies (max-frequency 800 MHz)" wait_until 5 at_800
await "... as a change of its configuration" 5 logged_since "$log_at" "cpu: its configuration changed"
is "... MaxFrequency on the bus" "$(prop cpu MaxFrequency)" 800000000

# ================================================================ suspend and resume
"$PYTHON3" -m dbusmock --system --template logind >>"$tmp/logind.log" 2>&1 &
track $!
logind_owned() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s org.freedesktop.login1) == *true* ]]; }
check "logind appears after devfreqd started" wait_until $((10 * slow)) logind_owned
sleep_signal() {
        bctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.DBus.Mock EmitSignal \
                sssav org.freedesktop.login1.Manager PrepareForSleep b 1 b "$1" >/dev/null
}
client_start b
client_cmd b add dmc max-frequency 666000000 >/dev/null
is "a request holds dmc's limits" "$(kread "$dmc/max_freq")" 666000000
cpu_inodes="$(ino "$policy0/scaling_governor") $(ino "$policy0/scaling_setspeed")"
dmc_max=$(ino "$dmc/max_freq")
sleep_signal true
# the firmware resets the GPU during the sleep
kwrite "$gpu/governor" simple_ondemand
log_at=$(wc -l <"$daemon_log")
sleep_signal false
gpu_back() { [[ $(kread "$gpu/governor") == userspace && $(kread "$gpu/userspace/set_freq") == 600000000 ]]; }
check "resume: the reset kernel governor and set_freq are written again" wait_until 5 gpu_back
fixed_logged() { logged_since "$log_at" "gpu: its settings were reset during the sleep; written again"; }
check "... and the device is logged as fixed" wait_until 5 fixed_logged
is "... a device nobody reset gets no governor or set_freq write" \
        "$(ino "$policy0/scaling_governor") $(ino "$policy0/scaling_setspeed")" "$cpu_inodes"
dmc_rewritten() { [[ $(ino "$dmc/max_freq") != "$dmc_max" ]]; }
check "... clamp mode's limits are written again (never compared)" wait_until 5 dmc_rewritten
check "... and its value is devfreqd's" test "$(kread "$dmc/max_freq")" = 666000000
client_stop b

# ================================================================ a policy offline at start
stop_daemon
echo >"$root$policy0/affected_cpus"
log_at=$(wc -l <"$daemon_log")
start_daemon
contains "a configured policy whose CPUs are all offline at start: start-up goes on, and the log says it waits" \
        "$(log_after "$log_at")" \
        "cpu: every CPU of $policy0 is offline; it is attached when one is back"
check "... it is not on the bus" not_on_bus cpu
echo "0 1" >"$root$policy0/affected_cpus"
uevent online cpu /devices/system/cpu/cpu0
check "... a CPU online: attached and on the bus" wait_until 5 on_bus cpu
check "... and driven as configured" wait_until 5 at_800

stop_daemon
is "devfreqd exits cleanly" "$daemon_status" 0

# ================================================ a crashed run's record, its policy offline at start
# A run caps the policy in clamp mode and is killed; the next one starts with every CPU of the
# policy offline, so the record cannot be written back then. When a CPU is back it is (the cap is
# the crashed run's, not another writer's), and SIGTERM leaves the originals.
clamp_conf() {
        printf '%s\n' "[daemon]" "autodiscover = no" "" "[device cpu]" "path = $policy0" "mode = clamp" "$@" \
                >"$tmp/devfreqd.conf"
}
record_originals "$policy0"
clamp_conf "max-frequency = 1.6GHz"
start_daemon
capped() { [[ $(kread "$policy0/scaling_max_freq") == 1600000 ]]; }
check "clamp run: the policy is capped at 1.6 GHz" wait_until 5 capped
stop_daemon KILL
echo >"$root$policy0/affected_cpus"
clamp_conf
log_at=$(wc -l <"$daemon_log")
start_daemon
contains "a new run with the policy offline cannot restore the crashed run's record yet" \
        "$(log_after "$log_at")" "cannot open it to restore its original settings"
echo "0 1" >"$root$policy0/affected_cpus"
uevent online cpu /devices/system/cpu/cpu0
uncapped() { [[ $(kread "$policy0/scaling_max_freq") == 2400000 ]]; }
check "... a CPU online: the record is written back when the policy attaches" wait_until 5 uncapped
await "... and the log says so" 5 logged_since "$log_at" \
        "cpu: original settings restored (owed since an earlier run or attempt)"
stop_daemon TERM
is "... devfreqd exits cleanly" "$daemon_status" 0
check_restored "a crashed run's record restored once its policy is back, then SIGTERM"

# ================================================ a policy dropped by a reload while its CPUs are offline
# Its restore fails (the kernel refuses every access to an inactive policy with EBUSY); the record
# is owed: written back when a CPU is back, and at exit counted as a failure while it cannot be.
faults=$root/fakekernel.faults
offline_busy() {
        echo >"$root$policy0/affected_cpus"
        local a
        for a in scaling_governor scaling_min_freq scaling_max_freq scaling_setspeed scaling_available_governors; do
                echo "${policy0#/}/$a EBUSY"
        done >"$faults"
        uevent offline cpu /devices/system/cpu/cpu0
        uevent offline cpu /devices/system/cpu/cpu1
}
cpus_back() {
        rm -f "$faults"
        echo "0 1" >"$root$policy0/affected_cpus"
}
online_again() {
        cpus_back
        uevent online cpu /devices/system/cpu/cpu0
}
# offline_and_dropped: every CPU of the policy offline, then a reload of a configuration without
# it; log_at is where the log of it starts.
offline_and_dropped() {
        log_at=$(wc -l <"$daemon_log")
        offline_busy
        check "its CPUs go offline" wait_until 5 offline_again
        printf '%s\n' "[daemon]" "autodiscover = no" "" "$(dmc_clamp_section)" >"$tmp/devfreqd.conf"
        mcall Reload >/dev/null
}
record_originals "$policy0"
clamp_conf "max-frequency = 1.6GHz"
start_daemon
check "a clamp run caps the policy" wait_until 5 capped
offline_and_dropped
contains "a reload drops it: its restore fails while its CPUs are offline" \
        "$(log_after "$log_at")" "cpu: restoring the original settings of $policy0 failed"
check "... its record stays" grep -q "^$policy0	" "$tmp/run/originals"
online_again
check "... a CPU back: the record is written back although nothing manages the policy" wait_until 5 uncapped
await "... and the log says so" 5 logged_since "$log_at" \
        "$policy0: original settings restored (owed since an earlier run or attempt)"
check "... its record is gone" wait_until 5 bash -c "! grep -q '^$policy0	' '$tmp/run/originals'"
check_restored "a policy dropped while offline, restored when a CPU is back"
# The same, but the daemon stops before a CPU is back: exit 1, the record kept for --restore.
clamp_conf "max-frequency = 1.6GHz"
mcall Reload >/dev/null
check "the policy configured again is capped again" wait_until 5 capped
offline_and_dropped
stop_daemon TERM
is "SIGTERM while a dropped policy is still owed its restore: exit 1" "$daemon_status" 1
contains "... the log says why" "$(log_after "$log_at")" \
        "1 nodes devfreqd no longer manages kept its settings; their originals stay for devfreqd --restore"
check "... its record stays for --restore" grep -q "^$policy0	" "$tmp/run/originals"
cpus_back
out=$(LD_PRELOAD=$fakekernel "$devfreqd" --root "$root" --runtime-dir "$tmp/run" --restore 2>&1)
contains "--restore writes it back once a CPU is back" "$out" "$policy0: original settings restored"
check_restored "a dropped policy's record restored by --restore"

# ================================================ a polled policy offline: its timer goes
# Nothing is sampled while every CPU of the policy is offline: no timer wakes the daemon for it.
printf '%s\n' "[daemon]" "autodiscover = no" "" "$(cpu_ondemand_section 50ms)" >"$tmp/devfreqd.conf"
log_at=$(wc -l <"$daemon_log")
start_daemon
timers() { log_after "$log_at" | grep -c "$1" || true; }
armed() { (($(timers 'A poll timer every 50000 us') >= $1)); }
freed() { (($(timers 'No poll timer every 50000 us any more') >= 1)); }
check "a policy on ondemand every 50 ms: a poll timer" wait_until 5 armed 1
echo >"$root$policy0/affected_cpus"
uevent offline cpu /devices/system/cpu/cpu0
uevent offline cpu /devices/system/cpu/cpu1
check "... every CPU offline: the timer goes" wait_until 5 freed
echo "0 1" >"$root$policy0/affected_cpus"
uevent online cpu /devices/system/cpu/cpu0
check "... a CPU back: a timer again" wait_until 5 armed 2
stop_daemon TERM
is "... devfreqd exits cleanly" "$daemon_status" 0

# ================================================ a resume whose first reading gives no sample
# The sample spanning a sleep is dropped. When the driver reset its counters over the sleep, the
# first reading after it gives no sample at all; the next one starts after the sleep and counts.
# A 2 s polling interval: the sleep and the resume come between two readings.
busy=$root/sys/devices/platform/ff9a0000.gpu/busy
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_load_section 2s)
EOF
log_at=$(wc -l <"$daemon_log")
start_daemon
gpu_at() { [[ $(kread "$gpu/userspace/set_freq") == "$1" ]]; }
load_is() { [[ $(prop gpu Load) == "$1" ]]; }
first_reading() { logged_since "$log_at" "gpu: no complete load sample"; }
check "a polled GPU: the first reading" wait_until 10 first_reading
"$setload" "$busy" 50 100
check "a polled GPU takes a 50 % sample" wait_until 10 load_is 50
sleep_signal true
printf '0 0\n' >"$busy.new" && mv -f "$busy.new" "$busy" # the driver resets its counters
log_at=$(wc -l <"$daemon_log")
sleep_signal false
read_after_resume() {
        [[ $(grep -A 1000 "Resumed from sleep" < <(log_after "$log_at")) == *"gpu: no complete load sample"* ]]
}
check "... the first reading after the resume, counters reset, gives no sample" wait_until 10 read_after_resume
"$setload" "$busy" 99 100
check "... the next sample, all after the sleep, counts: the highest point" wait_until 10 gpu_at 800000000
stop_daemon
is "... devfreqd exits cleanly" "$daemon_status" 0
tap_done
