#!/usr/bin/env bash
# A node gone without a uevent (no udevd, as in a minimal system; a module unloaded): on a real
# kernel `devfreqctl status` then failed as a whole. One dead device must not break the table:
# the other devices are listed, and the dead one with them until it is detached.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF2
[daemon]
autodiscover = yes
EOF2
start_bus
start_daemon

like "before: the GPU in the table" "$("$devfreqctl" status 2>&1)" 'ff9a0000\.gpu +devfreq +clamp'
cp -a "$root/sys/devices/platform/ff9a0000.gpu" "$tmp/gpu.dir"
cp -a "$root/sys/class/devfreq/ff9a0000.gpu" "$tmp/gpu.link"
rm -rf "$root/sys/devices/platform/ff9a0000.gpu" "$root/sys/class/devfreq/ff9a0000.gpu"
out=$("$devfreqctl" status 2>&1) && rc=0 || rc=$?
is "the GPU's node removed without a uevent: devfreqctl status still succeeds" "$rc" 0
[[ $rc == 0 ]] || diag "$out"
like "... and lists the other devices" "$out" 'dmc +devfreq +clamp'
# Bus reads do no I/O: until an access finds the node gone, the device shows what was last read.
like "... the dead device's AvailableGovernors reads, not an error" "$(dget ff9a0000.gpu AvailableGovernors)" '^[0-9]+'
check "... and GetAll on it succeeds" bctl call "$name" "$(dev_path ff9a0000.gpu)" org.freedesktop.DBus.Properties \
        GetAll s "$device_iface"

# The device added back at the same path, still without a uevent (a module reloaded): the old
# node's directory is gone for good, so the first access fails; devfreqd detaches the dead device
# and finds the new one at its path.
cp -a "$tmp/gpu.dir" "$root/sys/devices/platform/ff9a0000.gpu"
cp -a "$tmp/gpu.link" "$root/sys/class/devfreq/ff9a0000.gpu"
client_start a
client_cmd a add ff9a0000.gpu min-frequency 400000000 >/dev/null
check "added back: the first access finds the node dead and the new one is attached" \
        wait_until 10 grep -q 'ff9a0000.gpu appeared; attaching it' "$daemon_log"
like "... a request made then is accepted" "$(client_cmd a add ff9a0000.gpu min-frequency 400000000)" '^ok '
gpu_min_is() { [[ $(kread "$gpu/min_freq") == "$1" ]]; }
check "... and written to the new node" wait_until 10 gpu_min_is 400000000
client_stop a
# The floor is given back by writing 0 (no limit); min_freq then reads the effective minimum,
# the lowest point of the GPU's table (200 MHz), as on a real kernel.
check "... its end gives the floor back (0: no limit, reads the lowest point)" wait_until 10 gpu_min_is 200000000
# A cpufreq driver unloaded and loaded again (no `cpu` uevent, and here no uevent at all): its
# policies' directories go and come back at the same paths; the first access finds the old one dead.
cp -a "$root$policy0" "$tmp/policy0.dir"
rm -rf "$root$policy0"
cp -a "$tmp/policy0.dir" "$root$policy0"
client_start b
client_cmd b add policy0 min-frequency 1600000000 >/dev/null
check "a cpufreq policy re-created at its path: the first access finds it dead and attaches the new one" \
        wait_until 10 grep -q 'policy0: .* appeared; attaching it' "$daemon_log"
like "... a request made then is accepted" "$(client_cmd b add policy0 min-frequency 1600000000)" '^ok '
p0_min_is() { [[ $(kread "$policy0/scaling_min_freq") == "$1" ]]; }
check "... and written to the new policy" wait_until 10 p0_min_is 1600000
orig_p0_min=$(tr -d "\n" <"$tmp/policy0.dir/scaling_min_freq")
client_stop b
check "... its end gives the policy's floor back ($orig_p0_min)" wait_until 10 p0_min_is "$orig_p0_min"

# Gone without a uevent again, and then SIGTERM: nothing to restore is no failed restore.
rm -rf "$root/sys/devices/platform/ff9a0000.gpu" "$root/sys/class/devfreq/ff9a0000.gpu"
log_at=$(wc -l <"$daemon_log")
stop_daemon
after=$(log_after "$log_at")
is "the GPU's node gone unheard at SIGTERM: devfreqd exits cleanly" "$daemon_status" 0
contains "... and says there was nothing to restore" "$after" "ff9a0000.gpu: $gpu is gone, nothing to restore"
contains "... the policy it wrote is restored" "$after" "policy0: original settings restored"
tap_done
