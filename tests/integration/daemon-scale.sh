#!/usr/bin/env bash
# 64 devices polling at the same interval share one timer: the daemon wakes about once per
# interval (100/s at 10 ms), not once per device and interval (6,400/s).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

n=64
make_root --gpus "$n"
{
        printf '[daemon]\nautodiscover = no\n'
        for ((k = 0; k < n; k++)); do
                printf '\n[device gpu%d]\npath = /sys/class/devfreq/gpu%d\nmode = govern\n' "$k" "$k"
                printf 'governor = simple_ondemand\npolling-interval = 10ms\n'
                printf 'load = counters:/sys/devices/platform/gpu%d/busy\n' "$k"
        done
} >"$tmp/devfreqd.conf"
start_bus
# Debug logging would print a line per device and tick: that is not what is measured here.
start_daemon --log-level info

contains "STATUS counts the polling devices" "$(cat "$notify_log")" "$n devices ($n govern, 0 clamp), $n polling"
count=$(bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager ListDevices |
        grep -o '"gpu[0-9]*"' | wc -l)
is "all $n devices are on the bus" "$count" "$n"

# Every device polls: a light load moves the first and the last from their highest point
# (the first tick only primes the counters, so load is added until it is seen).
moved() {
        local k
        for k in 0 $((n - 1)); do
                "$setload" "$root/sys/devices/platform/gpu$k/busy" 5 100
                [[ $(kread "/sys/class/devfreq/gpu$k/userspace/set_freq") == 200000000 ]] || return 1
        done
}
check "the first and the last device follow their load" wait_until 5 moved

switches() {
        awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { n += $2 } END { print n }' "/proc/$daemon_pid/status"
}
start=$(date +%s%N)
before=$(switches)
sleep 3
after=$(switches)
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
rate=$(((after - before) * 1000 / elapsed_ms))
diag "$n devices at 10 ms: $((after - before)) context switches in $elapsed_ms ms, $rate per second"
check "at most 200 context switches per second (got $rate)" test "$rate" -le 200
# A shared timer still ticks: far fewer than ~100/s would mean devices are not polled.
check "at least 30 wakeups per second (got $rate): the timer does run" test "$rate" -ge 30

check "the daemon is still running" daemon_alive
stop_daemon
is "exit status 0" "$daemon_status" 0
tap_done
