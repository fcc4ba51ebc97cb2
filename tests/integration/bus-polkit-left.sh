#!/usr/bin/env bash
# A caller that leaves the bus after polkit allowed its AddRequest but before the daemon runs the
# method again: the method fails for it (nobody reads the answer), polkit is not asked a second time
# for a name that is gone, and no request is left that nobody owns. The daemon learns of the loss
# through the bus driver's NameOwnerChanged, which must be dispatched before the method queued to
# run again: tests/fixtures/busfault.so holds that re-queueing (sd_bus_enqueue_for_read()) while
# $tmp/hold exists, and once the test removes it makes one synchronous call, during which sd-bus
# reads the NameOwnerChanged into its queue ahead of the method.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

if ! "$PYTHON3" -c 'import dbusmock, gi' 2>/dev/null; then
        echo "1..0 # SKIP python3-dbusmock or python3-gi is not installed (tools/bootstrap installs them)"
        exit 0
fi

busfault=$top_builddir/tests/fixtures/busfault.so
hold_file=$tmp/hold
deadline=$((10 * slow))
polkit=org.freedesktop.PolicyKit1
authority=/org/freedesktop/PolicyKit1/Authority
a_request=org.devfreqd.devfreq1.request

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(dmc_clamp_section)
EOF
start_strict_bus

# The polkit stand-in first, so the daemon asks it from the start; it logs each call it answers.
polkit_owned() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$polkit") == "b true" ]]; }
"$PYTHON3" -m dbusmock --system --template polkitd >>"$tmp/polkitd.log" 2>&1 &
track $!
wait_until "$deadline" polkit_owned || { echo "Bail out! the polkit stand-in did not take its name"; exit 1; }
bctl call "$polkit" "$authority" org.freedesktop.DBus.Mock SetAllowed as 1 "$a_request"

daemon_prefix=(env "LD_PRELOAD=$fakekernel $busfault" "BUSFAULT_HOLD_FILE=$hold_file")
start_daemon
p_dmc=$(dev_path dmc)

# log_tail (lib.sh's, redefined): the daemon's last lines (the shim's among them) and the polkit
# stand-in's.
log_tail() {
        tail -n 15 "$daemon_log" | sed 's/^/# devfreqd: /'
        tail -n 5 "$tmp/polkitd.log" | sed 's/^/# polkitd: /'
}

requests() { getp "$p_dmc" "$device_iface" Requests; }
# re TEXT: TEXT as an extended regular expression matching itself (the dots of names escaped).
re() { printf '%s' "${1//./\\.}"; }
# asked NAME: how often the daemon asked polkit on behalf of NAME, by its own log.
asked() { grep -cE "polkit: asking for $(re "$a_request") on behalf of $(re "$1")\$" "$daemon_log" || true; }
# checked NAME: how many CheckAuthorization calls for NAME the polkit stand-in answered, by its log
# (the subject's name quoted, as dbusmock prints it).
checked() { grep -F CheckAuthorization "$tmp/polkitd.log" | grep -cE "[\"']$(re "$1")[\"']" || true; }
logs() { grep -qF "$1" "$daemon_log"; }
has_owner() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$1") == "b true" ]]; }
name_gone() { ! has_owner "$1"; }

logged is "no request at the start" "$(requests)" "ao 0"

# ================================================================ polkit answers, the caller leaves
client_start a "${as_nobody[@]}"
unique=$(client_cmd a name)
unique=${unique#ok }
logged like "the client has its unique name" "$unique" '^:[0-9]+\.[0-9]+$'
: >"$hold_file"
# Not client_cmd: its answer is never read, the client is killed before the daemon gives one.
printf 'add dmc max-frequency 400000000\n' >&"${client_fd[a]}"
await "polkit allowed the AddRequest, and the shim holds its re-run" "$deadline" \
        logs "busfault: holding the re-run of AddRequest from $unique"
logged is "the daemon asked polkit once for it" "$(asked "$unique")" 1
client_kill a
await "the caller left the bus (its unique name has no owner)" "$deadline" name_gone "$unique"
rm -f "$hold_file"
await "the shim released the re-run, with the NameOwnerChanged read ahead of it" "$deadline" \
        logs "busfault: released the re-run of AddRequest from $unique"

# A call the daemon answers comes after the re-run in its queue: once answered, the re-run is done
# (and any second check for the departed caller asked).
logged check "the daemon is still running and answers" serving dmc
asked_now=$(asked "$unique")
if [[ $asked_now == 1 ]]; then
        ok "the re-run does not ask polkit again for the departed caller"
else
        not_ok "the re-run does not ask polkit again for the departed caller: polkit was asked $asked_now times"
        diag "the check decided before $unique left was freed with its client, so the method queued to run" \
                "again started a new check for a name that is gone (auth_checks_cancel_client)"
        log_tail
fi
logged is "the device has no request" "$(requests)" "ao 0"

# ================================================================ the daemon carries on
client_start b "${as_nobody[@]}"
req=$(client_cmd b add dmc max-frequency 400000000)
logged like "another client's AddRequest is allowed by polkit, with its path" "$req" "^ok $manager_path/request/[0-9]+$"
req=${req#ok }
# The stand-in answers in order: after the check for b, any second one for the departed caller is
# in its log, and its request (the daemon runs the methods polkit allowed in the order of the
# answers) in the device's list.
n=$(checked "$unique")
if [[ $n == 1 ]]; then
        ok "the polkit stand-in saw one CheckAuthorization for the departed caller"
else
        not_ok "the polkit stand-in saw one CheckAuthorization for the departed caller: polkit was asked $n times"
        grep "CheckAuthorization" "$tmp/polkitd.log" | sed 's/^/# polkitd: /'
        log_tail
fi
logged is "the device lists only the other client's request" "$(requests)" "ao 1 \"$req\""
logged like "... which its owner removes" "$(client_cmd b remove "$req")" '^ok'
logged is "then the device has no request" "$(requests)" "ao 0"
client_stop b
stop_daemon
logged is "devfreqd exits cleanly" "$daemon_status" 0

tap_done
