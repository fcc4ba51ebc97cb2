#!/usr/bin/env bash
# The shipped D-Bus files: the interface XML files equal, member by member, what devfreqd
# introspects on its manager, device and request objects; every shipped XML file is
# well-formed, and the polkit actions are valid against polkit's DTD.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

dbus_dir=$top_srcdir/dbus
compare=$top_srcdir/tests/integration/introspect-compare.py
interfaces=(org.devfreqd.Devfreq1.Manager org.devfreqd.Devfreq1.Device org.devfreqd.Devfreq1.Request)
polkit_dtd=/usr/share/polkit-1/policyconfig-1.dtd

# compare_interface SHIPPED LIVE INTERFACE: one TAP line per result of introspect-compare.py.
compare_interface() {
        local out status=0 verdict desc detail
        out=$("$PYTHON3" "$compare" "$@" 2>&1) || status=$?
        if ((status != 0)); then
                not_ok "compare $3"
                diag "$out"
                return
        fi
        while IFS=$'\t' read -r verdict desc detail; do
                if [[ $verdict == PASS ]]; then
                        ok "$desc"
                else
                        not_ok "$desc"
                        diag "$detail"
                fi
        done <<<"$out"
}

# --- the shipped files themselves
if command -v xmllint >/dev/null; then
        for f in "${interfaces[@]/%/.xml}" org.devfreqd.Devfreq1.conf org.devfreqd.devfreq1.policy; do
                check "xmllint: $f is well-formed" xmllint --noout "$dbus_dir/$f"
        done
        if [[ -r $polkit_dtd ]]; then
                check "xmllint: org.devfreqd.devfreq1.policy is valid against $polkit_dtd" \
                        xmllint --noout --dtdvalid "$polkit_dtd" "$dbus_dir/org.devfreqd.devfreq1.policy"
        else
                skip "polkit actions DTD: $polkit_dtd not installed (Debian package polkitd)"
        fi
else
        not_ok "xmllint is missing: install the Debian package libxml2-utils (tools/bootstrap does)"
fi
actions=$(grep -o '<action id="[^"]*"' "$dbus_dir/org.devfreqd.devfreq1.policy" | cut -d'"' -f2 | sort | tr '\n' ' ')
is "the polkit file has the four actions the daemon checks" "$actions" \
        "org.devfreqd.devfreq1.configure org.devfreqd.devfreq1.request org.devfreqd.devfreq1.set-governor org.devfreqd.devfreq1.set-profile "
profile_defaults=$(sed -n '/<action id="org.devfreqd.devfreq1.set-profile">/,/<\/action>/p' "$dbus_dir/org.devfreqd.devfreq1.policy" |
        grep -o '<allow_[a-z]*>[a-z_]*<' | tr -d '<' | tr '\n' ' ')
is "set-profile: active sessions yes, others auth_admin_keep" "$profile_defaults" \
        "allow_any>auth_admin_keep allow_inactive>auth_admin_keep allow_active>yes "
service=$(grep -v '^#' "$dbus_dir/org.devfreqd.Devfreq1.service" | sed '/^$/d')
is "the activation file names the bus name and the systemd unit" "$service" "[D-BUS Service]
Name=org.devfreqd.Devfreq1
Exec=/bin/false
User=root
SystemdService=devfreqd.service"

# --- the comparison itself notices a member added to or removed from either side
sed -e '/<method name="Reload">/,/<\/method>/d' \
        -e 's|<property name="DryRun"|<property name="Extra" type="u" access="read"/>\n  &|' \
        "$dbus_dir/org.devfreqd.Devfreq1.Manager.xml" >"$tmp/mutated.xml"
out=$("$PYTHON3" "$compare" "$tmp/mutated.xml" "$dbus_dir/org.devfreqd.Devfreq1.Manager.xml" \
        org.devfreqd.Devfreq1.Manager)
contains "comparison notices a member missing on one side" "$out" $'FAIL\tManager method Reload\t'
contains "comparison notices a member added on one side" "$out" $'FAIL\tManager property Extra\t'
contains "comparison notices an undocumented member" "$out" $'FAIL\tManager: every shipped member has a comment'
sed 's|name="name" direction="in"|name="device_name" direction="in"|' \
        "$dbus_dir/org.devfreqd.Devfreq1.Manager.xml" >"$tmp/renamed.xml"
out=$("$PYTHON3" "$compare" "$tmp/renamed.xml" "$dbus_dir/org.devfreqd.Devfreq1.Manager.xml" \
        org.devfreqd.Devfreq1.Manager)
contains "comparison notices a renamed argument" "$out" $'FAIL\tManager method GetDevice\targuments:'

# --- the daemon, with a request held by a client that stays connected
make_root
start_bus
start_daemon

device=$(bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager GetDevice s dmc |
        cut -d'"' -f2)
"$PYTHON3" -c '
import signal, sys
import dbus
bus = dbus.bus.BusConnection(sys.argv[1])
device = bus.get_object("org.devfreqd.Devfreq1", sys.argv[2])
path = device.AddRequest("min-frequency", dbus.UInt64(0),
                         dbus.Dictionary({"reason": "introspection test"}, signature="sv"),
                         dbus_interface="org.devfreqd.Devfreq1.Device")
print(path, flush=True)
signal.pause()
' "$bus_address" "$device" >"$tmp/holder.out" 2>&1 &
track $!
if ! wait_until 10 grep -q '^/org/devfreqd/Devfreq1/request/' "$tmp/holder.out"; then
        echo "Bail out! no request object: $(cat "$tmp/holder.out")"
        exit 1
fi
request=$(head -n1 "$tmp/holder.out")

# introspect PATH FILE: the daemon's introspection XML of PATH.
introspect() {
        bctl --json=short call org.devfreqd.Devfreq1 "$1" org.freedesktop.DBus.Introspectable Introspect |
                "$PYTHON3" -c 'import json, sys; sys.stdout.write(json.load(sys.stdin)["data"][0])' >"$2"
}
introspect /org/devfreqd/Devfreq1 "$tmp/manager.xml"
introspect "$device" "$tmp/device.xml"
introspect "$request" "$tmp/request.xml"

compare_interface "$dbus_dir/org.devfreqd.Devfreq1.Manager.xml" "$tmp/manager.xml" org.devfreqd.Devfreq1.Manager
compare_interface "$dbus_dir/org.devfreqd.Devfreq1.Device.xml" "$tmp/device.xml" org.devfreqd.Devfreq1.Device
compare_interface "$dbus_dir/org.devfreqd.Devfreq1.Request.xml" "$tmp/request.xml" org.devfreqd.Devfreq1.Request

check "daemon still running" daemon_alive
tap_done
