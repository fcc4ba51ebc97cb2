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
start_daemon

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

# One timer serves them all (the wakeups per device tick are measured by make bench, "tick cost").
is "one poll timer for the $n devices" "$(grep -c 'A poll timer every 10000 us' "$daemon_log" || true)" 1
check "the daemon is still running" daemon_alive
stop_daemon
is "exit status 0" "$daemon_status" 0
tap_done
