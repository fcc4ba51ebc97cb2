#!/usr/bin/env bash
# --dry-run writes nothing at all (no sysfs attribute, no originals, no state) across start, load
# changes, requests, a governor change and SIGTERM; it logs what it would write, and the bus
# shows the frequency it would have applied.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
busy_rel=sys/devices/platform/ff9a0000.gpu/busy
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = yes
default-mode = clamp

$(gpu_load_section)

$(dmc_powersave_section)

$(cpu_userspace_section)
min-frequency = 1GHz
EOF
# The whole tree but the load counters, which the test itself advances.
sum_but_load() {
        (cd "$root" && find . -type f ! -path "./$busy_rel" -print0 | sort -z | xargs -0 sha256sum | sha256sum |
                cut -d' ' -f1)
}
before=$(sum_but_load)
whole_before=$(tree_sum)
# The daemon's log without the debug line of every idle tick.
logtext() { grep -v 'no complete load sample' "$daemon_log" || true; }
start_bus
start_daemon --dry-run

device=/org/devfreqd/Devfreq1/device
call() {
        local dev=$1
        shift
        bctl call org.devfreqd.Devfreq1 "$device/$dev" org.devfreqd.Devfreq1.Device "$@"
}

is "start: the whole tree is unchanged" "$(tree_sum)" "$whole_before"
is "DryRun is true on the bus" "$(bctl get-property org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 \
        org.devfreqd.Devfreq1.Manager DryRun)" "b true"
contains "STATUS says dry run" "$(cat "$notify_log")" "STATUS=Dry run:"
contains "the log shows the governor it would select" "$(logtext)" \
        "would write userspace to $gpu/governor"
contains "... and the pinned range of dmc (powersave)" "$(logtext)" "would write 200000000 to $dmc/max_freq"
contains "... and the cpu's current frequency in kHz (userspace keeps it)" "$(logtext)" \
        "would write 1600000 to $policy0/scaling_setspeed"
is "the kernel keeps its own governor" "$(kread "$gpu/governor")" simple_ondemand
check "no originals file" test ! -e "$tmp/run/originals"

# Load changes: the bus follows what would be applied.
await "the load is sampled" 5 samples_used_above gpu 0
"$setload" "$root/$busy_rel" 10 100
gpu_at() { [[ $(prop gpu CurrentFrequency) == "$1" ]]; }
check "10% load: CurrentFrequency shows the lowest point it would apply" wait_until 5 gpu_at 200000000
contains "... and the log the write it would make" "$(logtext)" \
        "would write 200000000 to $gpu/userspace/set_freq"
"$setload" "$root/$busy_rel" 95 100
check "95% load: CurrentFrequency back at the top" wait_until 5 gpu_at 800000000
"$setload" "$root/$busy_rel" 5 100
check "5% load: down again" wait_until 5 gpu_at 200000000

# A QoS request (and its release when busctl leaves), a SetFrequency, a governor change.
call gpu AddRequest 'sta{sv}' min-frequency 600000000 0 >/dev/null
contains "AddRequest: the log shows the write it would make" "$(logtext)" \
        "would write 600000000 to $gpu/userspace/set_freq"
no_request() { [[ $(prop gpu QosMinFrequency) == 0 ]]; }
await "the request goes with busctl" 5 no_request
call cpu SetFrequency t 900000000
is "SetFrequency below min-frequency: CurrentFrequency shows the floor" "$(prop cpu CurrentFrequency)" 1200000000
call cpu SetFrequency t 2000000000
is "SetFrequency: CurrentFrequency shows it" "$(prop cpu CurrentFrequency)" 2000000000
contains "... the log shows 2000000 kHz" "$(logtext)" "would write 2000000 to $policy0/scaling_setspeed"
call cpu SetGovernor s performance
is "SetGovernor: CurrentFrequency shows the top" "$(prop cpu CurrentFrequency)" 2400000000
is "no state was persisted" "$(find "$tmp/state" -type f | wc -l)" 0
is "nothing in sysfs changed while running" "$(sum_but_load)" "$before"

stop_daemon TERM
is "SIGTERM: exit status 0" "$daemon_status" 0
is "after SIGTERM: nothing in the tree changed" "$(sum_but_load)" "$before"
check "no originals file after SIGTERM" test ! -e "$tmp/run/originals"
check "no foreign-writer complaint (the checks are skipped)" bash -c "! grep -q 'another writer' '$daemon_log'"
tap_done
