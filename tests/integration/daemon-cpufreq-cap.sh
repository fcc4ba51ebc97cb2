#!/usr/bin/env bash
# Govern mode on a cpufreq policy through the kernel's userspace governor, with scaling_max_freq
# capped by root under devfreqd's choice. A real kernel's scaling_setspeed reads back the current
# frequency, which the policy's limits clamp: that is not another writer, and devfreqd must
# neither log it as one nor overwrite at every evaluation. In clamp mode the kernel (5.16+)
# resolves the limits devfreqd writes to the table: not another writer's either.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF2
[device cpu0]
path = /sys/devices/system/cpu/cpufreq/policy0
mode = govern
governor = performance
EOF2
start_bus
start_daemon

setspeed_is() { [[ $(kread "$policy0/scaling_setspeed") == "$1" ]]; }
check "performance through the userspace governor: 2.4 GHz" wait_until 10 setspeed_is 2400000
kwrite "$policy0/scaling_max_freq" 1200000
is "root caps scaling_max_freq at 1.2 GHz: the policy runs at the cap" "$(kread "$policy0/scaling_cur_freq")" 1200000
is "... and scaling_setspeed shows it (the current frequency)" "$(kread "$policy0/scaling_setspeed")" 1200000
client_start a
like "an evaluation (a request)" "$(client_cmd a add cpu0 min-frequency 1600000000)" '^ok '
client_stop a
client_start b
like "... and another" "$(client_cmd b add cpu0 min-frequency 800000000)" '^ok '
client_stop b
is "... the kernel's clamp is taken for no other writer" "$(grep -c 'by another writer' "$daemon_log")" 0
is "... and no error on the device" "$(dget cpu0 LastError)" ""
is "... CurrentFrequency says what the policy runs at: the cap" "$(dget cpu0 CurrentFrequency)" 1200000000
# Under the clamp every evaluation reads the policy's limits: they stay open, like scaling_setspeed,
# and the frequency table is the one read at open. strace sees three evaluations.
strace -y -e trace=open,openat,openat2,pread64 -o "$tmp/strace.clamp" -p "$daemon_pid" 2>"$tmp/strace.clamp.err" &
strace_pid=$!
track $strace_pid
attached() { grep -q attached "$tmp/strace.clamp.err"; }
if wait_until 20 attached; then
        client_start s
        for mhz in 1000 1100 1300; do client_cmd s add cpu0 min-frequency ${mhz}000000 >/dev/null; done
        client_stop s
        kill -INT $strace_pid
        wait $strace_pid 2>/dev/null || true
        untrack $strace_pid
        count() { grep -c -E "$1" "$tmp/strace.clamp" || true; }
        check "three evaluations under the clamp read scaling_setspeed each" \
                test "$(count '^pread64\([0-9]+<[^>]*/scaling_setspeed>')" -ge 3
        check "... and scaling_max_freq, from a descriptor kept open" \
                test "$(count '^pread64\([0-9]+<[^>]*/scaling_max_freq>')" -ge 3
        is "... which none of them opens, nor the frequency table" \
                "$(count '^open.*"(scaling_min_freq|scaling_max_freq|scaling_available_frequencies)"')" 0
else
        not_ok "strace attaches to devfreqd"
        tap_value "strace:" "$(cat "$tmp/strace.clamp.err")"
        kill $strace_pid 2>/dev/null || true
        wait $strace_pid 2>/dev/null || true
        untrack $strace_pid
fi
kwrite "$policy0/scaling_setspeed" 800000 # another tool, under the cap
client_start f
like "another writer sets 800 MHz under the cap; an evaluation" "$(client_cmd f add cpu0 min-frequency 800000000)" '^ok '
client_stop f
is "... is told from the kernel's clamp (which would show the cap): logged" \
        "$(grep -c 'scaling_setspeed was changed to 800 MHz by another writer' "$daemon_log")" 1
check "... and overwritten: the policy runs at the cap again" wait_until 10 setspeed_is 1200000
kwrite "$policy0/scaling_max_freq" 2400000
is "root lifts the cap: the kernel applies the kept setspeed request again" "$(kread "$policy0/scaling_cur_freq")" 2400000
client_start c
like "... an evaluation" "$(client_cmd c add cpu0 min-frequency 800000000)" '^ok '
client_stop c
is "... CurrentFrequency is devfreqd's choice again" "$(dget cpu0 CurrentFrequency)" 2400000000
stop_daemon
is "devfreqd exits cleanly" "$daemon_status" 0

# ================================================================ clamp mode: limits resolved to the table
kwrite "$policy0/scaling_max_freq" 2400000
printf '[device cpu0]\npath = /sys/devices/system/cpu/cpufreq/policy0\nmode = clamp\n' >"$tmp/devfreqd.conf"
start_daemon
log_at=$(wc -l <"$daemon_log")
client_start d
like "clamp: a 1.7 GHz ceiling" "$(client_cmd d add cpu0 max-frequency 1700000000)" '^ok '
is "... reads back resolved to the table: 1.6 GHz" "$(kread "$policy0/scaling_max_freq")" 1600000
like "... a 1.1 GHz floor (an evaluation, which reads the limits first)" \
        "$(client_cmd d add cpu0 min-frequency 1100000000)" '^ok '
is "... reads back as 1.2 GHz" "$(kread "$policy0/scaling_min_freq")" 1200000
like "... a third request (another evaluation)" "$(client_cmd d add cpu0 max-frequency 1900000000)" '^ok '
after=$(log_after "$log_at")
is "... neither resolution is taken for another writer's" "$(grep -c 'by another writer' <<<"$after" || true)" 0
client_stop d
limits_are() { [[ "$(kread "$policy0/scaling_min_freq") $(kread "$policy0/scaling_max_freq")" == "$1" ]]; }
check "... the requests end: the policy's own limits again" wait_until 10 limits_are "800000 2400000"
stop_daemon
is "... and after stop" "$(kread "$policy0/scaling_min_freq") $(kread "$policy0/scaling_max_freq")" "800000 2400000"
tap_done
