#!/usr/bin/env bash
# What one unprivileged user can take from the others: request slots over many connections
# (max-requests-per-user), pending polkit checks (max-pending-checks-per-user, and large calls
# refused before they could wait), callers' strings echoed back, and a group database with a
# line longer than any fixed buffer.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

if ((EUID != 0)); then
        echo "1..0 # SKIP needs root (callers of other uids through setpriv)"
        exit 0
fi
if ! "$PYTHON3" -c 'import dbusmock, gi' 2>/dev/null; then
        echo "1..0 # SKIP python3-dbusmock or python3-gi is not installed (tools/bootstrap installs them)"
        exit 0
fi

as_daemon=(setpriv --reuid daemon --regid daemon --clear-groups)
flood=$top_srcdir/tests/integration/bus-flood.py

write_config() {
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
max-requests-per-client = 2
max-requests-per-user = 3
max-pending-checks-per-user = 3
${1:-request-groups = nogroup daemon}

$(gpu_userspace_section)
EOF
}

make_root
write_config
start_strict_bus
# the strict bus lets root and nobody connect; the second unprivileged caller is "daemon"
sed -i 's|<allow user="nobody"/>|<allow user="nobody"/>\n    <allow user="daemon"/>|' "$tmp/bus.conf"
kill -HUP "$bus_pid"
start_daemon
p_gpu=$(dev_path gpu)

# ================================================================ request slots per user
client_start a "${as_nobody[@]}"
client_start b "${as_nobody[@]}"
client_start c "${as_daemon[@]}"
client_start r1
client_start r2
like "nobody's first connection: a request" "$(client_cmd a add gpu min-frequency 0)" '^ok '
like "... a second" "$(client_cmd a add gpu min-frequency 0)" '^ok '
like "... a third is over max-requests-per-client" "$(client_cmd a add gpu min-frequency 0)" \
        "^error $error_prefix.TooManyRequests .*max-requests-per-client"
like "nobody's second connection: a request (3 for the user)" "$(client_cmd b add gpu min-frequency 0)" '^ok '
like "... a fourth of the user is over max-requests-per-user" "$(client_cmd b add gpu min-frequency 0)" \
        "^error $error_prefix.TooManyRequests uid 65534 holds 3 requests.*max-requests-per-user"
like "another user is not locked out" "$(client_cmd c add gpu min-frequency 0)" '^ok '
for i in 1 2; do
        client_cmd r1 add gpu min-frequency 0 >/dev/null
        client_cmd r2 add gpu min-frequency 0 >/dev/null
done
is "root is exempt: four requests over two connections" \
        "$(bctl call "$name" "$p_gpu" org.freedesktop.DBus.Properties Get ss "$device_iface" Requests |
                grep -o "/request/" | wc -l)" 8
client_stop a
like "a slot freed by the user's connection leaving is the user's again" \
        "$(client_cmd b add gpu min-frequency 0)" '^ok '
for id in b c r2; do client_stop $id; done

# ================================================================ large reads per connection and per user
# GetManagedObjects costs in proportion to the live requests: nobody's 64 at once on one connection
# find 2 places to wait (its connection's share) and LimitsExceeded for the rest, at once; all are
# answered one way or the other. Root's are never limited.
for i in 1 2 3; do client_cmd r1 add gpu min-frequency 0 >/dev/null; done
out=$("${as_nobody[@]}" "$PYTHON3" "$flood" "$bus_address" "$manager_path" GetManagedObjects 64 0 $((60 * slow)))
like "64 GetManagedObjects at once from nobody: some answered, the rest LimitsExceeded, none left waiting" \
        "${out% longest-message=*}" '^ok=[0-9]+ org.freedesktop.DBus.Error.LimitsExceeded=[0-9]+ pending=0$'
limited=${out#*LimitsExceeded=}
limited=${limited%% *}
check "... most of them refused at once (the connection's share is 2 waiting): $limited refused" test "$limited" -ge 32
check "the daemon's log has the refusals nowhere (a flood must not flood the log)" \
        bash -c "! grep -q 'large reads waiting' '$daemon_log'"
out=$("$PYTHON3" "$flood" "$bus_address" "$manager_path" GetManagedObjects 64 0 $((60 * slow)))
is "root's 64 at once: all answered" "${out% longest-message=*}" "ok=64 pending=0"
like "nobody's GetManagedObjects alone is answered" \
        "$(head -c 20 < <(nobody_busctl call "$name" "$manager_path" org.freedesktop.DBus.ObjectManager GetManagedObjects))" '^a\{oa\{sa\{sv\}\}\} '
client_stop r1

# ================================================================ callers' strings echoed back
long=$(head -c 100000 /dev/zero | tr '\0' x)
set +e
err=$(bctl call "$name" "$manager_path" "$manager_iface" GetDevice s "$long" 2>&1)
set -e
like "GetDevice of a 100 kB name: NoSuchDevice quoting 64 bytes of it" "$err" "No device 'x{64}…' \(see ListDevices\)"
((${#err} < 200)) && ok "... and the message is short (${#err} bytes)" || not_ok "... and the message is short (${#err} bytes)"
fails "SetGovernor of a 100 kB name: InvalidArgs at once" "is longer than 64 bytes" \
        dcall gpu SetGovernor s "$long"
fails "SetTunable of a 100 kB name: InvalidArgs at once" "is longer than 64 bytes" \
        dcall gpu SetTunable su "$long" 1

# ================================================================ pending checks per user
mock() {
        local method=$1
        shift
        bctl call org.freedesktop.PolicyKit1 /org/freedesktop/PolicyKit1/Authority org.freedesktop.DBus.Mock "$method" "$@"
}
polkit_owned() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s org.freedesktop.PolicyKit1) == *true* ]]; }
"$PYTHON3" -m dbusmock --system --template polkitd >>"$tmp/polkitd.log" 2>&1 &
polkit_pid=$!
track $polkit_pid
await "the polkit stand-in is on the bus" $((10 * slow)) polkit_owned
await "the daemon sees polkit" $((10 * slow)) grep -q "polkit is on the bus" "$daemon_log"
mock SimulateHang b true
hanging() { [[ $(mock HaveHangingCalls) == "b true" ]]; }

# nobody fills its share of checks; each busctl waits for polkit
for i in 1 2 3; do
        nobody_busctl --timeout=$((120 * slow)) call "$name" "$p_gpu" "$device_iface" SetGovernor s performance \
                >"$tmp/hang-$i.out" 2>&1 &
        hang_pids[i]=$!
        track $!
done
pending_3() { (($(grep -c "polkit: asking for" "$daemon_log") >= 3)); }
check "nobody's three calls wait for polkit" wait_until $((10 * slow)) pending_3
like "a fourth of nobody's calls is refused: its user's share of checks is used up" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" "^$denied: uid 65534 has 3 .*max-pending-checks-per-user"
"${as_daemon[@]}" gdbus call --address "$bus_address" --timeout $((120 * slow)) --dest "$name" --object-path "$p_gpu" \
        --method "$device_iface.SetGovernor" performance >"$tmp/other.out" 2>&1 &
other_pid=$!
track $other_pid
pending_4() { (($(grep -c "polkit: asking for" "$daemon_log") >= 4)); }
check "another user's call still gets a check of its own" wait_until $((10 * slow)) pending_4

rss() { awk '/^VmRSS/ {print $2}' "/proc/$daemon_pid/status"; }
rss_before=$(rss)
# 2 MiB names: 128 MiB through the bus a flood, which a daemon holding the calls for polkit would
# keep (the VmRSS check below), small enough for the bus to carry quickly on a loaded machine.
out=$("${as_nobody[@]}" "$PYTHON3" "$flood" "$bus_address" "$p_gpu" SetGovernor 64 $((2 * 1024 * 1024)) $((120 * slow)))
is "64 SetGovernor calls with 2 MiB names while polkit hangs: all InvalidArgs at once" \
        "${out% longest-message=*}" "org.freedesktop.DBus.Error.InvalidArgs=64 pending=0"
longest=${out##*longest-message=}
((longest < 200)) && ok "... each error message short ($longest bytes)" || not_ok "... each error message short ($longest bytes)"
out=$("${as_nobody[@]}" "$PYTHON3" "$flood" "$bus_address" "$p_gpu" AddRequest 64 $((2 * 1024 * 1024)) $((120 * slow)))
is "... and 64 AddRequest calls with 2 MiB types too" "${out% longest-message=*}" \
        "org.freedesktop.DBus.Error.InvalidArgs=64 pending=0"
rss_after=$(rss)
diag "VmRSS before the flood ${rss_before} kB, after ${rss_after} kB"
if [[ ${DF_SANITIZERS:-no} == yes ]]; then
        skip "... the daemon kept none of those messages: AddressSanitizer's quarantine holds freed memory (the normal build checks it)"
elif ((rss_after < rss_before + 65536)); then
        ok "... the daemon kept none of those messages (VmRSS +$((rss_after - rss_before)) kB)"
else
        not_ok "... the daemon kept none of those messages (VmRSS +$((rss_after - rss_before)) kB)"
fi

mock ReleaseHangingCalls
set +e
wait "$other_pid"
set -e
contains "released: the other user's call got polkit's answer" "$(cat "$tmp/other.out")" "polkit denied"
for i in 1 2 3; do wait "${hang_pids[i]}" 2>/dev/null || true; done
check "the daemon still serves" serving gpu
stop_daemon
kill -TERM "$polkit_pid"
wait "$polkit_pid" 2>/dev/null || true
# Only a pause before the next section, which starts its own polkit stand-in: nothing is checked
# on the old one, so a stand-in slow to leave hides no failure.
wait_until $((10 * slow)) bash -c "! busctl --address='$bus_address' status org.freedesktop.PolicyKit1" >/dev/null 2>&1 || true
is "devfreqd exits cleanly" "$daemon_status" 0

# ================================================================ a group line longer than 4 kB
if unshare --mount true 2>/dev/null; then
        members=nobody
        for i in $(seq 700); do members+=",member$i"; done
        { echo "biggroup:x:4241:$members"; cat /etc/group; echo "laterg:x:4242:nobody"; } >"$tmp/group"
        cat >"$tmp/groups-ns.sh" <<'EOF'
#!/bin/bash
# A group database of the test's own, in this process's mount namespace only.
set -e
mount --bind "$GROUP_FILE" /etc/group
exec "$@"
EOF
        chmod +x "$tmp/groups-ns.sh"
        export GROUP_FILE=$tmp/group
        write_config "$(printf 'request-groups = biggroup\nallow-groups = laterg')"
        daemon_prefix=(unshare --mount --propagation private "$tmp/groups-ns.sh")
        start_daemon
        daemon_prefix=()
        like "a member of a group whose line is $(head -n1 "$tmp/group" | wc -c) bytes may add a request" \
                "$(nobody_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sta{sv}' min-frequency 0 0 2>&1)" \
                "^o \"$manager_path/request/"
        like "... and a member of a group listed after it may set a governor" \
                "$(nobody_busctl call "$name" "$p_gpu" "$device_iface" SetGovernor s performance 2>&1)" '^$'
        check "the host's /etc/group never saw the test's groups" bash -c "! grep -q '^biggroup:' /etc/group"
        stop_daemon
else
        skip "a group line longer than 4 kB: needs mount namespaces (unshare --mount)"
fi

tap_done
