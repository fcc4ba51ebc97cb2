#!/usr/bin/env bash
# The kernel's own thermal cap is not another writer's limit. A GPU driver's devfreq cooling
# device (type "devfreq-<parent>") caps the node at the point its state counts down from the top,
# through a request of the kernel's that max_freq (and min_freq above it) show. Found while
# devfreqd holds nothing, such a cap stands for "no limit"; seen while it holds the limits, it is
# not adopted as an outer bound; either way, when the last request ends, the node gets back what
# it had, not the cap. mkroot gives the fake GPU such a cooling device, and the fake kernel caps
# the GPU when its cur_state is written, as the kernel tier sees the real one do.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
is "the fake GPU has a devfreq cooling device" "$(cat "$root/sys/class/thermal/cooling_device0/type")" \
        devfreq-ff9a0000.gpu
# cool STATE: the cooling device at STATE (the fake kernel applies its cap).
cool() { kwrite /sys/class/thermal/cooling_device0/cur_state "$1"; }
cool 2 # hot before devfreqd starts: capped at the third point from the top
is "... state 2 caps the GPU at 400 MHz" "$(kread "$gpu/max_freq")" 400000000

printf '[daemon]\nautodiscover = no\n\n[device gpu]\npath = /sys/class/devfreq/ff9a0000.gpu\nmode = clamp\n' \
        >"$tmp/devfreqd.conf"
start_bus
start_daemon
is "a cooling cap found at start is no outer bound: the range reaches the top" "$(dget gpu MaxFrequency)" 800000000

# ================================================================ found while capped, restored without it
client_start a
like "a 300 MHz floor" "$(client_cmd a add gpu min-frequency 300000000)" '^ok '
is "... is written; the kernel shows its own cap as the ceiling" \
        "$(kread "$gpu/min_freq") $(kread "$gpu/max_freq")" "300000000 400000000"
is "... while devfreqd's range still reaches the top" "$(dget gpu MinFrequency) $(dget gpu MaxFrequency)" \
        "300000000 800000000"
cool 0 # cooled down
client_stop a
gpu_max_is() { [[ $(kread "$gpu/max_freq") == "$1" ]]; }
check "when it ends, max_freq is given back as no limit, not as the old cap" wait_until 10 gpu_max_is 800000000

# ================================================================ capped while the limits are held
client_start b
like "a 400 MHz floor" "$(client_cmd b add gpu min-frequency 400000000)" '^ok '
log_at=$(wc -l <"$daemon_log")
cool 1 # hot: the top point goes
like "an update of the request while the cap is on" "$(client_cmd b add gpu max-frequency 700000000)" '^ok '
after=$(log_after "$log_at")
is "... takes the cap for no other writer's" "$(grep -c 'by another writer' <<<"$after" || true)" 0
is "... and keeps its own range" "$(dget gpu MaxFrequency)" 700000000
cool 3 # hotter: the cap is under devfreqd's floor, which the kernel lowers to it
is "... the kernel shows 300 MHz for both limits" "$(kread "$gpu/min_freq") $(kread "$gpu/max_freq")" \
        "300000000 300000000"
like "a third request while the cap is under the floor" "$(client_cmd b add gpu max-frequency 650000000)" '^ok '
after=$(log_after "$log_at")
is "... the floor the cap lowered is the kernel's doing as well" "$(grep -c 'by another writer' <<<"$after" || true)" 0
is "... and the range is devfreqd's own" "$(dget gpu MinFrequency) $(dget gpu MaxFrequency)" "400000000 650000000"
cool 0
client_stop b
check "when they end, the top is the ceiling again" wait_until 10 gpu_max_is 800000000
is "... and the floor the lowest point" "$(kread "$gpu/min_freq")" 200000000

# ================================================================ the originals, recorded under the cap
# min and max of the GPU's line (tab-separated, node units).
like "the originals file, written at the first write (state 2), records no cap" "$(cat "$tmp/run/originals")" \
        'ff9a0000\.gpu[[:space:]]+simple_ondemand[[:space:]]+200000000[[:space:]]+800000000[[:space:]]'

# ================================================================ the cooling device under another number
# devfreqd keeps the cooling device's directory once found. Another device now holds that directory
# (its type changed in place) and the GPU's cooling device is cooling_device7: it is found again.
thermal=$root/sys/devices/virtual/thermal
cp -a "$thermal/cooling_device0" "$thermal/cooling_device7"
ln -s ../../devices/virtual/thermal/cooling_device7 "$root/sys/class/thermal/cooling_device7"
printf 'Processor\n' >"$thermal/cooling_device0/type"
client_start d
like "a 300 MHz floor again" "$(client_cmd d add gpu min-frequency 300000000)" '^ok '
log_at=$(wc -l <"$daemon_log")
kwrite /sys/class/thermal/cooling_device7/cur_state 2
is "... cooling_device7 at state 2 caps the GPU at 400 MHz" "$(kread "$gpu/max_freq")" 400000000
like "an update while it caps" "$(client_cmd d add gpu max-frequency 700000000)" '^ok '
after=$(log_after "$log_at")
is "... takes its cap for no other writer's" "$(grep -c 'by another writer' <<<"$after" || true)" 0
is "... and keeps its own range" "$(dget gpu MaxFrequency)" 700000000
kwrite /sys/class/thermal/cooling_device7/cur_state 0
client_stop d
check "... its end gives the top back" wait_until 10 gpu_max_is 800000000

# ================================================================ a writer's cap is still adopted
client_start c
like "a 300 MHz floor once more" "$(client_cmd c add gpu min-frequency 300000000)" '^ok '
kwrite "$gpu/max_freq" 500000000 # another tool, the cooling device at 0
like "an update while another writer's 500 MHz is there" "$(client_cmd c add gpu max-frequency 700000000)" '^ok '
is "... adopts it as the outer bound" "$(dget gpu MaxFrequency)" 500000000
client_stop c
check "... and gives it back at the end" wait_until 10 gpu_max_is 500000000

check "the daemon is still running" daemon_alive
stop_daemon
is "SIGTERM: exit status 0" "$daemon_status" 0
tap_done
