#!/usr/bin/env bash
# Points disabled for temperature on the fake kernel's thermal zones: a rule trips at its trip
# temperature and disables the points above its cap, holds between clear and trip, releases at
# clear; the cap wins over a client's floor and over an administrator's enable; an enable under
# the cap takes back the point kept while nothing under it was enabled; the lowest of two rules
# wins; a dead sensor is released after `stale`; a zone that goes and comes back is found again;
# clamp mode obeys the cap through max_freq and gives the slot back; a cpufreq policy in govern
# mode too; stop restores every original while tripped; reload keeps, drops and adds rules, and a
# tripped rule it changes stays tripped between clear and trip, under its new cap.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

gpu_zone=/sys/devices/virtual/thermal/thermal_zone1
cpu_zone=/sys/devices/virtual/thermal/thermal_zone0
temp() { "$setload" --temp "$root$1/temp" "$2"; }
mget() { getv "$manager_path" "$manager_iface" "$1"; }
cap_is() { [[ $(dget "$1" ThermalCap) == "$2" ]]; }
# rules_are TEXT: ThermalRules as busctl prints it, without the signature.
rules_are() { [[ $(mget ThermalRules) == "$1" ]]; }
point_enabled() { # DEVICE FREQ: whether OperatingPoints shows the point enabled (the admin flag)
        bctl --json=short get-property "$name" "$(dev_path "$1")" "$device_iface" OperatingPoints |
                "$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(str([p[3] for p in d if p[0]=='"$2"'][0]).lower())'
}
point_available() { # DEVICE FREQ: whether AvailableFrequencies holds the point (what the cap leaves)
        local f
        for f in $(dget "$1" AvailableFrequencies | cut -d' ' -f2-); do
                [[ $f == "$2" ]] && echo true && return
        done
        echo false
}
log_has() { grep -qF -- "$1" "$daemon_log"; }
# log_count TEXT: how many lines of the log hold TEXT.
log_count() { grep -cF -- "$1" "$daemon_log" || true; }

# rule_config TRIP CLEAR MAX POLL DEVICES [ZONE]: the three devices and rule gpu-hot as given.
rule_config() {
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)

$(dmc_clamp_section)

$(cpu_userspace_section)

[thermal gpu-hot]
zone = ${6:-gpu-thermal}
devices = $5
trip = $1
clear = $2
max-frequency = $3
poll = $4
stale = 1s
EOF
}
# write_config [LINES]: rule gpu-hot at 85/80 C, 400 MHz, on gpu and dmc, then LINES.
write_config() {
        rule_config 85C 80C 400MHz 50ms "gpu dmc"
        if [[ -n ${1:-} ]]; then printf '%s\n' "$1" >>"$tmp/devfreqd.conf"; fi
}

make_root
record_originals "$gpu" "$dmc" "$policy0"
write_config
start_bus
start_daemon
out=$("$devfreqd" --check-config --root "$root" --config "$tmp/devfreqd.conf" --config-dir "$tmp/conf.d" 2>&1)
contains "--check-config prints the rule" "$out" "thermal gpu-hot"
contains "... its temperatures" "$out" "trip:     85 C, clear 80 C"

# ================================================================ trip, hold, release
check "at 45 C nothing is capped" wait_until 5 rules_are '1 "gpu-hot" "gpu-thermal" false 400000000 45000'
is "ThermalCap is 0" "$(dget gpu ThermalCap)" 0
dcall gpu SetFrequency t 800000000
is "the GPU runs at 800 MHz" "$(kread "$gpu/userspace/set_freq")" 800000000
monitor_start
"$devfreqctl" --bus "$bus_address" monitor >"$tmp/ctl-monitor.out" 2>&1 &
ctl_monitor=$!
track $ctl_monitor
wait_until 5 grep -q "Monitoring devfreqd" "$tmp/ctl-monitor.out" || not_ok "devfreqctl monitor started"
temp "$gpu_zone" 86000
check "at 86 C the rule trips: ThermalCap 400 MHz" wait_until 5 cap_is gpu 400000000
is "... the GPU drops to 400 MHz" "$(kread "$gpu/userspace/set_freq")" 400000000
is "... 600 and 800 MHz are disabled, 400 MHz is not" \
        "$(point_available gpu 600000000) $(point_available gpu 800000000) $(point_available gpu 400000000)" \
        "false false true"
is "... OperatingPoints still shows the administrator's flags" \
        "$(point_enabled gpu 600000000) $(point_enabled gpu 800000000) $(point_enabled gpu 400000000)" \
        "true true true"
is "... ThermalRules says so" "$(mget ThermalRules)" '1 "gpu-hot" "gpu-thermal" true 400000000 86000'
is "... the log says so once" \
        "$(log_count "thermal gpu-hot: gpu-thermal at 86 C (trip 85 C): points above 400 MHz disabled")" 1
is "clamp mode (dmc): max_freq obeys the cap" "$(kread "$dmc/max_freq")" 400000000
ctl() { "$devfreqctl" --bus "$bus_address" "$@"; }
is "devfreqctl thermal" "$(ctl thermal)" "gpu-hot: gpu-thermal at 86 C, tripped, cap 400 MHz"
like "devfreqctl status: the tripped rule" "$(ctl status)" $'\nThermal: gpu-hot: gpu-thermal at 86 C, tripped, cap 400 MHz\n'
like "... and a CAP column" "$(ctl status)" $'REQUESTS +CAP\n(.*\n)*gpu +.* 400 MHz'

like "devfreqctl show: the cap and the rule" "$(ctl show gpu)" "ThermalCap: 400 MHz \(rule gpu-hot\)"
like "devfreqctl thermal --json" "$(ctl thermal --json | tr -d ' \n')" \
        '"ThermalRules":\[\{"name":"gpu-hot","zone":"gpu-thermal","tripped":true,"cap":400000000,"millicelsius":86000\}\]'
like "devfreqctl show --json carries ThermalCap" "$(ctl show gpu --json | tr -d ' \n')" '"ThermalCap":400000000'
check "devfreqctl monitor prints the trip" wait_until 5 grep -q "^thermal gpu-hot: gpu-thermal at 86 C, tripped, cap 400 MHz" "$tmp/ctl-monitor.out"
check "... and the device's cap" wait_until 5 grep -q "^gpu: ThermalCap none -> 400 MHz" "$tmp/ctl-monitor.out"

temp "$gpu_zone" 82000
check "between clear and trip (82 C) the rule holds" wait_until 5 rules_are '1 "gpu-hot" "gpu-thermal" true 400000000 82000'
is "... still capped" "$(dget gpu ThermalCap)" 400000000
temp "$gpu_zone" 90000
temp "$gpu_zone" 83000
check "... 83 C read, still tripped" wait_until 5 rules_are '1 "gpu-hot" "gpu-thermal" true 400000000 83000'
# thermal_signals: the PropertiesChanged signals that name ThermalRules.
thermal_signals() { grep '"member":"PropertiesChanged"' "$tmp/monitor.json" | grep -c '"ThermalRules"' || true; }
monitor_flush
is "readings that trip nothing emit no ThermalRules signal (1 so far)" "$(thermal_signals)" 1
temp "$gpu_zone" 80000
check "at 80 C (clear) the cap is released" wait_until 5 cap_is gpu 0
is "... 800 MHz is enabled again" "$(point_available gpu 800000000)" true
gpu_set_at() { [[ $(kread "$gpu/userspace/set_freq") == "$1" ]]; }
check "... the GPU goes back to the frequency set" wait_until 5 gpu_set_at 800000000
dmc_max_back() {
        local now
        now=$(kread "$dmc/max_freq")
        [[ $now == "${orig[$dmc/max_freq]}" || $now == "$(no_limit "$dmc" max_freq "${orig[$dmc/max_freq]}")" ]]
}
check "... clamp mode gives the slot back: dmc's max_freq is its own again" wait_until 5 dmc_max_back
two_signals() { [[ $(thermal_signals) == 2 ]]; }
check "... and one ThermalRules signal more" wait_until 5 two_signals
if wait_until 5 grep -q "^thermal gpu-hot: gpu-thermal at 80 C, released" "$tmp/ctl-monitor.out"; then
        ok "devfreqctl monitor prints the release"
else
        not_ok "devfreqctl monitor prints the release"
        sed 's/^/# /' "$tmp/ctl-monitor.out"
fi

# ================================================================ the cap wins
client_start c
client_cmd c add gpu min-frequency 800000000 >/dev/null
temp "$gpu_zone" 95000
check "a client's 800 MHz floor does not beat the cap" wait_until 5 cap_is gpu 400000000
is "... the GPU runs at 400 MHz" "$(kread "$gpu/userspace/set_freq")" 400000000
is "... MinFrequency and MaxFrequency are the cap" "$(dget gpu MinFrequency) $(dget gpu MaxFrequency)" \
        "400000000 400000000"
dcall gpu SetOperatingPoint tb 800000000 true
is "an administrator's enable of 800 MHz does not undo the cap" \
        "$(point_enabled gpu 800000000) $(point_available gpu 800000000)" "true false"
dcall gpu SetOperatingPoint tb 300000000 false
temp "$gpu_zone" 70000
check "released: the points come back" wait_until 5 cap_is gpu 0
is "... 800 MHz (enabled by the administrator meanwhile) is back, 300 MHz (disabled meanwhile) is not" \
        "$(point_available gpu 800000000) $(point_available gpu 300000000)" "true false"
dcall gpu SetOperatingPoint tb 300000000 true
client_stop c

# ================================================================ the point the cap keeps
# The administrator disabled every point under the cap: the cap keeps the lowest enabled one. An
# enable under the cap while tripped takes that back at once; the cap does not change, so nothing
# else would.
for f in 200000000 300000000 400000000; do dcall gpu SetOperatingPoint tb "$f" false; done
temp "$gpu_zone" 95000
check "nothing enabled under the cap: the rule trips all the same" wait_until 5 cap_is gpu 400000000
check "... the GPU runs at the lowest enabled point, 600 MHz" wait_until 5 gpu_set_at 600000000
is "... 600 MHz enabled, 800 MHz not" "$(point_available gpu 600000000) $(point_available gpu 800000000)" "true false"
dcall gpu SetOperatingPoint tb 300000000 true
is "300 MHz enabled while tripped: 600 MHz is disabled again" \
        "$(point_available gpu 300000000) $(point_available gpu 600000000)" "true false"
check "... the GPU drops to 300 MHz" wait_until 5 gpu_set_at 300000000
# The administrator's last enabled point is theirs, not the cap's: the only point left under the cap
# can be disabled while 600 and 800 MHz are enabled, and the cap keeps 600 MHz again.
is "OperatingPoints while tripped: the administrator's flags (400 MHz off, 600 and 800 MHz on)" \
        "$(point_enabled gpu 400000000) $(point_enabled gpu 600000000) $(point_enabled gpu 800000000)" "false true true"
check "disabling 300 MHz, the only point under the cap, is allowed" dcall gpu SetOperatingPoint tb 300000000 false
check "... the GPU runs at 600 MHz, which the cap keeps" wait_until 5 gpu_set_at 600000000
is "... OperatingPoints: 300 MHz off, 600 and 800 MHz on" \
        "$(point_enabled gpu 300000000) $(point_enabled gpu 600000000) $(point_enabled gpu 800000000)" "false true true"
like "... devfreqctl show marks 800 MHz capped, 600 MHz not" "$(ctl show gpu)" $'\n +600 MHz[^(\n]*\n +800 MHz[^(\n]* \\(capped\\)\n'
dcall gpu SetOperatingPoint tb 300000000 true
check "... enabled again: the GPU drops to 300 MHz" wait_until 5 gpu_set_at 300000000
for f in 200000000 400000000; do dcall gpu SetOperatingPoint tb "$f" true; done
temp "$gpu_zone" 70000
check "released: the GPU goes back to 800 MHz" wait_until 5 gpu_set_at 800000000

# ================================================================ a dead sensor, a zone that goes
temp "$gpu_zone" 90000
wait_until 5 cap_is gpu 400000000 || not_ok "tripped again before the dead sensor"
temp "$gpu_zone" 999999
check "an impossible reading (999 C) keeps the cap at first, then releases it after stale" \
        wait_until 10 cap_is gpu 0
is "... one warning line" "$(log_count "thermal gpu-hot: no reading of gpu-thermal for 1 s: its cap is released")" 1
like "... and LastError says why" "$(dget gpu LastError)" "thermal gpu-hot: no reading of gpu-thermal for 1 s"
temp "$gpu_zone" 90000
check "the sensor reads again: it resumes and trips" wait_until 5 cap_is gpu 400000000
# The zone goes (its module unloaded) and comes back as another zone number.
rm -r "${root:?}$gpu_zone" "$root/sys/class/thermal/thermal_zone1"
check "a zone that went is released after stale" wait_until 10 cap_is gpu 0
mkdir -p "$root/sys/devices/virtual/thermal/thermal_zone5"
printf 'gpu-thermal\n' >"$root/sys/devices/virtual/thermal/thermal_zone5/type"
printf '87000\n' >"$root/sys/devices/virtual/thermal/thermal_zone5/temp"
ln -s ../../devices/virtual/thermal/thermal_zone5 "$root/sys/class/thermal/thermal_zone5"
gpu_zone=/sys/devices/virtual/thermal/thermal_zone5
check "... and found again when it comes back as thermal_zone5" wait_until 5 cap_is gpu 400000000
check "... the log says where" log_has "thermal gpu-hot: gpu-thermal is thermal_zone5"

# ================================================================ stop while tripped
stop_daemon
is "stopped while tripped: exit 0" "$daemon_status" 0
check_restored "stopped while tripped"

# ================================================================ two rules, a cpufreq policy, reload
write_config "$(printf '%s\n' "[thermal all-hot]" "zone = cpu-thermal" "devices = *" "trip = 60C" "clear = 50C" \
        "max-frequency = 300MHz" "poll = 50ms")"
temp "$gpu_zone" 45000
temp "$cpu_zone" 70000
start_daemon
check "a rule hot at start caps at once (the CPU's policy in govern mode too)" wait_until 5 cap_is cpu 300000000
is "... the policy runs at its lowest point, under 300 MHz none, so the lowest stays" \
        "$(kread "$policy0/scaling_setspeed")" 800000
temp "$gpu_zone" 90000
check "two rules on the GPU: the lowest cap wins" wait_until 5 cap_is gpu 300000000
temp "$cpu_zone" 40000
check "the lower one released: the other's cap" wait_until 5 cap_is gpu 400000000
temp "$cpu_zone" 70000
wait_until 5 cap_is gpu 300000000 || not_ok "both tripped before the reload"
# Reload: gpu-hot unchanged keeps its state; all-hot removed releases its caps; a new rule
# evaluates at once.
: >"$daemon_log"
write_config "$(printf '%s\n' "[thermal dmc-warm]" "zone = gpu-thermal" "devices = dmc" "trip = 70C" \
        "clear = 65C" "max-frequency = 200MHz")"
bctl call "$name" "$manager_path" "$manager_iface" Reload
is "after the reload: gpu-hot kept tripped (the GPU's cap is its)" "$(dget gpu ThermalCap)" 400000000
is "... the removed rule's cap is gone from the CPU" "$(dget cpu ThermalCap)" 0
is "... the new rule capped dmc at once (90 C)" "$(dget dmc ThermalCap)" 200000000
check "... gpu-hot did not trip again" bash -c "! grep -q 'thermal gpu-hot: .* disabled' '$daemon_log'"
check "... the removed rule is said so" log_has "thermal all-hot: removed"
stop_daemon
is "exit status 0" "$daemon_status" 0
check_restored "stopped after the reload"

# ================================================================ reload of a tripped rule
# A rule a reload changes keeps its state: its first reading is judged against the new trip and
# clear, between them the state carried over holds (hysteresis), and the new cap applies at once.
# Another zone is another sensor: the rule starts released and is judged by its first reading.
reload() { bctl call "$name" "$manager_path" "$manager_iface" Reload; }
# no_flap: since the log was emptied and the monitor marked, no release or trip in the log and no
# ThermalRules signal with the rule released.
no_flap() {
        [[ $(log_count "cap released") == 0 && $(log_count "disabled") == 0 ]] && monitor_flush &&
                [[ $(grep 'ThermalRules=' < <(changes "$manager_path")) != *false* ]]
}
kill "$monitor_pid" 2>/dev/null || true
wait "$monitor_pid" 2>/dev/null || true
untrack "$monitor_pid"
rule_config 85C 80C 400MHz 50ms "gpu dmc"
temp "$gpu_zone" 45000
temp "$cpu_zone" 40000
start_daemon
monitor_start
dcall gpu SetFrequency t 800000000
temp "$gpu_zone" 90000
check "reload while tripped: the rule trips at 90 C" wait_until 5 cap_is gpu 400000000
temp "$gpu_zone" 82000
check "... and holds at 82 C" wait_until 5 rules_are '1 "gpu-hot" "gpu-thermal" true 400000000 82000'
: >"$daemon_log"
monitor_mark
rule_config 85C 80C 300MHz 50ms "gpu dmc"
reload
is "a reload lowering max-frequency to 300 MHz at 82 C: still tripped, at the new cap" \
        "$(mget ThermalRules)" '1 "gpu-hot" "gpu-thermal" true 300000000 82000'
is "... gpu and dmc capped at 300 MHz at once" "$(dget gpu ThermalCap) $(dget dmc ThermalCap)" \
        "300000000 300000000"
check "... the GPU drops to 300 MHz" wait_until 5 gpu_set_at 300000000
is "... dmc's max_freq follows (200 MHz: its highest point under 300)" "$(kread "$dmc/max_freq")" 200000000
logged check "... no release or trip, in the log or in ThermalRules signals" no_flap
is "... one log line says the rule changed" "$(log_count "thermal gpu-hot: changed")" 1
rule_config 85C 80C 300MHz 100ms "gpu dmc"
reload
is "a reload changing only poll: still tripped" \
        "$(mget ThermalRules)" '1 "gpu-hot" "gpu-thermal" true 300000000 82000'
is "... still capped" "$(dget gpu ThermalCap) $(kread "$gpu/userspace/set_freq")" "300000000 300000000"
rule_config 85C 80C 300MHz 100ms "gpu"
reload
is "a reload dropping dmc from devices: dmc uncapped, the GPU still capped" \
        "$(dget dmc ThermalCap) $(dget gpu ThermalCap)" "0 300000000"
check "... dmc's max_freq is its own again" wait_until 5 dmc_max_back
rule_config 85C 80C 300MHz 100ms "gpu dmc"
reload
is "a reload adding dmc back: capped at once" "$(dget dmc ThermalCap) $(kread "$dmc/max_freq")" \
        "300000000 200000000"
rule_config 95C 80C 300MHz 100ms "gpu dmc"
reload
is "a reload moving trip above 82 C, clear still below: holds" \
        "$(mget ThermalRules)" '1 "gpu-hot" "gpu-thermal" true 300000000 82000'
is "... still capped" "$(dget gpu ThermalCap)" 300000000
rule_config 95C 80C 300MHz 100ms "gpu dmc" "${gpu_zone##*/}"
reload
is "a reload naming the same zone by number (${gpu_zone##*/}): the same sensor, holds" \
        "$(mget ThermalRules)" "1 \"gpu-hot\" \"${gpu_zone##*/}\" true 300000000 82000"
logged check "... still no release or trip" no_flap
is "... one log line a reload" "$(log_count "thermal gpu-hot: changed")" 6
check "... the log says the zone is the one it read" \
        log_has "thermal gpu-hot: changed; ${gpu_zone##*/} is still ${gpu_zone##*/}: its state stays"
rule_config 95C 85C 300MHz 100ms "gpu dmc"
reload
is "a reload moving clear above 82 C: released at once" \
        "$(mget ThermalRules)" '1 "gpu-hot" "gpu-thermal" false 300000000 82000'
is "... the caps are gone" "$(dget gpu ThermalCap) $(dget dmc ThermalCap)" "0 0"
check "... the GPU goes back to 800 MHz" wait_until 5 gpu_set_at 800000000
is "... the release is logged once" \
        "$(log_count "thermal gpu-hot: gpu-thermal at 82 C (clear 85 C): cap released")" 1
temp "$gpu_zone" 96000
wait_until 5 cap_is gpu 300000000 || not_ok "tripped again before the change of zone"
temp "$gpu_zone" 90000
temp "$cpu_zone" 90000
wait_until 5 rules_are '1 "gpu-hot" "gpu-thermal" true 300000000 90000' || not_ok "held at 90 C"
rule_config 95C 85C 300MHz 100ms "gpu dmc" cpu-thermal
reload
is "a reload to another zone, between clear and trip: another sensor, starts released" \
        "$(mget ThermalRules)" '1 "gpu-hot" "cpu-thermal" false 300000000 90000'
is "... uncapped" "$(dget gpu ThermalCap)" 0
check "... the log says why" log_has "thermal gpu-hot: changed, to another zone: starts released"

stop_daemon
is "exit status 0" "$daemon_status" 0
check_restored "stopped after the reloads of a tripped rule"

# Two rules with the same cap on different devices: devfreqctl show names the one covering each
# (ThermalRules does not say which devices a rule covers; the device's blame does).
rule_config 85C 80C 300MHz 50ms gpu
cat >>"$tmp/devfreqd.conf" <<EOF

[thermal dmc-hot]
zone = cpu-thermal
devices = dmc
trip = 60C
clear = 50C
max-frequency = 300MHz
poll = 50ms
EOF
temp "$gpu_zone" 90000
start_daemon
both_tripped() { [[ $(dget gpu ThermalCap) == 300000000 && $(dget dmc ThermalCap) == 300000000 ]]; }
check "two rules of the same cap, each on its own device, both tripped" wait_until 5 both_tripped
like "devfreqctl show gpu names its rule only" "$(ctl show gpu)" "ThermalCap: 300 MHz \(rule gpu-hot\)($|"$'\n'")"
like "devfreqctl show dmc names its rule only" "$(ctl show dmc)" "ThermalCap: 300 MHz \(rule dmc-hot\)($|"$'\n'")"
stop_daemon
tap_done
