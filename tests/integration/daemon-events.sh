#!/usr/bin/env bash
# Events re-evaluate at once and reuse the last sample: under a steady light load, a QoS request,
# a governor switch, a tunable, an OPP change or a reload never spikes the device to its highest
# point (a fresh sample over a microsecond window would read zero time: the maximum).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
busy=$root/sys/devices/platform/ff9a0000.gpu/busy
config() {
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_load_section "$1")
EOF
}
config 50ms
start_bus
start_daemon

device=/org/devfreqd/Devfreq1/device/gpu
call() { bctl call org.devfreqd.Devfreq1 "$device" org.devfreqd.Devfreq1.Device "$@"; }
set_freq() { kread "$gpu/userspace/set_freq"; }
read -r -a points <<<"$(kread "$gpu/available_frequencies")"
lowest=${points[0]}
highest=${points[${#points[@]} - 1]}
third=${points[2]}

# A light load takes the GPU from its initial (highest) point to the lowest.
await "the load is sampled" 5 samples_used_above gpu 0
"$setload" "$busy" 10 100
at() { [[ $(set_freq) == "$1" && $(prop gpu CurrentFrequency) == "$1" ]]; }
check "a 10% load brings the GPU down to its lowest point" wait_until 5 at "$lowest"

# From now on no poll may intervene: a 60 s interval, and the load stays as it is.
config 60s
: >"$notify_log"
kill -HUP "$daemon_pid"
await "READY=1 after the reload" 10 grep -q '^READY=1' "$notify_log"
is "reload (an event): still at the lowest point" "$(set_freq)" "$lowest"
is "the polling interval is 60 s now" "$(prop gpu PollingInterval)" 60000
ticks=$(samples_used gpu)
changes=$(grep -c "gpu: $((highest / 1000000)) MHz" "$daemon_log" || true)

# A request over busctl: busctl's reply comes after the evaluation.
call AddRequest 'sta{sv}' max-frequency "$highest" 0 >/dev/null
is "AddRequest max-frequency: set_freq right after the reply" "$(set_freq)" "$lowest"
is "... and CurrentFrequency" "$(prop gpu CurrentFrequency)" "$lowest"
# busctl's connection is gone, so is its request: that is an event too.
no_max_request() { [[ $(prop gpu QosMaxFrequency) == 18446744073709551615 ]]; }
check "the request went with busctl's connection" wait_until 5 no_max_request
is "... and its removal did not spike either" "$(set_freq)" "$lowest"

# A request held by a client that stays, and its removal, both read back at once.
if "$PYTHON3" -c 'import dbus' 2>/dev/null; then
        out=$("$PYTHON3" - "$bus_address" "$device" "$third" "$root$gpu/userspace/set_freq" <<'EOF'
import sys
import dbus

address, device, value, set_freq = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
bus = dbus.bus.BusConnection(address)
dev = bus.get_object("org.devfreqd.Devfreq1", device)
props = dbus.Interface(dev, "org.freedesktop.DBus.Properties")
def show():
    with open(set_freq) as f:
        print(int(props.Get("org.devfreqd.Devfreq1.Device", "CurrentFrequency")), f.read().strip())
path = dev.AddRequest("min-frequency", dbus.UInt64(value), dbus.Dictionary({}, signature="sv"),
                      dbus_interface="org.devfreqd.Devfreq1.Device")
show()
bus.get_object("org.devfreqd.Devfreq1", path).Remove(dbus_interface="org.devfreqd.Devfreq1.Request")
show()
EOF
        )
        is "a held min-frequency request: exactly its point at once, then back down on Remove()" \
                "$out" "$third $third"$'\n'"$lowest $lowest"
else
        skip "python3-dbus is not installed: a request held across reads"
fi

# Governor switches.
call SetGovernor s userspace
is "simple_ondemand -> userspace keeps the current point" "$(set_freq)" "$lowest"
call SetGovernor s simple_ondemand
is "userspace -> simple_ondemand decides from the last sample: lowest" "$(set_freq)" "$lowest"
call SetGovernor s performance
is "performance: the highest point" "$(set_freq)" "$highest"
call SetGovernor s simple_ondemand
is "performance -> simple_ondemand: the last sample (10%) brings it down at once" "$(set_freq)" "$lowest"
is "... and CurrentFrequency" "$(prop gpu CurrentFrequency)" "$lowest"

# A tunable and an operating point are events too.
call SetTunable su upthreshold 95
is "SetTunable: no spike" "$(set_freq)" "$lowest"
call SetOperatingPoint tb "${points[1]}" false
is "SetOperatingPoint: no spike" "$(set_freq)" "$lowest"

is "no poll intervened during the events" "$(samples_used gpu)" "$ticks"
is "the highest point was applied once only, under performance" \
        "$(grep -c "gpu: $((highest / 1000000)) MHz" "$daemon_log" || true)" "$((changes + 1))"
check "the daemon is still running" daemon_alive

# A reload is an event too: a governor it keeps, with the same tunables, does not decide again on
# a sample it has decided on (conservative would take one more step a reload).
call SetGovernor s performance
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_load_section 60s | sed 's/^governor = .*/governor = conservative/')
freq_step = 25
EOF
reload_ready() {
        : >"$notify_log"
        kill -HUP "$daemon_pid"
        await "READY=1 after the reload $1" 10 grep -q '^READY=1' "$notify_log"
}
reload_ready "to conservative"
is "a reload to conservative decides on the last sample (10 %): one step down" "$(set_freq)" "${points[3]}"
reload_ready "that changes nothing"
is "... a reload that changes nothing: no second step" "$(set_freq)" "${points[3]}"
reload_ready "that changes nothing, again"
is "... nor a third" "$(set_freq)" "${points[3]}"

# Under userspace, initial-frequency is the frequency set (as a write of set_freq would make it): a
# ceiling that comes and goes gives it back, where the frequency in force would stay lowered.
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)
initial-frequency = ${highest}
EOF
before=$(set_freq)
reload_ready "to userspace"
at_set() { [[ $(set_freq) == "$1" ]]; }
is "a reload to userspace with initial-frequency: a device that stays keeps its frequency" "$(set_freq)" "$before"
stop_daemon
start_daemon
check "attached under userspace with initial-frequency: the highest point" wait_until 5 at_set "$highest"
"$devfreqctl" --bus "$bus_address" request gpu max-frequency "$third" >"$tmp/request.out" 2>&1 &
holder=$!
track "$holder"
check "a held max-frequency request lowers it" wait_until 5 at_set "$third"
kill -TERM "$holder"
wait "$holder" || true
check "... and when the request ends, the configured frequency is back" wait_until 5 at_set "$highest"
call SetFrequency t "$third"
reload_ready "that changes nothing, under userspace"
is "... a reload keeps the frequency set" "$(set_freq)" "$third"
stop_daemon
is "exit status 0" "$daemon_status" 0
tap_done
