#!/usr/bin/env bash
# Signals devfreqd must not believe. An unprivileged user (nobody) forges the bus driver's
# NameOwnerChanged, power-profiles-daemon's PropertiesChanged and logind's PrepareForSleep, each as a
# broadcast and as a unicast to devfreqd, on a bus whose policy lets anyone send anything (the code
# must be right without the policy): requests survive, the profile stays, the authorization source
# stays, the governor keeps following its load. The real senders are still believed: the bus driver
# releasing a client that left, a logind stand-in owning org.freedesktop.login1, and the real
# power-profiles-daemon. Last, the shipped bus policy refuses unicast signals to devfreqd from other
# users before the daemon sees them.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

if ((EUID != 0)); then
        echo "1..0 # SKIP needs root (the forger runs as nobody through setpriv)"
        exit 0
fi
if ! "$PYTHON3" -c 'import gi, dbusmock' 2>/dev/null; then
        echo "1..0 # SKIP python3-gi or python3-dbusmock is not installed (tools/bootstrap installs them)"
        exit 0
fi
ppd_bin=/usr/libexec/power-profiles-daemon

forge_py=$top_srcdir/tests/integration/forge-signal.py
# forge [--as nobody|root] [forge-signal.py OPTIONS] PATH INTERFACE MEMBER SIGNATURE ARGS
forge() {
        local who=(setpriv --reuid nobody --regid nogroup --clear-groups)
        if [[ $1 == --as ]]; then
                [[ $2 == root ]] && who=()
                shift 2
        fi
        "${who[@]}" "$PYTHON3" "$forge_py" "$bus_address" "$@" 2>>"$tmp/forge.err"
}
# forge_both ARGS...: the same forgery as a broadcast and as a unicast to devfreqd.
forge_both() { forge "$@" >/dev/null && forge --to "$name" "$@" >/dev/null; }
noc() { forge_both /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss "$1"; }

mget() { getv "$manager_path" "$manager_iface" "$1"; }
owned() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$1") == *true* ]]; }
# mark: the length of the daemon's log now, for log_after and unlogged_since.
mark() { log_mark=$(wc -l <"$daemon_log"); }
# round_trip: a call after the forged signals; the daemon handles its socket in order, so the
# signals were handled (or dropped) before the answer comes.
round_trip() { mcall GetDevice s gpu >/dev/null; }
refused_logged() { grep -q "Dropped a signal" < <(log_after "$log_mark"); }
forge_pids=()

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
request-groups = daemon

$(gpu_load_section)
initial-frequency = 200MHz

[profile power-saver]
gpu.max-frequency = 400MHz

[profile balanced]
EOF
start_strict_bus
# Everyone may send signals anywhere on this bus (its policy is the system bus's, without the
# project's file): what stops a forgery here is the daemon alone. "daemon" may connect too.
sed -i -e 's|<allow user="nobody"/>|<allow user="nobody"/>\n    <allow user="daemon"/>|' \
        -e "s|<include>.*</include>|<policy context=\"default\"><allow send_destination=\"$name\"/><allow send_type=\"signal\"/></policy>|" \
        "$tmp/bus.conf"
kill -HUP "$bus_pid"
start_daemon
p_gpu=$(dev_path gpu)

# ================================================================ the bus driver's NameOwnerChanged
client_start victim setpriv --reuid daemon --regid daemon --clear-groups
victim=$(client_cmd victim name)
victim=${victim#ok }
for v in 300000000 400000000 500000000; do client_cmd victim add gpu min-frequency $v >/dev/null; done
is "the victim holds three requests" "$(dget gpu Requests | wc -w)" "4"
mark
noc "('$victim', '$victim', '')"
round_trip
is "a forged NameOwnerChanged (broadcast and unicast) releases nothing" "$(dget gpu Requests | wc -w)" "4"
check "... the unicast is dropped, and the log says so at debug level" refused_logged
check "... and says nothing of the victim leaving" unlogged_since "$log_mark" 'left the bus'
client_kill victim
released() { [[ $(dget gpu Requests) == "0" ]]; }
check "the bus driver's own signal, when the victim really leaves, releases its requests" wait_until $((5 * slow)) released
check "... with one log line" wait_until $((5 * slow)) grep -q "$victim left the bus; its 3 requests released" "$daemon_log"

# ================================================================ the authorization source
# No polkit: "daemon" is in request-groups. A forged "polkit appeared" (even naming the forger as
# its owner, who would then answer the checks) or "polkit left" moves nothing.
client_start member setpriv --reuid daemon --regid daemon --clear-groups
like "a member of request-groups may add a request (no polkit)" "$(client_cmd member add gpu min-frequency 0)" '^ok '
forger=$(setpriv --reuid nobody --regid nogroup --clear-groups "$PYTHON3" -c '
import sys
from gi.repository import Gio
c = Gio.DBusConnection.new_for_address_sync(sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
print(c.get_unique_name())' "$bus_address")
mark
noc "('org.freedesktop.PolicyKit1', '', '$forger')"
round_trip
like "after a forged 'polkit appeared' the member is still allowed by the groups" \
        "$(client_cmd member add gpu min-frequency 0)" '^ok '
check "... and the daemon never believed polkit was there" unlogged_since "$log_mark" 'polkit is on the bus'
client_stop member

# ================================================================ logind's PrepareForSleep
# Full load on the GPU while nobody forges a resume every 20 ms: each believed resume would drop
# the next sample and keep the GPU at its lowest point for as long as the forgery goes on.
busy=$root/sys/devices/platform/ff9a0000.gpu/busy
# load_loop BUSY: BUSY of every 20 units of time, added every 20 ms until killed.
load_loop() { while :; do "$setload" "$busy" "$1" 20; sleep 0.02; done; }
load_loop 0 &
load_pid=$!
track $load_pid
bottom() { [[ $(dget gpu CurrentFrequency) == 200000000 ]]; }
check "idle, the GPU comes down to its lowest point" wait_until $((5 * slow)) bottom
mkdir -m 777 "$tmp/ready" # the forgers (nobody) say there that they are connected
for to in "" "$name"; do
        forge ${to:+--to "$to"} --ready "$tmp/ready/sleep${to:+-u}" --every 20 --seconds $((4 * slow)) \
                /org/freedesktop/login1 org.freedesktop.login1.Manager PrepareForSleep b "(false,)" \
                >"$tmp/sleep${to:+-u}.out" &
        forge_pids+=($!)
        track $!
done
wait_until $((5 * slow)) test -e "$tmp/ready/sleep" -a -e "$tmp/ready/sleep-u" ||
        not_ok "the forgers of PrepareForSleep connected"
kill "$load_pid"
wait "$load_pid" 2>/dev/null || true
untrack "$load_pid"
load_loop 20 &
load_pid=$!
track $load_pid
top_reached() { [[ $(dget gpu CurrentFrequency) == 800000000 ]]; }
check "under full load and forged resumes the governor still takes the GPU to the top" wait_until $((3 * slow)) top_reached
for pid in "${forge_pids[@]}"; do
        wait "$pid" || true
        untrack "$pid"
done
like "... while the forgers sent their signals" "$(cat "$tmp/sleep.out" "$tmp/sleep-u.out")" 'sent=[1-9][0-9]*.*sent=[1-9]'
check "... and no forged resume was taken for one" bash -c "! grep -q 'Resumed from sleep' '$daemon_log'"
kill "$load_pid"
wait "$load_pid" 2>/dev/null || true
untrack "$load_pid"
# A stand-in that owns logind's name is believed; it may appear after devfreqd started.
forge --as root --own org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager \
        PrepareForSleep b "(false,)" >/dev/null
check "the owner of org.freedesktop.login1 is believed" wait_until $((5 * slow)) grep -q 'Resumed from sleep' "$daemon_log"

# ================================================================ power-profiles-daemon's ActiveProfile
pp_args() { echo "('$1', {'ActiveProfile': <'$2'>}, @as [])"; }
profile_is() { [[ $(mget ActiveProfile) == "$1" ]]; }
mark
forge_both /net/hadess/PowerProfiles org.freedesktop.DBus.Properties PropertiesChanged 'sa{sv}as' \
        "$(pp_args net.hadess.PowerProfiles power-saver)"
forge_both /org/freedesktop/UPower/PowerProfiles org.freedesktop.DBus.Properties PropertiesChanged 'sa{sv}as' \
        "$(pp_args org.freedesktop.UPower.PowerProfiles power-saver)"
round_trip
is "forged PropertiesChanged of both names, no service on the bus: the profile stays" \
        "$(mget ActiveProfile) $(dget gpu MaxFrequency)" " 800000000"

if [[ -x $ppd_bin ]] && command -v powerprofilesctl >/dev/null; then
        # The real power-profiles-daemon (0.12, net.hadess.PowerProfiles); a polkit stand-in lets
        # powerprofilesctl switch.
        "$PYTHON3" -m dbusmock --system --template polkitd >>"$tmp/polkitd.log" 2>&1 &
        track $!
        wait_until $((10 * slow)) owned org.freedesktop.PolicyKit1 ||
                { not_ok "the polkit stand-in owns its name"; tail -n 5 "$tmp/polkitd.log" | sed 's/^/# /'; }
        bctl call org.freedesktop.PolicyKit1 /org/freedesktop/PolicyKit1/Authority org.freedesktop.DBus.Mock \
                SetAllowed as 1 net.hadess.PowerProfiles.switch-profile
        mkdir -p "$tmp/umockdev"
        UMOCKDEV_DIR=$tmp/umockdev "$ppd_bin" -v >>"$tmp/ppd.log" 2>&1 &
        track $!
        check "power-profiles-daemon is on the bus" wait_until $((10 * slow)) owned net.hadess.PowerProfiles
        check "devfreqd follows it (balanced)" wait_until $((5 * slow)) profile_is balanced
        forge_both /net/hadess/PowerProfiles org.freedesktop.DBus.Properties PropertiesChanged 'sa{sv}as' \
                "$(pp_args net.hadess.PowerProfiles power-saver)"
        round_trip
        is "with the real service on the bus, a forgery from another connection changes nothing" \
                "$(mget ActiveProfile) $(dget gpu MaxFrequency)" "balanced 800000000"
        powerprofilesctl set power-saver
        check "the real power-profiles-daemon switching is followed" wait_until $((5 * slow)) profile_is power-saver
        powerprofilesctl set balanced
        check "... both ways" wait_until $((5 * slow)) profile_is balanced
else
        skip "power-profiles-daemon is not installed (tools/bootstrap installs it)"
fi

# ================================================================ a flood
# 10 s of forged flips of the profile and forged disconnects, from one unprivileged connection
# each; meanwhile a legitimate client adds and removes requests, and each call must be answered.
client_start legit
mark
forge --seconds 10 --to "$name" /net/hadess/PowerProfiles org.freedesktop.DBus.Properties PropertiesChanged \
        'sa{sv}as' "$(pp_args net.hadess.PowerProfiles power-saver)" \
        --alternate "$(pp_args net.hadess.PowerProfiles balanced)" >"$tmp/flood1.out" &
f1=$!
track $f1
forge --seconds 10 --to "$name" /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss \
        "(':1.1', ':1.1', '')" >"$tmp/flood2.out" &
f2=$!
track $f2
cpu_before=$(awk '{print $14 + $15}' "/proc/$daemon_pid/stat")
answered=0
calls=0
while kill -0 "$f1" 2>/dev/null; do
        calls=$((calls + 1))
        out=$(client_cmd legit add gpu min-frequency 300000000)
        if [[ $out == "ok "* ]] && [[ $(client_cmd legit remove "${out#ok }") == ok* ]]; then
                answered=$((answered + 1))
        fi
done
wait "$f1" "$f2" || true
untrack "$f1"
untrack "$f2"
cpu_ticks=$(($(awk '{print $14 + $15}' "/proc/$daemon_pid/stat") - cpu_before))
diag "flood: $(cat "$tmp/flood1.out") flips and $(cat "$tmp/flood2.out") disconnects in 10 s;" \
        "$answered of $calls AddRequest+Remove pairs answered; devfreqd used $cpu_ticks ticks of CPU ($(getconf CLK_TCK)/s)"
is "during the flood every legitimate AddRequest and Remove was answered" "$answered" "$calls"
check "... there were some" test "$calls" -gt 0
is "the flood switched no profile" "$(mget ActiveProfile)" "balanced"
check "... logged no switch" unlogged_since "$log_mark" 'Profile .* is active'
check "the daemon answers at once after the flood" serving gpu
client_stop legit

# ================================================================ log records
# Strings from callers and from other services reach the log: none may start a record of its own.
client_start lg setpriv --reuid nobody --regid nogroup --clear-groups
like "AddRequest refuses a reason with a control character" \
        "$(client_cmd lg add gpu min-frequency 0 '{"reason": ["s", "x\n<2>forged record"]}')" \
        "^error org.freedesktop.DBus.Error.InvalidArgs Option 'reason' holds a control character"
client_stop lg
fails "a device name with a newline: the error echoes it escaped" "No device 'gpu\\n<2>forged'" \
        mcall GetDevice s $'gpu\n<2>forged'
fails "an unknown governor's name: the error echoes it escaped" "Unknown governor 'x\\n<2>forged'" \
        dcall gpu SetGovernor s $'x\n<2>forged'
fails "an unknown tunable's name: the error echoes it escaped" "has no tunable 'x\\n<2>forged'" \
        dcall gpu SetTunable su $'x\n<2>forged' 1
fails "an unknown request type: the error echoes it escaped" "Unknown request type 'x\\n<2>forged'" \
        dcall gpu AddRequest 'sta{sv}' $'x\n<2>forged' 0 0
fails "an unknown request option: the error echoes it escaped" "Unknown option 'x\\n<2>forged'" \
        dcall gpu AddRequest 'sta{sv}' min-frequency 0 1 $'x\n<2>forged' s y
mark
forge --as root --own org.freedesktop.UPower.PowerProfiles /org/freedesktop/UPower/PowerProfiles \
        org.freedesktop.DBus.Properties PropertiesChanged 'sa{sv}as' \
        "$(pp_args org.freedesktop.UPower.PowerProfiles 'x\n<2>forged profile')" >/dev/null
check "another service's profile name is logged" wait_until $((5 * slow)) grep -qF 'switched to x\n<2>forged profile' "$daemon_log"
check "... escaped: no forged record in the log" bash -c "! grep -q '^<2>forged' '$daemon_log'"

# ================================================================ the shipped bus policy
# With the project's policy file in force, nobody's unicast signal to devfreqd is refused by the bus
# itself: the daemon does not even see it (no "Dropped" line).
stop_daemon
kill "$bus_pid"
wait "$bus_pid" 2>/dev/null || true
untrack "$bus_pid"
start_strict_bus
start_daemon
mark
forge --to "$name" /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss "(':1.1', ':1.1', '')" >/dev/null
round_trip
check "the shipped policy keeps other users' unicast signals from devfreqd" unlogged_since "$log_mark" 'Dropped a signal'
forge --as root --to "$name" /org/freedesktop/DBus org.freedesktop.DBus NameOwnerChanged sss "(':1.1', ':1.1', '')" >/dev/null
round_trip
check "... while root's still reaches it, and is dropped by the daemon" wait_until $((5 * slow)) refused_logged

stop_daemon
is "devfreqd exits cleanly" "$daemon_status" 0
tap_done
