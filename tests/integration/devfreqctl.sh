#!/usr/bin/env bash
# devfreqctl against the daemon on the fake root: every command, its text and --json output, the
# changes it makes (on the bus and in sysfs), request and hold lifetimes, monitor, reload, errors
# with their exit statuses, and the bash completion.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = yes

$(gpu_load_section)
opp = 200MHz 825mV latency=2ms
opp = 300MHz 850mV latency=1500us
opp = 400MHz 900mV latency=1ms
opp = 600MHz 950mV latency=500us
opp = 800MHz 1050mV latency=200us

[profile power-saver]
gpu.max-frequency = 400MHz
EOF
cp "$tmp/devfreqd.conf" "$tmp/devfreqd.conf.good"
start_bus
start_daemon

set_freq() { kread "$gpu/userspace/set_freq"; }

# run COMMAND...: sets out (stdout), err (stderr) and rc (exit status).
run() {
        set +e
        out=$("$@" 2>"$tmp/stderr")
        rc=$?
        set -e
        err=$(<"$tmp/stderr")
}
ctl() { run "$devfreqctl" "$@"; }
# reap PID: wait for a devfreqctl started in the background; its exit status in $reaped.
reap() {
        set +e
        wait "$1"
        reaped=$?
        set -e
        untrack "$1"
}
# one_line: stderr is exactly one line, naming devfreqctl.
one_line() { [[ -n $err && $err != *$'\n'* && $err == devfreqctl:* ]]; }
# py CODE: run python over $out parsed as JSON (as d); what it prints is the result.
py() { "$PYTHON3" -c "import json,sys; d=json.load(sys.stdin); $1" <<<"$out"; }
valid_json() { "$PYTHON3" -c 'import json,sys; json.load(sys.stdin)' <<<"$out"; }
no_requests() { [[ $(prop gpu Requests) == "0" ]]; }

# --- the command line --------------------------------------------------------------------------

ctl --version
is "--version exits 0" "$rc" 0
like "--version prints the version" "$out" '^devfreqctl [0-9]+\.[0-9]+'
ctl --help
is "--help exits 0" "$rc" 0
for cmd in status show set-governor set-frequency set-tunable opp request hold requests stats monitor reload profile; do
        contains "--help lists $cmd" "$out" "  $cmd"
done
ctl frobnicate
check "an unknown command: exit 2 and one line" test "$rc" = 2 -a -z "$out"
check "... one line" one_line
ctl --frobnicate status
check "an unknown option: exit 2 and one line" eval 'test "$rc" = 2 && one_line'
contains "... naming it" "$err" "unknown option --frobnicate"
ctl -zus status
check "an unknown letter in a cluster: exit 2 and one line" eval 'test "$rc" = 2 && one_line'
contains "... naming the letter, not the word before it" "$err" "unknown option -z (see --help)"
ctl status -abc
contains "... after the command too" "$err" "unknown option -a (see --help)"
ctl set-frequency gpu -z
is "an unknown letter after the operands: exit 2, one line naming it" "$rc|$out|$err" \
        "2||devfreqctl: unknown option -z (see --help)"
ctl request gpu min 600MHz --frob
is "an unknown long option after the operands: exit 2, one line naming it" "$rc|$out|$err" \
        "2||devfreqctl: unknown option --frob (see --help)"
# negative WORD ARG...: a '-' and a digit is a negative value, not an unknown option; no value takes
# a sign. One line naming the word, whole.
negative() {
        local word=$1
        shift
        ctl "$@"
        is "$*: exit 2, one line saying $word cannot be negative" "$rc|$out|$err" \
                "2||devfreqctl: $word: a value cannot be negative"
}
negative -1 set-frequency gpu -1
negative -5 request gpu min -5
negative -300MHz hold gpu max -300MHz -- true
negative -7 set-tunable gpu upthreshold -7
negative -1us request gpu latency -1us
negative -1us request gpu latency --reason -2 -1us
negative -1 set-frequency gpu -1 -1us
negative -1 set-frequency gpu -- -1
negative -2ms request gpu latency -- -2ms
negative -3 set-tunable gpu upthreshold -- -3
ctl --json=yes status
check "a value for an option that takes none: exit 2 and one line" eval 'test "$rc" = 2 && one_line'
contains "... saying so" "$err" "option --json=yes takes no value"
ctl show
check "show without a device: exit 2 and one line" eval 'test "$rc" = 2 && one_line'
ctl set-governor gpu userspace extra
check "an extra argument: exit 2 and one line" eval 'test "$rc" = 2 && one_line'
ctl --json set-governor gpu userspace
check "--json on a changing command: exit 2" eval 'test "$rc" = 2 && one_line'
ctl hold gpu min 600MHz true
check "hold without --: exit 2" eval 'test "$rc" = 2 && one_line'
ctl request gpu min 600MHz --timeout 5
check "a timeout without a unit: exit 2" eval 'test "$rc" = 2 && one_line'
is "usage errors changed nothing" "$(prop gpu Governor)" '"simple_ondemand"'

# --- status ------------------------------------------------------------------------------------

ctl status
is "status exits 0" "$rc" 0
like "status: the active profile above the table" "$out" $'^Profile: none\n'
like "status: the header" "$out" $'\nNAME +KIND +MODE +GOVERNOR +CURRENT +MIN +MAX +LOAD +REQUESTS'
like "status: gpu's row" "$out" $'\ngpu +devfreq +govern +simple_ondemand +800 MHz +200 MHz +800 MHz +0% +0\n'
like "status: dmc in clamp mode" "$out" $'\ndmc +devfreq +clamp +'
like "status: a device that does not poll has no load" "$out" $'\ndmc +devfreq +clamp +[^\n]* - +[0-9]+\n'
is "status: a line per device, the header and the profile" "$(wc -l <<<"$out")" 6
ctl
is "no command is status" "$out" "$("$devfreqctl" status)"
ctl status --json
check "status --json is valid JSON" valid_json
is "status --json: the devices by name" "$(py 'print(" ".join(x["Name"] for x in d))')" "dmc gpu policy0 policy2"
is "status --json: gpu's frequency in Hz" "$(py 'print([x for x in d if x["Name"] == "gpu"][0]["CurrentFrequency"])')" 800000000
is "status --json: gpu's mode" "$(py 'print([x for x in d if x["Name"] == "gpu"][0]["Mode"])')" govern
ctl --bus "$bus_address" status
is "--bus ADDRESS reaches the daemon" "$rc:$(wc -l <<<"$out")" 0:6
# A socket nothing listens on: its file stays after the process that bound it exits.
"$PYTHON3" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/dead.socket"
ctl --bus "unix:path=$tmp/dead.socket;$bus_address" status
is "--bus with two addresses: the second reaches the daemon when the first refuses" "$rc:$(wc -l <<<"$out"):$err" 0:6:
ctl --bus "unix:path=$tmp/dead.socket;$bus_address;" status
is "... a last ';' too" "$rc:$(wc -l <<<"$out"):$err" 0:6:
ctl -- status
is "-- before the command: the command follows it" "$rc:$(wc -l <<<"$out")" 0:6
ctl -- show -- gpu
like "... and another -- before an operand" "$rc:$(head -n1 <<<"$out")" "^0: *Name: gpu$"
ctl --bus session status
is "--bus session (the test bus) reaches the daemon" "$rc" 0

# --- show --------------------------------------------------------------------------------------

ctl show gpu
is "show exits 0" "$rc" 0
# show_line PROPERTY VALUE: the line of one property, labels right-aligned.
show_line() { grep -qxE " *$1: $2" <<<"$out"; }
check "show: the name" show_line Name gpu
check "show: the current frequency in MHz" show_line CurrentFrequency "800 MHz"
check "show: the first operating point with voltage and latency" show_line OperatingPoints "200 MHz 825 mV latency 2 ms"
check "show: the next one on its own line" grep -qxE " +300 MHz 850 mV latency 1.5 ms" <<<"$out"
check "show: the last one in volts" grep -qxE " +800 MHz 1.05 V latency 200 us" <<<"$out"
check "show: the usable frequencies" show_line AvailableFrequencies "200 MHz, 300 MHz, 400 MHz, 600 MHz, 800 MHz"
check "show: no QoS ceiling reads none" show_line QosMaxFrequency none
check "show: the polling interval" show_line PollingInterval "50 ms"
check "show: the tunables" show_line Tunables "upthreshold=90 downdifferential=5"
check "show: the energy in seconds at the top point" show_line Energy "[0-9]+\.[0-9]{6} s at the top point"
for p in Kind SysfsPath Mode Governor AvailableGovernors TargetFrequency MinFrequency MaxFrequency \
        Load QosMinFrequency QosLatency Requests TransitionCount LastError; do
        check "show: $p" show_line "$p" ".+"
done
check "show: the load of a device devfreqd samples, in %" show_line Load "[0-9]+%"
ctl show dmc
check "show: a clamp-mode device's load is no 0 % (the kernel samples it), as in status" \
        show_line Load "- \(devfreqd takes no samples of it\)"
ctl show gpu --json
check "show --json is valid JSON" valid_json
is "show --json: Tunables" "$(py 'print(d["Tunables"]["upthreshold"], d["Tunables"]["downdifferential"])')" "90 5"
is "show --json: OperatingPoints" "$(py 'print(len(d["OperatingPoints"]), d["OperatingPoints"][4])')" \
        "5 {'frequency': 800000000, 'microvolt': 1050000, 'latency_us': 200, 'enabled': True}"
is "show --json: QosMaxFrequency in bus units" "$(py 'print(d["QosMaxFrequency"])')" 18446744073709551615
is "show --json: SysfsPath" "$(py 'print(d["SysfsPath"])')" "$gpu"

# --- errors ------------------------------------------------------------------------------------

ctl show nosuch
is "show of an unknown device: exit 1" "$rc" 1
check "... one line, nothing on stdout" eval 'one_line && test -z "$out"'
like "... naming the device" "$err" "^devfreqctl: nosuch: .*nosuch"
ctl set-frequency gpu fast
is "set-frequency fast: exit 2" "$rc" 2
check "... one line" one_line
contains "... saying what is wrong" "$err" "'fast'"
ctl set-frequency gpu 400MHz
is "set-frequency under simple_ondemand: exit 1" "$rc" 1
is "... the daemon's line" "$err" "devfreqctl: gpu: SetFrequency needs the userspace governor on gpu"
ctl set-governor gpu nosuch
check "an unknown governor: exit 1 and one line" eval 'test "$rc" = 1 && one_line'
ctl set-tunable gpu upthreshold 101
check "a tunable out of range: exit 1 and one line" eval 'test "$rc" = 1 && one_line'
ctl set-tunable gpu upthreshold many
check "a tunable that is not a number: exit 2" eval 'test "$rc" = 2 && one_line'
ctl opp gpu disable 123MHz
check "opp of a point that does not exist: exit 1 and one line" eval 'test "$rc" = 1 && one_line'
ctl opp gpu toggle 200MHz
check "opp toggle: exit 2" eval 'test "$rc" = 2 && one_line'
ctl request gpu latency 1ms --timeout 0s
check "a zero timeout: exit 2" eval 'test "$rc" = 2 && one_line'
# A value that does not parse is the command line's fault, whether or not a daemon is there.
for args in "set-frequency gpu fast" "set-tunable gpu upthreshold many" "opp gpu toggle 200MHz" \
        "request gpu min fast" "hold gpu latency soon -- true"; do
        # shellcheck disable=SC2086 # the words of $args are the arguments
        ctl --bus "unix:path=$tmp/nobus.socket" $args
        check "$args with no daemon to reach: exit 2 and one line" eval 'test "$rc" = 2 && one_line'
done
# Strings on the bus are UTF-8: bytes that are not are the command line's fault, bus or not.
ctl --bus "unix:path=$tmp/nobus.socket" request gpu min 600MHz --reason $'caf\xe9'
is "a --reason that is not UTF-8: exit 2, one line saying so" "$rc:$err" "2:devfreqctl: --reason is not valid UTF-8"
ctl --bus "unix:path=$tmp/nobus.socket" set-governor gpu $'\xff'
is "a governor name that is not UTF-8: exit 2, one line saying so" "$rc:$err" \
        "2:devfreqctl: argument 2 of set-governor is not valid UTF-8"
ctl --json monitor
contains "--json elsewhere names the commands that take it, blame too" "$err" "thermal and blame, not monitor"
ctl request nosuch min 600MHz
check "a request on an unknown device: exit 1 and one line" eval 'test "$rc" = 1 && one_line'
ctl requests nosuch
check "requests of an unknown device: exit 1 and one line" eval 'test "$rc" = 1 && one_line'
ctl --bus unix:path=$tmp/nobus.socket status
check "a bus that is not there: exit 1 and one line" eval 'test "$rc" = 1 && one_line'
ctl --bus "unix:path=$tmp/dead.socket" status
is "a bus address nothing listens on: exit 1, one line saying so" "$rc|$out|$err" \
        "1||devfreqctl: cannot connect to the given bus: Connection refused"
# A --bus that is no address is the command line's fault, said before any connection is tried.
bus_hint="(system, session or a D-Bus address such as unix:path=/run/dbus/system_bus_socket)"
for value in foo "" unix "unix:path" "unix:=/run/x" "unix:path=" ":path=/run/x" "unix:,path=/run/x" \
        "unix:path=/run/x;;unix:path=/run/y" "unix:path=/run/x;foo"; do
        ctl --bus "$value" status
        is "--bus '$value': exit 2, one line naming it and what is accepted" "$rc|$out|$err" \
                "2||devfreqctl: invalid bus '$value' $bus_hint"
done
ctl --bus=foo request gpu min 600MHz
is "... --bus=VALUE too, before the request is made" "$rc|$out|$err" "2||devfreqctl: invalid bus 'foo' $bus_hint"
# An address sd-bus refuses: tcp without a port, a key twice, a bad escape, unix with neither path
# nor abstract.
for value in tcp:host=localhost "unix:path=/run/a,path=/run/b" "unix:path=%zz" "unix:"; do
        ctl --bus "$value" status
        is "--bus '$value': exit 2, one line saying it is no valid address" "$rc|$out|$err" \
                "2||devfreqctl: invalid bus '$value': not a valid D-Bus address"
done
ctl --bus "unix:path=$tmp/dead.socket;unix:" status
is "... the second address too, once the first refused" "$rc|$out|$err" \
        "2||devfreqctl: invalid bus 'unix:path=$tmp/dead.socket;unix:': not a valid D-Bus address"

# --- set-tunable, opp, set-governor, set-frequency -----------------------------------------------

ctl set-tunable gpu upthreshold 80
is "set-tunable exits 0" "$rc:$out$err" "0:"
is "... the tunable changed on the bus" "$(prop gpu Tunables)" '2 "upthreshold" 80 "downdifferential" 5'
check "... and was persisted" grep -q $'^gpu\ttunable:upthreshold\t80\t' "$tmp/state/state"

ctl opp gpu disable 800MHz
is "opp disable exits 0" "$rc" 0
is "... 800 MHz is no longer available" "$(prop gpu AvailableFrequencies)" "4 200000000 300000000 400000000 600000000"
is "... the device left it (sysfs)" "$(set_freq)" 600000000
ctl show gpu
check "... show marks it disabled" grep -qxE " +800 MHz 1.05 V latency 200 us \(disabled\)" <<<"$out"
ctl opp gpu enable 800MHz
is "opp enable exits 0" "$rc" 0
is "... 800 MHz is available again" "$(prop gpu AvailableFrequencies)" "5 200000000 300000000 400000000 600000000 800000000"

ctl set-governor gpu userspace
is "set-governor exits 0" "$rc:$out$err" "0:"
is "... the governor on the bus" "$(prop gpu Governor)" '"userspace"'
is "... the kernel's governor is userspace (sysfs)" "$(kread "$gpu/governor")" userspace
ctl set-frequency gpu 400MHz
is "set-frequency exits 0" "$rc:$out$err" "0:"
is "... CurrentFrequency on the bus" "$(prop gpu CurrentFrequency)" 400000000
is "... set_freq in sysfs" "$(set_freq)" 400000000
is "... cur_freq in sysfs" "$(kread "$gpu/cur_freq")" 400000000
ctl set-frequency gpu 1.2GHz
is "set-frequency above the table snaps to the highest point" "$rc:$(set_freq)" 0:800000000
ctl set-frequency gpu 400000000
is "set-frequency in bare Hz" "$rc:$(set_freq)" 0:400000000

# --- monitor (started here, read at the end of the request tests) -------------------------------

"$devfreqctl" monitor >"$tmp/monitor.out" 2>"$tmp/monitor.err" &
monitor_pid=$!
track $monitor_pid
check "monitor says it is ready" wait_until $((5 * slow)) grep -q Monitoring "$tmp/monitor.err"

# --- request -----------------------------------------------------------------------------------

"$devfreqctl" request gpu min 600MHz --reason "integration test" >"$tmp/request.out" 2>"$tmp/request.err" &
request_pid=$!
track $request_pid
check "request prints the request's path" wait_until $((5 * slow)) grep -q . "$tmp/request.out"
path=$(head -n1 "$tmp/request.out")
like "... an object path with a numeric id" "$path" '^/org/devfreqd/Devfreq1/request/[0-9]+$'
id=${path##*/}
is "... QosMinFrequency on the bus" "$(prop gpu QosMinFrequency)" 600000000
is "... the device went up to 600 MHz (sysfs)" "$(set_freq)" 600000000
ctl requests
is "requests exits 0" "$rc" 0
like "requests: the header" "$out" '^DEVICE +ID +TYPE +VALUE +OWNER +UID +PID +EXPIRES +REASON'
like "requests: the request's row" "$out" \
        $'\n'"gpu +$id +min-frequency +600 MHz +:[0-9.]+ +$(id -u) +$request_pid +- +integration test$"
ctl requests gpu
like "requests gpu lists it" "$out" "gpu +$id +min-frequency"
ctl requests dmc
is "requests dmc: none" "$out" "No requests."
ctl requests --json
check "requests --json is valid JSON" valid_json
is "requests --json: the request" "$(py 'r = d[0]; print(len(d), r["Path"], r["DeviceName"], r["Type"], r["Value"], r["PID"], r["Reason"])')" \
        "1 $path gpu min-frequency 600000000 $request_pid integration test"
ctl status
like "status counts the request" "$out" $'\ngpu +devfreq +govern +userspace +600 MHz +600 MHz +800 MHz +- +1\n'
ctl show gpu
check "show lists the request by id" show_line Requests "$id"

kill -TERM "$request_pid"
reap "$request_pid"
is "request exits 0 on SIGTERM" "$reaped" 0
check "... and its request is gone" wait_until 2 no_requests
is "... QosMinFrequency is back to none" "$(prop gpu QosMinFrequency)" 0
is "... the device went back (sysfs)" "$(set_freq)" 400000000
ctl requests
is "requests: none left" "$rc:$out$err" "0:No requests."

# A lease: devfreqctl exits by itself when it ends. Long enough that the checks below run while it
# holds on a loaded machine and under valgrind (a deadline, not a timing).
"$devfreqctl" request gpu max 300MHz --timeout $((3 * slow * deadline_scale))s >"$tmp/lease.out" 2>&1 &
lease_pid=$!
track $lease_pid
check "a lease: the request is there" wait_until $((5 * slow)) grep -q . "$tmp/lease.out"
ctl requests
like "... with an expiry" "$out" 'max-frequency +300 MHz .* in [0-9.]+ m?s'
is "... the device capped at 300 MHz (sysfs)" "$(set_freq)" 300000000
lease_done() { ! kill -0 "$lease_pid" 2>/dev/null; }
check "... devfreqctl exits when the lease ends" wait_until $((10 * slow)) lease_done
reap "$lease_pid"
is "... with status 0" "$reaped" 0
check "... and the request is gone" no_requests

# A lease removed before it runs out (here by root): an end like any other, exit 1 (devfreqctl(1)).
"$devfreqctl" request gpu max 300MHz --timeout 600s >"$tmp/lease2.out" 2>"$tmp/lease2.err" &
lease_pid=$!
track $lease_pid
check "a long lease: the request is there" wait_until $((5 * slow)) grep -q . "$tmp/lease2.out"
bctl call org.devfreqd.Devfreq1 "$(head -n1 "$tmp/lease2.out")" org.devfreqd.Devfreq1.Request Remove
check "... removed by root: devfreqctl exits" wait_until $((10 * slow)) lease_done
reap "$lease_pid"
is "... with status 1" "$reaped" 1
is "... saying so, one line" "$(<"$tmp/lease2.err")" "devfreqctl: gpu: the request ended"

# A latency request, ended with SIGINT (Ctrl-C).
"$devfreqctl" request gpu latency 1ms >"$tmp/latency.out" 2>&1 &
latency_pid=$!
track $latency_pid
check "a latency request" wait_until $((5 * slow)) grep -q . "$tmp/latency.out"
is "... QosLatency in µs on the bus" "$(prop gpu QosLatency)" 1000
kill -INT "$latency_pid"
reap "$latency_pid"
is "... exits 0 on SIGINT" "$reaped" 0
check "... and its request is gone" wait_until 2 no_requests

# --- hold --------------------------------------------------------------------------------------

ctl hold gpu max 300MHz -- sh -c "'$devfreqctl' requests --json >'$tmp/held.json'; cat '$root$gpu/userspace/set_freq'"
is "hold: the command's exit status 0" "$rc" 0
is "... the command ran under the cap (sysfs)" "$out" 300000000
is "... the request was there meanwhile" "$("$PYTHON3" -c 'import json,sys; r = json.load(sys.stdin)[0]; print(r["Type"], r["Value"])' <"$tmp/held.json")" \
        "max-frequency 300000000"
check "... and is gone as soon as the command ended" no_requests
is "... the device is back (sysfs)" "$(set_freq)" 400000000
ctl hold gpu min 600MHz --reason test -- sh -c 'exit 3'
is "hold passes exit status 3 through" "$rc" 3
check "... the request is gone" no_requests
ctl hold gpu min 600MHz -- sh -c 'kill -KILL $$'
is "hold: a command killed by SIGKILL gives 128+9" "$rc" 137
check "... the request is gone" no_requests
ctl hold gpu min 600MHz -- "$tmp/no-such-command"
is "hold: a command that does not exist gives 127" "$rc" 127
check "... with one line" one_line
ctl hold nosuch min 600MHz -- touch "$tmp/hold-ran"
is "hold on an unknown device: exit 1" "$rc" 1
check "... the command not run" test ! -e "$tmp/hold-ran"

# devfreqctl killed while holding: the bus connection closes, the daemon drops the request.
"$devfreqctl" hold gpu min 800MHz -- sh -c "echo \$\$ >'$tmp/child.pid'; exec sleep 60" &
hold_pid=$!
track $hold_pid
check "hold: the command started" wait_until $((5 * slow)) test -s "$tmp/child.pid"
track "$(cat "$tmp/child.pid")"
is "... the request is in force (sysfs)" "$(set_freq)" 800000000
# (bash reports the killed job on its standard error: not a failure.)
exec 4>&2 2>/dev/null
kill -KILL "$hold_pid"
check "devfreqctl SIGKILLed: the request disappears within 2 s" wait_until 2 no_requests
wait "$hold_pid" || true
exec 2>&4 4>&-
is "... the device is back (sysfs)" "$(set_freq)" 400000000
kill -TERM "$(cat "$tmp/child.pid")" 2>/dev/null || true

# --- profiles ---------------------------------------------------------------------------------

ctl profile
is "profile: the active one and the list" "$rc:$out" $'0:Active profile: none\nProfiles: power-saver'
ctl profile --json
is "profile --json" "$(py 'print(d["ActiveProfile"] or "-", d["ActiveProfileSource"] or "-", *d["Profiles"])')" \
        "- - power-saver"
ctl profile show power-saver
is "profile show: what it sets" "$rc:$out" "0:gpu.max-frequency = 400MHz"
ctl --json profile show power-saver
is "profile show --json" "$(py 'print(*[(x["device"], x["key"], x["value"]) for x in d])')" \
        "('gpu', 'max-frequency', '400MHz')"
ctl profile power-saver
is "profile NAME switches" "$rc:$(prop gpu MaxFrequency)" "0:400000000"
ctl status
like "status names it with its source" "$out" '^Profile: power-saver \(client\)'
ctl profile turbo
check "an unknown profile: exit 1 and one line" eval 'test "$rc" = 1 && one_line'
is "... saying so" "$err" "devfreqctl: No profile 'turbo' (see Profiles)"
ctl profile power-saver extra
check "profile with two names: exit 2" eval 'test "$rc" = 2 && one_line'
ctl profile none
is "profile none switches back" "$rc:$(prop gpu MaxFrequency)" "0:800000000"
check "monitor: the switch with its source" wait_until $((5 * slow)) grep -qxF "profile: power-saver (client)" "$tmp/monitor.out"
check "monitor: back to none" wait_until $((5 * slow)) grep -qxF "profile: none" "$tmp/monitor.out"

# --- monitor, read back ------------------------------------------------------------------------

ctl set-frequency gpu 200MHz
has_line() { grep -qxF -- "$1" "$tmp/monitor.out"; }
check "monitor: the frequency change" wait_until $((5 * slow)) has_line "gpu: CurrentFrequency 400 MHz -> 200 MHz"
check "monitor: a request added" \
        grep -qx "gpu: request $id added (min-frequency 600 MHz by :[0-9.]*, reason \"integration test\")" "$tmp/monitor.out"
check "monitor: ... and removed" has_line "gpu: request $id removed"
check "monitor: the aggregate" has_line "gpu: QosMinFrequency none -> 600 MHz"
check "monitor: the range" has_line "gpu: MaxFrequency 800 MHz -> 300 MHz"
check "monitor: the latency request" has_line "gpu: QosLatency none -> 1 ms"
kill -INT "$monitor_pid"
reap "$monitor_pid"
is "monitor exits 0 on SIGINT" "$reaped" 0

# --- stats -------------------------------------------------------------------------------------

ctl stats gpu
is "stats exits 0" "$rc" 0
is "stats: the kernel's header" "$(head -n1 <<<"$out")" "     From  :   To"
like "stats: the columns" "$(sed -n 2p <<<"$out")" '^           :( +[0-9]+){5}   time\(ms\)$'
like "stats: the '*' on the current frequency" "$out" $'\n\\* 200000000:'
is "stats: only one '*'" "$(grep -c '^\*' <<<"$out")" 1
transitions=$(prop gpu TransitionCount)
like "stats: the total" "$(tail -n1 <<<"$out")" "^Total transition : $transitions$"
ctl stats gpu --json
check "stats --json is valid JSON" valid_json
is "stats --json: the frequencies" "$(py 'print(d["frequencies"])')" "[200000000, 300000000, 400000000, 600000000, 800000000]"
is "stats --json: the current frequency" "$(py 'print(d["current_frequency"])')" 200000000
is "stats --json: the total is the sum of the table" "$(py 'print(d["total_transitions"] == sum(map(sum, d["transitions"])))')" True
is "stats --json: a row per frequency" "$(py 'print(len(d["transitions"]), len(d["time_in_state_ms"]))')" "5 5"
ctl stats policy0
cur=$(kread "$policy0/scaling_cur_freq")
like "stats of a cpufreq policy: '*' on its current frequency" "$out" $'\n\\*'" *${cur}000:"
ctl stats policy2
is "stats of a policy without statistics" "$rc:$out" "0:policy2: no statistics (the kernel keeps none for this device)"
ctl stats nosuch
check "stats of an unknown device: exit 1 and one line" eval 'test "$rc" = 1 && one_line'

# --- completion --------------------------------------------------------------------------------

complete_words() {
        (
                PATH=$top_builddir/tools:$PATH
                # shellcheck source=/dev/null
                source "$top_srcdir/tools/devfreqctl.bash-completion"
                COMP_WORDS=("$@")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMPREPLY=()
                _devfreqctl
                echo "${COMPREPLY[*]}"
        )
}
is "completion: commands" "$(complete_words devfreqctl se)" "set-governor set-frequency set-tunable"
is "completion: thermal" "$(complete_words devfreqctl th)" "thermal"
is "completion: devices" "$(complete_words devfreqctl show '')" "dmc gpu policy0 policy2"
like "completion: governors of the device" "$(complete_words devfreqctl set-governor gpu '')" '(^| )simple_ondemand( |$)'
is "completion: request types" "$(complete_words devfreqctl hold gpu '')" "min max latency"
is "completion: opp actions" "$(complete_words devfreqctl opp gpu '')" "enable disable"
is "completion: profiles" "$(complete_words devfreqctl profile '')" "show none power-saver"
is "completion: profile show NAME" "$(complete_words devfreqctl profile show p)" "power-saver"
is "completion: frequencies of the device" "$(complete_words devfreqctl opp gpu disable 8)" "800000000"
# Options as devfreqctl takes them: each command its own.
is "completion: monitor's options" "$(complete_words devfreqctl monitor --)" "--bus --help --version"
is "completion: set-governor's options" "$(complete_words devfreqctl set-governor gpu --)" "--bus --help --version"
is "completion: request's options" "$(complete_words devfreqctl request gpu min 600MHz --)" \
        "--bus --help --version --reason --timeout"
is "completion: hold's, with the -- its command needs" "$(complete_words devfreqctl hold gpu min 600MHz -)" \
        "--bus --help --version --reason --"
is "completion: status's" "$(complete_words devfreqctl status --)" "--bus --help --version --json"
is "completion: after -- operands, not commands of PATH" "$(complete_words devfreqctl show -- '')" \
        "dmc gpu policy0 policy2"
ctl set-governor gpu energy_aware
is "set-governor energy_aware exits 0" "$rc:$out$err" "0:"
is "... the governor on the bus" "$(prop gpu Governor)" '"energy_aware"'
is "completion: energy_aware's tunables" "$(complete_words devfreqctl set-tunable gpu '')" \
        "target_load rise decay saturated_samples"
ctl set-tunable gpu target_load 80
is "energy_aware: set-tunable target_load 80" "$rc:$(prop gpu Tunables)" \
        '0:4 "target_load" 80 "rise" 70 "decay" 70 "saturated_samples" 1'
ctl set-tunable gpu rise 10
check "energy_aware: a rise below the decay is refused, in one line" test "$rc" -ne 0 -a -z "$out"
check "... one line on stderr" one_line
ctl set-tunable gpu saturated_samples 4
check "energy_aware: saturated_samples 4 is refused" test "$rc" -ne 0
ctl set-governor gpu simple_ondemand
is "completion: tunables of the governor" "$(complete_words devfreqctl set-tunable gpu '')" "upthreshold downdifferential"

# --- reload ------------------------------------------------------------------------------------

ctl reload
is "reload exits 0" "$rc:$out$err" "0:"
printf '[device gpu\n' >"$tmp/devfreqd.conf"
ctl reload
is "reload of a broken configuration: exit 1" "$rc" 1
check "... one line" one_line
like "... naming file:line" "$err" "^devfreqctl: $tmp/devfreqd.conf:1: "
check "... the daemon runs on" daemon_alive
ctl status
is "... and still answers" "$rc" 0
printf '[daemon]\nbogus = 1\nother = 2\n\n[device x]\npath = /nope\n' >"$tmp/devfreqd.conf"
ctl reload
is "reload of a configuration with three errors: exit 1" "$rc" 1
check "... one line" one_line
is "... the first error, and how many more" "$err" \
        "devfreqctl: $tmp/devfreqd.conf:2: unknown key 'bogus' in [daemon] (and 2 more: devfreqd --check-config lists them all)"
cp "$tmp/devfreqd.conf.good" "$tmp/devfreqd.conf"
ctl reload
is "reload of the good configuration again" "$rc" 0

# --- without the daemon ------------------------------------------------------------------------

stop_daemon
is "the daemon exits 0 on SIGTERM" "$daemon_status" 0
check "the daemon's log has no sanitizer report" eval '! grep -qE "runtime error|Sanitizer" "$daemon_log"'
ctl status
is "status without the daemon: exit 1" "$rc" 1
is "... one line saying so" "$err" "devfreqctl: devfreqd is not running (nothing owns org.devfreqd.Devfreq1 on this bus)"
ctl profile
is "profile without the daemon: exit 1" "$rc" 1
is "... one line saying so" "$err" "devfreqctl: devfreqd is not running (nothing owns org.devfreqd.Devfreq1 on this bus)"
# A profile command line that is wrong is the command line's fault, bus or not: exit 2, one line.
for args in "show" "a b" "show a b" "''" "show ''" "--json power-saver"; do
        eval "ctl --bus unix:path=$tmp/nobus.socket profile $args"
        is "profile $args with no bus to reach: exit 2 (the command line)" "$rc" 2
        check "... one line" one_line
done

tap_done
