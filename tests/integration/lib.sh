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

cleanup() {
        local pid
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

# wait_until SECONDS COMMAND...: poll until the command succeeds; 1 after the deadline.
wait_until() {
        local deadline=$(($(date +%s%N) + $1 * 1000000000))
        shift
        while :; do
                "$@" 2>/dev/null && return 0
                (($(date +%s%N) > deadline)) && return 1
                sleep 0.05
        done
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
        dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --print-address=3 3>"$tmp/bus.address" &
        track $!
        bus_pid=$!
        wait_until 5 test -s "$tmp/bus.address" || { echo "Bail out! dbus-daemon did not start"; exit 1; }
        bus_address=$(head -n1 "$tmp/bus.address")
        export DBUS_SYSTEM_BUS_ADDRESS=$bus_address DBUS_SESSION_BUS_ADDRESS=$bus_address
}

start_notify_listener() {
        "$PYTHON3" "$top_srcdir/tests/integration/notify-listener.py" "$tmp/notify.socket" "$notify_log" &
        track $!
        wait_until 5 test -S "$tmp/notify.socket"
}

# start_daemon [ARGS...]: devfreqd on the fake root and the private bus; waits for READY=1.
start_daemon() {
        mkdir -p "$tmp/run" "$tmp/state" "$tmp/conf.d"
        [[ -f $tmp/devfreqd.conf ]] || : >"$tmp/devfreqd.conf.missing"
        [[ -S $tmp/notify.socket ]] || start_notify_listener
        : >"$notify_log"
        NOTIFY_SOCKET=$tmp/notify.socket LD_PRELOAD=$fakekernel \
                "$devfreqd" --root "$root" --bus "$bus_address" --config "$tmp/devfreqd.conf" \
                --config-dir "$tmp/conf.d" --runtime-dir "$tmp/run" --state-dir "$tmp/state" --log-level debug \
                "$@" >>"$daemon_log" 2>&1 &
        daemon_pid=$!
        track $daemon_pid
        if ! wait_until 10 grep -q '^READY=1' "$notify_log"; then
                echo "# devfreqd did not become ready; its log:"
                sed 's/^/# /' "$daemon_log"
                return 1
        fi
}

# stop_daemon [SIGNAL]: signal it and wait for its exit; sets daemon_status.
stop_daemon() {
        kill -"${1:-TERM}" "$daemon_pid" 2>/dev/null || true
        set +e
        wait "$daemon_pid"
        daemon_status=$?
        set -e
}

daemon_alive() { kill -0 "$daemon_pid" 2>/dev/null; }

bctl() { busctl --address="$bus_address" "$@"; }

# Checksum of every file of the fake root (contents and names), for "nothing was written".
tree_sum() { (cd "$root" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1); }

gpu=/sys/devices/platform/ff9a0000.gpu/devfreq/ff9a0000.gpu
dmc=/sys/devices/platform/dmc/devfreq/dmc
policy0=/sys/devices/system/cpu/cpufreq/policy0
policy2=/sys/devices/system/cpu/cpufreq/policy2
