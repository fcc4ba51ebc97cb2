# Sourced by the daemon integration tests: a fake root with the fake kernel, a private dbus-daemon,
# devfreqd on them, and cleanup of every process started, by PID.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/tap.sh"

PYTHON3=/usr/bin/python3
devfreqd=$top_builddir/daemon/devfreqd
devfreqctl=$top_builddir/tools/devfreqctl
replay=$top_builddir/tools/devfreq-replay
fakekernel=$top_builddir/tests/fixtures/fakekernel.so
mkroot=$top_srcdir/tests/fixtures/mkroot
setload=$top_srcdir/tests/fixtures/setload

# tmpfs when there is one: the fake kernel replaces a file on every store.
[[ -z ${TMPDIR:-} && -w /dev/shm ]] && export TMPDIR=/dev/shm
tmp=$(mktemp -d "${TMPDIR:-/tmp}/devfreqd-test.XXXXXX")
root=$tmp/root
pids=()
bus_address=
daemon_pid=
notify_log=$tmp/notify.log
daemon_log=$tmp/devfreqd.log

# A script stopped by set -e says where, as a TAP bail-out, instead of ending without a plan.
tap_stop_line= tap_stop_command=
# errtrace: a command that stops the script inside a function (a helper's busctl) is caught too.
set -o errtrace
trap 'tap_stop_line=$LINENO tap_stop_command=$BASH_COMMAND' ERR

cleanup() {
        local rc=$? pid
        if ((rc != 0)) && [[ -z $tap_planned ]]; then
                echo "Bail out! $(basename "$0") stopped at line ${tap_stop_line:-?} (status $rc): ${tap_stop_command:-?}"
        fi
        for pid in "${pids[@]}"; do
                kill -TERM "$pid" 2>/dev/null || true
        done
        for pid in "${pids[@]}"; do
                # give each a moment, then insist
                for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
                kill -KILL "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
        done
        rm -rf "$tmp"
}
trap cleanup EXIT

track() { pids+=("$1"); }

# Deadlines are ends, not timings: under valgrind (DF_VALGRIND=1) everything the daemon does is
# tens of times slower, and the sanitizer build (DF_SANITIZERS=yes) a few times, so every
# wait_until deadline, the readiness one included, is multiplied by deadline_scale
# (DF_DEADLINE_SCALE overrides it). A longer deadline only delays a failure. Assertions stay the
# same.
if [[ -n ${DF_DEADLINE_SCALE:-} ]]; then
        deadline_scale=$DF_DEADLINE_SCALE
elif [[ ${DF_VALGRIND:-0} == 1 ]]; then
        deadline_scale=10
elif [[ ${DF_SANITIZERS:-no} == yes ]]; then
        deadline_scale=2
else
        deadline_scale=1
fi

# The sanitizer build is several times slower: deadlines grow with it (they are ends, not timings).
slow=1
[[ ${DF_SANITIZERS:-no} == yes ]] && slow=4

# wait_until SECONDS COMMAND...: poll until the command succeeds; 1 after the deadline. The first
# polls come quickly (most answers take milliseconds), then every 50 ms.
wait_until() {
        local deadline=$(($(date +%s%N) + $1 * deadline_scale * 1000000000)) delay=0.005
        shift
        while :; do
                "$@" 2>/dev/null && return 0
                (($(date +%s%N) > deadline)) && return 1
                sleep "$delay"
                case $delay in
                0.005) delay=0.01 ;;
                0.01) delay=0.02 ;;
                *) delay=0.05 ;;
                esac
        done
}

# await DESCRIPTION SECONDS COMMAND...: a TAP line for a state that must come within SECONDS; when it
# does not, the tail of the daemon's log says what the daemon was doing.
await() {
        local desc=$1 seconds=$2
        shift 2
        if wait_until "$seconds" "$@"; then
                ok "$desc"
                return
        fi
        not_ok "$desc"
        diag "not within ${seconds} s: $*"
        log_tail
}

# samples_used NAME: how many load samples the daemon has used on device NAME. Each tick that finds
# no new sample after one that had it logs "NAME: no complete load sample" once.
samples_used() { grep -c "$1: no complete load sample" "$daemon_log" || true; }
# samples_used_above NAME N: more than N.
samples_used_above() { (($(samples_used "$1") > $2)); }
# await_first_sample NAME: the daemon samples NAME's load within 5 s, else bail out with its log.
await_first_sample() {
        wait_until 5 samples_used_above "$1" 0 && return 0
        echo "Bail out! $1: the load was never sampled"
        log_tail
        exit 1
}

# log_after LINE: the daemon's log after its first LINE lines (a mark taken with
# `wc -l <"$daemon_log"` before the step whose log lines the test reads).
log_after() { tail -n +$(($1 + 1)) "$daemon_log"; }

# logged_since LINE TEXT: the daemon's log has TEXT after its first LINE lines. What the daemon
# logs after a write is not there yet when the write is seen: a test awaits it.
logged_since() { grep -qF -- "$2" < <(log_after "$1"); }

# unlogged_since LINE REGEX: no line of the daemon's log after its first LINE lines matches REGEX.
unlogged_since() { ! grep -q -- "$2" < <(log_after "$1"); }

# log_tail: under a failed case, the tail of the daemon's log. A script that starts other services
# redefines it to add theirs.
log_tail() {
        if [[ -s $daemon_log ]]; then tail -n 15 "$daemon_log" | sed 's/^/# devfreqd: /'; fi
}

# logged CASE ARGS...: a tap.sh case (is, like, contains, check) that, when it fails, adds log_tail.
logged() {
        local before=$tap_failures
        "$@"
        ((tap_failures == before)) || log_tail
}

# The fake kernel is preloaded into the daemon and into the test's own writes to sysfs.
export FAKEKERNEL_ROOT=$root
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

make_root() { "$mkroot" "$@" "$root"; }

# Write as the kernel would see it (the fake kernel reacts to the write).
kwrite() { LD_PRELOAD=$fakekernel bash -c 'printf "%s" "$1" > "$2"' _ "$2" "$root$1"; }
kread() { tr -d '\n' <"$root$1"; }

start_bus() {
        cat >"$tmp/bus.conf" <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$tmp/bus.socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
    <allow user="*"/>
  </policy>
  ${BUS_EXTRA_CONFIG:-}
</busconfig>
EOC
        spawn_bus
}

# spawn_bus: a dbus-daemon with the configuration in $tmp/bus.conf (start_bus, start_strict_bus);
# once it listens, its address is bus_address and the system and session bus address.
spawn_bus() {
        # An address left by an earlier bus would be taken before this one listens.
        rm -f "$tmp/bus.address"
        dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --print-address=3 3>"$tmp/bus.address" &
        bus_pid=$!
        track $bus_pid
        wait_until 5 test -s "$tmp/bus.address" || { echo "Bail out! dbus-daemon did not start"; exit 1; }
        bus_address=$(head -n1 "$tmp/bus.address")
        export DBUS_SYSTEM_BUS_ADDRESS=$bus_address DBUS_SESSION_BUS_ADDRESS=$bus_address
}

start_notify_listener() {
        "$PYTHON3" "$top_srcdir/tests/integration/notify-listener.py" "$tmp/notify.socket" "$notify_log" &
        track $!
        wait_until 5 test -S "$tmp/notify.socket"
}

# DF_VALGRIND=1: start_daemon runs devfreqd under valgrind's memcheck, one log per start in
# $DF_VALGRIND_LOGDIR (default $tmp/valgrind, removed with $tmp), named TEST.N.log; a run with
# errors or definitely/indirectly lost bytes exits 97. tests/integration/valgrind.sh reads the logs.
daemon_wrapper=()
# daemon_prefix: a command the daemon runs under, before any valgrind (a test's own namespace).
daemon_prefix=()
daemon_starts=0
if [[ ${DF_VALGRIND:-0} == 1 ]]; then
        valgrind_logdir=${DF_VALGRIND_LOGDIR:-$tmp/valgrind}
        mkdir -p "$valgrind_logdir"
        daemon_wrapper=(valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect
                --errors-for-leak-kinds=definite,indirect --error-exitcode=97 --child-silent-after-fork=yes)
fi

# spawn_daemon [ARGS...]: devfreqd on the fake root and the private bus, in the background; does not
# wait (start_daemon does).
spawn_daemon() {
        local wrapper=("${daemon_wrapper[@]}")
        mkdir -p "$tmp/run" "$tmp/state" "$tmp/conf.d"
        [[ -f $tmp/devfreqd.conf ]] || : >"$tmp/devfreqd.conf.missing"
        [[ -S $tmp/notify.socket ]] || start_notify_listener
        : >"$notify_log"
        rm -f "$notify_log".*
        daemon_starts=$((daemon_starts + 1))
        ((${#wrapper[@]} == 0)) || wrapper+=(--log-file="$valgrind_logdir/$(basename "$0" .sh).$daemon_starts.log")
        NOTIFY_SOCKET=$tmp/notify.socket LD_PRELOAD=$fakekernel \
                "${daemon_prefix[@]}" "${wrapper[@]}" "$devfreqd" --root "$root" --bus "$bus_address" --config "$tmp/devfreqd.conf" \
                --config-dir "$tmp/conf.d" --runtime-dir "$tmp/run" --state-dir "$tmp/state" --log-level debug \
                "$@" >>"$daemon_log" 2>&1 &
        daemon_pid=$!
        track $daemon_pid
}

# daemon_ready: this devfreqd (not an earlier one, whose datagrams may still arrive) said READY=1.
daemon_ready() { grep -q '^READY=1' "$notify_log.$daemon_pid" 2>/dev/null; }

# start_daemon [ARGS...]: spawn_daemon, then wait for READY=1.
start_daemon() {
        spawn_daemon "$@"
        if ! wait_until 10 daemon_ready; then
                echo "# devfreqd did not become ready; its log:"
                sed 's/^/# /' "$daemon_log"
                return 1
        fi
}

# untrack PID: a process waited for leaves the cleanup list (its PID may be reused).
untrack() {
        local i
        for i in "${!pids[@]}"; do [[ ${pids[i]} != "$1" ]] || unset "pids[i]"; done
}

# stop_daemon [SIGNAL]: signal it and wait for its exit; sets daemon_status.
stop_daemon() {
        kill -"${1:-TERM}" "$daemon_pid" 2>/dev/null || true
        set +e
        wait "$daemon_pid" 2>/dev/null # no "Killed" line from bash for kill -9
        daemon_status=$?
        set -e
        untrack "$daemon_pid"
}

daemon_alive() { kill -0 "$daemon_pid" 2>/dev/null; }

bctl() { busctl --address="$bus_address" "$@"; }

# prop DEVICE PROPERTY: a device's property as busctl prints it, without the signature.
prop() {
        bctl get-property org.devfreqd.Devfreq1 "/org/devfreqd/Devfreq1/device/$1" org.devfreqd.Devfreq1.Device "$2" |
                cut -d' ' -f2-
}

# Checksum of every file of the fake root (contents and names), for "nothing was written".
tree_sum() { (cd "$root" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1); }

gpu=/sys/devices/platform/ff9a0000.gpu/devfreq/ff9a0000.gpu
dmc=/sys/devices/platform/dmc/devfreq/dmc
policy0=/sys/devices/system/cpu/cpufreq/policy0
policy2=/sys/devices/system/cpu/cpufreq/policy2

# --- configuration sections ----------------------------------------------------------------------
# Devices of the fake root as several tests configure them: a [device NAME] section each, for
# $(...) in the configuration's here-document (keys on the lines after it add to the section).

# gpu_load_section [INTERVAL]: gpu, simple_ondemand on the fake kernel's busy counters, polled every
# INTERVAL (50ms).
gpu_load_section() {
        printf '%s\n' "[device gpu]" "path = /sys/class/devfreq/ff9a0000.gpu" "mode = govern" \
                "governor = simple_ondemand" "polling-interval = ${1:-50ms}" \
                "load = counters:/sys/devices/platform/ff9a0000.gpu/busy"
}

# gpu_userspace_section: gpu, governed through the kernel's userspace governor.
gpu_userspace_section() {
        printf '%s\n' "[device gpu]" "path = /sys/class/devfreq/ff9a0000.gpu" "mode = govern" "governor = userspace"
}

# cpu_ondemand_section [INTERVAL]: cpu (policy0), ondemand on /proc/stat, polled every INTERVAL (50ms).
cpu_ondemand_section() {
        printf '%s\n' "[device cpu]" "path = /sys/devices/system/cpu/cpufreq/policy0" "mode = govern" \
                "governor = ondemand" "polling-interval = ${1:-50ms}" "load = proc-stat"
}

# dmc_clamp_section: dmc, clamped.
dmc_clamp_section() { printf '%s\n' "[device dmc]" "path = /sys/class/devfreq/dmc" "mode = clamp"; }

# dmc_powersave_section: dmc, governed by powersave (no userspace governor: pinned by its limits).
dmc_powersave_section() {
        printf '%s\n' "[device dmc]" "path = /sys/class/devfreq/dmc" "mode = govern" "governor = powersave"
}

# cpu_userspace_section: cpu (policy0), governed through scaling_setspeed.
cpu_userspace_section() {
        printf '%s\n' "[device cpu]" "path = /sys/devices/system/cpu/cpufreq/policy0" "mode = govern" \
                "governor = userspace"
}

# --- original settings -------------------------------------------------------------------------
# record_originals NODE...: remember the governor and limits of these nodes (sysfs paths as above);
# check_restored WHEN asserts that each is back, byte for byte or as its "no limit" alternative.
orig_nodes=()
declare -A orig=()

attrs_of() {
        case $1 in
        */cpufreq/*) echo scaling_governor scaling_min_freq scaling_max_freq ;;
        *) echo governor min_freq max_freq ;;
        esac
}

record_originals() {
        local node a
        orig_nodes=("$@")
        orig=()
        for node in "$@"; do
                for a in $(attrs_of "$node"); do orig[$node/$a]=$(cat "$root$node/$a"); done
        done
}

# no_limit NODE ATTR ORIGINAL: the value that may come back instead of an original at the hardware
# bound (restored as "no limit": devfreq 0, cpufreq the cpuinfo_* bound); nothing if none.
no_limit() {
        local node=$1 a=$2 v=$3 list
        case $node/$a in
        */scaling_min_freq) [[ $v == "$(cat "$root$node/cpuinfo_min_freq")" ]] && cat "$root$node/cpuinfo_min_freq" ;;
        */scaling_max_freq) [[ $v == "$(cat "$root$node/cpuinfo_max_freq")" ]] && cat "$root$node/cpuinfo_max_freq" ;;
        */min_freq | */max_freq)
                read -r -a list <"$root$node/available_frequencies"
                if [[ $a == min_freq && $v == "${list[0]}" ]] || [[ $a == max_freq && $v == "${list[-1]}" ]]; then
                        echo 0
                fi
                ;;
        esac
        return 0
}

# not_restored: one line for each recorded attribute that is neither its original nor its
# "no limit" alternative; nothing when all are back.
not_restored() {
        local node a now alt
        for node in "${orig_nodes[@]}"; do
                for a in $(attrs_of "$node"); do
                        now=$(cat "$root$node/$a")
                        [[ $now == "${orig[$node/$a]}" ]] && continue
                        alt=$(no_limit "$node" "$a" "${orig[$node/$a]}")
                        [[ -n $alt && $now == "$alt" ]] && continue
                        echo "$node/$a: '$now', was '${orig[$node/$a]}'"
                done
        done
}

# check_restored WHEN: every attribute byte for byte, or exactly its "no limit" alternative.
check_restored() {
        local bad
        bad=$(not_restored)
        if [[ -z $bad ]]; then
                ok "$1: every original value is back"
        else
                not_ok "$1: every original value is back"
                local lines
                mapfile -t lines <<<"$bad"
                diag "${lines[@]}"
        fi
}
