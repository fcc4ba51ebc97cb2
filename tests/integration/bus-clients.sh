#!/usr/bin/env bash
# Clients other than busctl (gdbus, dbus-send, python-dbus) and client lifetimes: a killed
# client's requests go, leases expire, 600 requests on one connection, nobody but the owner and
# root may change a request, and clients cost the daemon no match rule (a bus with none to spare).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
request-groups = nogroup
max-requests-per-client = 1000
max-requests = 2000

$(gpu_userspace_section)
initial-frequency = 200MHz

$(dmc_clamp_section)
EOF
# Unprivileged clients must reach the bus socket.
chmod 755 "$tmp"
start_bus
start_daemon

p_gpu=$(dev_path gpu)
p_dmc=$(dev_path dmc)

gd() { gdbus call --address "$bus_address" --dest "$name" "$@" 2>&1; }
ds() { dbus-send --bus="$bus_address" --print-reply --dest="$name" "$@" 2>&1; }

# ================================================================================ gdbus
intro=$(gdbus introspect --address "$bus_address" --dest "$name" --object-path "$manager_path")
contains "gdbus introspect: the Manager interface" "$intro" "interface $manager_iface {"
contains "gdbus introspect: ListDevices with its named result" "$intro" "ListDevices(out a(so) devices);"
like "gdbus introspect: GetDevice with named arguments" "$intro" "GetDevice\(in  s name,[[:space:]]+out o device\);"
contains "gdbus introspect: Reload" "$intro" "Reload();"
contains "gdbus introspect: Version and its value" "$intro" "readonly s Version = '$("$devfreqd" --version | awk '{print $2}')';"
contains "gdbus introspect: Devices" "$intro" "readonly ao Devices = ['$p_dmc', '$p_gpu'];"
contains "gdbus introspect: the ObjectManager" "$intro" "interface org.freedesktop.DBus.ObjectManager {"
intro=$(gdbus introspect --address "$bus_address" --dest "$name" --object-path "$p_gpu")
like "gdbus introspect: AddRequest with named arguments" "$intro" \
        "AddRequest\(in  s type,[[:space:]]+in  t value,[[:space:]]+in  a\{sv\} options,[[:space:]]+out o request\);"
like "gdbus introspect: GetStatistics with four named results" "$intro" \
        "GetStatistics\(out at frequencies,[[:space:]]+out at time_in_state_ms,[[:space:]]+out aat transitions,[[:space:]]+out t total_transitions\);"
contains "gdbus introspect: a property's value" "$intro" "readonly s Governor = 'userspace';"
like "gdbus introspect: TargetFrequency emits nothing" "$intro" \
        "EmitsChangedSignal\(\"false\"\)[[:space:]]+readonly t TargetFrequency"
like "gdbus introspect: Requests emits invalidation only" "$intro" \
        "EmitsChangedSignal\(\"invalidates\"\)[[:space:]]+readonly ao Requests"
tree=$(gdbus introspect --address "$bus_address" --dest "$name" --object-path "$manager_path/device" --only-properties)
like "gdbus introspect: the device nodes are enumerated" "$tree" "node dmc \{.*node gpu \{|node gpu \{.*node dmc \{"

is "gdbus ListDevices" "$(gd --object-path "$manager_path" --method "$manager_iface.ListDevices")" \
        "([('dmc', objectpath '$p_dmc'), ('gpu', '$p_gpu')],)"
is "gdbus GetDevice" "$(gd --object-path "$manager_path" --method "$manager_iface.GetDevice" gpu)" \
        "(objectpath '$p_gpu',)"
is "gdbus GetDevice of an unknown device" "$(gd --object-path "$manager_path" --method "$manager_iface.GetDevice" npu)" \
        "Error: GDBus.Error:$error_prefix.NoSuchDevice: No device 'npu' (see ListDevices)"
is "gdbus Properties.Get" \
        "$(gd --object-path "$p_gpu" --method org.freedesktop.DBus.Properties.Get "$device_iface" QosMaxFrequency)" \
        "(<uint64 18446744073709551615>,)"
all=$(gd --object-path "$p_gpu" --method org.freedesktop.DBus.Properties.GetAll "$device_iface")
contains "gdbus Properties.GetAll: a string" "$all" "'Governor': <'userspace'>"
contains "gdbus Properties.GetAll: operating points" "$all" \
        "'OperatingPoints': <[(uint64 200000000, uint32 0, uint32 0, true), (300000000, 0, 0, true)"
contains "gdbus Properties.GetAll: no requests" "$all" "'Requests': <@ao []>"
is "gdbus SetFrequency" "$(gd --object-path "$p_gpu" --method "$device_iface.SetFrequency" 600000000)" "()"
is "and the kernel follows" "$(kread $gpu/cur_freq)" "600000000"
is "gdbus SetFrequency under a clamp device" "$(gd --object-path "$p_dmc" --method "$device_iface.SetFrequency" 600000000)" \
        "Error: GDBus.Error:$error_prefix.WrongGovernor: dmc is in clamp mode: the kernel's governor sets its frequency"
out=$(gd --object-path "$p_gpu" --method "$device_iface.AddRequest" max-frequency 400000000 \
        "{'reason': <'gdbus'>, 'application-id': <'org.example.Gdbus'>, 'timeout-ms': <uint64 60000>}")
like "gdbus AddRequest with options" "$out" "^\(objectpath '$manager_path/request/[1-9][0-9]*',\)$"
is "gdbus AddRequest with an unknown option" \
        "$(gd --object-path "$p_gpu" --method "$device_iface.AddRequest" max-frequency 400000000 "{'colour': <'red'>}" | sed -n 1p)" \
        "Error: GDBus.Error:org.freedesktop.DBus.Error.InvalidArgs: Unknown option 'colour' (reason, application-id, timeout-ms)"
is "gdbus AddRequest with a wrong option type" \
        "$(gd --object-path "$p_gpu" --method "$device_iface.AddRequest" max-frequency 400000000 "{'timeout-ms': <'soon'>}" | sed -n 1p)" \
        "Error: GDBus.Error:org.freedesktop.DBus.Error.InvalidArgs: Option 'timeout-ms' takes u or t, not 's'"
is "gdbus SetGovernor" "$(gd --object-path "$p_dmc" --method "$device_iface.SetGovernor" powersave)" "()"
is "the kernel governor follows" "$(kread $dmc/governor)" "powersave"
stats=$(gd --object-path "$p_dmc" --method "$device_iface.GetStatistics")
like "gdbus GetStatistics" "$stats" \
        "^\(\[uint64 200000000, 400000000, 666000000, 800000000\], \[uint64 [0-9]+, [0-9]+, [0-9]+, [0-9]+\], \[\[uint64 0, 3, 1, 4\], .*\], uint64 [0-9]+\)$"

# ================================================================================ dbus-send
out=$(ds "$manager_path" "$manager_iface.ListDevices")
is "dbus-send ListDevices" "$(grep -E '^ +(string|object path)' <<<"$out" | sed 's/^ *//')" \
        "string \"dmc\"
object path \"$p_dmc\"
string \"gpu\"
object path \"$p_gpu\""
like "dbus-send GetDevice" "$(ds "$manager_path" "$manager_iface.GetDevice" string:gpu)" \
        "^method return .*"$'\n'" +object path \"$p_gpu\"$"
is "dbus-send GetDevice of an unknown device" "$(ds "$manager_path" "$manager_iface.GetDevice" string:npu)" \
        "Error $error_prefix.NoSuchDevice: No device 'npu' (see ListDevices)"
like "dbus-send Properties.Get" \
        "$(ds "$p_gpu" org.freedesktop.DBus.Properties.Get string:"$device_iface" string:CurrentFrequency)" \
        $'\n'" +variant +uint64 600000000$"
like "dbus-send SetFrequency" "$(ds "$p_gpu" "$device_iface.SetFrequency" uint64:200000000)" "^method return [^"$'\n'"]*$"
is "and the kernel follows" "$(kread $gpu/cur_freq)" "200000000"
is "dbus-send SetGovernor with a wrong type" "$(ds "$p_gpu" "$device_iface.SetGovernor" uint32:1)" \
        "Error org.freedesktop.DBus.Error.InvalidArgs: Invalid arguments 'u' to call $device_iface.SetGovernor(), expecting 's'."
is "dbus-send SetOperatingPoint of an absent point" "$(ds "$p_gpu" "$device_iface.SetOperatingPoint" uint64:1 boolean:false)" \
        "Error $error_prefix.NoSuchOperatingPoint: gpu has no operating point of 1 Hz (see OperatingPoints)"
like "dbus-send ResetStatistics" "$(ds "$p_gpu" "$device_iface.ResetStatistics")" "^method return "
like "dbus-send Reload" "$(ds "$manager_path" "$manager_iface.Reload")" "^method return "
stats=$(ds "$p_gpu" "$device_iface.GetStatistics")
is "dbus-send GetStatistics: four results" "$(grep -cE '^   (array|uint64)' <<<"$stats")" "4"
like "dbus-send GetStatistics: the total after the reset" "$stats" $'\n'"   uint64 0$"

# ================================================================================ a killed client
client_start A
out=$(client_cmd A add gpu min-frequency 800000000 '{"reason": ["s", "held"]}')
like "a python-dbus client holds a min-frequency request" "$out" "^ok $manager_path/request/[1-9][0-9]*$"
req=${out#ok }
is "the floor raised the frequency" "$(dget gpu CurrentFrequency)" "800000000"
is "in the kernel too" "$(kread $gpu/cur_freq)" "800000000"
is "the request object is there" "$(getp "$req" "$request_iface" Reason)" 's "held"'
client_kill A KILL
gone() { ! bctl introspect "$name" "$1" "$request_iface" >/dev/null 2>&1; }
back_down() { [[ $(dget gpu CurrentFrequency) == 200000000 && $(kread $gpu/cur_freq) == 200000000 ]]; }
check "SIGKILL: the request object is gone within 2 s" wait_until 2 gone "$req"
check "SIGKILL: the frequency is back down within 2 s" wait_until 2 back_down
is "SIGKILL: Requests is empty" "$(dget gpu Requests)" "0"
is "SIGKILL: QosMinFrequency is back" "$(dget gpu QosMinFrequency)" "0"

# ================================================================================ a lease
client_start L
out=$(client_cmd L add gpu min-frequency 600000000 '{"timeout-ms": ["u", 200]}')
like "a request with timeout-ms 200" "$out" "^ok $manager_path/request/[1-9][0-9]*$"
req=${out#ok }
check "the lease expires by itself: object gone" wait_until $((5 * slow)) gone "$req"
check "the lease expires by itself: frequency back" wait_until $((5 * slow)) back_down
is "the lease's owner is still connected" "$(client_cmd L getdevice gpu)" "ok $p_gpu"
like "the owner's Remove of the expired request is NoSuchRequest" "$(client_cmd L remove "$req")" \
        "^error $error_prefix.NoSuchRequest No request ${req##*/} "
out=$(client_cmd L add gpu min-frequency 600000000 '{"timeout-ms": ["t", 60000]}')
like "a second, longer lease on the same connection" "$out" "^ok $manager_path/request/[1-9][0-9]*$"
req=${out#ok }
is "it holds the frequency" "$(dget gpu CurrentFrequency)" "600000000"
sleep 0.5
is "it has not expired half a second later" "$(getp "$req" "$request_iface" Value)" "t 600000000"
client_stop L
check "leaving drops a leased request too" wait_until $((5 * slow)) gone "$req"

# ================================================================================ 600 requests
# dbus-daemon allows 512 match rules per connection: clients cost the daemon none (one rule follows
# every name that leaves the bus).
match_rules() {
        local owner
        owner=$(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s "$name")
        owner=${owner#s \"}
        bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.Debug.Stats GetConnectionStats \
                s "${owner%\"}" | grep -o '"MatchRules" u [0-9]*' | awk '{print $3}'
}
rules_before=$(match_rules || true)
client_start M
is "600 AddRequest calls in a row on one connection all succeed" \
        "$(client_cmd M addn gpu min-frequency 300000000 600)" "ok ok=600"
is "a later GetDevice from another client is answered" "$(mcall GetDevice s gpu)" "o \"$p_gpu\""
is "gdbus still reaches the daemon" "$(gd --object-path "$manager_path" --method "$manager_iface.GetDevice" dmc)" \
        "(objectpath '$p_dmc',)"
check "busctl still reaches the daemon (tree)" grep -q "$manager_path/request/" <(bctl tree "$name")
is "the device lists 600 requests" "$(dget gpu Requests | awk '{print $1}')" "600"
if [[ -n $rules_before ]]; then
        rules=$(match_rules)
        if ((rules == rules_before)); then ok "the client costs the daemon no match rule ($rules_before -> $rules)"; else
                not_ok "the client costs the daemon no match rule"
                diag "match rules: $rules_before before, $rules with 600 requests"
        fi
else
        skip "dbus-daemon has no Debug.Stats"
fi
is "the daemon is still connected" "$(getp "$manager_path" "$manager_iface" DryRun)" "b false"
client_stop M
none_left() { [[ $(dget gpu Requests) == 0 ]] && ! grep -q "$manager_path/request/" < <(bctl tree "$name"); }
check "when the client leaves, all 600 request objects disappear" wait_until $((10 * slow)) none_left
is "and the floor with them" "$(dget gpu QosMinFrequency)" "0"
if [[ -n $rules_before ]]; then
        is "the match rule is given back" "$(match_rules)" "$rules_before"
else
        skip "dbus-daemon has no Debug.Stats"
fi
check "the daemon is alive" daemon_alive

# ================================================================================ ownership
client_start A
out=$(client_cmd A add gpu min-frequency 400000000)
req=${out#ok }
like "root's client holds a request" "$out" "^ok $manager_path/request/"
fails "nobody cannot Update it (busctl: Access denied)" "Call failed: Access denied" \
        "${as_nobody[@]}" busctl --address="$bus_address" call "$name" "$req" "$request_iface" Update t 800000000
is "nobody cannot Remove it (gdbus): AccessDenied" \
        "$("${as_nobody[@]}" gdbus call --address "$bus_address" --dest "$name" --object-path "$req" \
                --method "$request_iface.Remove" 2>&1 | sed 's/: Request .*//')" \
        "Error: GDBus.Error:org.freedesktop.DBus.Error.AccessDenied"
is "nobody cannot Update it (dbus-send): AccessDenied" \
        "$("${as_nobody[@]}" dbus-send --bus="$bus_address" --print-reply --dest="$name" "$req" \
                "$request_iface.Update" uint64:800000000 2>&1 | sed 's/: Request .*//')" \
        "Error org.freedesktop.DBus.Error.AccessDenied"
is "the request is unchanged" "$(getp "$req" "$request_iface" Value)" "t 400000000"
is "its owner Updates it" "$(client_cmd A update "$req" 600000000)" "ok"
is "Value after the owner's Update" "$(getp "$req" "$request_iface" Value)" "t 600000000"

# An unprivileged owner (request-groups = nogroup) and another unprivileged client.
client_start N "${as_nobody[@]}"
client_start O "${as_nobody[@]}"
out=$(client_cmd N add gpu max-frequency 600000000)
like "nobody's client holds a request (request-groups)" "$out" "^ok $manager_path/request/"
nreq=${out#ok }
is "its UID is nobody's" "$(getp "$nreq" "$request_iface" UID)" "u $(id -u nobody)"
is "its owner Updates it" "$(client_cmd N update "$nreq" 800000000)" "ok"
like "another client of the same user cannot Update it" "$(client_cmd O update "$nreq" 200000000)" \
        "^error org.freedesktop.DBus.Error.AccessDenied "
# Ownership comes before the value: 0 Hz, which a max-frequency request refuses, is still
# AccessDenied to another client, and InvalidArgs only to the owner.
like "another client's Update to 0 Hz is AccessDenied, not InvalidArgs" "$(client_cmd O update "$nreq" 0)" \
        "^error org.freedesktop.DBus.Error.AccessDenied "
like "the owner's Update to 0 Hz is InvalidArgs" "$(client_cmd N update "$nreq" 0)" \
        "^error org.freedesktop.DBus.Error.InvalidArgs "
is "the request is unchanged by either" "$(getp "$nreq" "$request_iface" Value)" "t 800000000"
like "another client of the same user cannot Remove it" "$(client_cmd O remove "$nreq")" \
        "^error org.freedesktop.DBus.Error.AccessDenied "
like "the unprivileged owner cannot touch root's request" "$(client_cmd N remove "$req")" \
        "^error org.freedesktop.DBus.Error.AccessDenied "
is "root Updates nobody's request" "$(bctl call "$name" "$nreq" "$request_iface" Update t 400000000)" ""
is "Value after root's Update" "$(getp "$nreq" "$request_iface" Value)" "t 400000000"
is "root Removes nobody's request" "$(bctl call "$name" "$nreq" "$request_iface" Remove)" ""
check "the removed request is gone" gone "$nreq"
like "its owner's Update after that is NoSuchRequest" "$(client_cmd N update "$nreq" 400000000)" \
        "^error $error_prefix.NoSuchRequest "
is "its owner Removes its own request" "$(client_cmd A remove "$req")" "ok"
check "that request is gone" gone "$req"
client_stop A
client_stop N
client_stop O

check "the daemon still serves" serving gpu
stop_daemon TERM
is "devfreqd exits cleanly" "$daemon_status" "0"

# ================================================================================ no rule to spare
# A bus that allows the daemon no match rule beyond its own: clients still come and go (a rule a
# client would have ended the daemon's connection: sd-bus closes it when a rule is refused).
if [[ -n $rules_before ]]; then
        kill "$bus_pid"
        wait_until 5 bash -c "! kill -0 $bus_pid 2>/dev/null" || true
        BUS_EXTRA_CONFIG="<limit name=\"max_match_rules_per_connection\">$rules_before</limit>" start_bus
        start_daemon
        client_start A
        client_start B
        like "no rule to spare: a first client's request is taken" "$(client_cmd A add gpu min-frequency 400000000)" \
                "^ok $manager_path/request/[0-9]+$"
        like "... and a second client's" "$(client_cmd B add gpu min-frequency 600000000)" \
                "^ok $manager_path/request/[0-9]+$"
        is "... the daemon keeps its connection" "$(dget gpu QosMinFrequency)" "600000000"
        client_stop B
        qos_min_is() { [[ $(dget gpu QosMinFrequency) == "$1" ]]; }
        check "... a client that leaves takes its request along" wait_until $((5 * slow)) qos_min_is 400000000
        client_stop A
        stop_daemon TERM
        is "... and devfreqd exits cleanly" "$daemon_status" "0"
else
        skip "no rule to spare: dbus-daemon has no Debug.Stats"
fi
tap_done
