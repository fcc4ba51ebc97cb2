#!/usr/bin/env bash
# An AddRequest whose reply cannot be sent: the request it made goes again (announced, then
# removed), since its caller never got the path and, staying on the bus, could never remove it.
# tests/fixtures/busfault.so makes that one reply's sd_bus_send() fail with ENOBUFS (a full write
# queue), so the daemon's own reply code runs and only the send fails. Afterwards the device has no
# request, its range and its max_freq are unrestricted again, and the daemon answers the next
# AddRequest as usual.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

busfault=$top_builddir/tests/fixtures/busfault.so
fault_file=$tmp/busfault
deadline=$((10 * slow))

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(dmc_clamp_section)
EOF
start_bus
# The fake kernel as always, then the shim, which reads the method to fail from $fault_file.
daemon_prefix=(env "LD_PRELOAD=$fakekernel $busfault" "BUSFAULT_FILE=$fault_file")
start_daemon
monitor_start
p_dmc=$(dev_path dmc)

output_is() {
        local want=$1
        shift
        [[ $("$@") == "$want" ]]
}

# becomes DESCRIPTION EXPECTED COMMAND...: the command prints EXPECTED within the deadline; if
# not, what it printed last, what was expected, and the log tail.
becomes() {
        local desc=$1 want=$2 got
        shift 2
        if wait_until "$deadline" output_is "$want" "$@"; then
                ok "$desc"
                return
        fi
        got=$("$@" 2>&1) || true
        not_ok "$desc"
        tap_value "got:     " "$got"
        tap_value "expected:" "$want"
        diag "not within $deadline s: $*"
        log_tail
}

requests() { getp "$p_dmc" "$device_iface" Requests; }
range() { echo "$(dget dmc MinFrequency) $(dget dmc MaxFrequency) $(dget dmc QosMaxFrequency)"; }
max_freq() { kread "$dmc/max_freq"; }
fault_taken() { [[ ! -e $fault_file ]]; }
gone() { [[ -n $1 ]] && ! bctl introspect "$name" "$1" "$request_iface" >/dev/null 2>&1; }
# on_bus ID UNIQUE_NAME: the client runs and its connection still owns its unique name.
on_bus() {
        kill -0 "${client_pid[$1]}" 2>/dev/null &&
                [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$2") == "b true" ]]
}

# What unrestricted means here, before any request: the end state the failed one must leave.
free_requests=$(requests)
free_range=$(range)
free_max=$(max_freq)
logged is "no request at the start" "$free_requests" "ao 0"
logged is "... an unrestricted range: the table's, no QoS ceiling" "$free_range" \
        "200000000 800000000 18446744073709551615"

# ================================================================ the reply that cannot be sent
client_start a
unique=$(client_cmd a name)
unique=${unique#ok }
log_at=$(wc -l <"$daemon_log")
monitor_mark
echo AddRequest >"$fault_file"
# The handler returns the send's -ENOBUFS, and sd-bus answers the call with the error it makes of
# it (the shim fails one send only): the caller hears that AddRequest failed, and stays connected,
# so its leaving cannot be what removes the request.
out=$(client_cmd a add dmc max-frequency 400000000 '{"reason": ["s", "reply fault"]}')
if fault_taken; then
        ok "the AddRequest reply's sd_bus_send() failed (busfault.so took the fault)"
else
        not_ok "the AddRequest reply's sd_bus_send() failed (busfault.so took the fault)"
        diag "$fault_file is still there: no reply to AddRequest reached the shim's sd_bus_send()" \
                "(not preloaded, or libsystemd no longer calls it through the PLT)"
        log_tail
fi
logged like "the caller is told that AddRequest failed, and gets no path" "$out" \
        '^error org\.freedesktop\.DBus\.Error\.LimitsExceeded No buffer space available$'
becomes "the device has no request: the one whose reply failed is gone" "ao 0" requests
becomes "... its range is unrestricted again (MinFrequency MaxFrequency QosMaxFrequency)" "$free_range" range
becomes "... and max_freq in sysfs holds the unrestricted value again" "$free_max" max_freq
logged check "... while its caller is still on the bus" on_bus a "$unique"
logged contains "the daemon says why it removed the request" "$(log_after "$log_at")" \
        "dmc: cannot reply to AddRequest, removing its request: No buffer space available"

monitor_flush
added=$(signals InterfacesAdded | sed -n "s|^$manager_path \[\"\($manager_path/request/[0-9]*\)\".*|\1|p")
logged like "the request was announced (InterfacesAdded)" "$added" "^$manager_path/request/[0-9]+$"
logged contains "... and removed (InterfacesRemoved for the same path)" "$(signals InterfacesRemoved)" \
        "$manager_path [\"$added\",[\"$request_iface\"]]"
logged is "... and the daemon's only answer to AddRequest was that error" \
        "$(sequence AddRequest | grep -E '^(return|error) ' || true)" "error AddRequest"
logged check "... and its object is not served" gone "$added"

# ================================================================ the daemon carries on
logged check "the daemon is still running and answers" serving dmc
client_start b
req=$(client_cmd b add dmc max-frequency 400000000)
logged like "the next AddRequest is answered with its path" "$req" "^ok $manager_path/request/[0-9]+$"
req=${req#ok }
becomes "... the device lists it" "ao 1 \"$req\"" requests
becomes "... and max_freq has its 400 MHz ceiling" 400000000 max_freq
logged like "... which its owner removes" "$(client_cmd b remove "$req")" '^ok'
becomes "then max_freq is unrestricted again" "$free_max" max_freq
client_stop b
client_stop a
# Under the sanitizers, a leak of the dropped request would show here as a failed exit.
stop_daemon
logged is "devfreqd exits cleanly" "$daemon_status" 0

tap_done
