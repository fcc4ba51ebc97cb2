#!/usr/bin/env bash
# On a cpufreq policy conservative counts in whole kHz, as the kernel's cs_dbs_update() does:
# freq_step 1 of a 1600099 kHz top is a step of 16000 kHz (16000.99 truncated). From 800000 kHz,
# three loads above up_threshold request 816000, 832000 and 848000 kHz; the highest point at
# or below each is 800000, 800000, then 832001 kHz. A step kept in Hz (16000990 Hz) would reach
# 832001 kHz one sample early (832001980 Hz at the second).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
p=$root$policy0
printf '1600099 832001 800000 \n' >"$p/scaling_available_frequencies"
for f in cpuinfo_max_freq scaling_max_freq; do printf '1600099\n' >"$p/$f"; done
for f in cpuinfo_min_freq scaling_min_freq scaling_cur_freq; do printf '800000\n' >"$p/$f"; done
busy=$root/sys/devices/platform/ff9a0000.gpu/busy

{
        printf '[daemon]\nautodiscover = no\n\n'
        printf '%s\n' "[device cpu]" "path = /sys/devices/system/cpu/cpufreq/policy0" "mode = govern" \
                "governor = conservative" "freq_step = 1" "polling-interval = 50ms" \
                "initial-frequency = 800000kHz" "load = counters:/sys/devices/platform/ff9a0000.gpu/busy"
} >"$tmp/devfreqd.conf"
start_bus
start_daemon

is "the policy runs conservative" "$(prop cpu Governor)" '"conservative"'
await_first_sample cpu
cpu_at() { [[ $(kread "$policy0/scaling_setspeed") == "$1" ]]; }
check "the policy starts at 800000 kHz" wait_until 5 cpu_at 800000

k=0
for want in 800000 800000 832001; do
        k=$((k + 1))
        before=$(samples_used cpu)
        "$setload" "$busy" 81 100
        if wait_until 5 samples_used_above cpu "$before" && cpu_at "$want"; then
                ok "load 81 %, sample $k: $want kHz, as the kernel's step in whole kHz gives"
        else
                not_ok "load 81 %, sample $k: $want kHz, as the kernel's step in whole kHz gives"
                diag "scaling_setspeed $(kread "$policy0/scaling_setspeed")"
                tail -n 5 "$daemon_log" | sed 's/^/# /'
        fi
done

check "the daemon is still running" daemon_alive
stop_daemon
is "SIGTERM: exit status 0" "$daemon_status" 0
tap_done
