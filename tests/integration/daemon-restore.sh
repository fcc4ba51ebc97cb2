#!/usr/bin/env bash
# Original settings come back: at SIGTERM, after kill -9 and a new run (the originals file in the
# runtime directory survives and is trusted over what the killed run left in sysfs), for nodes a
# new configuration no longer drives, and with devfreqd --restore.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
# Originals that are not all the defaults: some limits inside the table, some at its bounds.
kwrite "$gpu/min_freq" 300000000
kwrite "$dmc/governor" performance
kwrite "$dmc/max_freq" 666000000
kwrite "$policy0/scaling_min_freq" 1200000
kwrite "$policy2/scaling_max_freq" 3000000
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_load_section)

$(dmc_powersave_section)

$(cpu_userspace_section)
initial-frequency = 2GHz

[device pstate]
path = /sys/devices/system/cpu/cpufreq/policy2
mode = govern
governor = performance
EOF
cp "$tmp/devfreqd.conf" "$tmp/full.conf"

nodes=("$gpu" "$dmc" "$policy0" "$policy2")
# record_originals, check_restored and the "no limit" rule live in lib.sh.
record_originals "${nodes[@]}"

# driven: what the daemon's writes look like on each node.
driven() {
        [[ $(kread "$gpu/governor") == userspace && $(kread "$dmc/max_freq") == 200000000 &&
                $(kread "$policy0/scaling_setspeed") == 2000000 && $(kread "$policy2/scaling_min_freq") == 4600000 ]]
}

# The daemon's log without the debug line of every idle tick.
logtext() { grep -v 'no complete load sample' "$daemon_log" || true; }
start_bus

# --- 1. start, SIGTERM
start_daemon
check "run 1: every node is driven" driven
check "run 1: the originals file exists" test -s "$tmp/run/originals"
stop_daemon TERM
is "run 1: SIGTERM exits 0" "$daemon_status" 0
check_restored "run 1, SIGTERM"
check "run 1: the originals file is gone" test ! -e "$tmp/run/originals"

# --- a second devfreqd, or --restore, while one runs: refused before it reads or writes anything
start_daemon
check "one runs: driven" driven
originals_running=$(cat "$tmp/run/originals")
sum=$(tree_sum)
set +e
out=$(LD_PRELOAD=$fakekernel timeout 20 "$devfreqd" --root "$root" --bus "$bus_address" --config "$tmp/devfreqd.conf" \
        --config-dir "$tmp/conf.d" --runtime-dir "$tmp/run" --state-dir "$tmp/state" 2>&1)
status=$?
set -e
is "a second devfreqd on the same runtime directory exits 1" "$status" 1
is "... saying which one runs" "$out" "<3>Another devfreqd (pid $daemon_pid) uses $tmp/run; stop it first"
is "... the running one's originals are untouched" "$(cat "$tmp/run/originals")" "$originals_running"
is "... and so is every node" "$(tree_sum)" "$sum"
set +e
out=$(LD_PRELOAD=$fakekernel "$devfreqd" --root "$root" --runtime-dir "$tmp/run" --restore 2>&1)
status=$?
set -e
is "devfreqd --restore while it runs exits 1" "$status" 1
contains "... saying so" "$out" "Another devfreqd (pid $daemon_pid) uses $tmp/run; stop it first"
is "... the originals and the nodes untouched" "$(cat "$tmp/run/originals") $(tree_sum)" "$originals_running $sum"
check "the running one still serves" daemon_alive
stop_daemon TERM
is "it exits 0" "$daemon_status" 0
check_restored "SIGTERM after a second devfreqd was refused"

# --- SIGINT (Ctrl-C) restores as SIGTERM does
start_daemon
check "SIGINT run: driven" driven
stop_daemon INT
is "SIGINT exits 0" "$daemon_status" 0
check_restored "SIGINT"

# --- 2. kill -9, a new run, SIGTERM: the originals from before the first run come back
start_daemon
stop_daemon KILL
check "kill -9 leaves the originals file" test -s "$tmp/run/originals"
check "... and the nodes driven" driven
# What the killed run left must not become the originals: change it further meanwhile.
kwrite "$gpu/min_freq" 600000000
start_daemon
check "run 3: driven again" driven
stop_daemon TERM
is "run 3: SIGTERM exits 0" "$daemon_status" 0
check_restored "kill -9, new run, SIGTERM"
check "run 3: the originals file is gone" test ! -e "$tmp/run/originals"

# --- 3. kill -9, a new run that no longer drives dmc: dmc gets its originals at start-up
start_daemon
stop_daemon KILL
awk '/^\[device dmc\]/ { skip = 1; next } /^\[/ { skip = 0 } !skip' "$tmp/full.conf" >"$tmp/devfreqd.conf"
start_daemon
is "a node the new configuration drops is restored at start-up" "$(cat "$root$dmc/max_freq")" "${orig[$dmc/max_freq]}"
is "... its governor too" "$(cat "$root$dmc/governor")" "${orig[$dmc/governor]}"
contains "... and the log says so" "$(logtext)" "$dmc: original settings restored (left by an earlier run)"
stop_daemon TERM
check_restored "dropped node restored at start, the rest at SIGTERM"
cp "$tmp/full.conf" "$tmp/devfreqd.conf"

# --- 4. kill -9, then devfreqd --restore
start_daemon
stop_daemon KILL
check "kill -9 again: driven" driven
restore() {
        LD_PRELOAD=$fakekernel "$devfreqd" --root "$root" --runtime-dir "$tmp/run" --state-dir "$tmp/state" \
                --config "$tmp/devfreqd.conf" --restore "$@" >>"$daemon_log" 2>&1
}
# --dry-run first: it only says what it would write back.
sum=$(tree_sum)
originals_before=$(cat "$tmp/run/originals")
set +e
restore --dry-run
status=$?
set -e
is "devfreqd --restore --dry-run exits 0" "$status" 0
is "--restore --dry-run writes nothing" "$(tree_sum)" "$sum"
is "--restore --dry-run keeps the originals file" "$(cat "$tmp/run/originals")" "$originals_before"
like "--restore --dry-run logs what it would write" "$(cat "$daemon_log")" "would write simple_ondemand to"
set +e
restore
status=$?
set -e
is "devfreqd --restore exits 0" "$status" 0
check_restored "devfreqd --restore"
check "--restore removes the originals file" test ! -e "$tmp/run/originals"
sum=$(tree_sum)
set +e
restore
status=$?
set -e
is "--restore with nothing recorded exits 0" "$status" 0
is "... and writes nothing" "$(tree_sum)" "$sum"

# --- 5. kill -9 of a clamp run, and the record's restore at the next start fails once: the limit
# the crashed run left is not another writer's, and SIGTERM writes the record back, not it.
record_originals "${nodes[@]}"
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(dmc_clamp_section)
max-frequency = 400MHz
EOF
start_daemon
dmc_capped() { [[ $(kread "$dmc/max_freq") == 400000000 ]]; }
check "clamp run: dmc capped at 400 MHz" wait_until 5 dmc_capped
stop_daemon KILL
echo "${dmc#/}/max_freq EBUSY" >"$root/fakekernel.faults"
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(dmc_clamp_section)
EOF
log_at=$(wc -l <"$daemon_log")
start_daemon
contains "the crashed clamp run's record cannot be restored at start (max_freq busy)" \
        "$(log_after "$log_at")" "restoring the original settings failed, keeping them to retry"
rm -f "$root/fakekernel.faults"
stop_daemon TERM
check_restored "a record kept at start, SIGTERM"
check "... and the originals file is gone" test ! -e "$tmp/run/originals"
cp "$tmp/full.conf" "$tmp/devfreqd.conf"

# --- losing the bus: originals restored, and a non-zero exit so that systemd restarts it
start_daemon
check "bus-loss run: driven" driven
kill -TERM "$bus_pid"
exited() { [[ ! -e /proc/$daemon_pid ]] || grep -q '^State:[[:space:]]*Z' "/proc/$daemon_pid/status"; }
check "losing the bus stops the daemon" wait_until 10 exited
set +e
wait "$daemon_pid"
status=$?
set -e
check "... with a non-zero status (got $status)" test "$status" -ne 0 -a "$status" -lt 128
check_restored "bus lost"
check "... and the originals file is gone" test ! -e "$tmp/run/originals"
tap_done
