#!/usr/bin/env bash
# Following the desktop's power switch: the real power-profiles-daemon (Debian's 0.12, which serves
# net.hadess.PowerProfiles) on the private bus, switched with powerprofilesctl as a user would;
# then the newer name org.freedesktop.UPower.PowerProfiles and a performance profile, which 0.12
# cannot offer without a platform driver, from a generic python3-dbusmock object with the same
# property (a mock, not the daemon).
# power-profiles-daemon runs with UMOCKDEV_DIR in the test's directory: its state file and its view
# of sysfs stay there, and it never touches the host.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

ppd_bin=/usr/libexec/power-profiles-daemon
if [[ ! -x $ppd_bin ]] || ! command -v powerprofilesctl >/dev/null; then
        echo "1..0 # SKIP power-profiles-daemon is not installed (tools/bootstrap installs it)"
        exit 0
fi
if ! "$PYTHON3" -c 'import dbusmock' 2>/dev/null; then
        echo "1..0 # SKIP python3-dbusmock is not installed (tools/bootstrap installs it)"
        exit 0
fi

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_load_section)

[profile power-saver]
gpu.max-frequency = 400MHz

[profile balanced]

[profile performance]
gpu.min-frequency = 600MHz
EOF
start_bus
# A key no profile has: the configuration is refused, as any other bad line, with its file:line.
mkdir "$tmp/dropin"
printf '%s\n' "[profile balanced]" "*.polling-interval-is-no-key = 1" >"$tmp/dropin/bad.conf"
out=$("$devfreqd" --check-config --root "$root" --config "$tmp/devfreqd.conf" --config-dir "$tmp/dropin" 2>&1 || true)
contains "--check-config names the file and line of an unknown profile key" "$out" \
        "$tmp/dropin/bad.conf:2: unknown profile key 'polling-interval-is-no-key'"

mget() { getv "$manager_path" "$manager_iface" "$1"; }
owned() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$1") == *true* ]]; }
not_owned() { ! owned "$1"; }
hadess=net.hadess.PowerProfiles
upower=org.freedesktop.UPower.PowerProfiles

# The polkit stand-in lets powerprofilesctl switch and hold (0.12 asks polkit for both).
"$PYTHON3" -m dbusmock --system --template polkitd >>"$tmp/polkitd.log" 2>&1 &
track $!
wait_until $((10 * slow)) owned org.freedesktop.PolicyKit1
bctl call org.freedesktop.PolicyKit1 /org/freedesktop/PolicyKit1/Authority org.freedesktop.DBus.Mock SetAllowed \
        as 2 "$hadess.switch-profile" "$hadess.hold-profile"

mkdir -p "$tmp/umockdev"
ppd_start() {
        UMOCKDEV_DIR=$tmp/umockdev "$ppd_bin" -v >>"$tmp/ppd.log" 2>&1 &
        ppd_pid=$!
        track $ppd_pid
        wait_until $((10 * slow)) owned "$hadess"
}
ppd_stop() {
        kill -TERM "$ppd_pid"
        wait "$ppd_pid" 2>/dev/null || true
        untrack "$ppd_pid"
        wait_until $((10 * slow)) not_owned "$hadess"
}
ppctl() { powerprofilesctl "$@" >>"$tmp/ppctl.log" 2>&1; }
ceiling_is() { [[ $(dget gpu MaxFrequency) == "$1" ]]; }
active_is() { [[ "$(mget ActiveProfile) $(mget ActiveProfileSource)" == "$1" ]]; }

check "power-profiles-daemon owns $hadess on the private bus" ppd_start
is "it starts balanced (no platform driver here)" "$(powerprofilesctl get)" "balanced"

# ================================================================================ at start
start_daemon
check "at start devfreqd takes power-profiles-daemon's profile" wait_until $((5 * slow)) active_is "balanced power-profiles-daemon"
is "balanced holds no ceiling" "$(dget gpu MaxFrequency)" "800000000"

# ================================================================================ switches
ppctl set power-saver
check "powerprofilesctl set power-saver lowers the GPU's ceiling" wait_until $((5 * slow)) ceiling_is 400000000
is "the profile and its source" "$(mget ActiveProfile) $(mget ActiveProfileSource)" "power-saver power-profiles-daemon"
ppctl set balanced
check "powerprofilesctl set balanced lifts it" wait_until $((5 * slow)) ceiling_is 800000000

# ================================================================================ holds
powerprofilesctl launch -p power-saver -r "test" sleep $((2 * slow)) >>"$tmp/ppctl.log" 2>&1 &
launch_pid=$!
track $launch_pid
check "powerprofilesctl launch -p power-saver holds the ceiling low while it runs" \
        wait_until $((5 * slow)) ceiling_is 400000000
wait "$launch_pid" || true
untrack "$launch_pid"
check "and lifts it when the command ends" wait_until $((5 * slow)) ceiling_is 800000000

# ================================================================================ comes and goes
ppctl set power-saver
wait_until $((5 * slow)) ceiling_is 400000000
check "power-profiles-daemon stops" ppd_stop
check "the daemon saw it leave" wait_until $((5 * slow)) grep -q "$hadess left the bus" "$daemon_log"
is "its last profile stays in force" "$(mget ActiveProfile) $(dget gpu MaxFrequency)" "power-saver 400000000"
mcall SetProfile s balanced
is "a SetProfile holds meanwhile" "$(mget ActiveProfile) $(mget ActiveProfileSource) $(dget gpu MaxFrequency)" \
        "balanced client 800000000"
check "power-profiles-daemon starts again" ppd_start
check "devfreqd re-reads its profile (power-saver, kept in its state file)" \
        wait_until $((5 * slow)) active_is "power-saver power-profiles-daemon"
is "and the ceiling is low again" "$(dget gpu MaxFrequency)" "400000000"
check "power-profiles-daemon kept its state in the test directory" test -s "$tmp/umockdev/ppd_test_conf.ini"
ppd_stop

# ================================================================================ the newer name
# A generic dbusmock object at the newer name, with the same property: a mock, as the packaged 0.12
# serves only the older name and offers performance only with a platform driver.
"$PYTHON3" -m dbusmock --system "$upower" /org/freedesktop/UPower/PowerProfiles "$upower" >>"$tmp/upower.log" 2>&1 &
upower_pid=$!
track $upower_pid
wait_until $((10 * slow)) owned "$upower"
bctl call "$upower" /org/freedesktop/UPower/PowerProfiles org.freedesktop.DBus.Mock AddProperty ssv \
        "$upower" ActiveProfile s performance
# The property was added after the name appeared: a change signal tells devfreqd.
bctl call "$upower" /org/freedesktop/UPower/PowerProfiles org.freedesktop.DBus.Properties Set ssv \
        "$upower" ActiveProfile s performance
check "the newer name: performance is followed" wait_until $((5 * slow)) active_is "performance power-profiles-daemon"
is "performance's floor holds" "$(dget gpu MinFrequency) $(dget gpu MaxFrequency)" "600000000 800000000"
bctl call "$upower" /org/freedesktop/UPower/PowerProfiles org.freedesktop.DBus.Properties Set ssv \
        "$upower" ActiveProfile s low-power-mode-nobody-configured
check "a profile name devfreqd has no section for means none" wait_until $((5 * slow)) active_is " "
is "every limit of the profile is gone" "$(dget gpu MinFrequency) $(dget gpu MaxFrequency) $(dget gpu Requests)" \
        "200000000 800000000 0"

# The daemon restarts with the newer name on the bus: it is read at start.
stop_daemon
bctl call "$upower" /org/freedesktop/UPower/PowerProfiles org.freedesktop.DBus.Properties Set ssv \
        "$upower" ActiveProfile s power-saver
since=$(wc -l <"$daemon_log")
start_daemon
check "at start the newer name's profile wins over the saved SetProfile choice" \
        wait_until $((5 * slow)) active_is "power-saver power-profiles-daemon"
is "... read before any device is written: the saved choice is never applied in between" \
        "$(log_after "$since" | grep -o 'Profile .* is active.*')" \
        "Profile power-saver is active (power-profiles-daemon)"

# follow-power-profiles = no: the desktop's switch is not followed.
sed -i 's/^autodiscover = no$/autodiscover = no\nfollow-power-profiles = no/' "$tmp/devfreqd.conf"
stop_daemon
start_daemon
is "with follow-power-profiles = no the saved choice applies" "$(mget ActiveProfile) $(mget ActiveProfileSource)" \
        "balanced client"
bctl call "$upower" /org/freedesktop/UPower/PowerProfiles org.freedesktop.DBus.Properties Set ssv \
        "$upower" ActiveProfile s performance
mcall GetDevice s gpu >/dev/null # a round trip after the signal
is "and a change of the desktop's profile is not followed" "$(mget ActiveProfile)" "balanced"

# ================================================================================ reloads
# A reload re-resolves the profile as a start does: following turned on takes the desktop's at once.
sed -i 's/^follow-power-profiles = no$/follow-power-profiles = yes/' "$tmp/devfreqd.conf"
mcall Reload >/dev/null
check "a reload turning following on takes the desktop's profile (performance)" \
        wait_until $((5 * slow)) active_is "performance power-profiles-daemon"
# A client's choice made while following outlives a reload, as it does until the desktop switches.
mcall SetProfile s balanced
mcall Reload >/dev/null
mcall GetDevice s gpu >/dev/null # a round trip after the reload
is "a reload keeps a client's choice made while following" "$(mget ActiveProfile) $(mget ActiveProfileSource)" \
        "balanced client"
# The desktop names a profile the configuration lacks (none here); a reload that adds it takes it.
bctl call "$upower" /org/freedesktop/UPower/PowerProfiles org.freedesktop.DBus.Properties Set ssv \
        "$upower" ActiveProfile s eco
check "the desktop switches to eco, which names no profile: none" wait_until $((5 * slow)) active_is " "
printf '%s\n' "" "[profile eco]" "gpu.max-frequency = 300MHz" >>"$tmp/devfreqd.conf"
mcall Reload >/dev/null
check "a reload that adds [profile eco] takes the desktop's eco" \
        wait_until $((5 * slow)) active_is "eco power-profiles-daemon"
check "... and its ceiling holds" wait_until 5 ceiling_is 300000000

tap_done
