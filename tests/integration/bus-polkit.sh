#!/usr/bin/env bash
# Authorization through polkit (python3-dbusmock's polkitd template) for callers running as
# nobody: the actions asked, answers, a hanging check that blocks nobody else, a caller leaving
# while its check hangs, and polkit arriving and leaving while the daemon runs.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

if ! "$PYTHON3" -c 'import dbusmock, gi' 2>/dev/null; then
        echo "1..0 # SKIP python3-dbusmock or python3-gi is not installed (tools/bootstrap installs them)"
        exit 0
fi

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
request-groups = nogroup
# one connection fills the 64 checks of the whole daemon (the per-user share is tested in bus-shares.sh)
max-pending-checks-per-user = 100

$(gpu_userspace_section)
initial-frequency = 200MHz

$(dmc_clamp_section)

# A governor with tunables, so that SetTunable's arguments are good and polkit is what answers.
$(cpu_ondemand_section 1s)
EOF
start_strict_bus
start_daemon

p_gpu=$(dev_path gpu)
p_dmc=$(dev_path dmc)
p_cpu=$(dev_path cpu)
polkit=org.freedesktop.PolicyKit1
authority=/org/freedesktop/PolicyKit1/Authority
a_request=org.devfreqd.devfreq1.request
a_governor=org.devfreqd.devfreq1.set-governor
a_configure=org.devfreqd.devfreq1.configure

# mock METHOD [SIGNATURE ARGS...]: the polkit stand-in's control interface.
mock() {
        local method=$1
        shift
        bctl call "$polkit" "$authority" org.freedesktop.DBus.Mock "$method" "$@"
}
polkit_owned() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$polkit") == *true* ]]; }
polkit_start() {
        "$PYTHON3" -m dbusmock --system --template polkitd >>"$tmp/polkitd.log" 2>&1 &
        polkit_pid=$!
        track $polkit_pid
        wait_until $((10 * slow)) polkit_owned
}
polkit_stop() {
        kill -TERM "$polkit_pid"
        wait "$polkit_pid" 2>/dev/null || true
}
has_hanging() { [[ $(mock HaveHangingCalls) == "b true" ]]; }
# hang_add_request TYPE VALUE: nobody's AddRequest on gpu in the background, for the polkit stand-in
# to hang; busctl's output in $tmp/hang.out. hang_pid is busctl's own (setpriv execs it), not a
# subshell's, for kill and wait_status.
hang_add_request() {
        "${as_nobody[@]}" busctl --address="$bus_address" --timeout=$((60 * slow)) call "$name" "$p_gpu" "$device_iface" \
                AddRequest 'sta{sv}' "$1" "$2" 0 >"$tmp/hang.out" 2>&1 &
        hang_pid=$!
        track $hang_pid
}

# hang_wait: wait for that busctl to end; hang_status is its exit status.
hang_wait() {
        set +e
        wait "$hang_pid"
        hang_status=$?
        set -e
}

# ================================================================================ before polkit
out=$(nobody_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sta{sv}' min-frequency 0 0)
like "without polkit, request-groups lets nobody add a request" "$out" "^o \"$manager_path/request/"
like "without polkit, nobody's SetGovernor is refused by groups" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" "^$denied: .*polkit is not running"

# ================================================================================ polkit arrives
check "the polkit stand-in owns its name" polkit_start
# It denies everything by default: the daemon must now ask it rather than the groups.
asks_polkit() { [[ $(nobody_gdbus "$p_gpu" "$device_iface.AddRequest" min-frequency 0 '{}') == "$denied: polkit denied"* ]]; }
check "polkit started after the daemon: nobody's AddRequest now goes to polkit (denied)" wait_until $((5 * slow)) asks_polkit
like "the denial names the action" "$(nobody_gdbus "$p_gpu" "$device_iface.AddRequest" min-frequency 0 '{}')" \
        "^$denied: polkit denied $a_request"
check "the daemon logged the switch" grep -q "polkit is on the bus" "$daemon_log"
is "root needs no polkit" "$(dcall gpu SetGovernor s performance)" ""
dcall gpu SetGovernor s userspace

# ================================================================================ answers
mock SetAllowed as 1 "$a_request"
out=$(nobody_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sta{sv}' min-frequency 800000000 0)
like "an allowed action succeeds (AddRequest)" "$out" "^o \"$manager_path/request/[1-9][0-9]*\"$"
client_start N "${as_nobody[@]}"
out=$(client_cmd N add gpu min-frequency 800000000)
like "a held request allowed by polkit" "$out" "^ok $manager_path/request/"
nreq=${out#ok }
is "it is applied" "$(dget gpu CurrentFrequency) $(kread $gpu/cur_freq)" "800000000 800000000"
is "its owner Updates it without asking polkit again" "$(client_cmd N update "$nreq" 400000000)" "ok"
is "the update is applied" "$(dget gpu QosMinFrequency)" "400000000"
like "a denied action is AccessDenied (SetGovernor)" "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" \
        "^$denied: polkit denied $a_governor"
like "SetFrequency asks for $a_governor" "$(nobody_gdbus "$p_gpu" "$device_iface.SetFrequency" 800000000)" \
        "^$denied: polkit denied $a_governor"
like "SetTunable asks for $a_governor" "$(nobody_gdbus "$p_cpu" "$device_iface.SetTunable" up_threshold 80)" \
        "^$denied: polkit denied $a_governor"
like "SetOperatingPoint asks for $a_configure" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" 800000000 false)" "^$denied: polkit denied $a_configure"
like "ResetStatistics asks for $a_configure" "$(nobody_gdbus "$p_dmc" "$device_iface.ResetStatistics")" \
        "^$denied: polkit denied $a_configure"
like "Reload asks for $a_configure" "$(nobody_gdbus "$manager_path" "$manager_iface.Reload")" \
        "^$denied: polkit denied $a_configure"
is "nothing was changed by the denied calls" "$(dget gpu Governor) $(dget gpu AvailableFrequencies)" \
        "userspace 5 200000000 300000000 400000000 600000000 800000000"

mock SetAllowed as 2 "$a_governor" "$a_configure"
is "allowed now: SetGovernor" "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" powersave)" "()"
is "the governor changed" "$(dget gpu Governor)" "powersave"
is "allowed now: SetGovernor back" "$(nobody_busctl call "$name" "$p_gpu" "$device_iface" SetGovernor s userspace)" ""
is "allowed now: SetFrequency" "$(nobody_gdbus "$p_gpu" "$device_iface.SetFrequency" 600000000)" "()"
is "and it is applied above the floor" "$(dget gpu CurrentFrequency)" "600000000"
is "allowed now: SetOperatingPoint" "$(nobody_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" 300000000 false)" "()"
is "allowed now: ResetStatistics" "$(nobody_gdbus "$p_dmc" "$device_iface.ResetStatistics")" "()"
is "allowed now: Reload" "$(nobody_gdbus "$manager_path" "$manager_iface.Reload")" "()"
like "no longer allowed: AddRequest" "$(nobody_gdbus "$p_gpu" "$device_iface.AddRequest" min-frequency 0 '{}')" \
        "^$denied: polkit denied $a_request"
is "the held request survived all that" "$(getv "$nreq" "$request_iface" Value)" "400000000"

# ================================================================================ a hanging check
mock SetAllowed as 1 "$a_request"
mock SimulateHangActions as 1 "$a_request"
hang_add_request max-frequency 400000000
check "the check of nobody's AddRequest hangs in polkit" wait_until $((10 * slow)) has_hanging
is "meanwhile another client's GetDevice is answered" "$(mcall GetDevice s gpu)" "o \"$p_gpu\""
is "meanwhile nobody's GetDevice is answered" "$(nobody_busctl call "$name" "$manager_path" "$manager_iface" GetDevice s dmc)" \
        "o \"$p_dmc\""
like "meanwhile another polkit check is answered" "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" \
        "^$denied: polkit denied $a_governor"
is "meanwhile root's calls are served" "$(dcall gpu SetFrequency t 800000000)" ""
check "the hanging call has no reply yet" kill -0 "$hang_pid"
is "and no request yet" "$(dget gpu QosMaxFrequency)" "18446744073709551615"
mock ReleaseHangingCalls
hang_wait
is "ReleaseHangingCalls completes the first call" "$hang_status" "0"
like "with the request's path" "$(cat "$tmp/hang.out")" "^o \"$manager_path/request/[1-9][0-9]*\"$"
check "the daemon logged the request" grep -q "gpu: request [0-9]* max-frequency 400 MHz by" "$daemon_log"

# The same hang, denied on release.
mock SetAllowed as 0
hang_add_request max-frequency 400000000
check "a second hanging check" wait_until $((10 * slow)) has_hanging
mock ReleaseHangingCalls
hang_wait
is "denied on release: the call fails" "$hang_status:$(cat "$tmp/hang.out")" "1:Call failed: Access denied"

# ================================================================================ a caller that leaves
mock SetAllowed as 1 "$a_request"
checks_before=$(grep -c "cancelling its pending check" "$daemon_log" || true)
hang_add_request max-frequency 300000000
check "a third hanging check" wait_until $((10 * slow)) has_hanging
{ kill -KILL "$hang_pid" && wait "$hang_pid"; } 2>/dev/null || true
cancelled() { (($(grep -c "cancelling its pending check" "$daemon_log") > checks_before)); }
check "the daemon cancels the check of a caller that left" wait_until $((5 * slow)) cancelled
mock ReleaseHangingCalls
check "the daemon is still running" daemon_alive
check "and serving" serving gpu
is "no request was created for the departed caller" "$(dget gpu QosMaxFrequency)" "18446744073709551615"
is "only the held request is listed" "$(dget gpu Requests)" "1 \"$nreq\""
# Many callers leave while hanging; the daemon stays well.
asked_before=$(grep -c "polkit: asking for $a_request" "$daemon_log" || true)
hangers=()
for i in 1 2 3 4 5 6 7 8; do
        "${as_nobody[@]}" busctl --address="$bus_address" --timeout=$((60 * slow)) call "$name" "$p_gpu" \
                "$device_iface" AddRequest 'sta{sv}' max-frequency 300000000 0 >/dev/null 2>&1 &
        hangers+=($!)
        track $!
done
eight_asked() { (($(grep -c "polkit: asking for $a_request" "$daemon_log") >= asked_before + 8)); }
check "eight more hanging checks" wait_until $((10 * slow)) eight_asked
{
        for p in "${hangers[@]}"; do kill -KILL "$p" || true; done
        for p in "${hangers[@]}"; do wait "$p" || true; done
} 2>/dev/null
mock ReleaseHangingCalls
check "still serving after eight callers left mid-check" serving dmc
is "still no stray request" "$(dget gpu Requests)" "1 \"$nreq\""
mock SimulateHangActions as 0
out=$(client_cmd N add gpu max-frequency 600000000)
like "a new check after all that is answered" "$out" "^ok $manager_path/request/"

# ================================================================================ checks that go stale
# 64 calls of one connection hang in polkit; a reload takes their operating point away; once
# released, each fails before it asks again. Their answered checks must not stay pending.
mock SetAllowed as 1 "$a_configure"
mock SimulateHangActions as 1 "$a_configure"
mkfifo "$tmp/async.in"
"${as_nobody[@]}" "$PYTHON3" "$top_srcdir/tests/integration/bus-async-calls.py" "$bus_address" 64 "$p_gpu" \
        "$device_iface.SetOperatingPoint" tb 600000000 false <"$tmp/async.in" >"$tmp/async.out" 2>&1 &
async_pid=$!
track $async_pid
exec {async_fd}>"$tmp/async.in"
asked_before=$(grep -c "polkit: asking for $a_configure" "$daemon_log" || true)
all_asked() { (($(grep -c "polkit: asking for $a_configure" "$daemon_log") >= asked_before + 64)); }
check "64 calls of one connection hang in polkit" wait_until $((20 * slow)) all_asked
printf '[device gpu]\nopp = 200MHz\nopp = 400MHz\nopp = 800MHz\n' >"$tmp/conf.d/50-points.conf"
is "a reload takes their point away meanwhile" "$(mcall Reload)" ""
mock ReleaseHangingCalls
answered() { [[ $(tail -n1 "$tmp/async.out") == *=* ]]; }
check "released, all 64 are answered" wait_until $((10 * slow)) answered
is "each with NoSuchOperatingPoint" "$(tail -n1 "$tmp/async.out")" "$error_prefix.NoSuchOperatingPoint=64"
mock SimulateHangActions as 0
is "their checks do not count as pending: the next check is asked" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" 800000000 false)" "()"
is "and decided" "$(dget gpu AvailableFrequencies)" "2 200000000 400000000"
exec {async_fd}>&-
wait "$async_pid" || true
rm "$tmp/conf.d/50-points.conf"
mcall Reload

# ================================================================================ polkit leaves
polkit_stop
by_groups() { [[ $(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance) == *"polkit is not running"* ]]; }
check "polkit left: the daemon is back to groups" wait_until $((5 * slow)) by_groups
like "and request-groups lets nobody add a request again" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.AddRequest" min-frequency 0 '{}')" "^\(objectpath "
check "polkit is back: the daemon asks it again" polkit_start
check "asking polkit again" wait_until $((5 * slow)) asks_polkit

# ================================================================================ at most 64 pending
mock SetAllowed as 1 "$a_request"
mock SimulateHangActions as 1 "$a_request"
asked_before=$(grep -c "polkit: asking for $a_request" "$daemon_log" || true)
hangers=()
for i in $(seq 64); do
        "${as_nobody[@]}" busctl --address="$bus_address" --timeout=$((60 * slow)) call "$name" "$p_gpu" \
                "$device_iface" AddRequest 'sta{sv}' min-frequency 0 0 >"$tmp/hang-$i.out" 2>&1 &
        hangers+=($!)
        track $!
done
all_asked() { (($(grep -c "polkit: asking for $a_request" "$daemon_log") >= asked_before + 64)); }
check "64 checks hang in polkit" wait_until $((20 * slow)) all_asked
like "the 65th is AccessDenied, saying why" "$(nobody_gdbus "$p_gpu" "$device_iface.AddRequest" min-frequency 0 '{}')" \
        "^$denied: Too many authorization checks are pending \(64\)"
is "root is still served meanwhile" "$(dcall gpu SetFrequency t 200000000)" ""
mock ReleaseHangingCalls
done_ok=0
for p in "${hangers[@]}"; do wait "$p" && done_ok=$((done_ok + 1)); done
is "released, all 64 complete" "$done_ok" "64"
is "and each got its own request" "$(cat "$tmp"/hang-*.out | sort -u | grep -c "^o \"$manager_path/request/")" "64"
mock SimulateHangActions as 0
like "checks are accepted again" "$(client_cmd N add gpu max-frequency 800000000)" "^ok $manager_path/request/"

client_stop N
check "the daemon still serves" serving gpu

# ================================================================================ stopping mid-check
mock SimulateHangActions as 1 "$a_request"
hang_add_request min-frequency 0
check "a check hangs as the daemon stops" wait_until $((10 * slow)) has_hanging
stop_daemon TERM
is "devfreqd exits cleanly with a check pending" "$daemon_status" "0"
hang_wait
is "the waiting caller gets an error, not a hang" "$hang_status" "1"
tap_done
