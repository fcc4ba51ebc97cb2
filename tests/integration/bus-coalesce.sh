#!/usr/bin/env bash
# CurrentFrequency changes found by polling are signalled at most once per 100 ms and device,
# the last value always; changes caused by a method are signalled at once.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root --gpus 1
load=$root/sys/devices/platform/gpu0/load-percent
echo 5 >"$load"
cat >"$tmp/devfreqd.conf" <<EOC
[daemon]
autodiscover = no

[device fast]
path = /sys/class/devfreq/gpu0
mode = govern
governor = simple_ondemand
polling-interval = 10ms
load = percent:/sys/devices/platform/gpu0/load-percent
EOC
start_bus
start_daemon
monitor_start
p_fast=$(dev_path fast)

# Flip the load between busy and idle faster than the 10 ms polls: the point moves at most
# ticks, dozens of times a second.
flipper_start() {
        rm -f "$tmp/flip.stop"
        "$PYTHON3" - "$load" "$tmp/flip.stop" <<'EOP' &
import os, sys, time
path, stop = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_WRONLY)
i = 0
while not os.path.exists(stop):
    os.pwrite(fd, b"99\n" if i % 2 else b"5 \n", 0)  # same length: a reader never sees a tail
    i += 1
    time.sleep(0.007)
EOP
        flipper=$!
        track $flipper
}

transitions() { dget fast TransitionCount; }
t0=$(transitions)
monitor_mark
start_ns=$(date +%s%N)
flipper_start
sleep 2
touch "$tmp/flip.stop"
wait "$flipper" || true
echo 5 >"$load"
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))
settled() { [[ $(dget fast CurrentFrequency) == 200000000 ]]; }
check "the device settles at its lowest point once the load is idle" wait_until $((5 * slow)) settled
monitor_flush
t1=$(transitions)
changed=$((t1 - t0))
signals=$(changes "$p_fast" | grep -c 'CurrentFrequency=' || true)
diag "in ${elapsed_ms} ms: $changed transitions, $signals CurrentFrequency signals"
check "the point moved often (more than 20 transitions)" test "$changed" -gt 20
# One at once, then at most one per 100 ms, and the settling one: elapsed/100 + 3.
check "at most one signal per 100 ms" test "$signals" -le $((elapsed_ms / 100 + 3))
check "fewer signals than transitions" test "$signals" -lt "$changed"
last_emitted() { changes "$p_fast" | grep -o 'CurrentFrequency=[0-9]*' | tail -n1; }
emitted_settled() { monitor_flush && [[ $(last_emitted) == CurrentFrequency=200000000 ]]; }
check "the last signal carries the settled frequency" wait_until $((2 * slow)) emitted_settled

# A change caused by a method is signalled at once, even right after a polled one.
monitor_mark
dcall fast SetGovernor s performance >/dev/null
monitor_flush
contains "a method's change is signalled before the next poll could matter" "$(changes "$p_fast")" \
        "CurrentFrequency=800000000"

tap_done
