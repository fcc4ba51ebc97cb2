#!/usr/bin/env bash
# Sharing min/max with the other writers of the limits (TLP, thermald, an administrator): in
# clamp mode nothing is written without something to say, limits found are outer bounds, the
# slot is given back when the last request ends (after a write that failed half-way too),
# another writer's change is adopted, and override-limits restores the replacing behaviour. Kill -9
# and --restore still put back what was there first.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
# Something capped the machine before devfreqd started: a CPU policy at 1.6 GHz, the GPU at 600 MHz.
kwrite "$policy0/scaling_max_freq" 1600000
kwrite "$gpu/max_freq" 600000000
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = yes
EOF
# ino ATTR: the inode of a fake attribute; the fake kernel replaces the file on every store, so
# an unchanged inode means nothing was written, not even the same value.
ino() { stat -c %i "$root$1"; }
watched=("$gpu/min_freq" "$gpu/max_freq" "$policy0/scaling_min_freq" "$policy0/scaling_max_freq")
inodes() {
        local a
        for a in "${watched[@]}"; do ino "$a"; done
}
before=$(inodes)
start_bus
start_daemon
p_gpu=$(dev_path ff9a0000.gpu)

# ================================================================ nothing to say, nothing written
is "no request: the policy's 1.6 GHz cap stays" "$(kread "$policy0/scaling_max_freq")" 1600000
is "... the GPU's 600 MHz cap stays" "$(kread "$gpu/max_freq")" 600000000
is "... and no write reached either node" "$(inodes)" "$before"
is "the cap bounds the effective range on the bus (policy)" "$(dget policy0 MaxFrequency)" 1600000000
is "... and the GPU's" "$(dget ff9a0000.gpu MaxFrequency)" 600000000
is "clamp mode: PollingInterval is the kernel governor's polling_interval" "$(dget ff9a0000.gpu PollingInterval)" 50
is "... a cpufreq policy's kernel governor shows none" "$(dget policy0 PollingInterval)" 0
: >"$notify_log.$daemon_pid"
kill -HUP "$daemon_pid"
await "READY=1 after SIGHUP" 10 daemon_ready
is "after a reload, still no write" "$(inodes)" "$before"
check "the originals file was never needed" test ! -e "$tmp/run/originals"

# ================================================================ a request below the cap
client_start a
like "a max-frequency request of 400 MHz" "$(client_cmd a add ff9a0000.gpu max-frequency 400000000)" '^ok '
is "... is written" "$(kread "$gpu/max_freq")" 400000000
is "... the policy is untouched" "$(ino "$policy0/scaling_max_freq") $(kread "$policy0/scaling_max_freq")" \
        "$(sed -n 4p <<<"$before") 1600000"
client_stop a
gpu_max_is() { [[ $(kread "$gpu/max_freq") == "$1" ]]; }
check "when it ends, the 600 MHz cap is in force again" wait_until 10 gpu_max_is 600000000

# ================================================================ requests beyond the cap
client_start b
req=$(client_cmd b add ff9a0000.gpu max-frequency 700000000)
like "a max-frequency request above the cap" "$req" '^ok '
is "... leaves the cap: the ceiling wins" "$(kread "$gpu/max_freq")" 600000000
req=$(client_cmd b add ff9a0000.gpu min-frequency 800000000)
is "a min-frequency request above the cap is clamped to it" \
        "$(kread "$gpu/min_freq") $(kread "$gpu/max_freq")" "600000000 600000000"
client_stop b
check "both gone: the cap and no floor again" wait_until 10 gpu_max_is 600000000

# ================================================================ another writer while a request is held
client_start c
req=$(client_cmd c add ff9a0000.gpu max-frequency 400000000)
req=${req#ok }
is "a 400 MHz request is written" "$(kread "$gpu/max_freq")" 400000000
kwrite "$gpu/max_freq" 300000000 # the other tool writes its new cap over devfreqd's
log_at=$(wc -l <"$daemon_log")
like "the request is updated to 500 MHz" "$(client_cmd c update "$req" 500000000)" '^ok'
is "... the other writer's 300 MHz is adopted as the outer bound" "$(kread "$gpu/max_freq")" 300000000
is "... and shown on the bus" "$(dget ff9a0000.gpu MaxFrequency)" 300000000
after=$(log_after "$log_at")
is "... the log says so once, with both values" \
        "$(grep -c 'max_freq was changed to 300000000 by another writer (devfreqd wrote 400000000)' <<<"$after")" 1
client_stop c
check "when the request ends, the adopted cap stays in force" wait_until 10 gpu_max_is 300000000
kwrite "$gpu/max_freq" 600000000

# ================================================================ a reload while a request is held
client_start r
client_cmd r add ff9a0000.gpu max-frequency 400000000 >/dev/null
is "a held request before a reload" "$(kread "$gpu/max_freq")" 400000000
log_at=$(wc -l <"$daemon_log")
: >"$notify_log.$daemon_pid"
kill -HUP "$daemon_pid"
await "READY=1 after SIGHUP" 10 daemon_ready
is "... still in force after it" "$(kread "$gpu/max_freq")" 400000000
check "... not taken for another writer's" eval '! logged_since "$log_at" "by another writer"'
client_stop r
check "... and when it ends the cap that was there first is back" wait_until 10 gpu_max_is 600000000

# ================================================================ a pair of limits written half-way
# A floor of 400 MHz writes min_freq, then max_freq (the 600 MHz cap found), and that write fails.
# The floor that landed is devfreqd's, not another writer's: it is given back when the request
# ends, and when the daemon stops with it in place, the limits found before it are restored.
faults=$root/fakekernel.faults
gpu_range() { echo "$(kread "$gpu/min_freq") $(kread "$gpu/max_freq")"; }
gpu_range_is() { [[ $(gpu_range) == "$1" ]]; }
client_start h
log_at=$(wc -l <"$daemon_log")
echo "${gpu#/}/max_freq EIO" >"$faults"
req=$(client_cmd h add ff9a0000.gpu min-frequency 400000000)
like "a 400 MHz floor whose max_freq write fails" "$req" '^ok '
req=${req#ok }
is "... min_freq has the floor, max_freq the cap" "$(gpu_range)" "400000000 600000000"
contains "... LastError names the write" "$(dget ff9a0000.gpu LastError)" \
        "write $gpu/max_freq: Input/output error"
rm -f "$faults"
like "the request ends (the fault is gone)" "$(client_cmd h remove "$req")" '^ok'
if wait_until 5 gpu_range_is "200000000 600000000"; then
        ok "... the floor is given back: min_freq 200 MHz, max_freq the cap"
else
        not_ok "... the floor is given back: min_freq 200 MHz, max_freq the cap"
        diag "min_freq max_freq: $(gpu_range) (devfreqd's own floor left in place)"
fi
gpu_props() {
        local p
        for p in "$@"; do dget ff9a0000.gpu "$p"; done | paste -sd' '
}
is "... the bus shows the range found, no request" \
        "$(gpu_props MinFrequency MaxFrequency QosMinFrequency)" "200000000 600000000 0"
check "... and its floor was not taken for another writer's" \
        eval '! logged_since "$log_at" "by another writer"'

echo "${gpu#/}/max_freq EIO" >"$faults"
like "the same floor and fault again" "$(client_cmd h add ff9a0000.gpu min-frequency 400000000)" '^ok '
is "... min_freq has the floor" "$(gpu_range)" "400000000 600000000"
rm -f "$faults"
# recorded_limits: the gpu's min and max in the originals file; nothing without a record.
recorded_limits() {
        awk -F'\t' -v p="$gpu" '$1 == p { print $3, $4 }' "$tmp/run/originals" 2>/dev/null || true
}
is "... the originals file has the limits found: 200 MHz and the cap" "$(recorded_limits)" \
        "200000000 600000000"
log_at=$(wc -l <"$daemon_log")
stop_daemon
client_stop h
is "a stop with the floor in place: exit status 0" "$daemon_status" 0
is "... min_freq and max_freq are the originals again" "$(gpu_range)" "200000000 600000000"
contains "... the log says so" "$(log_after "$log_at")" \
        "ff9a0000.gpu: original settings restored"
is "... and the record is gone with it" "$(recorded_limits)" ""
start_daemon

# ================================================================ kill -9 and --restore
client_start d
client_cmd d add ff9a0000.gpu max-frequency 400000000 >/dev/null
client_cmd d add policy0 max-frequency 1200000000 >/dev/null
is "requests held on both nodes" "$(kread "$gpu/max_freq") $(kread "$policy0/scaling_max_freq")" \
        "400000000 1200000"
stop_daemon KILL
client_kill d
out=$(LD_PRELOAD=$fakekernel "$devfreqd" --root "$root" --runtime-dir "$tmp/run" --restore 2>&1)
is "kill -9, then --restore: exactly the caps that were there first" \
        "$(kread "$gpu/max_freq") $(kread "$policy0/scaling_max_freq")" "600000000 1600000"
start_daemon
client_start e
client_cmd e add ff9a0000.gpu max-frequency 400000000 >/dev/null
stop_daemon KILL
client_kill e
before=$(inodes)
start_daemon
is "kill -9, then a new start: the cap that was there first" "$(kread "$gpu/max_freq")" 600000000
stop_daemon
is "... and a clean stop leaves it" "$(kread "$gpu/max_freq")" 600000000

# ================================================================ override-limits = yes
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

[device gpu]
path = /sys/class/devfreq/ff9a0000.gpu
override-limits = yes
EOF
start_daemon
is "override-limits = yes: the range replaces the cap found" "$(kread "$gpu/max_freq")" 800000000
is "... and the bus shows the table's range" "$(dget gpu MaxFrequency)" 800000000
stop_daemon
is "... the cap comes back at exit" "$(kread "$gpu/max_freq")" 600000000

tap_done
