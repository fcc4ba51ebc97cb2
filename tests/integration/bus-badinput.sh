#!/usr/bin/env bash
# Bad input as a new user would type it (busctl, gdbus, a python-dbus client): wrong signatures,
# unknown names and keys, boundary values, huge strings, unknown objects, 10,000 requests. Each
# gets its documented error and leaves the daemon serving with its state unchanged; a device's own
# failure on the way is DeviceFailed with the path, and in LastError.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root --gpus 1
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)
initial-frequency = 400MHz
opp = 200MHz latency=2ms
opp = 400MHz latency=1ms
opp = 800MHz latency=200us

[device tick]
path = /sys/class/devfreq/gpu0
mode = govern
governor = simple_ondemand
polling-interval = 1s
load = counters:/sys/devices/platform/gpu0/busy

$(dmc_clamp_section)
EOF
start_bus
start_daemon
monitor_start

p_gpu=$(dev_path gpu)
p_dmc=$(dev_path dmc)
p_tick=$(dev_path tick)
invalid=org.freedesktop.DBus.Error.InvalidArgs
max64=18446744073709551615

# The state a bad call must not change: per device its QoS, requests, frequency, range,
# governor, points and tunables; and the set of request objects.
snap() {
        bctl --json=short call "$name" "$manager_path" org.freedesktop.DBus.ObjectManager GetManagedObjects |
                "$PYTHON3" -c '
import json, sys
objs = json.load(sys.stdin)["data"][0]
keys = ["QosMinFrequency", "QosMaxFrequency", "QosLatency", "Requests", "CurrentFrequency", "MinFrequency",
        "MaxFrequency", "Governor", "AvailableFrequencies", "OperatingPoints", "Tunables", "Mode", "LastError"]
for path in sorted(objs):
    dev = objs[path].get("org.devfreqd.Devfreq1.Device")
    if dev:
        print(path, " ".join("%s=%s" % (k, json.dumps(dev[k]["data"])) for k in keys))
    req = objs[path].get("org.devfreqd.Devfreq1.Request")
    if req:
        print(path, "Value=%s" % req["Value"]["data"])
'
}

# Replies normalized to "ok OUTPUT" or "ERROR_NAME MESSAGE", whatever the tool.
via_busctl() {
        local out status
        monitor_mark
        set +e
        out=$(bctl "$@" 2>/dev/null)
        status=$?
        set -e
        if ((status == 0)); then
                echo "ok $out"
                return
        fi
        monitor_flush
        head -n1 < <(errors_since)
}
via_gdbus() {
        local obj=$1 method=$2
        shift 2
        gdbus call --address "$bus_address" --dest "$name" --object-path "$obj" --method "$method" "$@" 2>&1 |
                head -n1 | sed -E 's/^Error: GDBus\.Error:([^:]+): /\1 /; t; s/^/ok /'
}
via_client() {
        local out
        out=$(client_cmd "$@")
        echo "${out#error }"
}

# bad DESCRIPTION ERROR_NAME MESSAGE_SUBSTRING VIA...: the error, then the state unchanged.
bad() {
        local desc=$1 want=$2 msg=$3 before after got
        shift 3
        before=$(snap)
        got=$("$@" || true)
        if [[ $got == "$want "* && $got == *"$msg"* ]]; then ok "$desc"; else
                not_ok "$desc"
                diag "got:      ${got:0:300}" "expected: $want ... $msg"
        fi
        after=$(snap)
        if [[ $after == "$before" ]] && serving gpu; then ok "$desc: state unchanged, still serving"; else
                not_ok "$desc: state unchanged, still serving"
                diag "before: $before" "after:  $after"
                daemon_alive || diag "the daemon is gone"
        fi
}

# An explicit userspace frequency: once a floor is gone the device comes back to it.
dcall gpu SetFrequency t 400000000
# A live request held by a client, for the request paths.
client_start H
out=$(client_cmd H add gpu min-frequency 400000000)
req=${out#ok }
like "a held request" "$out" "^ok $manager_path/request/[1-9][0-9]*$"
base=$(snap)

# ================================================================================ wrong signatures
bad "GetDevice with a number" "$invalid" "Invalid arguments 't' to call $manager_iface.GetDevice(), expecting 's'" \
        via_busctl call "$name" "$manager_path" "$manager_iface" GetDevice t 5
bad "GetDevice without its argument" "$invalid" "Invalid arguments '' to call" \
        via_busctl call "$name" "$manager_path" "$manager_iface" GetDevice
bad "GetDevice with two strings" "$invalid" "expecting 's'" \
        via_busctl call "$name" "$manager_path" "$manager_iface" GetDevice ss gpu dmc
bad "ListDevices with an argument" "$invalid" "expecting ''" \
        via_busctl call "$name" "$manager_path" "$manager_iface" ListDevices s all
bad "AddRequest with t for the options" "$invalid" "expecting 'sta{sv}'" \
        via_busctl call "$name" "$p_gpu" "$device_iface" AddRequest stt min-frequency 800000000 0
bad "AddRequest with a{ss} options" "$invalid" "expecting 'sta{sv}'" \
        via_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sta{ss}' min-frequency 800000000 1 reason x
bad "AddRequest with u for the value" "$invalid" "expecting 'sta{sv}'" \
        via_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sua{sv}' min-frequency 800000000 0
bad "AddRequest without options" "$invalid" "expecting 'sta{sv}'" \
        via_busctl call "$name" "$p_gpu" "$device_iface" AddRequest st min-frequency 800000000
bad "SetGovernor with a number" "$invalid" "expecting 's'" \
        via_busctl call "$name" "$p_gpu" "$device_iface" SetGovernor u 1
bad "SetFrequency with a string" "$invalid" "expecting 't'" \
        via_busctl call "$name" "$p_gpu" "$device_iface" SetFrequency s fast
bad "SetFrequency with a signed number" "$invalid" "expecting 't'" \
        via_busctl -- call "$name" "$p_gpu" "$device_iface" SetFrequency x -1
bad "SetTunable with swapped arguments" "$invalid" "expecting 'su'" \
        via_busctl call "$name" "$p_tick" "$device_iface" SetTunable us 80 upthreshold
bad "SetOperatingPoint with a string flag" "$invalid" "expecting 'tb'" \
        via_busctl call "$name" "$p_gpu" "$device_iface" SetOperatingPoint ts 800000000 no
bad "Update with a string" "$invalid" "expecting 't'" \
        via_busctl call "$name" "$req" "$request_iface" Update s 800MHz
bad "Remove with an argument" "$invalid" "expecting ''" \
        via_busctl call "$name" "$req" "$request_iface" Remove b true
bad "an unknown method" org.freedesktop.DBus.Error.UnknownMethod "SetTurbo" \
        via_busctl call "$name" "$p_gpu" "$device_iface" SetTurbo
bad "a method of another interface" org.freedesktop.DBus.Error.UnknownMethod "AddRequest" \
        via_busctl call "$name" "$p_gpu" "$manager_iface" AddRequest 'sta{sv}' min-frequency 800000000 0
bad "an unknown property" org.freedesktop.DBus.Error.UnknownProperty "Turbo" \
        via_busctl get-property "$name" "$p_gpu" "$device_iface" Turbo
bad "writing a read-only property" org.freedesktop.DBus.Error.PropertyReadOnly "Governor" \
        via_busctl set-property "$name" "$p_gpu" "$device_iface" Governor s performance
bad "writing LogLevel with a wrong type" "$invalid" "" \
        via_busctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogLevel u 7

# ================================================================================ unknown strings
bad "an unknown request type" "$invalid" "Unknown request type 'frequency'" \
        via_gdbus "$p_gpu" "$device_iface.AddRequest" frequency 800000000 '{}'
bad "an empty request type" "$invalid" "Unknown request type ''" \
        via_gdbus "$p_gpu" "$device_iface.AddRequest" '' 800000000 '{}'
bad "a request type in capitals" "$invalid" "Unknown request type 'MIN-FREQUENCY'" \
        via_gdbus "$p_gpu" "$device_iface.AddRequest" MIN-FREQUENCY 800000000 '{}'
bad "an unknown governor" "$error_prefix.InvalidGovernor" "Unknown governor 'turbo'" \
        via_gdbus "$p_gpu" "$device_iface.SetGovernor" turbo
bad "an empty governor" "$error_prefix.InvalidGovernor" "Unknown governor ''" \
        via_gdbus "$p_gpu" "$device_iface.SetGovernor" ''
bad "a governor in capitals" "$error_prefix.InvalidGovernor" "Unknown governor 'Performance'" \
        via_gdbus "$p_gpu" "$device_iface.SetGovernor" Performance
bad "a polling governor without a load source" "$error_prefix.InvalidGovernor" "needs a load source" \
        via_gdbus "$p_gpu" "$device_iface.SetGovernor" simple_ondemand
bad "an unknown tunable" "$invalid" "has no tunable 'up_threshold'" \
        via_gdbus "$p_tick" "$device_iface.SetTunable" up_threshold 80
bad "an unknown log level" "$invalid" "Unknown log level 'verbose'" \
        via_busctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogLevel s verbose
bad "a log level in capitals" "$invalid" "Unknown log level 'DEBUG'" \
        via_busctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogLevel s DEBUG

# ================================================================================ options
add() { via_gdbus "$p_gpu" "$device_iface.AddRequest" min-frequency 800000000 "$1"; }
bad "an unknown option key" "$invalid" "Unknown option 'colour'" add "{'colour': <'red'>}"
bad "an option key in capitals" "$invalid" "Unknown option 'Reason'" add "{'Reason': <'x'>}"
bad "an empty option key" "$invalid" "Unknown option ''" add "{'': <'x'>}"
bad "reason that is not a string" "$invalid" "Option 'reason' takes a string (s), not 'u'" add "{'reason': <uint32 5>}"
bad "application-id that is an object path" "$invalid" "Option 'application-id' takes a string (s), not 'o'" \
        add "{'application-id': <objectpath '/x'>}"
bad "reason in a nested variant" "$invalid" "not 'v'" add "{'reason': <<'x'>>}"
bad "timeout-ms that is signed" "$invalid" "Option 'timeout-ms' takes u or t, not 'i'" add "{'timeout-ms': <int32 5>}"
bad "timeout-ms that is a string" "$invalid" "Option 'timeout-ms' takes u or t, not 's'" add "{'timeout-ms': <'1s'>}"
# A variant's signature is the caller's text too: at most 64 bytes of it are quoted.
tuple="($(printf 'uint32 1'; printf ', uint32 1%.0s' {1..69}))"
us=$(printf 'u%.0s' {1..63})
bad "reason of a 72-byte signature: 64 bytes of it quoted" "$invalid" "not '($us…'" add "{'reason': <$tuple>}"
bad "timeout-ms of a 72-byte signature: 64 bytes of it quoted" "$invalid" "not '($us…'" \
        add "{'timeout-ms': <$tuple>}"
bad "timeout-ms 0" "$invalid" "Option 'timeout-ms' must be at least 1" add "{'timeout-ms': <uint32 0>}"
bad "timeout-ms 0 as t" "$invalid" "Option 'timeout-ms' must be at least 1" add "{'timeout-ms': <uint64 0>}"
bad "timeout-ms UINT64_MAX" "$invalid" "Option 'timeout-ms' of $max64 ms is too large" \
        add "{'timeout-ms': <uint64 $max64>}"
long=$(printf 'x%.0s' $(seq 257))
bad "a 257-byte reason" "$invalid" "Option 'reason' is longer than 256 bytes" add "{'reason': <'$long'>}"
bad "a 257-byte application-id" "$invalid" "Option 'application-id' is longer than 256 bytes" \
        add "{'application-id': <'$long'>}"
bad "an option given twice" "$invalid" "Option 'reason' is given more than once" \
        via_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sta{sv}' min-frequency 800000000 2 \
        reason s one reason s two
bad "timeout-ms given twice, with different types" "$invalid" "Option 'timeout-ms' is given more than once" \
        add "{'timeout-ms': <uint32 100>, 'reason': <'x'>, 'timeout-ms': <uint64 100>}"
bad "a bad option after good ones" "$invalid" "Unknown option 'colour'" \
        add "{'reason': <'fine'>, 'timeout-ms': <uint32 100>, 'colour': <'red'>}"
like "a 256-byte reason is fine" "$(add "{'reason': <'${long:1}'>}")" "^ok \(objectpath "
# A 1 MiB reason does not fit in a command line: the python-dbus client sends it.
mib=$(head -c 1048576 /dev/zero | tr '\0' r)
bad "a 1 MiB reason" "$invalid" "Option 'reason' is longer than 256 bytes" \
        via_client H add gpu max-frequency 200000000 "{\"reason\": [\"s\", \"$mib\"]}"
bad "a 1 MiB application-id" "$invalid" "Option 'application-id' is longer than 256 bytes" \
        via_client H add gpu max-frequency 200000000 "{\"application-id\": [\"s\", \"$mib\"]}"
unset mib
bad "a 64 KiB device name" "$error_prefix.NoSuchDevice" "No device 'xxxx" \
        via_busctl call "$name" "$manager_path" "$manager_iface" GetDevice s "$(head -c 65536 /dev/zero | tr '\0' x)"

# ================================================================================ values
bad "max-frequency 0" "$invalid" "A max-frequency request of 0 Hz would leave no frequency" \
        via_gdbus "$p_gpu" "$device_iface.AddRequest" max-frequency 0 '{}'
bad "latency UINT64_MAX" "$invalid" "A latency request is at most 4294967295 us, not $max64" \
        via_gdbus "$p_gpu" "$device_iface.AddRequest" latency "$max64" '{}'
bad "latency 2^32" "$invalid" "at most 4294967295 us, not 4294967296" \
        via_gdbus "$p_gpu" "$device_iface.AddRequest" latency 4294967296 '{}'
bad "latency on a device without latency data" "$invalid" "dmc has no latency data" \
        via_gdbus "$p_dmc" "$device_iface.AddRequest" latency 1000 '{}'
bad "Update of a max-frequency request to 0" "$invalid" "would leave no frequency" \
        via_client H update "$(client_cmd H add gpu max-frequency 800000000 | cut -d' ' -f2)" 0
client_cmd H remove "$(getv "$p_gpu" "$device_iface" Requests | grep -o "$manager_path/request/[0-9]*" | grep -v "$req")" >/dev/null
bad "SetOperatingPoint 0" "$error_prefix.NoSuchOperatingPoint" "no operating point of 0 Hz" \
        via_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" 0 false
bad "SetOperatingPoint UINT64_MAX" "$error_prefix.NoSuchOperatingPoint" "no operating point of $max64 Hz" \
        via_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" "$max64" true
bad "SetTunable UINT32_MAX" "$invalid" "upthreshold=4294967295 is outside 1-100" \
        via_gdbus "$p_tick" "$device_iface.SetTunable" upthreshold 4294967295
bad "SetTunable 0 where 1 is the least" "$invalid" "upthreshold=0 is outside 1-100" \
        via_gdbus "$p_tick" "$device_iface.SetTunable" upthreshold 0
bad "SetFrequency on a polling governor" "$error_prefix.WrongGovernor" "needs the userspace governor" \
        via_gdbus "$p_tick" "$device_iface.SetFrequency" "$max64"
is "nothing so far changed the state" "$(snap)" "$base"

# The accepted extremes do what the contract says, and are undone with their request.
hold() { # hold TYPE VALUE: a request by H; prints its path
        local out
        out=$(client_cmd H add gpu "$1" "$2")
        echo "${out#ok }"
}
r=$(hold max-frequency "$max64")
is "max-frequency UINT64_MAX is accepted as no ceiling" "$(dget gpu QosMaxFrequency) $(dget gpu MaxFrequency)" "$max64 800000000"
client_cmd H remove "$r" >/dev/null
r=$(hold min-frequency "$max64")
is "min-frequency UINT64_MAX means the highest point" "$(dget gpu MinFrequency) $(dget gpu CurrentFrequency)" "800000000 800000000"
client_cmd H remove "$r" >/dev/null
r=$(hold min-frequency 0)
is "min-frequency 0 is no floor" "$(dget gpu QosMinFrequency) $(dget gpu CurrentFrequency)" "400000000 400000000"
client_cmd H remove "$r" >/dev/null
r=$(hold latency 0)
is "latency 0 leaves the lowest-latency point" "$(dget gpu AvailableFrequencies) $(dget gpu CurrentFrequency)" \
        "1 800000000 800000000"
is "an Update to latency UINT64_MAX is refused" "$(via_client H update "$r" "$max64" | cut -d' ' -f1)" "$invalid"
is "and the request keeps its value" "$(getv "$r" "$request_iface" Value)" "0"
client_cmd H remove "$r" >/dev/null
r=$(hold latency 4294967295)
is "latency 4294967295 is accepted and filters nothing" "$(dget gpu QosLatency) $(dget gpu AvailableFrequencies)" \
        "4294967295 3 200000000 400000000 800000000"
client_cmd H remove "$r" >/dev/null
is "the extremes left the state as it was" "$(snap)" "$base"

# ================================================================================ unknown objects
bad "an unknown device" "$error_prefix.NoSuchDevice" "No device 'npu'" \
        via_gdbus "$manager_path" "$manager_iface.GetDevice" npu
bad "an empty device name" "$error_prefix.NoSuchDevice" "No device ''" \
        via_gdbus "$manager_path" "$manager_iface.GetDevice" ''
bad "a device name with a path in it" "$error_prefix.NoSuchDevice" "No device '../gpu'" \
        via_gdbus "$manager_path" "$manager_iface.GetDevice" ../gpu
bad "a device name that is its path" "$error_prefix.NoSuchDevice" "No device '$p_gpu'" \
        via_gdbus "$manager_path" "$manager_iface.GetDevice" "$p_gpu"
bad "an unknown device object" org.freedesktop.DBus.Error.UnknownObject "Unknown object '$manager_path/device/npu'" \
        via_busctl call "$name" "$manager_path/device/npu" "$device_iface" SetGovernor s performance
bad "a badly escaped device object" org.freedesktop.DBus.Error.UnknownObject "Unknown object" \
        via_busctl call "$name" "$manager_path/device/_zz" "$device_iface" ResetStatistics
bad "the device folder itself" org.freedesktop.DBus.Error.UnknownMethod "Unknown method ResetStatistics" \
        via_busctl call "$name" "$manager_path/device" "$device_iface" ResetStatistics
bad "a device object below a device" org.freedesktop.DBus.Error.UnknownObject "Unknown object" \
        via_busctl call "$name" "$p_gpu/more" "$device_iface" ResetStatistics
unknown_id=12345678901234567
bad "Update of an unknown request id" "$error_prefix.NoSuchRequest" "No request $unknown_id" \
        via_busctl call "$name" "$manager_path/request/$unknown_id" "$request_iface" Update t 1
bad "Remove of an unknown request id" "$error_prefix.NoSuchRequest" "No request $unknown_id" \
        via_busctl call "$name" "$manager_path/request/$unknown_id" "$request_iface" Remove
bad "a property of an unknown request id" "$error_prefix.NoSuchRequest" "No request $unknown_id" \
        via_busctl get-property "$name" "$manager_path/request/$unknown_id" "$request_iface" Value
bad "request id 0" org.freedesktop.DBus.Error.UnknownObject "Unknown object" \
        via_busctl call "$name" "$manager_path/request/0" "$request_iface" Remove
bad "a request id with a leading zero" org.freedesktop.DBus.Error.UnknownObject "Unknown object" \
        via_busctl call "$name" "$manager_path/request/0${req##*/}" "$request_iface" Remove
bad "a request id that is not a number" org.freedesktop.DBus.Error.UnknownObject "Unknown object" \
        via_busctl call "$name" "$manager_path/request/abc" "$request_iface" Remove
bad "a request id beyond 64 bits" org.freedesktop.DBus.Error.UnknownObject "Unknown object" \
        via_busctl call "$name" "$manager_path/request/18446744073709551616" "$request_iface" Remove
bad "the request folder itself" org.freedesktop.DBus.Error.UnknownMethod "Unknown method Remove" \
        via_busctl call "$name" "$manager_path/request" "$request_iface" Remove
bad "a device method on a request" org.freedesktop.DBus.Error.UnknownMethod "SetGovernor" \
        via_busctl call "$name" "$req" "$device_iface" SetGovernor s performance
is "the held request survived everything" "$(getv "$req" "$request_iface" Value)" "400000000"

# ================================================================================ 10,000 requests
client_start F
is "10,000 requests from one client: 64 accepted, the rest TooManyRequests" \
        "$(client_cmd F addn gpu max-frequency 800000000 10000)" \
        "ok ok=64 $error_prefix.TooManyRequests=9936"
msg=$(client_cmd F add gpu max-frequency 800000000)
like "the refusal names the limit" "$msg" \
        "^error $error_prefix.TooManyRequests This client holds 64 requests, the most allowed \(max-requests-per-client\)$"
is "the daemon is connected and serving" "$(mcall GetDevice s gpu)" "o \"$p_gpu\""
is "its 64 requests and the held one are live" "$(dget gpu Requests | awk '{print $1}')" "65"
out=$(client_cmd H add gpu max-frequency 800000000)
like "another client may still add requests" "$out" "^ok $manager_path/request/"
client_cmd H remove "${out#ok }" >/dev/null
client_stop F
back() { [[ $(snap) == "$base" ]]; }
check "when that client leaves, the state is what it was" wait_until $((10 * slow)) back

# ================================================================================ the other limits
printf '[daemon]\nmax-requests = 4\nmax-clients = 2\n' >"$tmp/conf.d/50-limits.conf"
mcall Reload
client_start X
client_start Y
client_cmd X add gpu min-frequency 200000000 >/dev/null
client_cmd X add dmc min-frequency 200000000 >/dev/null
bad "beyond max-clients" "$error_prefix.TooManyRequests" "2 clients hold requests, the most allowed (max-clients)" \
        via_client Y add gpu min-frequency 200000000
like "a client already holding requests is not refused by max-clients" "$(client_cmd X add gpu latency 5000)" "^ok "
bad "beyond max-requests" "$error_prefix.TooManyRequests" "4 requests are live, the most allowed (max-requests)" \
        via_client X add gpu min-frequency 200000000
client_stop X
client_stop Y
rm "$tmp/conf.d/50-limits.conf"
mcall Reload
check "with that client gone, the state is what it was" wait_until $((10 * slow)) back

# ================================================================================ device failures
# The device's failure, not the caller's: DeviceFailed naming the path and the errno text, the same
# text in LastError and the log, and nothing else changed.
# failed DESCRIPTION DEVICE MESSAGE VIA...
failed() {
        local desc=$1 dev=$2 msg=$3 before after got
        shift 3
        before=$(snap | sed 's/ LastError=.*//')
        monitor_mark
        got=$("$@" || true)
        monitor_flush
        if [[ $got == "$error_prefix.DeviceFailed $msg" ]]; then ok "$desc"; else
                not_ok "$desc"
                diag "got:      ${got:0:300}" "expected: $error_prefix.DeviceFailed $msg"
        fi
        after=$(snap | sed 's/ LastError=.*//')
        if [[ $after == "$before" ]] && serving gpu; then ok "$desc: nothing else changed, still serving"; else
                not_ok "$desc: nothing else changed, still serving"
                diag "before: $before" "after:  $after"
        fi
        is "$desc: LastError says so" "$(dget "$dev" LastError)" "$msg"
        contains "$desc: PropertiesChanged carries LastError" "$(changes "$(dev_path "$dev")")" \
                "LastError=\"$msg\""
        check "$desc: the log says so" grep -qF "$dev: $msg" "$daemon_log"
}
busy=$root/sys/devices/platform/gpu0/busy
dcall tick SetGovernor s performance
mv "$busy" "$busy.away"
failed "SetGovernor to a polling governor whose load source is gone" tick \
        "governor simple_ondemand: cannot open the load source counters:/sys/devices/platform/gpu0/busy: No such file or directory" \
        via_busctl call "$name" "$p_tick" "$device_iface" SetGovernor s simple_ondemand
mv "$busy.away" "$busy"
is "with the file back, the switch works" "$(dcall tick SetGovernor s simple_ondemand)$(dget tick Governor)" \
        "simple_ondemand"
governors=$root$dmc/available_governors
mv "$governors" "$governors.away"
mkdir "$governors"
failed "SetGovernor in clamp mode when the kernel's list cannot be read" dmc \
        "read $dmc/available_governors: Is a directory" \
        via_busctl call "$name" "$p_dmc" "$device_iface" SetGovernor s performance
rmdir "$governors"
mv "$governors.away" "$governors"

client_stop H
check "the daemon still serves" serving gpu
stop_daemon TERM
is "devfreqd exits cleanly" "$daemon_status" "0"
tap_done
