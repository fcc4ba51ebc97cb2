#!/usr/bin/env bash
# A passive device (gpu0 following gpu) is written what the bus shows from its own first write on:
# at start, after a reload, and under --dry-run not at all (its kernel governor included); it is
# activated after its parent whatever the names' order, and follows a parent attached again.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root --gpus 1
gpu0=/sys/devices/platform/gpu0/devfreq/gpu0
# write_config GPU_GOVERNOR [CHILD_NAME]: gpu under GPU_GOVERNOR, gpu0 passive under it (named
# CHILD_NAME, gpu0 by default).
write_config() {
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
follow-power-profiles = no

[device gpu]
path = /sys/class/devfreq/ff9a0000.gpu
mode = govern
governor = $1

[device ${2:-gpu0}]
path = /sys/class/devfreq/gpu0
mode = govern
governor = passive
parent = gpu
EOF
}
reload() {
        : >"$notify_log"
        kill -HUP "$daemon_pid"
        await "READY=1 after SIGHUP" 10 grep -q '^READY=1' "$notify_log"
}
# child_state [NAME]: what child_is compares, for a failure's message.
child_state() { echo "set_freq $(kread "$gpu0/userspace/set_freq") cur_freq $(kread "$gpu0/cur_freq") CurrentFrequency $(prop "${1:-gpu0}" CurrentFrequency)"; }

# --- start: both nodes at 800 MHz, gpu goes to its lowest point and gpu0 with it
write_config powersave
start_bus
start_daemon
is "start: gpu at 200 MHz (powersave)" "$(kread "$gpu/userspace/set_freq")" 200000000
is "... gpu0 follows it: set_freq, cur_freq and CurrentFrequency are 200 MHz" "$(child_state)" \
        "set_freq 200000000 cur_freq 200000000 CurrentFrequency 200000000"
is "... under the kernel's userspace governor" "$(kread "$gpu0/governor")" userspace

# --- a reload that moves the parent: the child, rebuilt by it, follows with a write of its own
write_config performance
reload
is "reload to performance: gpu at 800 MHz" "$(kread "$gpu/userspace/set_freq")" 800000000
is "... gpu0 follows it in sysfs as on the bus" "$(child_state)" \
        "set_freq 800000000 cur_freq 800000000 CurrentFrequency 800000000"
stop_daemon
is "exit status 0" "$daemon_status" 0

# --- --dry-run: nothing written, at start or at a reload, and gpu0's governor is the kernel's
rm -rf "$root"
make_root --gpus 1
write_config powersave
sum=$(tree_sum)
: >"$daemon_log"
start_daemon --dry-run
is "--dry-run start: the whole tree is unchanged" "$(tree_sum)" "$sum"
is "... gpu0 keeps the kernel's governor" "$(kread "$gpu0/governor")" simple_ondemand
contains "... the log says the governor it would select for gpu0" "$(cat "$daemon_log")" \
        "gpu0: would write userspace to $gpu0/governor"
is "... and CurrentFrequency the frequency it would apply" "$(prop gpu0 CurrentFrequency)" 200000000
write_config performance
reload
is "--dry-run reload: the whole tree is unchanged" "$(tree_sum)" "$sum"
is "... and CurrentFrequency follows the parent" "$(prop gpu0 CurrentFrequency)" 800000000
stop_daemon
is "--dry-run exit: the whole tree is unchanged" "$(tree_sum)" "$sum"
check "... and there is no originals file" test ! -e "$tmp/run/originals"

# --- the child's name sorts after another device's and before its parent's (a, bgpu, gpu): its
# first write is the frequency gpu applies, not the one gpu's node showed before (gpu0 at 400 MHz)
rm -rf "$root" "$tmp/run" "$tmp/state"
make_root --gpus 1
printf '400000000\n' >"$root$gpu0/cur_freq"
write_config powersave bgpu
printf '\n[device a]\npath = /sys/class/devfreq/dmc\nmode = clamp\n' >>"$tmp/devfreqd.conf"
: >"$daemon_log"
start_daemon
is "a child named between two devices: it follows its parent to 200 MHz" "$(child_state bgpu)" \
        "set_freq 200000000 cur_freq 200000000 CurrentFrequency 200000000"
check "... with no write of 800 MHz, what gpu's node showed before gpu's first write" \
        bash -c '! grep -q "bgpu: 800 MHz" "$1"' _ "$daemon_log"
stop_daemon

# --- the parent's node removed and made afresh at 800 MHz without a uevent (a module reloaded, as in
# daemon-vanished.sh) while a request held gpu, and gpu0 with it, at 400 MHz: the first access
# detaches gpu and attaches the new node, whose first write is 800 MHz, and gpu0 follows it
rm -rf "$root" "$tmp/run" "$tmp/state"
make_root --gpus 1
write_config performance
cp -a "$root/sys/devices/platform/ff9a0000.gpu" "$tmp/gpu.dir"
cp -a "$root/sys/class/devfreq/ff9a0000.gpu" "$tmp/gpu.link"
: >"$daemon_log"
start_daemon
"$devfreqctl" --bus "$bus_address" request gpu max 400MHz >/dev/null 2>&1 &
req=$!
track $req
at_400() { [[ $(kread "$gpu0/userspace/set_freq") == 400000000 ]]; }
await "a request caps gpu at 400 MHz: gpu0 follows it" 5 at_400
rm -rf "$root/sys/devices/platform/ff9a0000.gpu" "$root/sys/class/devfreq/ff9a0000.gpu"
cp -a "$tmp/gpu.dir" "$root/sys/devices/platform/ff9a0000.gpu"
cp -a "$tmp/gpu.link" "$root/sys/class/devfreq/ff9a0000.gpu"
kill "$req"
wait "$req" 2>/dev/null || true
untrack "$req"
await "the request's end finds gpu's node dead and attaches the new one" 10 \
        grep -q 'gpu: .* appeared; attaching it' "$daemon_log"
at_800() { [[ $(kread "$gpu0/userspace/set_freq") == 800000000 ]]; }
check "... gpu0 follows its parent attached again to 800 MHz" wait_until 5 at_800
is "... in sysfs as on the bus, and gpu with it" "$(child_state) gpu $(kread "$gpu/userspace/set_freq")" \
        "set_freq 800000000 cur_freq 800000000 CurrentFrequency 800000000 gpu 800000000"
stop_daemon
is "exit status 0" "$daemon_status" 0
tap_done
