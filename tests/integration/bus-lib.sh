# Sourced by the bus integration tests (after lib.sh): the daemon's names, property and call
# helpers over busctl, long-lived clients (bus-client.py) and a busctl monitor parsed from its
# JSON output.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the names are for the scripts that source this

name=org.devfreqd.Devfreq1
manager_path=/org/devfreqd/Devfreq1
manager_iface=org.devfreqd.Devfreq1.Manager
device_iface=org.devfreqd.Devfreq1.Device
request_iface=org.devfreqd.Devfreq1.Request
error_prefix=org.devfreqd.Devfreq1.Error
denied=org.freedesktop.DBus.Error.AccessDenied
logcontrol_path=/org/freedesktop/LogControl1
logcontrol_iface=org.freedesktop.LogControl1

# The long-lived clients are python3-dbus scripts (tools/bootstrap installs it).
if ! "$PYTHON3" -c 'import dbus' 2>/dev/null; then
        echo "1..0 # SKIP python3-dbus is not installed"
        exit 0
fi

# dev_path NAME: the device's object path, its label escaped as sd_bus_path_encode() does.
dev_path() {
        local s=$1 out='' c i
        for ((i = 0; i < ${#s}; i++)); do
                c=${s:i:1}
                if [[ $c == [A-Za-z] || ($i -gt 0 && $c == [0-9]) ]]; then
                        out+=$c
                else
                        printf -v c '_%02x' "'$c"
                        out+=$c
                fi
        done
        echo "$manager_path/device/${out:-_}"
}

# getp OBJECT INTERFACE PROPERTY: busctl's line, signature first ("t 800000000").
getp() { bctl get-property "$name" "$1" "$2" "$3"; }

# getv OBJECT INTERFACE PROPERTY: the value alone; a single string without its quotes.
getv() {
        local out
        out=$(getp "$@") || return 1
        out=${out#* }
        [[ $out == \"*\" && $out != *\"*\"*\"* ]] && out=${out:1:-1}
        printf '%s\n' "$out"
}

# dget DEVICE PROPERTY: a device property's value.
dget() { getv "$(dev_path "$1")" "$device_iface" "$2"; }

# dcall DEVICE METHOD [SIGNATURE ARGS...]: busctl call on a device object.
dcall() {
        local dev=$1 method=$2
        shift 2
        bctl call "$name" "$(dev_path "$dev")" "$device_iface" "$method" "$@"
}

# mcall METHOD [SIGNATURE ARGS...]: busctl call on the manager.
mcall() {
        local method=$1
        shift
        bctl call "$name" "$manager_path" "$manager_iface" "$method" "$@"
}

# fails DESCRIPTION STDERR_SUBSTRING COMMAND...: the command fails and says so on stderr.
fails() {
        local desc=$1 want=$2 err status
        shift 2
        set +e
        err=$("$@" 2>&1 >/dev/null)
        status=$?
        set -e
        if ((status != 0)) && [[ $err == *"$want"* ]]; then
                ok "$desc"
        else
                not_ok "$desc"
                diag "status $status, stderr: $err" "expected: $want"
        fi
}

# --- the daemon is still there and answering ------------------------------------------------

serving() {
        daemon_alive && [[ $(mcall GetDevice s "$1" 2>/dev/null) == "o \"$(dev_path "$1")\"" ]]
}

# --- long-lived clients ------------------------------------------------------------------------
# client_start ID [PREFIX...]: bus-client.py (optionally run through PREFIX, e.g. setpriv ...)
# reading commands from a fifo; the client stays connected until client_stop or a kill.
declare -A client_fd=() client_pid=()
client_timeout=$((30 * slow))

client_start() {
        local id=$1 fd
        shift
        rm -f "$tmp/client-$id.in"
        mkfifo "$tmp/client-$id.in"
        : >"$tmp/client-$id.out"
        (
                # The other clients' fifos stay with their writer only, so "quit" and EOF reach them.
                for fd in "${client_fd[@]}"; do exec {fd}>&-; done
                exec "$@" "$PYTHON3" "$top_srcdir/tests/integration/bus-client.py" "$bus_address" \
                        <"$tmp/client-$id.in" >"$tmp/client-$id.out" 2>>"$tmp/client-$id.err"
        ) &
        client_pid[$id]=$!
        track $!
        exec {fd}>"$tmp/client-$id.in"
        client_fd[$id]=$fd
}

lines_above() { (($(wc -l <"$1") > $2)); }

# client_cmd ID COMMAND...: send one command, print its answer line ("ok ..." or "error NAME MSG").
client_cmd() {
        local id=$1 out n
        shift
        out=$tmp/client-$id.out
        n=$(wc -l <"$out")
        printf '%s\n' "$*" >&"${client_fd[$id]}"
        if ! wait_until "$client_timeout" lines_above "$out" "$n"; then
                echo "timeout"
                return 0
        fi
        sed -n "$((n + 1))p" "$out"
}

# client_kill ID [SIGNAL]: signal the client and wait for it to end.
client_kill() {
        local fd=${client_fd[$1]}
        { kill -"${2:-KILL}" "${client_pid[$1]}" && wait "${client_pid[$1]}"; } 2>/dev/null || true
        exec {fd}>&-
        unset "client_fd[$1]"
}

# client_stop ID: it leaves the bus and exits.
client_stop() {
        local fd=${client_fd[$1]}
        printf 'quit\n' >&"$fd"
        exec {fd}>&-
        unset "client_fd[$1]"
        wait "${client_pid[$1]}" 2>/dev/null || true
}

# --- PropertiesChanged and friends, from busctl monitor --json=short --------------------------
# monitor_start: every message to or from the daemon, one JSON object a line, in $tmp/monitor.json.
monitor_start() {
        # busctl itself, not bctl in a subshell: monitor_pid is the monitor, to stop and to kill.
        busctl --address="$bus_address" --json=short monitor "$name" >"$tmp/monitor.json" 2>"$tmp/monitor.err" &
        monitor_pid=$!
        track $monitor_pid
        # Ready once it sees traffic of the daemon: a Ping it must answer.
        wait_until 10 monitor_sees_ping
}

monitor_sees_ping() {
        bctl call "$name" "$manager_path" org.freedesktop.DBus.Peer Ping >/dev/null &&
                grep -q '"member":"Ping"' "$tmp/monitor.json"
}

# monitor_mark: remember where the log is now; monitor_since prints what came after. What the
# daemon sent before is in the log first (monitor_flush), so none of it is read as coming after.
monitor_mark() {
        monitor_flush
        monitor_offset=$(wc -l <"$tmp/monitor.json")
}
monitor_since() { tail -n +"$((monitor_offset + 1))" "$tmp/monitor.json"; }

# monitor_flush: wait until everything the daemon sent so far is in the log: it answers a Ping
# after it, on the same connection, so the answer comes after it in the log too. (The call itself
# may reach the log before signals the daemon sent earlier.)
monitor_flush() {
        local n
        n=$(pings_answered)
        bctl call "$name" "$manager_path" org.freedesktop.DBus.Peer Ping >/dev/null
        wait_until 10 pings_answered_above "$n" && return 0
        # Every reading of the log after this would be unsound: stop, saying why.
        echo "Bail out! the bus monitor did not log the daemon's answer to a Ping by its deadline"
        tail -n 5 "$tmp/monitor.err" "$tmp/monitor.json" | sed 's/^/# /'
        exit 1
}
# pings_answered: the Ping calls whose answer is in the log.
pings_answered() {
        "$PYTHON3" -c '
import json, sys
pings, answered = set(), 0
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("type") == "method_call" and m.get("member") == "Ping":
        pings.add((m.get("sender"), m.get("cookie")))
    elif m.get("type") == "method_return" and (m.get("destination"), m.get("reply_cookie")) in pings:
        answered += 1
print(answered)
' "$tmp/monitor.json"
}
pings_answered_above() { (($(pings_answered) > $1)); }

# monitor_py CODE [ARGS...]: python CODE, with ARGS in sys.argv, over the messages since the mark:
# `messages`, each line of the log parsed from JSON (a line that is not JSON left out).
monitor_py() {
        local code=$1
        shift
        monitor_since | "$PYTHON3" -c '
import json, sys
messages = []
for line in sys.stdin:
    try:
        messages.append(json.loads(line))
    except ValueError:
        continue
'"$code" "$@"
}

# changes [PATH]: the PropertiesChanged signals since the mark, one a line:
#   PATH INTERFACE Name=JSON_VALUE ... | invalidated: Name ...
changes() {
        monitor_py '
want = sys.argv[1] if len(sys.argv) > 1 else None
for m in messages:
    if m.get("type") != "signal" or m.get("member") != "PropertiesChanged":
        continue
    if want and m["path"] != want:
        continue
    iface, changed, invalidated = m["payload"]["data"]
    parts = [m["path"], iface]
    parts += ["%s=%s" % (k, json.dumps(v["data"], separators=(",", ":"))) for k, v in changed.items()]
    parts += ["|", "invalidated:"] + invalidated
    print(" ".join(parts))
' "$@"
}

# signals MEMBER: the signals of that member since the mark, as "PATH JSON_PAYLOAD".
signals() {
        monitor_py '
for m in messages:
    if m.get("type") == "signal" and m.get("member") == sys.argv[1]:
        print(m["path"], json.dumps(m["payload"]["data"], separators=(",", ":")))
' "$1"
}

# sequence METHOD [DEVICE_PATH]: what the daemon sent since the mark, in order, one a line:
# "return METHOD" or "error METHOD" for its replies to METHOD, "MEMBER PATH" for each signal of
# its. With DEVICE_PATH, the signals of other devices are left out: the sequence is the call's on
# that device, whatever another device (a polling one, say) does meanwhile.
sequence() {
        monitor_py '
calls = {(m.get("sender"), m.get("cookie")): m.get("member") for m in messages if m.get("type") == "method_call"}
devices = sys.argv[1] + "/device/"
for m in messages:
    kind = m.get("type")
    path = m.get("path", "")
    if kind in ("method_return", "error") and m.get("sender") != "org.freedesktop.DBus":
        member = calls.get((m.get("destination"), m.get("reply_cookie")))
        if member == sys.argv[2]:
            print("return" if kind == "method_return" else "error", member)
    elif kind == "signal" and path.startswith(sys.argv[1]):
        if sys.argv[3] and path.startswith(devices) and path != sys.argv[3]:
            continue
        print(m["member"], path)
' "$manager_path" "$1" "${2:-}"
}

# errors_since: the error replies since the mark, as "ERROR_NAME MESSAGE".
errors_since() {
        monitor_py '
for m in messages:
    if m.get("type") == "error":
        print(m["error_name"], *m["payload"]["data"][:1])
'
}

# busctl_error DESCRIPTION ERROR_NAME MESSAGE_SUBSTRING COMMAND...: the busctl command fails,
# and the daemon's error reply (seen by the monitor) has that name and message.
busctl_error() {
        local desc=$1 want_name=$2 want_msg=$3 err status got
        shift 3
        monitor_mark
        set +e
        err=$("$@" 2>&1 >/dev/null)
        status=$?
        set -e
        monitor_flush
        got=$(head -n1 < <(errors_since))
        if ((status != 0)) && [[ $err == *"$want_msg"* && $got == "$want_name "*"$want_msg"* ]]; then
                ok "$desc"
        else
                not_ok "$desc"
                diag "status $status, stderr: $err" "reply: $got" "expected: $want_name ... $want_msg"
        fi
}

# --- a bus as strict as the system bus ---------------------------------------------------------
# start_strict_bus: like start_bus, but with the system bus's default policy (nobody may own a
# name or call a method), the project's own policy file included, root allowed everything (the
# harness), and connections from root and nobody only.
start_strict_bus() {
        chmod 755 "$tmp" # nobody must reach the socket
        cat >"$tmp/bus.conf" <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus.socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="root"/>
    <allow user="nobody"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
          send_member="UpdateActivationEnvironment"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
  </policy>
  <policy user="root">
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow send_type="method_call"/>
    <allow eavesdrop="true"/>
  </policy>
  <include>$top_srcdir/dbus/org.devfreqd.Devfreq1.conf</include>
</busconfig>
EOC
        spawn_bus
}

as_nobody=(setpriv --reuid nobody --regid nogroup --clear-groups)

# nobody_busctl ARGS...: busctl on the bus as nobody.
nobody_busctl() { "${as_nobody[@]}" busctl --address="$bus_address" "$@"; }

# nobody_gdbus OBJECT METHOD ARGS...: gdbus call as nobody; prints the reply, or the error as
# "ERROR_NAME: MESSAGE" (gdbus's own prefixes and hints removed).
nobody_gdbus() {
        local obj=$1 method=$2
        shift 2
        "${as_nobody[@]}" gdbus call --address "$bus_address" --dest "$name" --object-path "$obj" \
                --method "$method" "$@" 2>&1 | sed -n '1{s/^Error: GDBus\.Error://;p}'
}
