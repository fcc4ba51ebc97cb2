#!/usr/bin/env bash
# devfreqctl metrics: promtool finds no problem in the output of a daemon with several devices,
# requests, a profile and a disabled point; the values agree with status --json and stats --json;
# the file the timer's command writes (atomically) is served by a real node_exporter with only its
# textfile collector, without a scrape error.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = yes

$(gpu_userspace_section)
initial-frequency = 400MHz
opp = 200MHz 825mV
opp = 400MHz 900mV
opp = 800MHz 1050mV

[profile quiet]
gpu.max-frequency = 400MHz
EOF
start_bus
start_daemon

# run COMMAND...: sets out (stdout), err (stderr) and rc (exit status).
run() {
        set +e
        out=$("$@" 2>"$tmp/stderr")
        rc=$?
        set -e
        err=$(<"$tmp/stderr")
}
# sample FAMILY LABELS: the value of one sample of $metrics ("" when absent).
cat >"$tmp/sample.py" <<'EOF'
import sys
name, labels = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    if line.startswith(name + "{" + labels + "}") or (not labels and line.startswith(name + " ")):
        print(line.rsplit(" ", 1)[1].strip())
EOF
sample() { "$PYTHON3" "$tmp/sample.py" "$1" "$2" <<<"$metrics"; }

client_start A
like "a request" "$(client_cmd A add gpu min-frequency 400000000 '{"reason": ["s", "floor"]}')" "^ok "
run "$devfreqctl" profile quiet
is "the profile set" "$rc" 0
run "$devfreqctl" opp gpu disable 800MHz
is "a point disabled" "$rc" 0

# ================================================================ promtool
run "$devfreqctl" metrics
is "metrics exits 0" "$rc" 0
metrics=$out
promtool_out=$(promtool check metrics <<<"$metrics" 2>&1) && promtool_rc=0 || promtool_rc=$?
is "promtool check metrics: exit 0" "$promtool_rc" 0
is "promtool check metrics: no problem reported" "$promtool_out" ""
for f in devfreqd_info devfreqd_device_info devfreqd_device_frequency_hertz devfreqd_device_min_frequency_hertz \
        devfreqd_device_max_frequency_hertz devfreqd_device_thermal_cap_hertz devfreqd_device_transitions_total \
        devfreqd_device_time_in_state_seconds_total devfreqd_device_energy_relative_total \
        devfreqd_device_requests devfreqd_request_binding_seconds_total; do
        check "$f has # HELP and # TYPE" grep -q "^# HELP $f .*"$'\n'"# TYPE $f " <<<"$metrics"
done
is "counters end in _total" "$(grep '^# TYPE .* counter$' <<<"$metrics" | grep -vc '_total counter$' || true)" 0
is "devfreqd_info names the version and the profile" \
        "$(grep '^devfreqd_info{' <<<"$metrics")" "devfreqd_info{version=\"$(prop_version=$(bctl get-property "$name" "$manager_path" "$manager_iface" Version); eval "echo ${prop_version#s }")\",profile=\"quiet\"} 1"
is "the gpu's requests by type (the profile's ceiling is the daemon's own request)" \
        "$(sample devfreqd_device_requests 'device="gpu",type="min-frequency"') $(sample devfreqd_device_requests 'device="gpu",type="max-frequency"') $(sample devfreqd_device_requests 'device="gpu",type="latency"')" \
        "1 1 0"
like "binding time of the profile's ceiling, owned by the profile" \
        "$(sample devfreqd_request_binding_seconds_total 'device="gpu",type="max-frequency",unit="profile quiet"')" '^[0-9]+\.[0-9]{6}$'
like "energy for the device with voltages" "$(sample devfreqd_device_energy_relative_total 'device="gpu"')" '^[0-9]+\.[0-9]+$'
is "no energy for devices without voltages" "$(grep -c '^devfreqd_device_energy_relative_total{' <<<"$metrics")" 1

# ================================================================ values agree with status and stats
run "$devfreqctl" --json status
status_json=$out
# Time in state grows: bracketed by stats before and after.
run "$devfreqctl" --json stats gpu
stats_before=$out
run "$devfreqctl" metrics
metrics=$out
run "$devfreqctl" --json stats gpu
stats_after=$out
cat >"$tmp/compare.py" <<'EOF'
import json, re, sys
status, before, after = (json.loads(a) for a in sys.argv[1:4])
samples = {}
for line in sys.stdin:
    m = re.match(r'^(\w+)\{(.*)\} (\S+)$', line.strip())
    if m:
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        samples[(m.group(1), tuple(sorted(labels.items())))] = float(m.group(3))
def get(name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))))
bad = []
for d in status:
    n = d["Name"]
    for family, prop in (("devfreqd_device_frequency_hertz", "CurrentFrequency"),
                         ("devfreqd_device_min_frequency_hertz", "MinFrequency"),
                         ("devfreqd_device_max_frequency_hertz", "MaxFrequency")):
        if get(family, device=n) != d[prop]:
            bad.append(f"{n} {family}={get(family, device=n)} but {prop}={d[prop]}")
    if get("devfreqd_device_transitions_total", device=n, mode=d["Mode"]) != d["TransitionCount"]:
        bad.append(f"{n}: transitions_total in mode {d['Mode']} but TransitionCount={d['TransitionCount']}")
    live = sum(get("devfreqd_device_requests", device=n, type=t) for t in ("min-frequency", "max-frequency", "latency"))
    if live != len(d["Requests"]):
        bad.append(f"{n}: {live} requests counted, Requests has {len(d['Requests'])}")
    if (get("devfreqd_device_thermal_cap_hertz", device=n) or 0) != d["ThermalCap"]:
        bad.append(f"{n}: thermal cap")
gpu_mode = [d["Mode"] for d in status if d["Name"] == "gpu"][0]
for f, lo, hi in zip(before["frequencies"], before["time_in_state_ms"], after["time_in_state_ms"]):
    v = get("devfreqd_device_time_in_state_seconds_total", device="gpu", mode=gpu_mode, frequency_hertz=str(f))
    if v is None or not lo / 1000 <= v <= hi / 1000:
        bad.append(f"gpu time at {f}: {v} not within [{lo / 1000}, {hi / 1000}]")
print(f"{len(status)} devices; " + ("; ".join(bad) if bad else "all agree"))
EOF
compare=$("$PYTHON3" "$tmp/compare.py" "$status_json" "$stats_before" "$stats_after" <<<"$metrics")
like "metrics agree with status --json and stats --json" "$compare" '^[4-9] devices; all agree$'

# ================================================================ the file for node_exporter
textdir=$tmp/textfile
mkdir "$textdir"
# The timer's command: the unit's ExecStart=, with the built devfreqctl and the test's directory.
unit=$top_builddir/systemd/devfreqd-metrics.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
like "the unit writes devfreqd.prom with devfreqctl metrics" "$exec_start" '^/[^ ]*/devfreqctl metrics /[^ ]*/devfreqd\.prom$'
read -r -a argv <<<"$exec_start"
textfile=${argv[2]}
argv[0]=$devfreqctl
argv[2]=$textdir/${textfile##*/}
run "${argv[@]}"
is "the unit's command exits 0 and prints nothing" "$rc:$out" "0:"
is "the timer runs it every 15 s" "$(sed -n 's/^OnUnitActiveSec=//p' "$top_srcdir/systemd/devfreqd-metrics.timer")" 15s
check "the service has no [Install]: only the timer is enabled" eval "! grep -q '^\[Install\]' '$unit'"
is "the file is readable by all" "$(stat -c %a "$textdir/devfreqd.prom")" 644
is "no temporary file is left beside it" "$(ls "$textdir")" "devfreqd.prom"
check "the file passes promtool" promtool check metrics <"$textdir/devfreqd.prom"
run "$devfreqctl" metrics "$tmp/no-such-dir/devfreqd.prom"
is "an unwritable directory: exit 1" "$rc" 1
like "... with one line naming the file" "$err" "^devfreqctl: $tmp/no-such-dir/devfreqd.prom: "

port=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
        --collector.textfile.directory="$textdir" --web.listen-address="127.0.0.1:$port" \
        >"$tmp/node-exporter.log" 2>&1 &
exporter_pid=$!
track "$exporter_pid"
scrape() { curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/scrape" 2>/dev/null; }
if wait_until 20 scrape; then
        scraped=$(<"$tmp/scrape")
        is "node_exporter: no textfile scrape error" "$(grep '^node_textfile_scrape_error ' <<<"$scraped")" \
                "node_textfile_scrape_error 0"
        contains "node_exporter serves devfreqd_info" "$scraped" "devfreqd_info{profile=\"quiet\",version="
        like "node_exporter serves the gpu's frequency" "$scraped" $'\ndevfreqd_device_frequency_hertz\\{device="gpu"\\} 4e\\+08\n'
        contains "node_exporter knows the file" "$scraped" "node_textfile_mtime_seconds{file=\""
else
        not_ok "node_exporter answers on port $port"
        diag "$(tail -n 20 "$tmp/node-exporter.log")"
fi
kill "$exporter_pid" && wait "$exporter_pid" 2>/dev/null || true
untrack "$exporter_pid"

# ================================================================ the unit's sandbox
set +e
out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
status=$?
set -e
if ((status != 0)) && [[ $out == *"unrecognized option"* ]]; then
        skip "systemd-analyze security --offline needs systemd 250 or later"
else
        score=$(sed -n 's/.*Overall exposure level for devfreqd-metrics\.service: *\([0-9][0-9.]*\).*/\1/p' <<<"$out")
        daemon_score=$(systemd-analyze security --offline=true --no-pager "$top_builddir/systemd/devfreqd.service" 2>&1 |
                sed -n 's/.*Overall exposure level for devfreqd\.service: *\([0-9][0-9.]*\).*/\1/p')
        if [[ -n $score && -n $daemon_score ]] &&
                awk -v s="$score" -v m="$daemon_score" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
                ok "the metrics unit's exposure ($score) is at most the daemon's ($daemon_score)"
        else
                not_ok "the metrics unit's exposure (${score:-none}) is at most the daemon's (${daemon_score:-none})"
                diag "$(grep '✗' <<<"$out" || true)"
        fi
fi

client_stop A
stop_daemon TERM
is "devfreqd exits cleanly" "$daemon_status" "0"

# ================================================================ counters never go down
# A reload that changes voltages or adds a point, and the 65th ended request pushing the first
# out of the history of 64, leave every counter at least where it was (a decrease is a reset to
# Prometheus, which then counts the whole new value as an increase).
counters_conf() { # VOLTAGE_200 VOLTAGE_400 [LINE]
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
follow-power-profiles = no
max-requests-per-client = 64

$(gpu_userspace_section)
opp = 200MHz $1
opp = 400MHz $2
opp = 800MHz 1050mV
${3:-}
EOF
}
# not_below WHAT BEFORE AFTER
not_below() {
        if [[ -n $2 && -n $3 ]] && awk -v b="$2" -v a="$3" 'BEGIN { exit !(a + 0 >= b + 0) }'; then
                ok "$1 does not go down ($2 -> $3)"
        else
                not_ok "$1 does not go down (${2:-none} -> ${3:-none})"
        fi
}
gpu_sample() { sample "$1" "device=\"gpu\"${2:+,$2}"; }
scrape_metrics() { metrics=$("$devfreqctl" metrics); }
tis_sample() { gpu_sample devfreqd_device_time_in_state_seconds_total "mode=\"govern\",frequency_hertz=\"${1}000000\""; }

counters_conf 825mV 900mV
start_daemon
for f in 200 400 800 200 400; do
        dcall gpu SetFrequency t "${f}000000"
        sleep 0.15
done
scrape_metrics
energy=$(gpu_sample devfreqd_device_energy_relative_total)
counters_conf 700mV 750mV
mcall Reload
scrape_metrics
not_below "energy across a reload that lowers voltages" "$energy" \
        "$(gpu_sample devfreqd_device_energy_relative_total)"
energy=$(gpu_sample devfreqd_device_energy_relative_total)
transitions=$(gpu_sample devfreqd_device_transitions_total 'mode="govern"')
declare -A tis
for f in 200 400 800; do tis[$f]=$(tis_sample $f); done
counters_conf 700mV 750mV "opp = 600MHz 1000mV"
mcall Reload
scrape_metrics
not_below "transitions_total across a reload that adds a point" "$transitions" \
        "$(gpu_sample devfreqd_device_transitions_total 'mode="govern"')"
for f in 200 400 800; do
        not_below "time in state at $f MHz across a reload that adds a point" "${tis[$f]}" "$(tis_sample $f)"
done
not_below "energy across a reload that adds a point" "$energy" "$(gpu_sample devfreqd_device_energy_relative_total)"

# The binding seconds of every owner of the gpu, summed.
binding_total() {
        "$devfreqctl" metrics |
                awk '/^devfreqd_request_binding_seconds_total\{device="gpu"/ { s += $2 } END { printf "%.6f", s }'
}
blame_rows() { [[ $(dcall gpu GetBlame | awk '{ print $2 }') -ge $1 ]]; }
"$devfreqctl" hold gpu max 400MHz -- sleep 0.5
binding=$(binding_total)
for i in $(seq 64); do dcall gpu AddRequest sta{sv} max-frequency 400000000 0 >/dev/null; done
wait_until 5 blame_rows 64 || true
not_below "binding seconds when the first ended request leaves the history" "$binding" "$(binding_total)"
scrape_metrics
check "promtool check metrics passes after the history rolled over" promtool check metrics <<<"$metrics"
stop_daemon TERM
is "devfreqd exits cleanly after the reloads" "$daemon_status" "0"

# Clamp mode: the kernel keeps the time in state (trans_stat), devfreqd weighs it with the voltages
# in force while it was counted. A reload lowering 400 MHz's voltage keeps what the old one owes;
# the time after it is charged with the new one.
clamp_conf() { # VOLTAGE_400
        cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
follow-power-profiles = no

[device dmc]
path = /sys/class/devfreq/dmc
mode = clamp
opp = 200MHz 800mV
opp = 400MHz $1
opp = 666MHz 900mV
opp = 800MHz 1000mV
EOF
}
# kernel_ms MS_200 MS_400 MS_666 MS_800 [TOTAL]: the fake kernel's trans_stat with these times in
# state (and TOTAL transitions, 30 by default).
kernel_ms() {
        printf '%s\n' "     From  :   To" \
                "           : 200000000 400000000 666000000 800000000   time(ms)" \
                "  200000000:         0         3         1         4 $(printf %9s "$1")" \
                "  400000000:         2         0         3         1 $(printf %9s "$2")" \
                "* 666000000:         4         2         0         3 $(printf %9s "$3")" \
                "  800000000:         1         4         2         0 $(printf %9s "$4")" \
                "Total transition : ${5:-30}" >"$root$dmc/trans_stat"
}
# near WHAT GOT EXPECTED: equal to the microsecond the bus counts in (the float's last digit aside)
near() {
        if awk -v g="$2" -v e="$3" 'BEGIN { d = g - e; exit !(g != "" && d < 2e-6 && d > -2e-6) }'; then
                ok "$1"
        else
                not_ok "$1 (got '$2', expected $3)"
        fi
}
dmc_energy() { "$devfreqctl" metrics | awk -F'} ' '/^devfreqd_device_energy_relative_total\{device="dmc"/ { print $2 }'; }
clamp_conf 900mV
kernel_ms 1000 2000 0 0
start_daemon
# f x V^2 over the top's (800 MHz at 1 V), times the seconds: 200 MHz 0.8 V for 1 s, 400 MHz 0.9 V for 2 s.
expected=$(awk 'BEGIN { printf "%.6f", 200 * 0.64 / 800 * 1 + 400 * 0.81 / 800 * 2 }')
near "clamp: the kernel's time in state weighed with the voltages" "$(dmc_energy)" "$expected"
clamp_conf 700mV
mcall Reload
near "clamp: a reload lowering a voltage keeps what the old one owes" "$(dmc_energy)" "$expected"
kernel_ms 1000 4000 0 0
expected=$(awk -v e="$expected" 'BEGIN { printf "%.6f", e + 400 * 0.49 / 800 * 2 }')
near "clamp: the time after it is charged with the new voltage" "$(dmc_energy)" "$expected"
# The kernel resets its own count (a driver reloaded): the time counted since weighs whole, and
# goes on being charged once it passes the count before the reset.
kernel_ms 0 1000 0 0
expected=$(awk -v e="$expected" 'BEGIN { printf "%.6f", e + 400 * 0.49 / 800 * 1 }')
near "clamp: a count the kernel reset itself weighs whole from there" "$(dmc_energy)" "$expected"
kernel_ms 0 6000 0 0
expected=$(awk -v e="$expected" 'BEGIN { printf "%.6f", e + 400 * 0.49 / 800 * 5 }')
near "... and past the count it had before the reset" "$(dmc_energy)" "$expected"
kernel_ms 0 7000 0 0 3 # reset again, then 7 s at 400 MHz: only the total shows the reset
expected=$(awk -v e="$expected" 'BEGIN { printf "%.6f", e + 400 * 0.49 / 800 * 7 }')
near "a reset only the transition total shows: the whole count is charged" "$(dmc_energy)" "$expected"
kernel_ms 0 7000 0 0 # the total back at 30: counted on from there, so nothing more yet
# A reload that changes the mode: the count goes on in the other mode (devfreqd's own clock in
# govern mode, so it only has to be no lower).
# The kernel's counters and devfreqd's are series of their own (the mode label): neither goes down
# nor takes the other's count.
dmc_counter() { # FAMILY MODE [LABELS]: one of the dmc's counter samples
        sample "$1" "device=\"dmc\",mode=\"$2\"${3:+,$3}"
}
at_400='frequency_hertz="400000000"'
energy=$(dmc_energy)
scrape_metrics
is "clamp: the kernel's transitions are the clamp series" \
        "$(dmc_counter devfreqd_device_transitions_total clamp) $(grep -c '^devfreqd_device_transitions_total{device="dmc",mode="govern"' <<<"$metrics")" "30 0"
is "clamp: the kernel's time at 400 MHz is the clamp series" "$(dmc_counter devfreqd_device_time_in_state_seconds_total clamp "$at_400")" "7.000"
sed -i 's/^mode = clamp$/mode = govern\ngovernor = performance/' "$tmp/devfreqd.conf"
mcall Reload
not_below "energy across a reload from clamp to govern mode" "$energy" "$(dmc_energy)"
scrape_metrics
is "govern: the clamp series are gone" "$(grep -c '^devfreqd_device_[a-z_]*_total{device="dmc",mode="clamp"' <<<"$metrics")" 0
govern_transitions=$(dmc_counter devfreqd_device_transitions_total govern)
check "govern: devfreqd's own count is the govern series (${govern_transitions:-none}, not the kernel's 30)" \
        test "${govern_transitions:-30}" -lt 30
energy=$(dmc_energy)
clamp_conf 700mV
mcall Reload
not_below "energy across a reload from govern to clamp mode" "$energy" "$(dmc_energy)"
scrape_metrics
not_below "clamp again: the kernel's transitions" 30 "$(dmc_counter devfreqd_device_transitions_total clamp)"
not_below "clamp again: the kernel's time at 400 MHz" 7.000 \
        "$(dmc_counter devfreqd_device_time_in_state_seconds_total clamp "$at_400")"
is "clamp again: the govern series are gone" "$(grep -c '^devfreqd_device_[a-z_]*_total{device="dmc",mode="govern"' <<<"$metrics")" 0
kernel_ms 0 7000 0 0 # the fake kernel kept trans_stat itself meanwhile: a count of ours again
energy=$(dmc_energy)
kernel_ms 0 9000 0 0
near "... after which the kernel's count is charged on from each reading" "$(dmc_energy)" \
        "$(awk -v e="$energy" 'BEGIN { printf "%.6f", e + 400 * 0.49 / 800 * 2 }')"
dcall dmc ResetStatistics
kernel_ms 0 1000 0 0 # what the fake kernel's reset would leave, and a second at 400 MHz since
near "clamp: ResetStatistics starts it again from the kernel's new count" "$(dmc_energy)" \
        "$(awk 'BEGIN { printf "%.6f", 400 * 0.49 / 800 * 1 }')"
stop_daemon TERM
tap_done
