#!/usr/bin/env bash
# Authorization without polkit, on a bus as strict as the system bus with the project's policy
# file: nobody reads everything, changes nothing, until request-groups / allow-groups name its
# group.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)
initial-frequency = 200MHz
opp = 200MHz latency=2ms
opp = 400MHz latency=1ms
opp = 800MHz latency=200us

$(dmc_clamp_section)
EOF
start_strict_bus
start_daemon

p_gpu=$(dev_path gpu)
p_dmc=$(dev_path dmc)

# reload_with TEXT: a drop-in with TEXT (or none, when empty), then Reload as root.
reload_with() {
        if [[ -n $1 ]]; then printf '%s\n' "$1" >"$tmp/conf.d/50-groups.conf"; else rm -f "$tmp/conf.d/50-groups.conf"; fi
        mcall Reload
}

# ================================================================================ the bus itself
like "the strict bus keeps nobody from owning the daemon's name" \
        "$("${as_nobody[@]}" gdbus call --address "$bus_address" --dest org.freedesktop.DBus \
                --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.RequestName "$name" 0 2>&1 | sed -n 1p)" \
        "Error: GDBus.Error:$denied: .*not allowed to own the service \"$name\""
like "the strict bus keeps nobody from calling other services" \
        "$("${as_nobody[@]}" gdbus call --address "$bus_address" --dest org.freedesktop.DBus \
                --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.Debug.Stats.GetStats 2>&1 | sed -n 1p)" \
        "Error: GDBus.Error:$denied: "

# ================================================================================ reading is open
client_start A # root holds a request, so nobody can read a request object too
out=$(client_cmd A add gpu min-frequency 400000000 '{"reason": ["s", "root"]}')
req=${out#ok }
like "root holds a request" "$out" "^ok $manager_path/request/[1-9][0-9]*$"

read_all() { # read_all OBJECT INTERFACE PROPERTY...: every property as nobody, equal to root's view
        local obj=$1 iface=$2 p mine theirs bad=
        shift 2
        for p in "$@"; do
                [[ $p == Load || $p == TransitionCount || $p == BindingTime || $p == Energy ]] && continue # they move on their own
                mine=$(getp "$obj" "$iface" "$p")
                theirs=$(nobody_busctl get-property "$name" "$obj" "$iface" "$p" 2>&1) || bad+=" $p($theirs)"
                [[ $mine == "$theirs" ]] || bad+=" $p($theirs != $mine)"
        done
        if [[ -z $bad ]]; then ok "nobody reads every property of $iface on $obj"; else
                not_ok "nobody reads every property of $iface on $obj"
                diag "failed:$bad"
        fi
}
props() { bctl introspect "$name" "$1" "$2" | awk '$2 == "property" { print substr($1, 2) }'; }
read_every() { # read_every OBJECT INTERFACE: read_all over the properties introspection lists
        local -a names
        mapfile -t names < <(props "$1" "$2")
        if ((${#names[@]} == 0)); then
                not_ok "nobody reads every property of $2 on $1"
                diag "introspection lists no property"
                return
        fi
        read_all "$1" "$2" "${names[@]}"
}
read_every "$manager_path" "$manager_iface"
read_every "$p_gpu" "$device_iface"
read_every "$p_dmc" "$device_iface"
read_every "$req" "$request_iface"
read_every "$logcontrol_path" "$logcontrol_iface"
is "the properties read are the expected ones" \
        "$(props "$p_gpu" "$device_iface" | wc -l) $(props "$req" "$request_iface" | wc -l)" "23 11"
intro=$(nobody_busctl introspect "$name" "$p_gpu" "$device_iface")
like "nobody introspects a device, with values" "$intro" "\.QosMinFrequency +property +t +400000000 +emits-change"
like "nobody introspects a request, with values" "$(nobody_busctl introspect "$name" "$req" "$request_iface")" \
        "\.Reason +property +s +\"root\" +const"
is "nobody calls ListDevices" "$(nobody_busctl call "$name" "$manager_path" "$manager_iface" ListDevices)" \
        "a(so) 2 \"dmc\" \"$p_dmc\" \"gpu\" \"$p_gpu\""
is "nobody calls GetDevice" "$(nobody_busctl call "$name" "$manager_path" "$manager_iface" GetDevice s gpu)" "o \"$p_gpu\""
like "nobody calls GetStatistics" "$(nobody_busctl call "$name" "$p_dmc" "$device_iface" GetStatistics)" \
        "^atataatt 4 200000000 400000000 666000000 800000000 4 "
like "nobody calls GetManagedObjects" \
        "$(nobody_busctl call "$name" "$manager_path" org.freedesktop.DBus.ObjectManager GetManagedObjects)" "\"$req\""
like "nobody lists the tree" "$(nobody_busctl tree "$name")" "$manager_path/request/"

# ================================================================================ changing is not
deny_all() { # deny_all LABEL: every changing method, as nobody, is AccessDenied and changes nothing
        local label=$1
        like "$label: SetGovernor is AccessDenied" "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" \
                "^$denied: uid $(id -u nobody) may not do this \(org.devfreqd.devfreq1.set-governor\)"
        like "$label: AddRequest is AccessDenied" \
                "$(nobody_gdbus "$p_gpu" "$device_iface.AddRequest" max-frequency 200000000 '{}')" \
                "^$denied: .*\(org.devfreqd.devfreq1.request\)"
        like "$label: SetFrequency is AccessDenied" "$(nobody_gdbus "$p_gpu" "$device_iface.SetFrequency" 800000000)" \
                "^$denied: .*set-governor"
        like "$label: SetOperatingPoint is AccessDenied" \
                "$(nobody_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" 800000000 false)" "^$denied: .*configure"
        like "$label: ResetStatistics is AccessDenied" "$(nobody_gdbus "$p_dmc" "$device_iface.ResetStatistics")" \
                "^$denied: .*configure"
        like "$label: Reload is AccessDenied" "$(nobody_gdbus "$manager_path" "$manager_iface.Reload")" \
                "^$denied: .*configure"
        like "$label: SetGovernor of a clamp device is AccessDenied" \
                "$(nobody_gdbus "$p_dmc" "$device_iface.SetGovernor" performance)" "^$denied: "
        is "$label: nothing changed" \
                "$(dget gpu Governor) $(dget gpu CurrentFrequency) $(dget gpu QosMaxFrequency) $(dget gpu AvailableFrequencies) $(kread $dmc/governor)" \
                "userspace 400000000 18446744073709551615 3 200000000 400000000 800000000 simple_ondemand"
}
deny_all "default configuration"
fails "busctl as nobody: SetGovernor is refused" "Call failed: Access denied" \
        nobody_busctl call "$name" "$p_gpu" "$device_iface" SetGovernor s performance
fails "busctl as nobody: AddRequest is refused" "Call failed: Access denied" \
        nobody_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sta{sv}' min-frequency 800000000 0
like "nobody may not set LogLevel" \
        "$(nobody_gdbus "$logcontrol_path" org.freedesktop.DBus.Properties.Set "$logcontrol_iface" LogLevel "<'err'>")" \
        "^$denied: Only root may change the log settings"
is "LogLevel unchanged" "$(getv "$logcontrol_path" "$logcontrol_iface" LogLevel)" "debug"
like "nobody may not Update root's request" "$(nobody_gdbus "$req" "$request_iface.Update" 800000000)" "^$denied: "
like "nobody may not Remove root's request" "$(nobody_gdbus "$req" "$request_iface.Remove")" "^$denied: "
is "the request is unchanged" "$(getv "$req" "$request_iface" Value)" "400000000"

# A group nobody is not in changes nothing.
reload_with $'[daemon]\nrequest-groups = root\nallow-groups = root'
deny_all "groups of other users"

# ================================================================================ request-groups
reload_with $'[daemon]\nrequest-groups = nogroup'
out=$(nobody_busctl call "$name" "$p_gpu" "$device_iface" AddRequest 'sta{sv}' max-frequency 200000000 1 reason s nobody)
like "request-groups = nogroup: nobody's AddRequest succeeds" "$out" "^o \"$manager_path/request/[1-9][0-9]*\"$"
client_start N "${as_nobody[@]}"
out=$(client_cmd N add gpu max-frequency 200000000)
like "request-groups: nobody holds a request" "$out" "^ok $manager_path/request/[1-9][0-9]*$"
nreq=${out#ok }
is "its UID" "$(getv "$nreq" "$request_iface" UID)" "$(id -u nobody)"
is "its PID" "$(getv "$nreq" "$request_iface" PID)" "${client_pid[N]}"
is "the ceiling is in force" "$(dget gpu QosMaxFrequency)" "200000000"
is "and the ceiling wins over root's floor" "$(dget gpu CurrentFrequency)" "200000000"
is "nobody updates its own request" "$(client_cmd N update "$nreq" 800000000)" "ok"
is "the ceiling moved" "$(dget gpu QosMaxFrequency) $(dget gpu CurrentFrequency)" "800000000 400000000"
is "nobody removes its own request" "$(client_cmd N remove "$nreq")" "ok"
like "request-groups: SetGovernor is still AccessDenied" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" "^$denied: "
like "request-groups: SetOperatingPoint is still AccessDenied" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" 800000000 false)" "^$denied: "
like "request-groups: Reload is still AccessDenied" "$(nobody_gdbus "$manager_path" "$manager_iface.Reload")" \
        "^$denied: "
is "request-groups: the governor is unchanged" "$(dget gpu Governor)" "userspace"

# ================================================================================ allow-groups
reload_with $'[daemon]\nallow-groups = nogroup'
is "allow-groups = nogroup: nobody's SetGovernor succeeds" "$(nobody_gdbus "$p_gpu" "$device_iface.SetGovernor" performance)" "()"
is "the governor changed" "$(dget gpu Governor)" "performance"
is "busctl as nobody: SetGovernor succeeds" "$(nobody_busctl call "$name" "$p_gpu" "$device_iface" SetGovernor s userspace)" ""
is "nobody's SetFrequency succeeds" "$(nobody_gdbus "$p_gpu" "$device_iface.SetFrequency" 800000000)" "()"
is "and is applied" "$(kread $gpu/cur_freq)" "800000000"
is "nobody's SetOperatingPoint succeeds" "$(nobody_gdbus "$p_gpu" "$device_iface.SetOperatingPoint" 200000000 false)" "()"
is "nobody's clamp SetGovernor succeeds" "$(nobody_gdbus "$p_dmc" "$device_iface.SetGovernor" performance)" "()"
is "and is written" "$(kread $dmc/governor)" "performance"
is "nobody's ResetStatistics succeeds" "$(nobody_gdbus "$p_dmc" "$device_iface.ResetStatistics")" "()"
is "nobody's Reload succeeds" "$(nobody_gdbus "$manager_path" "$manager_iface.Reload")" "()"
like "allow-groups: AddRequest succeeds too" \
        "$(nobody_gdbus "$p_gpu" "$device_iface.AddRequest" min-frequency 0 '{}')" "^\(objectpath '$manager_path/request/"
like "allow-groups does not open LogControl1" \
        "$(nobody_gdbus "$logcontrol_path" org.freedesktop.DBus.Properties.Set "$logcontrol_iface" LogLevel "<'err'>")" \
        "^$denied: "
like "allow-groups does not let nobody Update root's request" \
        "$(nobody_gdbus "$req" "$request_iface.Update" 800000000)" "^$denied: "

# Taking the group away again is seen at once: nothing is cached but the caller's uid.
dcall gpu SetOperatingPoint tb 200000000 true
dcall gpu SetFrequency t 200000000
dcall dmc SetGovernor s simple_ondemand
reload_with ""
deny_all "groups removed again"

client_stop N
client_stop A
check "the daemon still serves" serving gpu
stop_daemon TERM
is "devfreqd exits cleanly" "$daemon_status" "0"
tap_done
