#!/usr/bin/env bash
# Every method and property of the Manager, Device and Request interfaces and of LogControl1
# through busctl, parsing what busctl prints; error names and PropertiesChanged from
# `busctl --json=short monitor`.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

gpu0=/sys/devices/platform/gpu0/devfreq/gpu0
make_root --gpus 1
# Sections out of order: ListDevices sorts them.
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no

$(gpu_userspace_section)
load = counters:/sys/devices/platform/ff9a0000.gpu/busy
opp = 200MHz 825mV latency=2ms
opp = 400MHz 900mV latency=1ms
opp = 800MHz 1050mV latency=200us

$(dmc_clamp_section)

[device gpu-tick]
path = /sys/class/devfreq/gpu0
mode = govern
governor = simple_ondemand
polling-interval = 50ms
load = counters:/sys/devices/platform/gpu0/busy

[device cpu0]
path = /sys/devices/system/cpu/cpufreq/policy0
mode = clamp
EOF
start_bus
start_daemon
monitor_start

p_gpu=$(dev_path gpu) p_dmc=$(dev_path dmc) p_cpu0=$(dev_path cpu0) p_tick=$manager_path/device/gpu_2dtick
G='"conservative" "energy_aware" "ondemand" "passive" "performance" "powersave" "simple_ondemand" "userspace"'

# ================================================================================ the tree
tree=$(bctl tree "$name" | sed 's/^[^/]*//')
for p in "$manager_path" "$p_gpu" "$p_dmc" "$p_cpu0" "$p_tick" "$manager_path/request" "$logcontrol_path"; do
        check "tree lists $p" grep -qx -- "$p" <<<"$tree"
done

# introspect OBJECT INTERFACE: "NAME TYPE SIGNATURE RESULT FLAGS" for methods, and
# "NAME TYPE SIGNATURE FLAGS" for properties (their value column is left out).
introspect() {
        bctl introspect "$name" "$1" "$2" | awk '
                $2 == "method" { print $1, $2, $3, $4, $NF }
                $2 == "property" { print $1, $2, $3, $NF }'
}

is "Manager interface introspected" "$(introspect "$manager_path" "$manager_iface")" \
        ".GetDevice method s o -
.GetProfile method s a(sss) -
.ListDevices method - a(so) -
.Reload method - - -
.SetProfile method s - -
.ActiveProfile property s emits-change
.ActiveProfileSource property s emits-change
.Devices property ao emits-change
.DryRun property b const
.Governors property as const
.Profiles property as emits-change
.ThermalRules property a(ssbtx) emits-change
.Version property s const"

is "Device interface introspected" "$(introspect "$p_gpu" "$device_iface")" \
        ".AddRequest method sta{sv} o -
.GetBlame method - a(tsussstt) -
.GetForgottenBindingTime method - a(sst) -
.GetStatistics method - atataatt -
.ResetStatistics method - - -
.SetFrequency method t - -
.SetGovernor method s - -
.SetOperatingPoint method tb - -
.SetTunable method su - -
.AvailableFrequencies property at emits-change
.AvailableGovernors property as emits-change
.CurrentFrequency property t emits-change
.Energy property t -
.Governor property s emits-change
.Kind property s const
.LastError property s emits-change
.Load property u -
.MaxFrequency property t emits-change
.MinFrequency property t emits-change
.Mode property s emits-change
.Name property s const
.OperatingPoints property a(tuub) emits-change
.PollingInterval property u emits-change
.QosLatency property u emits-change
.QosMaxFrequency property t emits-change
.QosMinFrequency property t emits-change
.Requests property ao emits-invalidation
.SysfsPath property s const
.TargetFrequency property t -
.ThermalCap property t emits-change
.TransitionCount property t -
.Tunables property a{su} emits-change"

is "LogControl1 introspected" "$(introspect "$logcontrol_path" "$logcontrol_iface")" \
        ".LogLevel property s writable
.LogTarget property s writable
.SyslogIdentifier property s const"

om=$(bctl introspect "$name" "$manager_path" org.freedesktop.DBus.ObjectManager | awk '$2 == "method" {print $1, $4}')
contains "the manager object is an ObjectManager" "$om" ".GetManagedObjects a{oa{sa{sv}}}"

# ================================================================================ Manager
is "ListDevices: every device, sorted by name, with its escaped path" "$(mcall ListDevices)" \
        "a(so) 4 \"cpu0\" \"$p_cpu0\" \"dmc\" \"$p_dmc\" \"gpu\" \"$p_gpu\" \"gpu-tick\" \"$p_tick\""
is "GetDevice gpu-tick" "$(mcall GetDevice s gpu-tick)" "o \"$p_tick\""
is "GetDevice gpu" "$(mcall GetDevice s gpu)" "o \"$p_gpu\""
busctl_error "GetDevice of an unknown name is NoSuchDevice" "$error_prefix.NoSuchDevice" "No device 'npu'" \
        mcall GetDevice s npu
is "Version is the daemon's" "$(getp "$manager_path" "$manager_iface" Version)" \
        "s \"$("$devfreqd" --version | awk '{print $2}')\""
is "Governors: every governor, sorted" "$(getp "$manager_path" "$manager_iface" Governors)" "as 8 $G"
is "DryRun" "$(getp "$manager_path" "$manager_iface" DryRun)" "b false"
is "Devices in ListDevices order" "$(getp "$manager_path" "$manager_iface" Devices)" \
        "ao 4 \"$p_cpu0\" \"$p_dmc\" \"$p_gpu\" \"$p_tick\""
managed=$(bctl call "$name" "$manager_path" org.freedesktop.DBus.ObjectManager GetManagedObjects)
like "GetManagedObjects lists the devices with their interface" "$managed" \
        "^a\{oa\{sa\{sv\}\}\} 4 \"$p_cpu0\" 4 .*\"$device_iface\" 23 \"Name\" s \"cpu0\" .*\"$p_tick\" 4 .*\"$device_iface\" 23 \"Name\" s \"gpu-tick\""

# --- Reload: a drop-in adds a device
p_policy2=$(dev_path policy2)
printf '[device policy2]\npath = /sys/devices/system/cpu/cpufreq/policy2\nmode = clamp\n' >"$tmp/conf.d/50-policy2.conf"
monitor_mark
is "Reload with a new drop-in replies empty" "$(mcall Reload)" ""
monitor_flush
is "Devices after the reload" "$(getp "$manager_path" "$manager_iface" Devices)" \
        "ao 5 \"$p_cpu0\" \"$p_dmc\" \"$p_gpu\" \"$p_tick\" \"$p_policy2\""
like "InterfacesAdded for the new device" "$(signals InterfacesAdded)" "^$manager_path \[\"$p_policy2\",\{\"$device_iface\":"
contains "Devices emitted with its value" "$(changes "$manager_path")" \
        "$manager_path $manager_iface Devices=[\"$p_cpu0\",\"$p_dmc\",\"$p_gpu\",\"$p_tick\",\"$p_policy2\"]"
is "... Profiles is not sent: the reload changed no profile" "$(changes "$manager_path" | grep -c 'Profiles=' || true)" 0
is "the new device answers" "$(dget policy2 Kind)" "cpufreq"
is "GetStatistics of a policy without kernel statistics: empty tables" "$(dcall policy2 GetStatistics)" \
        "atataatt 0 0 0 0"

# --- Reload with a broken drop-in: InvalidConfiguration naming file:line, nothing changes
cat >"$tmp/conf.d/60-broken.conf" <<EOF
[device dmc]
mode = govern
governor = performance

[device gpu]
polling-interval = fast
EOF
dmc_governor_before=$(kread $dmc/governor)
busctl_error "Reload with a broken drop-in is InvalidConfiguration with file:line" \
        "$error_prefix.InvalidConfiguration" "$tmp/conf.d/60-broken.conf:6:" mcall Reload
is "the old configuration stays: dmc still clamp" "$(dget dmc Mode)" "clamp"
is "the old configuration stays: dmc's kernel governor untouched" "$(kread $dmc/governor)" "$dmc_governor_before"
is "the old configuration stays: gpu still userspace" "$(dget gpu Governor)" "userspace"
is "the old configuration stays: policy2 still there" "$(mcall GetDevice s policy2)" "o \"$p_policy2\""
# Requests across reloads: kept on a device that stays, dropped with one that goes.
client_start R
out=$(client_cmd R add policy2 max-frequency 3000000000)
r_policy2=${out#ok }
like "a request held on policy2" "$out" "^ok $manager_path/request/"
out=$(client_cmd R add dmc max-frequency 400000000)
r_dmc=${out#ok }
like "a request held on dmc" "$out" "^ok $manager_path/request/"
rm "$tmp/conf.d/60-broken.conf" "$tmp/conf.d/50-policy2.conf"
monitor_mark
is "Reload without the drop-ins" "$(mcall Reload)" ""
monitor_flush
removed=$(signals InterfacesRemoved)
contains "InterfacesRemoved for the dropped device" "$removed" "$manager_path [\"$p_policy2\",[\"$device_iface\"]]"
contains "InterfacesRemoved for the request on it" "$removed" "$manager_path [\"$r_policy2\",[\"$request_iface\"]]"
is "Devices back to four" "$(getp "$manager_path" "$manager_iface" Devices)" \
        "ao 4 \"$p_cpu0\" \"$p_dmc\" \"$p_gpu\" \"$p_tick\""
is "the request on a device that stays survives the reload" "$(getp "$r_dmc" "$request_iface" Value)" "t 400000000"
is "and is still in force" "$(dget dmc QosMaxFrequency) $(dget dmc MaxFrequency)" "400000000 400000000"
# A reload that changes the mode keeps the request and announces Mode, governors and the frequency.
printf '[device dmc]\nmode = govern\ngovernor = performance\n' >"$tmp/conf.d/70-mode.conf"
monitor_mark
is "Reload into govern mode" "$(mcall Reload)" ""
monitor_flush
c=$(changes "$p_dmc")
contains "Mode emitted with its value" "$c" 'Mode="govern"'
contains "AvailableGovernors emitted with its value" "$c" \
        'AvailableGovernors=["conservative","energy_aware","ondemand","passive","performance","powersave","simple_ondemand","userspace"]'
contains "Governor emitted with its value" "$c" 'Governor="performance"'
is "the request still holds the governed device" "$(dget dmc CurrentFrequency) $(kread $dmc/cur_freq)" "400000000 400000000"
is "the request object is the same" "$(dget dmc Requests)" "1 \"$r_dmc\""
rm "$tmp/conf.d/70-mode.conf"
monitor_mark
is "Reload back into clamp mode" "$(mcall Reload)" ""
monitor_flush
contains "Mode emitted again" "$(changes "$p_dmc")" 'Mode="clamp"'
is "the kernel governs dmc again, with the governor it had before govern mode" \
        "$(kread $dmc/governor) $(dget dmc Governor)" "$dmc_governor_before $dmc_governor_before"
client_stop R

# ================================================================================ Device properties
is "Name" "$(getp "$p_tick" "$device_iface" Name)" 's "gpu-tick"'
is "Kind devfreq" "$(dget gpu Kind)" "devfreq"
is "Kind cpufreq" "$(dget cpu0 Kind)" "cpufreq"
is "SysfsPath, resolved" "$(dget gpu SysfsPath)" "$gpu"
is "SysfsPath of a policy" "$(dget cpu0 SysfsPath)" "$policy0"
is "Mode govern" "$(dget gpu Mode)" "govern"
is "Mode clamp" "$(dget dmc Mode)" "clamp"
is "Governor (govern: devfreqd's)" "$(dget gpu Governor)" "userspace"
is "Governor (clamp: the kernel's)" "$(dget cpu0 Governor)" "$(kread $policy0/scaling_governor)"
is "AvailableGovernors (govern: devfreqd's)" "$(getp "$p_gpu" "$device_iface" AvailableGovernors)" "as 8 $G"
kernel_govs=$(kread $policy0/scaling_available_governors | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
is "AvailableGovernors (clamp: the kernel's list)" \
        "$(dget cpu0 AvailableGovernors | cut -d' ' -f2- | tr -d '"' | tr ' ' '\n' | sort | tr '\n' ' ')" \
        "$kernel_govs"
is "CurrentFrequency (govern): what was applied, also in sysfs" "$(dget gpu CurrentFrequency)" "$(kread $gpu/cur_freq)"
is "CurrentFrequency (clamp, cpufreq): sysfs in Hz" "$(dget cpu0 CurrentFrequency)" \
        "$(($(kread $policy0/scaling_cur_freq) * 1000))"
kwrite $policy0/scaling_min_freq 2000000
is "CurrentFrequency (clamp) is read from sysfs when asked" "$(dget cpu0 CurrentFrequency)" "2000000000"
is "TargetFrequency" "$(getp "$p_gpu" "$device_iface" TargetFrequency)" "t $(dget gpu CurrentFrequency)"
is "MinFrequency" "$(dget gpu MinFrequency)" "200000000"
is "MaxFrequency" "$(dget gpu MaxFrequency)" "800000000"
is "MinFrequency of a policy, Hz" "$(dget cpu0 MinFrequency)" "800000000"
is "MaxFrequency of a policy, Hz" "$(dget cpu0 MaxFrequency)" "2400000000"
is "AvailableFrequencies" "$(getp "$p_gpu" "$device_iface" AvailableFrequencies)" "at 3 200000000 400000000 800000000"
is "AvailableFrequencies of a policy, ascending Hz" "$(dget cpu0 AvailableFrequencies)" \
        "5 800000000 1200000000 1600000000 2000000000 2400000000"
is "OperatingPoints" "$(getp "$p_gpu" "$device_iface" OperatingPoints)" \
        "a(tuub) 3 200000000 825000 2000 true 400000000 900000 1000 true 800000000 1050000 200 true"
is "OperatingPoints without configured voltage or latency" "$(dget dmc OperatingPoints)" \
        "4 200000000 0 0 true 400000000 0 0 true 666000000 0 0 true 800000000 0 0 true"
is "PollingInterval of a polling governor" "$(getp "$p_tick" "$device_iface" PollingInterval)" "u 50"
is "PollingInterval of userspace" "$(dget gpu PollingInterval)" "0"
is "Load before any sample" "$(getp "$p_gpu" "$device_iface" Load)" "u 0"
is "QosMinFrequency without requests" "$(getp "$p_gpu" "$device_iface" QosMinFrequency)" "t 0"
is "QosMaxFrequency without requests" "$(getp "$p_gpu" "$device_iface" QosMaxFrequency)" "t 18446744073709551615"
is "QosLatency without requests" "$(getp "$p_gpu" "$device_iface" QosLatency)" "u 4294967295"
is "Requests without requests" "$(getp "$p_gpu" "$device_iface" Requests)" "ao 0"
is "Tunables of userspace" "$(getp "$p_gpu" "$device_iface" Tunables)" "a{su} 0"
tunables=$(getp "$p_tick" "$device_iface" Tunables)
like "Tunables of simple_ondemand" "$tunables" '^a\{su\} 2 ("upthreshold" 90 "downdifferential" 5|"downdifferential" 5 "upthreshold" 90)$'
is "Tunables in clamp mode: none" "$(dget dmc Tunables)" "0"
like "TransitionCount" "$(getp "$p_gpu" "$device_iface" TransitionCount)" '^t [0-9]+$'
is "LastError" "$(getp "$p_gpu" "$device_iface" LastError)" 's ""'

# ================================================================================ SetGovernor
# govern mode: devfreqd's governor changes, with its signals.
monitor_mark
is "SetGovernor performance (govern) replies empty" "$(dcall gpu-tick SetGovernor s performance)" ""
monitor_flush
is "Governor is performance" "$(dget gpu-tick Governor)" "performance"
is "performance does not poll" "$(dget gpu-tick PollingInterval)" "0"
is "performance has no tunables" "$(dget gpu-tick Tunables)" "0"
is "performance applied the highest point" "$(dget gpu-tick CurrentFrequency)" "800000000"
is "and wrote it to the kernel" "$(kread $gpu0/cur_freq)" "800000000"
c=$(changes "$p_tick")
contains "Governor emitted with its value" "$c" 'Governor="performance"'
contains "PollingInterval emitted with its value" "$c" "PollingInterval=0"
contains "Tunables emitted with its value" "$c" "Tunables={}"
is "SetGovernor simple_ondemand again" "$(dcall gpu-tick SetGovernor s simple_ondemand)" ""
is "PollingInterval is back" "$(dget gpu-tick PollingInterval)" "50"
busctl_error "SetGovernor of an unknown governor is InvalidGovernor" "$error_prefix.InvalidGovernor" \
        "Unknown governor 'turbo'" dcall gpu SetGovernor s turbo
busctl_error "SetGovernor passive without a parent is InvalidGovernor" "$error_prefix.InvalidGovernor" \
        "configure parent =" dcall gpu SetGovernor s passive
is "the failed calls left the governor" "$(dget gpu Governor)" "userspace"

# clamp mode: checked against the kernel's list, written to the kernel.
monitor_mark
is "SetGovernor performance (clamp) replies empty" "$(dcall dmc SetGovernor s performance)" ""
monitor_flush
is "the kernel governor was written" "$(kread $dmc/governor)" "performance"
is "Governor shows the kernel's" "$(dget dmc Governor)" "performance"
contains "Governor emitted with its value (clamp)" "$(changes "$p_dmc")" 'Governor="performance"'
busctl_error "SetGovernor of a governor the kernel does not list is InvalidGovernor" \
        "$error_prefix.InvalidGovernor" "does not offer governor 'userspace'" dcall dmc SetGovernor s userspace
busctl_error "SetGovernor of devfreqd's own governor in clamp mode is InvalidGovernor" \
        "$error_prefix.InvalidGovernor" "does not offer governor 'ondemand'" dcall dmc SetGovernor s ondemand
echo "sys/devices/platform/dmc/devfreq/dmc/governor EBUSY" >"$root/fakekernel.faults"
busctl_error "a failing kernel write is DeviceFailed with the path and errno text" "$error_prefix.DeviceFailed" \
        "Device or resource busy" dcall dmc SetGovernor s powersave
contains "the DeviceFailed message names the attribute" "$(errors_since)" "$dmc/governor"
rm "$root/fakekernel.faults"
is "the failed write changed nothing in sysfs" "$(kread $dmc/governor)" "performance"
is "the failed write changed nothing on the bus" "$(dget dmc Governor)" "performance"
contains "the failed write is in LastError, like every failed write" "$(dget dmc LastError)" \
        "governor: Device or resource busy"
is "SetGovernor on a cpufreq policy in clamp mode" "$(dcall cpu0 SetGovernor s powersave)" ""
is "scaling_governor was written" "$(kread $policy0/scaling_governor)" "powersave"

# ================================================================================ SetFrequency
monitor_mark
is "SetFrequency 400MHz under userspace" "$(dcall gpu SetFrequency t 400000000)" ""
monitor_flush
is "CurrentFrequency is 400MHz" "$(dget gpu CurrentFrequency)" "400000000"
is "the kernel runs at 400MHz" "$(kread $gpu/cur_freq)" "400000000"
contains "CurrentFrequency emitted with its value" "$(changes "$p_gpu")" "CurrentFrequency=400000000"
is "SetFrequency between points snaps up" "$(dcall gpu SetFrequency t 300000000 && dget gpu CurrentFrequency)" "400000000"
is "TargetFrequency is the value before snapping" "$(dget gpu TargetFrequency)" "300000000"
monitor_mark
dcall gpu SetFrequency t 350000000
monitor_flush
is "a SetFrequency that lands on the same point emits no CurrentFrequency" \
        "$(changes "$p_gpu" | grep -c CurrentFrequency || true)" "0"
# A write that fails: the decision stands, LastError says why, the next evaluation retries.
echo "${gpu#/}/userspace/set_freq EBUSY" >"$root/fakekernel.faults"
monitor_mark
is "SetFrequency succeeds although the write fails" "$(dcall gpu SetFrequency t 800000000)" ""
monitor_flush
like "LastError names the attribute and the errno" "$(dget gpu LastError)" "$gpu/userspace/set_freq.*Device or resource busy"
like "LastError emitted with its value" "$(changes "$p_gpu")" 'LastError="[^"]*set_freq[^"]*Device or resource busy'
is "the kernel kept its frequency" "$(kread $gpu/cur_freq)" "400000000"
rm "$root/fakekernel.faults"
is "SetFrequency again" "$(dcall gpu SetFrequency t 800000000)" ""
is "the write was retried" "$(kread $gpu/cur_freq) $(dget gpu CurrentFrequency)" "800000000 800000000"
dcall gpu SetFrequency t 400000000
busctl_error "SetFrequency under simple_ondemand is WrongGovernor" "$error_prefix.WrongGovernor" \
        "needs the userspace governor" dcall gpu-tick SetFrequency t 400000000
busctl_error "SetFrequency in clamp mode is WrongGovernor" "$error_prefix.WrongGovernor" "clamp mode" \
        dcall dmc SetFrequency t 400000000

# ================================================================================ SetTunable
monitor_mark
is "SetTunable upthreshold 70" "$(dcall gpu-tick SetTunable su upthreshold 70)" ""
monitor_flush
contains "Tunables shows it" "$(getp "$p_tick" "$device_iface" Tunables)" '"upthreshold" 70'
like "Tunables emitted with the value" "$(changes "$p_tick")" 'Tunables=\{[^ ]*"upthreshold":70'
busctl_error "SetTunable of an unknown name is InvalidArgs" org.freedesktop.DBus.Error.InvalidArgs \
        "has no tunable 'turbo'" dcall gpu-tick SetTunable su turbo 1
busctl_error "SetTunable out of range is InvalidArgs" org.freedesktop.DBus.Error.InvalidArgs \
        "upthreshold=101 is outside" dcall gpu-tick SetTunable su upthreshold 101
busctl_error "SetTunable in clamp mode is InvalidArgs" org.freedesktop.DBus.Error.InvalidArgs "clamp mode" \
        dcall dmc SetTunable su upthreshold 80
busctl_error "SetTunable under a governor without tunables is InvalidArgs" org.freedesktop.DBus.Error.InvalidArgs \
        "has no tunable 'upthreshold'" dcall gpu SetTunable su upthreshold 80
is "the refused values left the tunable" "$(getp "$p_tick" "$device_iface" Tunables | grep -o '"upthreshold" [0-9]*')" \
        '"upthreshold" 70'
dcall gpu-tick SetTunable su upthreshold 90

# A mark takes what the daemon sent before it as sent before it, even when busctl monitor writes it
# late: here the monitor is stopped while a SetTunable's PropertiesChanged goes out, and goes on
# only after the mark is asked for.
kill -STOP "$monitor_pid"
dcall gpu-tick SetTunable su upthreshold 85
(
        sleep 1
        kill -CONT "$monitor_pid"
) &
resume=$!
monitor_mark
wait "$resume"
is "a mark taken while the monitor lags holds nothing sent before it" "$(changes "$p_tick")" ""
dcall gpu-tick SetTunable su upthreshold 90

# ================================================================================ SetOperatingPoint
monitor_mark
is "SetOperatingPoint 800MHz off" "$(dcall gpu SetOperatingPoint tb 800000000 false)" ""
monitor_flush
is "AvailableFrequencies without it" "$(dget gpu AvailableFrequencies)" "2 200000000 400000000"
is "OperatingPoints shows it disabled" "$(dget gpu OperatingPoints)" \
        "3 200000000 825000 2000 true 400000000 900000 1000 true 800000000 1050000 200 false"
is "MaxFrequency follows" "$(dget gpu MaxFrequency)" "400000000"
c=$(changes "$p_gpu")
contains "AvailableFrequencies emitted with its value" "$c" "AvailableFrequencies=[200000000,400000000]"
contains "OperatingPoints emitted with its value" "$c" "[800000000,1050000,200,false]"
contains "MaxFrequency emitted with its value" "$c" "MaxFrequency=400000000"
# One change batch a call: one PropertiesChanged with all of it, then the reply.
is "SetOperatingPoint: one PropertiesChanged, before the reply" "$(sequence SetOperatingPoint "$p_gpu")" \
        "PropertiesChanged $p_gpu
return SetOperatingPoint"
busctl_error "SetOperatingPoint of an absent point is NoSuchOperatingPoint" \
        "$error_prefix.NoSuchOperatingPoint" "no operating point of 300000000 Hz" \
        dcall gpu SetOperatingPoint tb 300000000 false
dcall gpu SetOperatingPoint tb 200000000 false
busctl_error "disabling the last enabled point is InvalidArgs" org.freedesktop.DBus.Error.InvalidArgs \
        "last enabled point" dcall gpu SetOperatingPoint tb 400000000 false
is "the last point stays" "$(dget gpu AvailableFrequencies)" "1 400000000"
dcall gpu SetOperatingPoint tb 200000000 true
dcall gpu SetOperatingPoint tb 800000000 true
is "points enabled again" "$(dget gpu AvailableFrequencies)" "3 200000000 400000000 800000000"

# ================================================================================ AddRequest
add=$(dcall gpu AddRequest 'sta{sv}' min-frequency 800000000 0)
like "AddRequest replies a request path with a non-zero decimal id" "$add" "^o \"$manager_path/request/[1-9][0-9]*\"$"
req=${add#o \"}
req=${req%\"}
add2=$(dcall gpu AddRequest 'sta{sv}' min-frequency 800000000 0)
[[ $add2 != "$add" ]] && ok "every AddRequest gets a new id" || not_ok "every AddRequest gets a new id"
gone() { ! bctl introspect "$name" "$1" "$request_iface" >/dev/null 2>&1; }
check "the request of a client that left is gone" wait_until 5 gone "$req"
is "and its floor with it" "$(dget gpu QosMinFrequency)" "0"
like "AddRequest with every option" \
        "$(dcall gpu AddRequest 'sta{sv}' latency 1000 3 reason s "a game" application-id s org.example.Game timeout-ms t 5000)" \
        "^o \"$manager_path/request/[1-9][0-9]*\"$"

# ================================================================================ Request
dcall gpu SetFrequency t 200000000
client_start A
a_name=$(client_cmd A name)
a_name=${a_name#ok }
before=$(date +%s%6N)
out=$(client_cmd A add gpu min-frequency 400000000 \
        '{"reason": ["s", "busctl test"], "application-id": ["s", "org.example.Test"], "timeout-ms": ["u", 600000]}')
after=$(date +%s%6N)
like "a held request" "$out" "^ok $manager_path/request/[1-9][0-9]*$"
req=${out#ok }
is "Request interface introspected" "$(introspect "$req" "$request_iface")" \
        ".Remove method - - -
.Update method t - -
.ApplicationId property s const
.BindingTime property t emits-invalidation
.CreatedUsec property t const
.Device property o const
.ExpiresUsec property t const
.Owner property s const
.PID property u const
.Reason property s const
.Type property s const
.UID property u const
.Value property t emits-change"
rget() { getv "$req" "$request_iface" "$1"; }
is "Request Device" "$(getp "$req" "$request_iface" Device)" "o \"$p_gpu\""
is "Request Type" "$(getp "$req" "$request_iface" Type)" 's "min-frequency"'
is "Request Value" "$(getp "$req" "$request_iface" Value)" "t 400000000"
is "Request Reason" "$(getp "$req" "$request_iface" Reason)" 's "busctl test"'
is "Request ApplicationId" "$(getp "$req" "$request_iface" ApplicationId)" 's "org.example.Test"'
is "Request Owner" "$(getp "$req" "$request_iface" Owner)" "s \"$a_name\""
is "Request UID" "$(getp "$req" "$request_iface" UID)" "u 0"
is "Request PID" "$(getp "$req" "$request_iface" PID)" "u ${client_pid[A]}"
created=$(rget CreatedUsec)
expires=$(rget ExpiresUsec)
if ((created >= before - 1000000 && created <= after + 1000000)); then ok "CreatedUsec is the realtime of the call"; else
        not_ok "CreatedUsec is the realtime of the call"
        diag "$before <= $created <= $after"
fi
is "ExpiresUsec is CreatedUsec + timeout" "$((expires - created))" "600000000"
is "the device lists it in Requests" "$(getp "$p_gpu" "$device_iface" Requests)" "ao 1 \"$req\""
is "QosMinFrequency is its value" "$(dget gpu QosMinFrequency)" "400000000"
is "MinFrequency is raised" "$(dget gpu MinFrequency)" "400000000"
is "the frequency is raised to the floor" "$(dget gpu CurrentFrequency)" "400000000"
is "and in the kernel" "$(kread $gpu/cur_freq)" "400000000"
contains "the tree lists the request" "$(bctl tree "$name")" "$req"
contains "GetManagedObjects lists the request" \
        "$(bctl call "$name" "$manager_path" org.freedesktop.DBus.ObjectManager GetManagedObjects)" \
        "\"$request_iface\" 11 \"Device\" o \"$p_gpu\" \"Type\" s \"min-frequency\" \"Value\" t 400000000"

monitor_mark
is "root Updates another client's request" "$(bctl call "$name" "$req" "$request_iface" Update t 800000000)" ""
monitor_flush
is "Value after Update" "$(rget Value)" "800000000"
is "QosMinFrequency after Update" "$(dget gpu QosMinFrequency)" "800000000"
is "CurrentFrequency after Update" "$(dget gpu CurrentFrequency)" "800000000"
is "Value emitted with its value" "$(changes "$req")" "$req $request_iface Value=800000000 | invalidated: BindingTime"
c=$(changes "$p_gpu")
contains "QosMinFrequency emitted with its value" "$c" "QosMinFrequency=800000000"
contains "CurrentFrequency emitted with its value on the request's change" "$c" "CurrentFrequency=800000000"
is "Update: the reply, the request's Value, then the device's one PropertiesChanged" "$(sequence Update "$p_gpu")" \
        "return Update
PropertiesChanged $req
PropertiesChanged $p_gpu"

monitor_mark
is "root Removes another client's request" "$(bctl call "$name" "$req" "$request_iface" Remove)" ""
monitor_flush
check "the removed request object is gone" gone "$req"
is "InterfacesRemoved for the request" "$(signals InterfacesRemoved)" "$manager_path [\"$req\",[\"$request_iface\"]]"
is "Requests is empty" "$(getp "$p_gpu" "$device_iface" Requests)" "ao 0"
is "the floor is gone" "$(dget gpu QosMinFrequency)" "0"
is "the frequency is back" "$(dget gpu CurrentFrequency)" "200000000"
c=$(changes "$p_gpu")
contains "Requests is invalidated" "$c" "| invalidated: Requests"
is "Requests is never sent with a value" "$(grep -c 'Requests=' <<<"$c" || true)" "0"
contains "QosMinFrequency emitted back at 0" "$c" "QosMinFrequency=0"
contains "CurrentFrequency emitted back down" "$c" "CurrentFrequency=200000000"
is "Remove: the reply, InterfacesRemoved, then the device's one PropertiesChanged" "$(sequence Remove "$p_gpu")" \
        "return Remove
InterfacesRemoved $manager_path
PropertiesChanged $p_gpu"

# add and remove emit Requests as invalidation; a max request and a latency request emit their QoS
monitor_mark
out=$(client_cmd A add gpu max-frequency 400000000)
req=${out#ok }
monitor_flush
c=$(changes "$p_gpu")
contains "AddRequest invalidates Requests" "$c" "| invalidated: Requests"
contains "QosMaxFrequency emitted with its value" "$c" "QosMaxFrequency=400000000"
is "Requests not sent with a value on add" "$(grep -c 'Requests=' <<<"$c" || true)" "0"
contains "InterfacesAdded for the request with its properties" "$(signals InterfacesAdded)" \
        "\"$req\",{\"$request_iface\":{\"Device\":{\"type\":\"o\",\"data\":\"$p_gpu\"},\"Type\":{\"type\":\"s\",\"data\":\"max-frequency\"},\"Value\":{\"type\":\"t\",\"data\":400000000}"
is "AddRequest: the reply, InterfacesAdded, then the device's one PropertiesChanged" "$(sequence AddRequest "$p_gpu")" \
        "return AddRequest
InterfacesAdded $manager_path
PropertiesChanged $p_gpu"
monitor_mark
out=$(client_cmd A add gpu latency 1000)
monitor_flush
contains "QosLatency emitted with its value" "$(changes "$p_gpu")" "QosLatency=1000"
is "AvailableFrequencies meet the latency" "$(dget gpu AvailableFrequencies)" "2 400000000 800000000"
client_stop A
check "the requests of a client that left are gone" wait_until 5 gone "$req"
is "QoS is back to none" "$(dget gpu QosMaxFrequency) $(dget gpu QosLatency)" "18446744073709551615 4294967295"

# ================================================================================ statistics
# stats DEVICE: GetStatistics as "f1 f2 ... | t1 t2 ... | row1 ; row2 ; ... | total", from busctl's
# flat output "atataatt N f... N t... N N r... N r... total".
stats() {
        local -a w
        read -r -a w <<<"$(dcall "$1" GetStatistics)"
        [[ ${w[0]} == atataatt ]] || return 1
        local n=${w[1]} i=2 out
        out="${w[*]:i:n} |"
        i=$((i + n + 1))
        out+=" ${w[*]:i:n} |"
        i=$((i + n))
        [[ ${w[i]} == "$n" ]] || return 1
        i=$((i + 1))
        for ((r = 0; r < n; r++)); do
                [[ ${w[i]} == "$n" ]] || return 1
                out+=" ${w[*]:i+1:n} ;"
                i=$((i + n + 1))
        done
        echo "${out% ;} | ${w[i]}"
}
trans_sum() { tr ' ' '\n' <<<"$1" | awk '/^[0-9]+$/ { s += $1 } END { print s + 0 }'; }

s=$(stats gpu)
IFS='|' read -r freqs _ trans total <<<"$s"
is "GetStatistics (govern) frequencies are the points" "$(echo $freqs)" "200000000 400000000 800000000"
is "GetStatistics total is the sum of the transitions" "$(trans_sum "$trans")" "$(echo $total)"
is "TransitionCount is the total" "$(dget gpu TransitionCount)" "$(echo $total)"
((total > 0)) && ok "transitions were counted" || not_ok "transitions were counted"
is "ResetStatistics (govern)" "$(dcall gpu ResetStatistics)" ""
s=$(stats gpu)
IFS='|' read -r freqs _ trans total <<<"$s"
is "after ResetStatistics: no transitions" "$(echo $trans $total)" "0 0 0 ; 0 0 0 ; 0 0 0 0"
is "TransitionCount after ResetStatistics" "$(dget gpu TransitionCount)" "0"
dcall gpu SetFrequency t 800000000
IFS='|' read -r freqs _ trans total <<<"$(stats gpu)"
is "one transition counted, in its cell" "$(echo $trans $total)" "0 0 1 ; 0 0 0 ; 0 0 0 1"

# clamp mode: the kernel's trans_stat
kernel_stats() { # the devfreq trans_stat file in the same layout
        awk 'NR > 2 && /:/ && !/^Total/ { sub(/^\*/, ""); f[++n] = $1 + 0; t[n] = $NF; row = ""
                for (i = 2; i < NF; i++) row = row " " $i; r[n] = row }
             /^Total transition/ { total = $NF }
             END { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), f[i]; printf " |"
                   for (i = 1; i <= n; i++) printf " %s", t[i]; printf " |"
                   for (i = 1; i <= n; i++) printf "%s%s", r[i], (i < n ? " ;" : ""); printf " | %s\n", total }' \
                "$root$1/trans_stat"
}
is "GetStatistics (clamp) is the kernel's trans_stat" "$(stats dmc)" "$(kernel_stats $dmc)"
is "TransitionCount (clamp) is the kernel's total" "$(dget dmc TransitionCount)" \
        "$(awk '/^Total transition/ {print $NF}' "$root$dmc/trans_stat")"
is "ResetStatistics (clamp)" "$(dcall dmc ResetStatistics)" ""
is "the kernel's statistics were reset" "$(dget dmc TransitionCount)" "0"
IFS='|' read -r freqs _ trans total <<<"$(stats cpu0)"
is "GetStatistics of a policy: frequencies in Hz" "$(tr ' ' '\n' <<<"$freqs" | grep . | sort -n | tr '\n' ' ')" \
        "800000000 1200000000 1600000000 2000000000 2400000000 "
is "GetStatistics of a policy: total_trans" "$(echo $total)" "$(kread $policy0/stats/total_trans)"

# ================================================================================ LogControl1
is "LogLevel" "$(getp "$logcontrol_path" "$logcontrol_iface" LogLevel)" 's "debug"'
is "SyslogIdentifier" "$(getp "$logcontrol_path" "$logcontrol_iface" SyslogIdentifier)" 's "devfreqd"'
is "LogTarget" "$(getp "$logcontrol_path" "$logcontrol_iface" LogTarget)" 's "console"'
is "set LogLevel info" "$(bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogLevel s info)" ""
is "LogLevel is info" "$(getv "$logcontrol_path" "$logcontrol_iface" LogLevel)" "info"
mark=$(wc -l <"$daemon_log")
dcall gpu SetFrequency t 400000000
dcall gpu SetFrequency t 200000000
is "debug lines stop at level info" "$(tail -n +"$((mark + 1))" "$daemon_log" | grep -c '^<7>' || true)" "0"
bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogLevel s debug
dcall gpu SetFrequency t 400000000
check "debug lines again at level debug" grep -q '^<7>gpu: ' <(tail -n +"$((mark + 1))" "$daemon_log")
busctl_error "an unknown LogLevel is InvalidArgs" org.freedesktop.DBus.Error.InvalidArgs "Unknown log level 'loud'" \
        bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogLevel s loud
is "LogLevel unchanged" "$(getv "$logcontrol_path" "$logcontrol_iface" LogLevel)" "debug"
bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogTarget s journal
is "LogTarget journal maps to console" "$(getv "$logcontrol_path" "$logcontrol_iface" LogTarget)" "console"
bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogTarget s null
is "LogTarget null" "$(getv "$logcontrol_path" "$logcontrol_iface" LogTarget)" "null"
mark=$(wc -l <"$daemon_log")
dcall gpu SetFrequency t 800000000
is "nothing is logged to null" "$(tail -n +"$((mark + 1))" "$daemon_log" | wc -l)" "0"
bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogTarget s console
is "LogTarget console" "$(getv "$logcontrol_path" "$logcontrol_iface" LogTarget)" "console"
busctl_error "an unknown LogTarget is InvalidArgs" org.freedesktop.DBus.Error.InvalidArgs "Unknown log target 'disk'" \
        bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" LogTarget s disk
busctl_error "SyslogIdentifier is read-only" org.freedesktop.DBus.Error.PropertyReadOnly "SyslogIdentifier" \
        bctl set-property "$name" "$logcontrol_path" "$logcontrol_iface" SyslogIdentifier s other

# ================================================================================ poll ticks
# gpu-tick polls every 50 ms. A load that keeps it at its highest point: ticks decide and change
# nothing, and nothing is emitted. The loop keeps the counters moving (91-99 % busy).
busy=$root/sys/devices/platform/gpu0/busy
# loader_start PERCENT...: keep the counters moving at those loads, in turn, until loader_stop.
loader_start() {
        rm -f "$tmp/loader.stop"
        (
                while [[ ! -e $tmp/loader.stop ]]; do
                        for p in "$@"; do
                                "$setload" "$busy" "$p" 100
                                sleep 0.02
                        done
                done
        ) &
        loader=$!
        track $loader
}
loader_stop() {
        touch "$tmp/loader.stop"
        wait "$loader" || true
}
loader_start 91 95 99 93 97
high() { [[ $(dget gpu-tick CurrentFrequency) == 800000000 ]]; }
check "under load the device runs at its highest point" wait_until $((5 * slow)) high
monitor_mark
loads=()
load_seen() {
        local l
        l=$(dget gpu-tick Load)
        [[ " ${loads[*]} " == *" $l "* ]] || loads+=("$l")
        ((${#loads[@]} >= 3))
}
check "ticks keep sampling (Load takes several values)" wait_until $((5 * slow)) load_seen
sleep 0.5
monitor_flush
is "ticks that change nothing emit nothing" "$(changes)" ""
is "and the frequency did not move" "$(dget gpu-tick CurrentFrequency)" "800000000"
loader_stop
# A tick that does change the point emits CurrentFrequency with its value.
monitor_mark
loader_start 5
dropped() { grep -q 'CurrentFrequency=' < <(changes "$p_tick"); }
check "a tick that changes the point emits CurrentFrequency" wait_until $((5 * slow)) dropped
loader_stop
monitor_flush
like "with the new value" "$(changes "$p_tick")" "CurrentFrequency=[1-9][0-9]*"
# Changes found by polling are signalled at most every 100 ms, the last value always: the last
# signal carries the frequency applied once the device has settled.
last_emitted() { changes "$p_tick" | grep -o 'CurrentFrequency=[0-9]*' | tail -n1; }
emitted_applied() { [[ $(last_emitted) == "CurrentFrequency=$(dget gpu-tick CurrentFrequency)" ]]; }
check "the last value emitted is the one applied" wait_until $((2 * slow)) emitted_applied
is "the device went down to its lowest point" "$(dget gpu-tick CurrentFrequency)" "200000000"
# clamp mode: the frequency the kernel reports moves without any signal.
monitor_mark
out=$(dcall dmc AddRequest 'sta{sv}' min-frequency 800000000 0)
monitor_flush
is "clamp mode never emits CurrentFrequency" "$(changes "$p_dmc" | grep -c CurrentFrequency || true)" "0"
contains "but emits its QoS" "$(changes "$p_dmc")" "QosMinFrequency=800000000"

# ================================================================================ restarts
check "the daemon still serves" serving gpu
stop_daemon TERM
is "devfreqd exits cleanly" "$daemon_status" "0"
start_daemon --dry-run
is "DryRun under --dry-run" "$(getp "$manager_path" "$manager_iface" DryRun)" "b true"
stop_daemon TERM
is "devfreqd --dry-run exits cleanly" "$daemon_status" "0"
start_daemon

# ================================================================================ a device vanishes
# Under a bus call: the call that finds it gone is answered, then the device and its requests go.
client_start V
out=$(client_cmd V add gpu max-frequency 800000000)
held=${out#ok }
like "a request held on gpu" "$out" "^ok $manager_path/request/"
monitor_mark
rm -rf "$root/sys/devices/platform/ff9a0000.gpu" "$root/sys/class/devfreq/ff9a0000.gpu"
out=$(client_cmd V add gpu min-frequency 800000000)
like "AddRequest on a device that just vanished is answered" "$out" "^ok $manager_path/request/[1-9][0-9]*$"
vanished() { [[ $(mcall GetDevice s gpu 2>&1) == *"No device 'gpu'"* ]]; }
check "the vanished device is detached" wait_until $((5 * slow)) vanished
check "the daemon is alive" daemon_alive
monitor_flush
is "Devices without it" "$(getp "$manager_path" "$manager_iface" Devices)" \
        "ao 3 \"$p_cpu0\" \"$p_dmc\" \"$p_tick\""
contains "Devices emitted with its value" "$(changes "$manager_path")" \
        "Devices=[\"$p_cpu0\",\"$p_dmc\",\"$p_tick\"]"
is "... Profiles is not sent: a device that goes changes no profile" \
        "$(changes "$manager_path" | grep -c 'Profiles=' || true)" 0
removed=$(signals InterfacesRemoved)
contains "InterfacesRemoved for the device" "$removed" "$manager_path [\"$p_gpu\",[\"$device_iface\"]]"
contains "InterfacesRemoved for its held request" "$removed" "$manager_path [\"$held\",[\"$request_iface\"]]"
contains "InterfacesRemoved for the request added as it vanished" "$removed" "$manager_path [\"${out#ok }\",[\"$request_iface\"]]"
check "the request objects are gone" gone "$held"
is "the client is still connected" "$(client_cmd V getdevice dmc)" "ok $p_dmc"
like "its next AddRequest on the vanished device is NoSuchDevice (GetDevice)" "$(client_cmd V add gpu min-frequency 0)" \
        "^error $error_prefix.NoSuchDevice "
client_stop V
check "the daemon still serves" serving dmc
stop_daemon TERM
is "devfreqd exits cleanly after a device vanished" "$daemon_status" "0"
tap_done
