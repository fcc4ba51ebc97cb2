#!/usr/bin/env bash
# Profiles on the bus: SetProfile's authorization (root, profile-groups without polkit, polkit's
# answers), NoSuchProfile, a repeated switch that signals nothing, the daemon's own requests (owner,
# uid, pid, reason, AccessDenied even for root, no limit), governors and tunables restored on
# leaving, an override dropped at the next switch while persisted choices survive, the order of
# precedence at start, a reload that removes the active profile, a reload or restart under a profile
# (no frequency written, overrides kept, choices made under its governor kept), and a switch whose
# governor cannot start.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

if ! "$PYTHON3" -c 'import dbusmock, gi' 2>/dev/null; then
        echo "1..0 # SKIP python3-dbusmock or python3-gi is not installed (tools/bootstrap installs them)"
        exit 0
fi

make_root
write_conf() {
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
follow-power-profiles = no
; the daemon's own requests count against none of these
max-requests-per-client = 1
max-requests = 1
$1

$(gpu_load_section)

$(dmc_clamp_section)

[profile performance]
gpu.min-frequency = 600MHz
gpu.upthreshold = 50

$2
EOF
}
saver='[profile power-saver]
gpu.governor = powersave
*.max-frequency = 400MHz'
write_conf "profile-groups = nogroup" "$saver"
start_strict_bus
start_daemon
monitor_start

mget() { getv "$manager_path" "$manager_iface" "$1"; }
p_gpu=$(dev_path gpu)
denied=org.freedesktop.DBus.Error.AccessDenied
a_profile=org.devfreqd.devfreq1.set-profile

# ================================================================================ properties
is "Profiles in the order of the configuration" "$(getp "$manager_path" "$manager_iface" Profiles)" \
        'as 2 "performance" "power-saver"'
is "no profile at first" "$(mget ActiveProfile)|$(mget ActiveProfileSource)" "|"
is "GetProfile: each line of the section, in file order" "$(mcall GetProfile s power-saver)" \
        'a(sss) 2 "gpu" "governor" "powersave" "*" "max-frequency" "400MHz"'
busctl_error "GetProfile of an unknown name is NoSuchProfile" org.devfreqd.Devfreq1.Error.NoSuchProfile \
        "No profile 'balanced'" mcall GetProfile s balanced

# ================================================================================ authorization
is "without polkit, profile-groups lets nobody switch" \
        "$(nobody_gdbus "$manager_path" "$manager_iface.SetProfile" power-saver)" "()"
is "the switch happened" "$(mget ActiveProfile) $(mget ActiveProfileSource)" "power-saver client"
like "nobody may not SetGovernor for that" "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" \
        "^$denied: .*polkit is not running"
is "and back to none" "$(nobody_gdbus "$manager_path" "$manager_iface.SetProfile" '')" "()"
write_conf "" "$saver"
mcall Reload
like "without profile-groups, nobody is refused" \
        "$(nobody_gdbus "$manager_path" "$manager_iface.SetProfile" power-saver)" "^$denied: .*polkit is not running"
is "and nothing changed" "$(mget ActiveProfile)" ""

polkit=org.freedesktop.PolicyKit1
"$PYTHON3" -m dbusmock --system --template polkitd >>"$tmp/polkitd.log" 2>&1 &
polkit_pid=$!
track $polkit_pid
polkit_owned() { [[ $(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s "$polkit") == *true* ]]; }
wait_until $((10 * slow)) polkit_owned
asks_polkit() { [[ $(nobody_gdbus "$manager_path" "$manager_iface.SetProfile" '') == "$denied: polkit denied $a_profile"* ]]; }
check "with polkit, nobody's SetProfile asks for $a_profile (denied)" wait_until $((5 * slow)) asks_polkit
bctl call "$polkit" /org/freedesktop/PolicyKit1/Authority org.freedesktop.DBus.Mock SetAllowed as 1 "$a_profile"
is "polkit allows it" "$(nobody_gdbus "$manager_path" "$manager_iface.SetProfile" performance)" "()"
is "the profile is switched" "$(mget ActiveProfile) $(mget ActiveProfileSource)" "performance client"
mcall SetProfile s ''

kill -TERM "$polkit_pid"
wait "$polkit_pid" 2>/dev/null || true
untrack "$polkit_pid"

# ================================================================================ switching
is "root switches without asking" "$(mcall SetProfile s power-saver)" ""
is "the profile's governor" "$(dget gpu Governor)" "powersave"
is "its ceiling on every device ('*')" "$(dget gpu MaxFrequency) $(dget dmc MaxFrequency)" "400000000 400000000"
is "the clamped node's limit" "$(kread $dmc/max_freq)" "400000000"
monitor_mark
mcall SetProfile s power-saver
monitor_flush
is "the same profile again signals nothing" "$(changes "$manager_path")" ""
busctl_error "an unknown profile is NoSuchProfile" org.devfreqd.Devfreq1.Error.NoSuchProfile "No profile 'turbo'" \
        mcall SetProfile s turbo
is "and changes nothing" "$(mget ActiveProfile) $(dget gpu Governor)" "power-saver powersave"

# ================================================================================ the daemon's own requests
req=$(dget gpu Requests | awk '{print $2}' | tr -d '"')
rprop() { getv "$req" org.devfreqd.Devfreq1.Request "$1"; }
owner=$(bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s "$name" | awk '{print $2}' | tr -d '"')
is "one request on gpu, the profile's ceiling" "$(rprop Type) $(rprop Value)" "max-frequency 400000000"
is "Owner is the daemon's unique name, UID 0, its PID" "$(rprop Owner) $(rprop UID) $(rprop PID)" "$owner 0 $daemon_pid"
is "Reason names the profile" "$(rprop Reason)" "profile power-saver"
# root_gdbus OBJECT METHOD ARGS...: gdbus call as root, the error as "ERROR_NAME: MESSAGE".
root_gdbus() {
        local obj=$1 method=$2
        shift 2
        gdbus call --address "$bus_address" --dest "$name" --object-path "$obj" --method "$method" "$@" 2>&1 |
                head -n1 | sed 's/^Error: GDBus\.Error://'
}
like "Update on it is AccessDenied, even for root" \
        "$(root_gdbus "$req" org.devfreqd.Devfreq1.Request.Update 800000000)" \
        "^$denied: Request [0-9]+ is the daemon's own \(profile power-saver\); only a profile switch changes it"
like "Remove on it is AccessDenied, even for root" "$(root_gdbus "$req" org.devfreqd.Devfreq1.Request.Remove)" \
        "^$denied: .*only a profile switch changes it"
client_start R
like "a client's request still fits under max-requests = 1 and max-requests-per-client = 1" \
        "$(client_cmd R add gpu max-frequency 300000000)" "^ok $manager_path/request/"
is "the ceilings aggregate: the lowest wins" "$(dget gpu MaxFrequency)" "300000000"
client_stop R

# ================================================================================ leaving, overrides
monitor_mark
mcall SetProfile s performance
monitor_flush
like "ActiveProfile and ActiveProfileSource change with their values" "$(changes "$manager_path")" \
        "ActiveProfile=\"performance\" ActiveProfileSource=\"client\""
is "leaving power-saver restores the configured governor" "$(dget gpu Governor)" "simple_ondemand"
is "performance's floor and tunable" "$(dget gpu MinFrequency) $(dget gpu Tunables)" \
        '600000000 2 "upthreshold" 50 "downdifferential" 5'
is "power-saver's requests are gone; performance holds one" "$(dget dmc Requests) $(dget dmc MaxFrequency)" \
        "0 800000000"
dcall gpu SetTunable su upthreshold 70
dcall gpu SetTunable su downdifferential 10
is "an override of the profile's tunable" "$(dget gpu Tunables)" '2 "upthreshold" 70 "downdifferential" 10'
check "is not persisted" bash -c '! grep -q "tunable:upthreshold" "$1"' _ "$tmp/state/state"
check "another tunable is" grep -q "tunable:downdifferential" "$tmp/state/state"
mcall SetProfile s performance
is "setting the profile again keeps the override" "$(dget gpu Tunables)" '2 "upthreshold" 70 "downdifferential" 10'
mcall SetProfile s ''
is "the next switch drops the override; the persisted choice stays" "$(dget gpu Tunables)" \
        '2 "upthreshold" 90 "downdifferential" 10'
is "no profile: no floor" "$(dget gpu MinFrequency)" "200000000"

# A saved tunable that does not fit with the profile's: the profile's set applies over the configured
# values while it is active, the saved choice stays saved and comes back when it is left.
dcall gpu SetTunable su downdifferential 60
mcall SetProfile s performance
is "a saved downdifferential 60 gives way to performance's upthreshold 50" "$(dget gpu Tunables)" \
        '2 "upthreshold" 50 "downdifferential" 5'
check "... the log says which, and what applies" grep -q \
        "gpu: profile performance: the saved downdifferential = 60 do not fit with the profile's upthreshold = 50 (governor simple_ondemand); downdifferential = 5 while the profile is active" \
        "$daemon_log"
check "... and it stays saved" grep -q $'^gpu\ttunable:downdifferential\t60\t' "$tmp/state/state"
mcall SetProfile s ''
is "leaving the profile gives it back" "$(dget gpu Tunables)" '2 "upthreshold" 90 "downdifferential" 60'

# ================================================================================ start and reload
mcall SetProfile s performance
stop_daemon
start_daemon
is "at start the saved SetProfile choice" "$(mget ActiveProfile) $(mget ActiveProfileSource)" "performance client"
write_conf "default-profile = power-saver" "$saver"
stop_daemon
start_daemon
is "a changed default-profile wins over the saved choice" "$(mget ActiveProfile) $(mget ActiveProfileSource)" \
        "power-saver default"
check "the log says why" grep -q "default-profile changed; forgetting the saved profile" "$daemon_log"
write_conf "" "[profile balanced]"
monitor_mark
mcall Reload
monitor_flush
contains "a reload that changes the profiles sends Profiles with its value" "$(changes "$manager_path")" \
        'Profiles=["performance","balanced"]'
is "a reload that removes the active profile falls back to none" "$(mget ActiveProfile)|$(mget ActiveProfileSource)" "|"
check "and the log says so" grep -q "The active profile power-saver is no longer configured; no profile is active" "$daemon_log"
is "its governor and ceilings are gone" "$(dget gpu Governor) $(dget gpu MaxFrequency) $(dget dmc Requests)" \
        "simple_ondemand 800000000 0"
is "Profiles changed with the reload" "$(getp "$manager_path" "$manager_iface" Profiles)" 'as 2 "performance" "balanced"'

# ================================================================================ a set that does not fit
write_conf "" "[profile quiet]
gpu.governor = conservative
gpu.up_threshold = 15"
line=$(grep -n '^gpu.up_threshold' "$tmp/devfreqd.conf" | cut -d: -f1)
busctl_error "Reload: a profile's tunables that do not fit together are InvalidConfiguration, file:line" \
        "$error_prefix.InvalidConfiguration" \
        "$tmp/devfreqd.conf:$line: profile quiet, device 'gpu': the tunables of governor conservative do not fit together: up_threshold = 15, down_threshold = 20" \
        mcall Reload
is "... and the old configuration stays" "$(getp "$manager_path" "$manager_iface" Profiles)" 'as 2 "performance" "balanced"'

# An autodiscovered device is not checked with the configuration: where the profile's tunables do not
# fit together over its governor's defaults, neither the profile's governor nor its tunables apply
# there, LastError names the profile, the device and the values, and the rest of the profile applies.
write_conf "autodiscover = yes
default-mode = govern
default-governor = simple_ondemand" "[profile quiet]
policy2.governor = conservative
policy2.up_threshold = 15
policy2.max-frequency = 1GHz"
mcall Reload
is "policy2 autodiscovered under simple_ondemand" "$(dget policy2 Governor)" "simple_ondemand"
is "SetProfile quiet succeeds" "$(mcall SetProfile s quiet)" ""
is "policy2 keeps its governor and tunables" "$(dget policy2 Governor) $(dget policy2 Tunables)" \
        'simple_ondemand 2 "upthreshold" 90 "downdifferential" 5'
is "LastError names the profile, the device and the values" "$(dget policy2 LastError)" \
        "profile quiet: on policy2 the tunables of governor conservative do not fit together (up_threshold = 15, down_threshold = 20, freq_step = 5, sampling_down_factor = 1); the profile sets neither governor nor tunables here"
is "the profile's ceiling still applies" "$(dget policy2 MaxFrequency)" "1000000000"
check "SetTunable upthreshold there is accepted" dcall policy2 SetTunable su upthreshold 80
check "... and persisted: the profile does not set it on policy2" \
        grep -q $'^policy2\ttunable:upthreshold\t80\t' "$tmp/state/state"
mcall SetProfile s ''

# A governor the device cannot switch to when the switch is made: a passive device whose parent is not
# attached (its path does not exist yet) is named as such, not as an errno.
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
follow-power-profiles = no

$(gpu_load_section)

[device npu]
path = /sys/class/devfreq/npu

[device dmc]
path = /sys/class/devfreq/dmc
mode = govern
governor = passive
parent = npu

[profile low]
dmc.governor = powersave
EOF
mcall Reload
mcall SetProfile s low
is "dmc under the profile's powersave" "$(dget dmc Governor)" "powersave"
mcall SetProfile s ''
is "leaving it, dmc cannot go back to passive: it stays on powersave" "$(dget dmc Governor)" "powersave"
is "... and LastError says why" "$(dget dmc LastError)" \
        "profile (none): cannot switch to governor passive: Governor passive follows npu, which is not attached now"
busctl_error "SetGovernor passive there is InvalidGovernor, naming the parent" "$error_prefix.InvalidGovernor" \
        "Governor passive follows npu, which is not attached now" dcall dmc SetGovernor s passive

# ================================================================================ reload, restart, a failed switch
# A reload is no switch: the device runs the profile's governor throughout (nothing outside the profile
# evaluated or written in between) and keeps the overrides of keys the profile still sets alike. A
# choice of a key the profile does not set, made under the profile's governor, is persisted and
# survives a reload and a restart. A switch whose governor cannot start leaves the device on its own.
stop_daemon
rm -f "$tmp/state/state"
write_gov_conf() {
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
follow-power-profiles = no

[device gpu]
path = /sys/class/devfreq/ff9a0000.gpu
mode = govern
governor = performance
polling-interval = 50ms
load = counters:/sys/devices/platform/ff9a0000.gpu/busy

[profile saver]
gpu.governor = powersave

[profile fast]
gpu.governor = ondemand
gpu.sampling_down_factor = $1

[profile manual]
gpu.governor = userspace

[profile steady]
gpu.governor = simple_ondemand
EOF
}
write_gov_conf 2
start_daemon
ktotal() { sed -n 's/^Total transition : //p' "$root$gpu/trans_stat"; }
# reload_quietly: a Reload, then how many transitions the kernel and devfreqd counted across it, and how
# many evaluations of gpu that wrote a frequency the log shows ("0 0 0": it moved nothing).
reload_quietly() {
        local k t lines
        k=$(ktotal) t=$(dget gpu TransitionCount) lines=$(wc -l <"$daemon_log")
        mcall Reload
        echo "$(($(ktotal) - k)) $(($(dget gpu TransitionCount) - t)) $(log_after "$lines" |
                grep -cE 'gpu: [0-9.]+ [kMG]?Hz$' || true)"
}
mcall SetProfile s saver
is "saver runs powersave at the lowest point" "$(dget gpu Governor) $(kread $gpu/cur_freq)" "powersave 200000000"
is "a Reload of the same file under saver writes no frequency (kernel, TransitionCount, log)" \
        "$(reload_quietly)" "0 0 0"
is "... and gpu stays on powersave at 200 MHz" "$(dget gpu Governor) $(kread $gpu/cur_freq)" "powersave 200000000"
dcall gpu SetGovernor s userspace
is "a SetGovernor over the profile's governor" "$(dget gpu Governor)" "userspace"
is "a Reload keeps that override, writing nothing" "$(reload_quietly) $(dget gpu Governor)" "0 0 0 userspace"

mcall SetProfile s fast
dcall gpu SetTunable su sampling_down_factor 3
dcall gpu SetTunable su up_threshold 50
is "under fast: an override of its sampling_down_factor, a choice of up_threshold" "$(dget gpu Tunables)" \
        '2 "up_threshold" 50 "sampling_down_factor" 3'
check "... up_threshold persisted" grep -q $'^gpu\ttunable:up_threshold\t50\t' "$tmp/state/state"
mcall Reload
is "a Reload keeps both" "$(dget gpu Governor) $(dget gpu Tunables)" \
        'ondemand 2 "up_threshold" 50 "sampling_down_factor" 3'
check "... forgets no saved tunable" bash -c '! grep -q "forgetting the saved tunable" "$1"' _ "$daemon_log"
check "... and the state file keeps up_threshold" grep -q $'^gpu\ttunable:up_threshold\t50\t' "$tmp/state/state"
write_gov_conf 4
mcall Reload
is "a Reload that changes the profile's sampling_down_factor: the new value wins over the override" \
        "$(dget gpu Tunables)" '2 "up_threshold" 50 "sampling_down_factor" 4'
stop_daemon
start_daemon
is "a restart under fast applies the saved up_threshold" \
        "$(mget ActiveProfile) $(dget gpu Governor) $(dget gpu Tunables)" \
        'fast ondemand 2 "up_threshold" 50 "sampling_down_factor" 4'
check "... and keeps it saved" grep -q $'^gpu\ttunable:up_threshold\t50\t' "$tmp/state/state"

mcall SetProfile s manual
dcall gpu SetFrequency t 400000000
is "under manual (userspace): SetFrequency 400 MHz" "$(dget gpu CurrentFrequency)" "400000000"
mcall Reload
is "a Reload keeps the set frequency" "$(dget gpu Governor) $(dget gpu CurrentFrequency)" "userspace 400000000"
check "... and its record" grep -q $'^gpu\tfrequency\t400000000\t' "$tmp/state/state"
stop_daemon
start_daemon
is "a restart applies it" "$(mget ActiveProfile) $(dget gpu Governor) $(kread $gpu/cur_freq)" \
        "manual userspace 400000000"
mcall SetProfile s saver
mcall SetProfile s manual
is "leaving manual and coming back applies it too" "$(dget gpu CurrentFrequency)" "400000000"

# steady's simple_ondemand cannot start without its load source: the device leaves saver's powersave
# for its own governor, performance, and LastError says why.
mcall SetProfile s saver
mv "$root/sys/devices/platform/ff9a0000.gpu/busy" "$root/sys/devices/platform/ff9a0000.gpu/busy.away"
mcall SetProfile s steady
is "a switch to steady, whose governor cannot start: the device runs its own governor, not saver's" \
        "$(mget ActiveProfile) $(dget gpu Governor) $(kread $gpu/cur_freq)" "steady performance 800000000"
like "... and LastError says why" "$(dget gpu LastError)" \
        "^profile steady: cannot switch to governor simple_ondemand: .*cannot open the load source"
mv "$root/sys/devices/platform/ff9a0000.gpu/busy.away" "$root/sys/devices/platform/ff9a0000.gpu/busy"


# ================================================================================ clamp at start and reload
# dmc in clamp mode with its kernel governor configured (performance) and a default profile that sets
# powersave: the start writes the profile's governor only, and a reload does not put the configured
# one in between; leaving the profile writes the configured one.
stop_daemon
kwrite "$dmc/governor" simple_ondemand
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
follow-power-profiles = no
default-profile = cool

[device dmc]
path = /sys/class/devfreq/dmc
mode = clamp
governor = performance

[profile cool]
dmc.governor = powersave
EOF
rm -f "$tmp/state/state"
since=$(wc -l <"$daemon_log")
start_daemon
is "a start under a profile that sets a clamped device's governor: the kernel runs the profile's" \
        "$(mget ActiveProfile) $(kread $dmc/governor)" "cool powersave"
is "... and the configured governor was never written" "$(log_after "$since" | grep -o 'dmc: kernel governor set to .*')" \
        "dmc: kernel governor set to powersave"
since=$(wc -l <"$daemon_log")
mcall Reload
is "a Reload under it writes no governor" "$(kread $dmc/governor) $(log_after "$since" | grep -c 'kernel governor set')" \
        "powersave 0"
mcall SetProfile s ''
is "leaving the profile writes the configured governor" \
        "$(kread $dmc/governor) $(log_after "$since" | grep -o 'dmc: kernel governor set to .*')" \
        "performance dmc: kernel governor set to performance"
stop_daemon
is "the original governor is back at exit" "$(kread $dmc/governor)" "simple_ondemand"

# A kernel governor saved outside any profile (performance, which the fake kernel runs at the top
# at once, counted in trans_stat) is not written while the profile sets its own, at start or at a
# reload; a SetGovernor over the profile's stays over a reload; leaving the profile brings the
# saved one back.
sed -i -e 's/^governor = performance$/governor = simple_ondemand/' -e '/^default-profile = cool$/d' \
        "$tmp/devfreqd.conf"
start_daemon
dcall dmc SetGovernor s performance
check "SetGovernor with no profile active is saved" grep -q $'^dmc\tgovernor\tperformance\t' "$tmp/state/state"
stop_daemon
sed -i 's/^follow-power-profiles = no$/&\ndefault-profile = cool/' "$tmp/devfreqd.conf"
kwrite "$dmc/governor" powersave # the kernel at 200 MHz, back under its own governor
kwrite "$dmc/governor" simple_ondemand
kwrite "$dmc/trans_stat" 0
ktotal() { sed -n 's/^Total transition *: *//p' "$root$dmc/trans_stat"; }
start_daemon
is "a start under cool with another governor saved: the kernel never left 200 MHz" \
        "$(ktotal) $(kread $dmc/governor)" "0 powersave"
mcall Reload
is "... nor at a Reload" "$(ktotal) $(kread $dmc/governor)" "0 powersave"
dcall dmc SetGovernor s performance
mcall Reload
is "a Reload keeps a SetGovernor over the profile's governor" "$(kread $dmc/governor) $(dget dmc Governor)" \
        "performance performance"
mcall SetProfile s ''
mcall SetProfile s cool
mcall SetProfile s ''
is "leaving the profile brings the saved governor back" "$(kread $dmc/governor) $(dget dmc Governor)" \
        "performance performance"
stop_daemon

# With no profile active, the saved governor is the one written at a start and at a reload, not the
# configured one first (each write of the configured one is logged); so too at a reload that
# removes the active profile.
sed -i '/^default-profile = cool$/d' "$tmp/devfreqd.conf"
kwrite "$dmc/governor" powersave
governor_writes() { log_after "$since" | grep -o 'dmc: kernel governor set to .*' | tr '\n' ';'; }
since=$(wc -l <"$daemon_log")
start_daemon
is "a start with a governor saved writes that one only" "$(kread $dmc/governor) $(governor_writes)" "performance "
since=$(wc -l <"$daemon_log")
mcall Reload
is "... and so does a Reload" "$(kread $dmc/governor) $(governor_writes)" "performance "
mcall SetProfile s cool
sed -i '/^\[profile cool\]$/,$d' "$tmp/devfreqd.conf"
since=$(wc -l <"$daemon_log")
mcall Reload
is "a Reload removing the active profile: the saved governor, not the configured one in between" \
        "$(mget ActiveProfile) $(kread $dmc/governor) $(governor_writes)" " performance "
stop_daemon

tap_done
