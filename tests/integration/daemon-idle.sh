#!/usr/bin/env bash
# An idle daemon sleeps: with every device on a non-polling governor and no watchdog, no timer is
# armed, and the process does not wake up on its own, also with devfreqctl top watching it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = yes
default-mode = govern
default-governor = performance

$(dmc_powersave_section)

[device policy2]
path = /sys/devices/system/cpu/cpufreq/policy2
mode = govern
governor = powersave
EOF
# No systemd watchdog: nothing may wake the daemon periodically.
unset WATCHDOG_USEC WATCHDOG_PID
start_bus
start_daemon

names=$(bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager ListDevices)
like "every node is managed" "$names" '"dmc" .*"ff9a0000\.gpu" .*"policy0" .*"policy2"'
contains "STATUS says nothing polls" "$(cat "$notify_log")" "4 devices (4 govern, 0 clamp), 0 polling"
is "gpu on performance: its highest point" "$(kread "$gpu/userspace/set_freq")" 800000000
is "policy0 on performance: 2400000 kHz" "$(kread "$policy0/scaling_setspeed")" 2400000
is "dmc (pinned) on powersave: max_freq at its lowest point" "$(kread "$dmc/max_freq")" 200000000

# Nothing polls, so no timer is armed (the context switches of an idle daemon are counted by
# make bench, "idle").
is "no poll timer was armed" "$(grep -c 'A poll timer every' "$daemon_log" || true)" 0
is "no tick ran" "$(grep -c 'no complete load sample' "$daemon_log" || true)" 0

# devfreqctl top attached (in a pseudo-terminal) reads the devices and quits on q.
mkfifo "$tmp/control"
"$PYTHON3" "$top_srcdir/tests/integration/pty-run.py" 30 120 "$tmp/screen" "$tmp/control" -- \
        "$devfreqctl" top 2>"$tmp/pty.err" &
pty_pid=$!
track $pty_pid
check "top shows the devices" wait_until $((5 * slow)) grep -qE '^[ >]policy2 ' "$tmp/screen"
top_pid=$(cat "/proc/$pty_pid/task/$pty_pid/children" 2>/dev/null | awk '{print $1}')
is "top runs under the terminal" "$(cat "/proc/${top_pid:-none}/comm" 2>/dev/null)" devfreqctl
# Its idle wakeups, and the daemon's with it attached, are counted by make bench ("idle").
printf 'key q\n' >"$tmp/control"
set +e
wait "$pty_pid"
rc=$?
set -e
untrack "$pty_pid"
is "top: q exits 0" "$rc" 0

check "the daemon is still running" daemon_alive
stop_daemon
is "exit status 0" "$daemon_status" 0
tap_done
