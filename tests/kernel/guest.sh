#!/bin/bash
# The cases of the kernel tier, run in its guest (tests/kernel/run): the host's root filesystem
# read-only, /tmp, /run and /var in memory, the distribution's kernel, tests/kernel/module loaded.
# Every TAP line goes to the console prefixed with "KTAP ".
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
devfreqd=$top_builddir/daemon/devfreqd
devfreqctl=$top_builddir/tools/devfreqctl
replay=$top_builddir/tools/devfreq-replay
dbg=/sys/kernel/debug/devfreq_test
tmp=/tmp/kernel-tier
mkdir -p "$tmp/conf.d" "$tmp/run" "$tmp/state"
n=0
pids=()

. "$top_srcdir/tests/kernel/tap.sh"
# The cases under systemd follow in tests/kernel/guest-systemd.sh (unit_phase=yes): they go on
# from case n and print the plan. Otherwise their line is a SKIP with the reason (unit_skip).
finish() {
        local p
        for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
        if [[ ${unit_phase:-no} == yes ]]; then
                echo "$n" >/run/kernel-tier-cases
        else
                [[ -z ${unit_skip:-} ]] || say "ok $((++n)) - the shipped unit's sandbox holds on the real kernel # SKIP $unit_skip"
                say "1..$n"
        fi
        exit 0
}

# The sanitizer build: its runtime must work here, or every case would fail for that alone.
if ! out=$("$devfreqd" --version 2>&1); then
        say "1..0 # SKIP the build's devfreqd does not run in the guest (sanitizer runtime?): $(head -n1 <<<"$out")"
        exit 0
fi

# =============================================================== the module on the kernel's devfreq
modprobe governor_simpleondemand 2>&1 | diag
if ! out=$(insmod "$top_builddir/tests/kernel/module-build/devfreq_test.ko" polling_ms=20 2>&1); then
        not_ok "the test module loads"
        diag <<<"$out"
        finish
fi
gpu=$(node_of dftest-gpu) && dmc=$(node_of dftest-dmc)
is "the module registers two devfreq devices on simple_ondemand" \
        "$(cat "$gpu/governor" "$dmc/governor" 2>&1 | tr '\n' ' ')" "simple_ondemand simple_ondemand "
is "... with the OPP tables it added (in Hz)" "$(cat "$gpu/available_frequencies" "$dmc/available_frequencies" | tr -s ' \n' ' ')" \
        "200000000 300000000 400000000 600000000 800000000 166000000 333000000 533000000 800000000 "
pol=/sys/devices/system/cpu/cpufreq
is "... and its cpufreq driver one policy per CPU, with its table (in kHz)" \
        "$(cat "$pol/policy0/scaling_driver" "$pol/policy1/scaling_driver" "$pol/policy0/scaling_available_frequencies" 2>&1 | tr -s ' \n' ' ')" \
        "devfreq_test devfreq_test 800000 1200000 1600000 2000000 "

# =============================================================== the oracle
# A load sequence of 240 samples: zero totals, saturation, busy above total, totals beyond 2^24
# (simple_ondemand shifts both by 7), loads in the keep band and far below, from a fixed LCG.
gen_load() { # SEED COUNT
        awk -v seed="$1" -v count="$2" 'BEGIN {
                s = seed
                for (i = 0; i < count; i++) {
                        s = (s * 1103515245 + 12345) % 2147483648
                        r = int(s / 65536) % 100
                        k = i % 12
                        if (k == 0) print "0 0"
                        else if (k == 3) print "100 100"
                        else if (k == 5) print "120 100"
                        else if (k == 7) printf "%d %d\n", r * 200000 + 5, 20000000
                        else if (k == 9) printf "%d %d\n", (r % 20) + 80, 100
                        else printf "%d %d\n", r, 100
                }
        }'
}
oracle_start() { # NAME NODE SEED COUNT: forget the targets, note where it starts, feed the script
        local name=$1 node=$2
        echo clear >"$dbg/$name/targets"
        cat "$node/cur_freq" >"$tmp/$name.initial"
        cat "$dbg/$name/consumed" >"$tmp/$name.c0"
        gen_load "$3" "$4" >"$tmp/$name.load"
        cat "$tmp/$name.load" >"$dbg/$name/script"
}
script_done() { [[ $(cat "$dbg/$1/script") == 0 ]]; }
oracle_check() { # NAME NODE UPTHRESHOLD DOWNDIFFERENTIAL WHAT [REPLAY-ARGS...]
        local name=$1 node=$2 up=$3 down=$4 what=$5 c0 table
        shift 5
        if ! wait_until 60 script_done "$name"; then
                not_ok "oracle $name $what: the kernel consumed the script"
                echo "left: $(cat "$dbg/$name/script")" | diag
                return
        fi
        c0=$(cat "$tmp/$name.c0")
        awk -v c0="$c0" '{ print $1 - c0, $2 }' "$dbg/$name/targets" >"$tmp/$name.kernel"
        is "oracle $name $what: one target() per sample, in order" "$(cut -d' ' -f1 "$tmp/$name.kernel" | tr '\n' ' ')" \
                "$(seq -s ' ' 1 "$(wc -l <"$tmp/$name.load")") "
        table=$(tr -s ' \n' ',' <"$node/available_frequencies" | sed 's/,$//')
        if ! tr ' ' ',' <"$tmp/$name.load" | "$replay" --opp "$table" --governor simple_ondemand \
                --tunable "upthreshold=$up" --tunable "downdifferential=$down" "$@" \
                --initial "$(cat "$tmp/$name.initial")" - >"$tmp/$name.replay" 2>&1; then
                not_ok "oracle $name $what: devfreq-replay runs"
                tail -n 5 "$tmp/$name.replay" | diag
                return
        fi
        tail -n +2 "$tmp/$name.replay" | cut -d, -f5 >"$tmp/$name.replayed"
        cut -d' ' -f2 "$tmp/$name.kernel" >"$tmp/$name.chosen"
        if cmp -s "$tmp/$name.replayed" "$tmp/$name.chosen"; then
                ok "oracle $name $what (upthreshold $up, downdifferential $down): devfreq-replay chooses the kernel's $(wc -l <"$tmp/$name.chosen") frequencies ($(sort -u "$tmp/$name.chosen" | wc -l) distinct)"
        else
                not_ok "oracle $name $what (upthreshold $up, downdifferential $down): devfreq-replay chooses the kernel's frequencies"
                tail -n +2 "$tmp/$name.replay" >"$tmp/$name.rows"
                paste -d' ' "$tmp/$name.rows" "$tmp/$name.chosen" | awk '{ split($1, a, ","); if (a[5] != $2) print NR ": sample,current,governor,replay=" $1 " kernel=" $2 }' |
                        head -n 10 | diag
        fi
}
oracle_start dftest-gpu "$gpu" 7 240
oracle_start dftest-dmc "$dmc" 11 240
oracle_check dftest-gpu "$gpu" 90 5 "free"
oracle_check dftest-dmc "$dmc" 70 15 "free"
# A ceiling in the middle (the DMC's between two points): written while no sample is pending (the write runs the governor, which
# then fails for want of a sample and changes nothing), then the next part of the sequence.
gpu_max=$(cat "$gpu/max_freq") dmc_max=$(cat "$dmc/max_freq") dmc_min=$(cat "$dmc/min_freq")
echo 400000000 >"$gpu/max_freq"
echo 450000000 >"$dmc/max_freq"
oracle_start dftest-gpu "$gpu" 13 120
oracle_start dftest-dmc "$dmc" 17 120
oracle_check dftest-gpu "$gpu" 90 5 "under a 400 MHz ceiling" --max 400MHz
oracle_check dftest-dmc "$dmc" 70 15 "under a 450 MHz ceiling, between points" --max 450MHz
echo "$gpu_max" >"$gpu/max_freq"
echo "$dmc_max" >"$dmc/max_freq"

# =============================================================== what the kernel does with the limits
# Each listed in devfreqd(8), "REAL KERNELS"; the daemon and the fake kernel follow them.
w() { # VALUE ATTR: the errno text of the write, or "ok"
        local o
        o=$({ echo "$1" >"$dmc/$2"; } 2>&1) && echo ok || echo "${o##*: }"
}
lim() { echo "$(cat "$dmc/min_freq") $(cat "$dmc/max_freq")"; }
w 250000999 max_freq >/dev/null
w 250000999 min_freq >/dev/null
is "kernel: limits are kept in kHz, max_freq rounded up and min_freq down" "$(lim)" "250000000 250001000"
w 0 min_freq >/dev/null
w 1 max_freq >/dev/null
is "kernel: the limits read back are the effective ones (min_freq capped by max_freq 1 -> 1000)" "$(lim)" "1000 1000"
w 0 max_freq >/dev/null
is "kernel: max_freq 0 is no limit" "$(lim)" "166000000 800000000"
is "kernel: a min above the max is accepted ($(w 700000000 min_freq) $(w 400000000 max_freq)) and reads as the max" \
        "$(lim)" "400000000 400000000"
w 0 max_freq >/dev/null
is "... the minimum was kept: with the max lifted it is in force again" "$(lim)" "700000000 800000000"
w 0 min_freq >/dev/null
is "kernel: -1 is refused" "$(w -1 min_freq) $(w -1 max_freq)" "Invalid argument Invalid argument"
is "kernel: a devfreq governor not built (userspace, performance) is ENOENT" \
        "$(w userspace governor) $(w performance governor) $(cat "$dmc/governor")" \
        "No such file or directory No such file or directory simple_ondemand"
is "kernel: trans_stat takes only 0" "$(w 1 trans_stat) $(w 0 trans_stat)" "Invalid argument ok"

# =============================================================== autodiscovery
cat >"$tmp/devfreqd.conf" <<EOC
[daemon]
autodiscover = yes
EOC
args=(--root / --config "$tmp/devfreqd.conf" --config-dir "$tmp/conf.d")
out=$("$devfreqd" --check-config "${args[@]}" 2>&1)
block() { # the lines of one device in --check-config's output
        awk -v d="$1" '/^[^ ]/ { on = ($0 == d) } on' <<<"$out"
}
if [[ $out == *"4 devices, configuration OK"* ]]; then
        ok "devfreqd --check-config autodiscovers the module's two devfreq devices and two policies"
else
        not_ok "devfreqd --check-config autodiscovers the module's two devfreq devices and two policies"
        diag <<<"$out"
fi
is "... the GPU's table, in the kernel's Hz read right" "$(block dftest-gpu | grep points: | tr -s ' ')" \
        " points: 200 MHz, 300 MHz, 400 MHz, 600 MHz, 800 MHz"
is "... the DMC's table" "$(block dftest-dmc | grep points: | tr -s ' ')" " points: 166 MHz, 333 MHz, 533 MHz, 800 MHz"
is "... the policies' tables, in the kernel's kHz read right" \
        "$(block policy0 | grep points: | tr -s ' ') /$(block policy1 | grep points: | tr -s ' ')" \
        " points: 800 MHz, 1.2 GHz, 1.6 GHz, 2 GHz / points: 800 MHz, 1.2 GHz, 1.6 GHz, 2 GHz"
is "... all in clamp mode under the kernel's governor" "$(grep -c '^  mode: *clamp' <<<"$out")" 4

# =============================================================== clamp mode on the kernel's governor
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
</busconfig>
EOC
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nopidfile --print-address=3 3>"$tmp/bus.address" 2>"$tmp/bus.log" &
pids+=($!)
wait_until 10 test -s "$tmp/bus.address" || { not_ok "a private dbus-daemon starts"; finish; }
bus=$(head -n1 "$tmp/bus.address")
export DBUS_SYSTEM_BUS_ADDRESS=$bus
start_daemon() {
        "$devfreqd" "${args[@]}" --bus "$bus" --runtime-dir "$tmp/run" --state-dir "$tmp/state" \
                --log-level "${log_level:-debug}" >>"$tmp/daemon.log" 2>&1 &
        daemon_pid=$!
        pids+=($daemon_pid)
        wait_until 20 "$devfreqctl" status >/dev/null 2>&1
}
stop_daemon() {
        local rc
        kill "$daemon_pid" 2>/dev/null
        wait "$daemon_pid"
        rc=$?
        ((rc == 0)) || echo "devfreqd exited with status $rc" >>"$tmp/exits"
}
# not_started WHAT: a section's devfreqd did not start: a failed case, with its log's tail.
not_started() {
        not_ok "$1"
        tail -n 20 "$tmp/daemon.log" | diag
}
# limits DIR [PREFIX]: a node's two limits as its kernel shows them, "MIN MAX" (PREFIX scaling_).
limits() { echo "$(cat "$1/${2:-}min_freq") $(cat "$1/${2:-}max_freq")"; }
orig_min=$(cat "$gpu/min_freq") orig_max=$(cat "$gpu/max_freq")

# =============================================================== make bench (DF_KERNEL_BENCH=1): figures, no cases
# The tick's system calls on the real kernel's sysfs (devfreqd governs the GPU by pinning its
# limits, its load from tests/bench/loadgen's counters), the CPU time per tick without strace, and
# the time from the module's add to InterfacesAdded through the real systemd-udevd. Each figure is
# a "KTAP KBENCH NAME VALUE..." line for tests/bench/run.
kbench() { say "KBENCH $*"; }
# cpu_ticks PID: its user+system time in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
bench_tick() { # MODE PARAM
        local lg st t0 t1 c0 c1
        "$top_builddir/tests/bench/loadgen" "$1" "$2" 2000 "$load" 1 2>>"$tmp/loadgen.log" &
        lg=$!
        sleep 3
        # Without strace: the CPU time over a window of 10 s, in which the group's timer ticks every
        # 10 ms (it keeps its schedule unless it falls a whole period behind).
        c0=$(cpu_ticks "$daemon_pid") t0=$(date +%s%N)
        sleep 10
        c1=$(cpu_ticks "$daemon_pid") t1=$(date +%s%N)
        kbench "cpu-$1" "$((c1 - c0))" "$(getconf CLK_TCK)" "$(((t1 - t0) / 1000000))"
        strace -f -qq -y -o "$tmp/strace.$1" -p "$daemon_pid" &
        st=$!
        sleep 6
        kill -TERM "$st" # it detaches (a background job of this shell ignores SIGINT)
        wait "$st" 2>/dev/null
        kill "$lg"
        wait "$lg" 2>/dev/null
        diag <"$tmp/loadgen.log"
        kbench "syscalls-$1" "$(awk -v write_re='/(min|max)_freq>' -f "$top_srcdir/tests/bench/tick-syscalls.awk" "$tmp/strace.$1")"
}
if [[ ${bench:-} == 1 ]]; then
        # A load path must lie under /sys or /proc: loadgen's counters go in a tmpfs on the guest's
        # tracefs mount point (no tracefs is mounted there).
        load=/sys/kernel/tracing
        mount -t tmpfs bench "$load" 2>&1 | diag
        mkdir -p "$load/sys/devices/platform/gpu0/devfreq/gpu0/userspace" 2>&1 | diag
        printf '%019d %019d\n' 0 0 >"$load/sys/devices/platform/gpu0/busy"
        # loadgen's alternating load follows the point devfreqd pinned (min_freq reads it).
        ln -s "$gpu/min_freq" "$load/sys/devices/platform/gpu0/devfreq/gpu0/userspace/set_freq"
        cat >"$tmp/conf.d/gpu.conf" <<EOC
[device gpu]
path = $gpu
mode = govern
governor = simple_ondemand
polling-interval = 10ms
load = counters:$load/sys/devices/platform/gpu0/busy
EOC
        # At the default log level, as installed: a debug line per change would be a write more.
        log_level=info
        if start_daemon; then
                bench_tick steady 30
                bench_tick alternate 800000000
                stop_daemon
        else
                echo "devfreqd did not start for the tick figures" | diag
                        tail -n 20 "$tmp/daemon.log" | diag
        fi
        rm -f "$tmp/conf.d/gpu.conf"
        /lib/systemd/systemd-udevd >"$tmp/udevd.log" 2>&1 &
        pids+=($!)
        wait_until 10 test -S /run/udev/control
        if start_daemon; then
                dbus-monitor --address "$bus" "type='signal',member='InterfacesAdded'" >"$tmp/monitor.log" 2>&1 &
                mon=$!
                sleep 1
                for i in 1 2 3 4 5 6 7 8 9 10; do
                        echo "remove gpu" >"$dbg/control"
                        wait_until 10 eval '! busctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager GetDevice s dftest-gpu >/dev/null 2>&1'
                        t=$(date +%s.%N)
                        echo "add gpu" >"$dbg/control"
                        wait_until 10 eval 'busctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager GetDevice s dftest-gpu >/dev/null 2>&1'
                        sleep 0.5
                        added=$(awk -v t="$t" '/^signal time=/ { sub(/time=/, "", $2); if ($2 + 0 > t + 0) { print $2; exit } }' "$tmp/monitor.log")
                        [[ -n $added ]] && kbench hotplug-ms "$(awk -v a="$added" -v t="$t" 'BEGIN { printf "%.1f", (a - t) * 1000 }')"
                done
                kill "$mon"
                stop_daemon
        fi
        finish
fi
if ! start_daemon; then
        not_ok "devfreqd starts on the real kernel"
        tail -n 20 "$tmp/daemon.log" "$tmp/bus.log" | diag
        finish
fi
ok "devfreqd starts on the real kernel and answers on the bus"
"$devfreqctl" status 2>&1 | diag
like_polling() { [[ $(grep -i 'polling' < <("$devfreqctl" show dftest-gpu)) == *"$1"* ]]; }
check "clamp mode: the polling interval shown is the kernel governor's ($(cat "$gpu/polling_interval") ms)" \
        like_polling "$(cat "$gpu/polling_interval")"

feed() { # NAME COUNT BUSY: COUNT samples of BUSY%, then wait until the kernel has taken them
        local i
        for ((i = 0; i < $2; i++)); do echo "$3 100"; done >"$tmp/feed"
        cat "$tmp/feed" >"$dbg/$1/script"
        wait_until 20 script_done "$1"
}
below() { awk -v f="$1" '$2 < f' "$dbg/dftest-gpu/targets" | wc -l; }

echo clear >"$dbg/dftest-gpu/targets"
hold a dftest-gpu min 600MHz
check "clamp: a min-frequency request of 600 MHz raises the kernel's effective floor" \
        wait_until 10 attr_is "$gpu/min_freq" 600000000
feed dftest-gpu 30 5
is "... simple_ondemand, asked for the lowest point 30 times, chooses nothing below it" \
        "$(below 600000000) $(($(wc -l <"$dbg/dftest-gpu/targets") >= 30))" "0 1"
release a
check "... the request's end gives the floor back (min_freq $orig_min)" \
        wait_until 10 attr_is "$gpu/min_freq" "$orig_min"
echo clear >"$dbg/dftest-gpu/targets"
feed dftest-gpu 10 5
is "... and the kernel goes down to the lowest point again" "$(tail -n1 "$dbg/dftest-gpu/targets" | cut -d' ' -f2)" 200000000
# The writes, seen by strace: sysfs takes the whole value with the write, so no ftruncate follows.
strace -y -e trace=pwrite64,ftruncate -o "$tmp/strace.cap" -p "$daemon_pid" 2>"$tmp/strace.cap.err" &
st=$!
# Not attached in time: the case below then finds no write to max_freq and fails.
wait_until 20 grep -q attached "$tmp/strace.cap.err" || diag "strace did not attach within 20 s"
hold a dftest-gpu max 400MHz
check "clamp: a max-frequency request caps the kernel's ceiling" wait_until 10 attr_is "$gpu/max_freq" 400000000
kill -TERM "$st"
wait "$st" 2>/dev/null
diag <"$tmp/strace.cap"
is "... written with pwrite to max_freq, no ftruncate after it (written, truncations)" \
        "$(($(grep -c '^pwrite64([0-9]*</sys/.*max_freq>' "$tmp/strace.cap") > 0)) $(grep -c '^ftruncate' "$tmp/strace.cap")" "1 0"
stop_daemon
is "stop restores the originals (min_freq max_freq)" "$(limits "$gpu")" \
        "$orig_min $orig_max"
release a

# A floor nobody set: devfreqd holds a minimum, root caps max_freq below it (the kernel then shows
# the cap as min_freq too: effective values), devfreqd evaluates meanwhile (another request), root
# lifts the cap; after the requests and the daemon, nothing of it may stay.
start_daemon || not_ok "devfreqd starts again"
hold a dftest-gpu min 600MHz
wait_until 10 attr_is "$gpu/min_freq" 600000000
echo 400000000 >"$gpu/max_freq"
is "the kernel shows an effective min_freq at a max_freq below the floor" "$(limits "$gpu")" \
        "400000000 400000000"
hold b dftest-gpu min 300MHz
wait_until 10 grep -q 'min-frequency 300 MHz' "$tmp/daemon.log"
sleep 1
echo "$orig_max" >"$gpu/max_freq"
sleep 1
check "... the cap lifted, devfreqd's floor is in force again" attr_is "$gpu/min_freq" 600000000
release b
release a
check "... the requests ended, the floor is the original again" wait_until 10 attr_is "$gpu/min_freq" "$orig_min"
stop_daemon
is "... devfreqd stopped: min_freq and max_freq are the originals" \
        "$(limits "$gpu")" "$orig_min $orig_max"
# =============================================================== govern mode without a userspace governor
# The kernel has no devfreq userspace governor: devfreqd governs by pinning min_freq = max_freq,
# and the kernel's simple_ondemand, whatever it asks, lands on the pinned point.
cat >"$tmp/conf.d/gpu.conf" <<EOC
[device gpu]
path = $gpu
mode = govern
governor = powersave
EOC
last_target() { tail -n1 "$dbg/dftest-gpu/targets" | cut -d' ' -f2; }
if start_daemon; then
        check "govern mode (powersave) pins both limits at the lowest point" \
                wait_until 10 eval '[[ $(limits "$gpu") == "200000000 200000000" ]]'
        feed dftest-gpu 10 100
        is "... the kernel's simple_ondemand, saturated, lands on it in target()" "$(last_target)" 200000000
        is "... the kernel's governor stays (none to select)" "$(cat "$gpu/governor")" simple_ondemand
        hold a gpu min 600MHz
        check "... a min-frequency request moves the pinned point to 600 MHz" \
                wait_until 10 eval '[[ $(limits "$gpu") == "600000000 600000000" ]]'
        feed dftest-gpu 10 0
        is "... the kernel, idle, lands on it in target()" "$(last_target)" 600000000
        release a
        check "... the request ended: back at the lowest point" \
                wait_until 10 eval '[[ $(limits "$gpu") == "200000000 200000000" ]]'
        stop_daemon
        is "... stop restores the kernel governor and both limits" "$(cat "$gpu/governor") $(limits "$gpu")" \
                "simple_ondemand $orig_min $orig_max"
else
        not_started "devfreqd starts with the GPU in govern mode"
fi
rm -f "$tmp/conf.d/gpu.conf"

# =============================================================== kill -9, then --restore
if start_daemon; then
        hold a dftest-gpu min 600MHz
        hold b dftest-dmc max 450MHz
        wait_until 10 attr_is "$gpu/min_freq" 600000000
        check "kill -9 with requests in force (GPU floor 600 MHz, DMC ceiling 450 MHz)" \
                wait_until 10 attr_is "$dmc/max_freq" 450000000
        kill -9 "$daemon_pid"
        wait "$daemon_pid" 2>/dev/null
        release a
        release b
        is "... the kernel keeps what was written" "$(limits "$gpu") $(cat "$dmc/max_freq")" \
                "600000000 $orig_max 450000000"
        out=$("$devfreqd" --restore --root / --runtime-dir "$tmp/run" 2>&1) || echo "devfreqd --restore failed: $out" >>"$tmp/exits"
        is "... devfreqd --restore puts every original back" "$(limits "$gpu") $(cat "$dmc/min_freq") $(cat "$dmc/max_freq")" \
                "$orig_min $orig_max $dmc_min $dmc_max"
else
        not_started "devfreqd starts for kill -9"
fi

# =============================================================== a device unplugged and back, no udevd
# sd_device_monitor hears udev's processed events only, and this guest runs no udevd.
if start_daemon; then
        echo "remove gpu" >"$dbg/control"
        st=$("$devfreqctl" status 2>&1) && rc=0 || rc=$?
        is "the GPU unplugged (no uevent heard): devfreqctl status still succeeds" "$rc" 0
        [[ $rc == 0 ]] || diag <<<"$st"
        like_dmc() { grep -qE 'dftest-dmc +devfreq +clamp' <<<"$st"; }
        check "... and lists the DMC" like_dmc
        echo "add gpu" >"$dbg/control"
        gpu=$(node_of dftest-gpu)
        hold a dftest-gpu min 600MHz
        check "... plugged back at the same path: the first access finds the old node dead, the new one is attached" \
                wait_until 10 grep -q 'dftest-gpu appeared; attaching it' "$tmp/daemon.log"
        release a
        hold b dftest-gpu min 600MHz
        check "... a request made after the return acts" wait_until 10 attr_is "$gpu/min_freq" 600000000
        release b
        "$devfreqctl" reload 2>&1 | diag
        is "... a reload then keeps both devices" "$("$devfreqctl" status 2>&1 | grep -cE '^dftest-(gpu|dmc) ')" 2
        stop_daemon
        is "... devfreqd stopped: the re-added GPU has its original limits" "$(limits "$gpu")" "$orig_min $orig_max"
else
        not_started "devfreqd starts for the hotplug case"
fi

# =============================================================== cpufreq: govern through userspace
# The kernel's userspace governor is a module here. Root caps scaling_max_freq under devfreqd's
# choice: on a real kernel scaling_setspeed then reads back the current, capped frequency, which
# is no other writer's.
modprobe cpufreq_userspace 2>&1 | diag
p0=$pol/policy0
echo "$(cat "$pol/policy1/scaling_governor") $(cat "$pol/policy1/scaling_min_freq") $(cat "$pol/policy1/scaling_max_freq")" >"$tmp/p1.orig"
p0_gov=$(cat "$p0/scaling_governor") p0_min=$(cat "$p0/scaling_min_freq") p0_max=$(cat "$p0/scaling_max_freq")
cat >"$tmp/conf.d/cpu.conf" <<EOC
[device cpu0]
path = $p0
mode = govern
governor = performance
EOC
if start_daemon; then
        check "govern mode on a policy selects the kernel's userspace governor and sets 2 GHz" \
                wait_until 10 eval '[[ "$(cat "$p0/scaling_governor") $(cat "$p0/scaling_cur_freq")" == "userspace 2000000" ]]'
        echo 1200000 >"$p0/scaling_max_freq"
        hold a cpu0 min 1.6GHz
        # Each held a second: the ticks under it would take the cap for another writer's.
        check "... a 1.6 GHz floor is held" wait_until 10 requests_held 1
        sleep 1
        release a
        check "... and ended" wait_until 10 requests_held 0
        hold b cpu0 min 800MHz
        check "... then an 800 MHz floor" wait_until 10 requests_held 1
        sleep 1
        release b
        is "... root caps scaling_max_freq at 1.2 GHz: the policy runs at the cap" "$(cat "$p0/scaling_cur_freq")" 1200000
        is "... and devfreqd takes the cap for no other writer's setspeed" "$(grep -c 'by another writer' "$tmp/daemon.log")" 0
        cpu0_obj=$(busctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager \
                GetDevice s cpu0 2>&1 | sed -n 's/^o "\(.*\)"$/\1/p')
        is "... its CurrentFrequency says what the policy runs at: the cap" \
                "$(busctl get-property org.devfreqd.Devfreq1 "$cpu0_obj" org.devfreqd.Devfreq1.Device CurrentFrequency 2>&1)" \
                "t 1200000000"
        stop_daemon
        is "... stop restores the kernel governor and both limits" \
                "$(cat "$p0/scaling_governor") $(cat "$p0/scaling_min_freq") $(cat "$p0/scaling_max_freq")" \
                "$p0_gov $p0_min $p0_max"
else
        not_started "devfreqd starts with policy0 in govern mode"
fi
rm -f "$tmp/conf.d/cpu.conf"

# =============================================================== cpufreq: clamp, limits between points
# cpufreq_set_policy() resolves a policy's limits to its table (since 5.16): devfreqd's 1.7 GHz
# ceiling reads back as 1.6 GHz and its 1.1 GHz floor as 1.2 GHz. That is devfreqd's own value,
# resolved, not another writer's to adopt and leave behind.
cat >"$tmp/conf.d/cpu.conf" <<EOC
[device cpu0]
path = $p0
mode = clamp
EOC
if start_daemon; then
        log_at=$(wc -l <"$tmp/daemon.log")
        hold a cpu0 max 1.7GHz
        check "clamp: a 1.7 GHz ceiling reads back resolved to the table, 1.6 GHz" \
                wait_until 10 attr_is "$p0/scaling_max_freq" 1600000
        hold b cpu0 min 1.1GHz
        check "... a 1.1 GHz floor, after an evaluation that read the limits, as 1.2 GHz" \
                wait_until 10 attr_is "$p0/scaling_min_freq" 1200000
        is "... neither is taken for another writer's" \
                "$(tail -n +$((log_at + 1)) "$tmp/daemon.log" | grep -c 'by another writer')" 0
        release b
        release a
        check "... both end: the policy's own limits again" \
                wait_until 10 eval '[[ "$(limits "$p0" scaling_)" == "$p0_min $p0_max" ]]'
        stop_daemon
        is "... and after stop" "$(limits "$p0" scaling_)" "$p0_min $p0_max"
else
        not_started "devfreqd starts with policy0 in clamp mode"
fi
rm -f "$tmp/conf.d/cpu.conf"

# =============================================================== a thermal rule on the module's zone
# The module's zone "dftest-thermal" reads what is written to debugfs: above the trip devfreqd caps
# the GPU through the kernel's max_freq (clamp mode), the kernel's simple_ondemand stays under the
# cap at full load, and below the clear temperature the cap goes.
rm -f "$tmp/conf.d/gpu.conf"
cat >"$tmp/conf.d/thermal.conf" <<EOC
[device gpu]
path = $gpu
mode = clamp

[thermal gpu-hot]
zone = dftest-thermal
devices = gpu
trip = 80C
clear = 70C
max-frequency = 400MHz
poll = 100ms
EOC
echo 45000 >"$dbg/temp"
if start_daemon; then
        like "thermal: the rule reads the module's zone" "$("$devfreqctl" thermal)" \
                '^gpu-hot: dftest-thermal at 45 C, released, cap 400 MHz$'
        echo 90000 >"$dbg/temp"
        check "... at 90 C it trips: the kernel's max_freq is 400 MHz" wait_until 10 attr_is "$gpu/max_freq" 400000000
        like "... devfreqctl thermal says so" "$("$devfreqctl" thermal)" '^gpu-hot: dftest-thermal at 90 C, tripped'
        echo clear >"$dbg/dftest-gpu/targets"
        feed dftest-gpu 10 100
        is "... the kernel's simple_ondemand, saturated, stays at the cap" "$(last_target)" 400000000
        echo 75000 >"$dbg/temp"
        read_75() { grep -q '^gpu-hot: dftest-thermal at 75 C, tripped' < <("$devfreqctl" thermal); }
        check "... at 75 C (between clear and trip) the rule, having read it, stays tripped" wait_until 10 read_75
        is "... and the cap holds" "$(cat "$gpu/max_freq")" 400000000
        echo 60000 >"$dbg/temp"
        check "... at 60 C it releases: max_freq is the original again" wait_until 10 attr_is "$gpu/max_freq" "$orig_max"
        feed dftest-gpu 10 100
        is "... and the kernel's simple_ondemand reaches the top" "$(last_target)" 800000000
        stop_daemon
        is "... stop restores the originals" "$(limits "$gpu")" "$orig_min $orig_max"
else
        not_started "devfreqd starts with a thermal rule"
fi
rm -f "$tmp/conf.d/thermal.conf"
rm -f "$tmp/conf.d/thermal.conf"

# =============================================================== the kernel's own cooling of the GPU
# The module's GPU has a devfreq cooling device (devfreq_cooling_register()): its cur_state s caps
# the GPU at the s-th point from the top through a request of the kernel's, which max_freq shows,
# and min_freq too when it is above. devfreqd must not take that cap for another writer's limit:
# found at start it is no outer bound, seen while devfreqd holds the limits it is not adopted,
# and when the last request ends the node gets its own limits back, not the cap.
cdev=$(head -n1 < <(grep -lx 'devfreq-dftest-gpu' /sys/class/thermal/cooling_device*/type 2>/dev/null))
cdev=${cdev%/type}
is "the GPU's devfreq cooling device is named devfreq-dftest-gpu, states 0 to 4" \
        "$(cat "$cdev/max_state" 2>&1)" 4
echo 2 >"$cdev/cur_state"
is "... state 2 caps max_freq at the third point from the top" "$(limits "$gpu")" \
        "$orig_min 400000000"
gpu_range() { # the effective range devfreqd keeps for the GPU, on the bus: "MIN MAX" in Hz
        local o p v=()
        o=$(busctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager \
                GetDevice s dftest-gpu 2>&1 | sed -n 's/^o "\(.*\)"$/\1/p')
        for p in MinFrequency MaxFrequency; do
                v+=("$(busctl get-property org.devfreqd.Devfreq1 "$o" org.devfreqd.Devfreq1.Device "$p" 2>&1 | cut -d' ' -f2)")
        done
        echo "${v[*]}"
}
if start_daemon; then
        is "devfreqd, started under the cap, takes it for no outer bound" "$(gpu_range)" "200000000 800000000"
        hold a dftest-gpu min 500MHz
        check "... a 500 MHz floor: the kernel shows it lowered to the 400 MHz cap" \
                wait_until 10 eval '[[ "$(limits "$gpu")" == "400000000 400000000" ]]'
        echo 3 >"$cdev/cur_state"
        hold b dftest-gpu max 700MHz
        check "... state 3 and a 700 MHz ceiling: 300 MHz is all the kernel allows" \
                wait_until 10 attr_is "$gpu/max_freq" 300000000
        is "... and devfreqd's own range stays 500-700 MHz" "$(gpu_range)" "500000000 700000000"
        is "... no cap was taken for another writer's" "$(grep -c 'by another writer' "$tmp/daemon.log")" 0
        echo 0 >"$cdev/cur_state"
        check "... cooled (state 0): the kernel shows devfreqd's 500-700 MHz" \
                wait_until 10 eval '[[ "$(limits "$gpu")" == "500000000 700000000" ]]'
        release b
        release a
        check "... both requests end: the limits are the node's own again, not the cap" \
                wait_until 10 eval '[[ "$(limits "$gpu")" == "$orig_min $orig_max" ]]'
        like "... the originals, recorded at the first write under the cap, hold no cap" \
                "$(cat "$tmp/run/originals")" "dftest-gpu/devfreq/[^[:space:]]+[[:space:]]+simple_ondemand[[:space:]]+$orig_min[[:space:]]+$orig_max[[:space:]]"
        stop_daemon
        is "... and stop leaves them so" "$(limits "$gpu")" "$orig_min $orig_max"
else
        not_started "devfreqd starts with the GPU capped by its cooling device"
fi
echo 0 >"$cdev/cur_state"

# =============================================================== a CPU offline and online
# policy1 in govern mode (powersave: the kernel's userspace governor at 800 MHz). Offline, the
# kernel keeps the policy inactive (every read of its attributes is EBUSY); online, it sets it up
# afresh through the driver's init, which starts at 2 GHz, and the userspace governor starts at
# that. devfreqd must write its 800 MHz again.
p1=$pol/policy1
cpu1=/sys/devices/system/cpu/cpu1/online
p1_cur() { cat "$p1/scaling_cur_freq"; }
cat >"$tmp/conf.d/cpu1.conf" <<EOC
[device cpu1]
path = $p1
mode = govern
governor = powersave
EOC
cpu_cycle() { # offline, then online again; the frequency the kernel set it up at
        echo 0 >"$cpu1"
        sleep 0.5
        echo "offline: reading affected_cpus: $(cat "$p1/affected_cpus" 2>&1)" | diag
        echo 1 >"$cpu1"
}
if start_daemon; then
        check "govern mode on policy1 runs it at 800 MHz" wait_until 10 eval '[[ $(p1_cur) == 800000 ]]'
        # Without udevd: what a CPU cycled offline and online shows (no uevent reaches devfreqd).
        cpu_cycle
        sleep 2
        echo "without udevd, after cpu1 offline/online: policy1 at $(p1_cur) kHz, governor $(cat "$p1/scaling_governor")" | diag
        grep -E 'cpu1: ' "$tmp/daemon.log" | tail -n 3 | diag
        stop_daemon
else
        not_started "devfreqd starts with policy1 in govern mode"
fi
# From here udevd runs: the kernel's uevents reach devfreqd through it.
/lib/systemd/systemd-udevd >"$tmp/udevd.log" 2>&1 &
udevd_pid=$!
pids+=($udevd_pid)
wait_until 10 test -S /run/udev/control || { echo "systemd-udevd did not start" | diag; tail -n 5 "$tmp/udevd.log" | diag; }
if start_daemon; then
        check "with udevd: govern mode on policy1 runs it at 800 MHz" wait_until 10 eval '[[ $(p1_cur) == 800000 ]]'
        echo 0 >"$cpu1"
        check "... cpu1 offline: devfreqd leaves the inactive policy alone" \
                wait_until 10 grep -q 'cpu1: every CPU of the policy is offline' "$tmp/daemon.log"
        echo 1 >"$cpu1"
                check "... cpu1 online: devfreqd applies the policy again (userspace, 800 MHz)" \
                wait_until 10 eval '[[ "$(cat "$p1/scaling_governor") $(p1_cur)" == "userspace 800000" ]]'
        stop_daemon
        is "... stop restores policy1's governor and limits" \
                "$(cat "$p1/scaling_governor") $(cat "$p1/scaling_min_freq") $(cat "$p1/scaling_max_freq")" \
                "$(cat "$tmp/p1.orig")"
else
        not_started "devfreqd starts with udevd and policy1 in govern mode"
fi
rm -f "$tmp/conf.d/cpu1.conf"

# =============================================================== a device unplugged and back, through udevd
# With udevd the removal is heard at once, without any failed access (clamp mode reads nothing of
# the GPU meanwhile): its bus object goes, and comes back when the device is added again.
if kill -0 "$udevd_pid" 2>/dev/null && start_daemon; then
        check "with udevd: the GPU is on the bus" gpu_on_bus
        echo "remove gpu" >"$dbg/control"
        check "... the GPU removed: udevd's event detaches it and its bus object goes" wait_until 10 gpu_off_bus
        check "... the log says it went away" grep -q 'dftest-gpu: .* went away' "$tmp/daemon.log"
        echo "add gpu" >"$dbg/control"
        check "... added back: udevd's event attaches it and its bus object is back" wait_until 10 gpu_on_bus
        gpu=$(node_of dftest-gpu)
        hold b dftest-gpu min 600MHz
        check "... a request made after the return acts" wait_until 10 attr_is "$gpu/min_freq" 600000000
        release b
        check "... its end gives the floor back" wait_until 10 attr_is "$gpu/min_freq" "$orig_min"
        stop_daemon
        is "... devfreqd stopped: the re-added GPU has its original limits" "$(limits "$gpu")" "$orig_min $orig_max"
else
        not_started "devfreqd starts with udevd for the hotplug case"
fi

# =============================================================== the cpufreq driver reloaded
# rmmod and insmod of the module unregister and register its cpufreq driver: the policies' sysfs
# directories go and come back at the same paths. No `cpu` uevent says so; the module's own
# uevents (subsystem "module", sent after its init and after its exit) do.
p0_cur() { cat "$p0/scaling_cur_freq" 2>/dev/null; }
cat >"$tmp/conf.d/cpu.conf" <<EOC
[device cpu0]
path = $p0
mode = govern
governor = powersave
EOC
if kill -0 "$udevd_pid" 2>/dev/null && start_daemon; then
        check "govern mode on policy0 (powersave) runs it at 800 MHz" wait_until 10 eval '[[ $(p0_cur) == 800000 ]]'
        log_at=$(wc -l <"$tmp/daemon.log")
        rmmod devfreq_test 2>&1 | diag
        check "... the module removed: devfreqd detaches policy0" \
                wait_until 10 grep -q "cpu0: $p0 went away" "$tmp/daemon.log"
        if ! out=$(insmod "$top_builddir/tests/kernel/module-build/devfreq_test.ko" polling_ms=20 2>&1); then
                not_ok "the test module loads again"
                diag <<<"$out"
        fi
        check "... loaded again: devfreqd attaches the new policy0 and runs it at 800 MHz under userspace (the driver starts it at 2 GHz)" \
                wait_until 10 eval '[[ "$(cat "$p0/scaling_governor" 2>/dev/null) $(p0_cur)" == "userspace 800000" ]]'
        echo "the uevents devfreqd heard through udevd meanwhile:" | diag
        tail -n +"$((log_at + 1))" "$tmp/daemon.log" | grep -o 'uevent: .*' | sort | uniq -c | diag
        st=$("$devfreqctl" status 2>&1)
        is "... devfreqctl status lists both policies and both devfreq devices" \
                "$(grep -cE '^(policy0|policy1|cpu0|dftest-gpu|dftest-dmc) ' <<<"$st")" 4
        "$devfreqctl" reload 2>&1 | diag
        is "... a reload keeps them" "$("$devfreqctl" status 2>&1 | grep -cE '^(policy0|policy1|cpu0|dftest-gpu|dftest-dmc) ')" 4
        stop_daemon
        is "... stop restores the new policy0's governor" "$(cat "$p0/scaling_governor")" "$p0_gov"
else
        not_started "devfreqd starts with udevd and policy0 in govern mode"
fi
rm -f "$tmp/conf.d/cpu.conf"

is "every devfreqd run exited with status 0" "$(cat "$tmp/exits" 2>/dev/null)" ""
is "no sanitizer report in devfreqd's log" "$(grep -cE 'AddressSanitizer|LeakSanitizer|runtime error:' "$tmp/daemon.log")" 0
echo "devfreqd's log (tail):" | diag
grep -v '^$' "$tmp/daemon.log" | tail -n 12 | diag
finish
