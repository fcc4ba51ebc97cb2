#!/usr/bin/env bash
# devfreqd --check-config on what a new user gets wrong: each mistake is named FILE:LINE: at the
# right line, the exit status is 1 and nothing crashes; a broken file stops the daemon before it
# writes anything; a good file prints the resolved devices and exits 0.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
conf=$tmp/devfreqd.conf
mkdir -p "$tmp/conf.d"

check_config() {
        LD_PRELOAD=$fakekernel "$devfreqd" --root "$root" --config "$conf" --config-dir "$tmp/conf.d" \
                --runtime-dir "$tmp/run" --state-dir "$tmp/state" --check-config "$@"
}

# bad DESCRIPTION FILE LINE PATTERN: --check-config exits 1, says FILE:LINE: matching PATTERN,
# and no sanitizer or crash report appears.
bad() {
        local desc=$1 file=$2 line=$3 pattern=$4 out status
        set +e
        out=$(check_config 2>&1)
        status=$?
        set -e
        if [[ $status == 1 && $out == *"$file:$line: "* && $out =~ $pattern && $out != *Sanitizer* &&
                $out != *"runtime error"* ]]; then
                ok "$desc"
        else
                not_ok "$desc"
                diag "exit status $status, expected 1 and '$file:$line: ' matching '$pattern'; output:"
                diag "$(head -n 5 <<<"$out" | cut -c1-200)"
        fi
}

# write LINE...: the main configuration file, one argument a line.
write() { printf '%s\n' "$@" >"$conf"; }
head_lines=('[daemon]' 'autodiscover = no')

write "${head_lines[@]}" 'frobnicate = yes'
bad "unknown key" "$conf" 3 "unknown key 'frobnicate'"

write '[deamon]' 'autodiscover = no'
bad "unknown section (a typo of [daemon])" "$conf" 1 "unknown section"

write "${head_lines[@]}" 'polling-interval = 100 ms'
bad "bad unit: a space before the unit" "$conf" 3 "not a duration"

write "${head_lines[@]}" '' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu' 'max-frequency = 800MHZz'
bad "bad unit: a frequency with a typo" "$conf" 6 "800MHZz"

write "${head_lines[@]}" '' '[device a]' 'path = /sys/class/devfreq/dmc' '' '[device b]' \
        'path = /sys/class/devfreq/dmc'
bad "two sections with the same path: the second is named" "$conf" 8 "same"

write "${head_lines[@]}" '' '[device a]' 'path = /sys/class/devfreq/dmc' '' '[device b]' \
        'path = /sys/devices/platform/dmc/devfreq/dmc'
bad "the same device through its class symlink and its /sys/devices target" "$conf" 8 \
        "same device as \[device a\]"

mkdir -p "$root/etc"
ln -s /etc "$root/sys/class/devfreq/escape"
write "${head_lines[@]}" '' '[device x]' 'path = /sys/class/devfreq/escape'
bad "a device path that is a symlink to the root's /etc" "$conf" 5 "outside"
rm "$root/sys/class/devfreq/escape"

write "${head_lines[@]}" '' '[device x]' 'path = /etc'
bad "a device path outside /sys" "$conf" 5 "outside /sys"

write "${head_lines[@]}" '' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu' 'opp = 200MHz 825mV' \
        'opp = 400MHz banana' 'opp = 800MHz 1V'
bad "an OPP line with garbage" "$conf" 7 "banana"

write "${head_lines[@]}" '' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu' 'mode = govern' \
        'governor = simple_ondemand'
bad "a load-driven governor without a load source" "$conf" 7 "load"

: >"$conf"
bad "an empty file" "$conf" 1 "empty"

long=$(printf '%*s' 250 '' | tr ' ' x)
write "${head_lines[@]}" "; $long" 'polling-interval = 1s'
bad "a line over 199 bytes" "$conf" 3 "longer than 199"
# good DESCRIPTION: --check-config exits 0 without a sanitizer report.
good() {
        local out status
        set +e
        out=$(check_config 2>&1)
        status=$?
        set -e
        if [[ $status == 0 && $out != *Sanitizer* && $out != *"runtime error"* ]]; then
                ok "$1"
        else
                not_ok "$1"
                diag "exit status $status; output:" "$(head -n 5 <<<"$out")"
        fi
}
write "${head_lines[@]}" "; ${long:0:196}" 'polling-interval = 1s'
good "a line of 198 bytes and its newline is fine (and no devices at all is fine)"

{
        printf '%s\n' "${head_lines[@]}"
        printf '; '
        head -c $((1024 * 1024)) /dev/zero | tr '\0' x
        printf '\nfrobnicate = 1\n'
} >"$conf"
bad "a 1 MiB line" "$conf" 3 "longer than 199"
bad "... and the line after it still has the right number" "$conf" 4 "frobnicate"

printf '[daemon]\nautodiscover = no\ndefault-governor = perf\xffmance\n' >"$conf"
bad "a non-UTF-8 byte" "$conf" 3 "UTF-8"

write "${head_lines[@]}" 'polling-interval = 100ms # fast'
bad "'#' used as an inline comment" "$conf" 3 "#"

# A cpufreq policy without a table of its own gets one point per opp-step: too many is opp-step's
# fault, said at its line.
write "${head_lines[@]}" '' '[device c]' 'path = /sys/devices/system/cpu/cpufreq/policy2' 'opp-step = 1Hz'
bad "an opp-step that makes more than 1024 points" "$conf" 6 "more than 1024 operating points; a larger opp-step"

# A drop-in gives a device another governor and removes the old one's tunables with empty values.
gpu_main=('' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu' 'mode = govern' \
        'governor = simple_ondemand' 'load = counters:/sys/devices/platform/ff9a0000.gpu/busy' 'upthreshold = 90')
write "${head_lines[@]}" "${gpu_main[@]}"
printf '%s\n' '[device gpu]' 'governor = performance' >"$tmp/conf.d/50-local.conf"
bad "a drop-in's governor, the main file's tunables of the old one left: refused" "$conf" 9 \
        "'upthreshold' is not a tunable of governor performance"
printf '%s\n' 'upthreshold =' >>"$tmp/conf.d/50-local.conf"
good "... and accepted once the drop-in removes them (upthreshold =)"
rm "$tmp/conf.d/50-local.conf"

# In [daemon] an empty value restores the built-in default: a drop-in undoes the main file's
# default-governor and polling-interval, then its default-mode.
write '[daemon]' 'autodiscover = no' 'default-mode = govern' 'default-governor = performance' \
        'polling-interval = 1s' '' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu' \
        'load = counters:/sys/devices/platform/ff9a0000.gpu/busy'
printf '%s\n' '[daemon]' 'default-governor =' 'polling-interval =' >"$tmp/conf.d/50-local.conf"
good "a drop-in's 'default-governor =' and 'polling-interval =' are accepted"
like "... and the gpu has the defaults again: simple_ondemand, polling every 100 ms" "$(check_config 2>&1)" \
        "mode: +govern"$'\n'".*governor: simple_ondemand \(upthreshold=90 downdifferential=5\)"$'\n'"  polling: +100 ms"$'\n'
printf '%s\n' 'default-mode =' >>"$tmp/conf.d/50-local.conf"
like "... with 'default-mode =' too, clamp mode again" "$(check_config 2>&1)" \
        "gpu"$'\n'"  kind: +devfreq"$'\n'"  mode: +clamp"$'\n'".*1 device, configuration OK"
rm "$tmp/conf.d/50-local.conf"

# devfreqd.conf(5): a trailing / of a path is ignored, so the node opens as without it.
write "${head_lines[@]}" '' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu/' '' '[device cpu]' \
        'path = /sys/devices/system/cpu/cpufreq/policy0/'
good "paths with a trailing / (a devfreq node, a cpufreq policy) are the nodes without it"

# A profile's tunables are checked as the set the daemon would apply, by the governor's own rule:
# each value within its range is not enough.
gpu_lines=('' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu' 'mode = govern' \
        'governor = simple_ondemand' 'load = counters:/sys/devices/platform/ff9a0000.gpu/busy')
write "${head_lines[@]}" "${gpu_lines[@]}" '' '[profile quiet]' 'gpu.governor = conservative' \
        'gpu.up_threshold = 15' 'gpu.max-frequency = 400MHz'
bad "a profile's up_threshold under the default down_threshold of its governor" "$conf" 12 \
        "profile quiet, device 'gpu': the tunables of governor conservative do not fit together: up_threshold = 15, down_threshold = 20"
write "${head_lines[@]}" "${gpu_lines[@]}" '' '[profile quiet]' 'gpu.upthreshold = 5' 'gpu.downdifferential = 50'
bad "a profile's pair that breaks downdifferential <= upthreshold" "$conf" 12 \
        "profile quiet, device 'gpu': .* upthreshold = 5, downdifferential = 50"
write "${head_lines[@]}" "${gpu_lines[@]}" 'downdifferential = 30' '' '[profile quiet]' 'gpu.upthreshold = 20'
bad "a profile's upthreshold under the device's configured downdifferential" "$conf" 12 \
        "upthreshold = 20, downdifferential = 30"
write "${head_lines[@]}" "${gpu_lines[@]}" '' '[profile quiet]' 'gpu.downdifferential = 95' 'gpu.upthreshold = 100'
like "a profile's pair that fits only together is accepted" "$(check_config 2>&1)" "configuration OK"

# A section's name is its own while its node is absent: a node of that name is not autodiscovered
# under it (two devices would share one name and one bus object once the section's node came).
write '[daemon]' 'autodiscover = yes' '' '[device dmc]' 'path = /sys/class/devfreq/gpu-absent' 'mode = clamp'
out=$(check_config 2>&1)
contains "a node named like a section whose node is absent is not autodiscovered" "$out" \
        "dmc: not managing autodiscovered /sys/class/devfreq/dmc: the name is taken"
is "... and no device is listed under that name" "$(grep -c '^dmc$' <<<"$out" || true)" 0
like "... the other nodes are" "$out" $'\nff9a0000.gpu\n'

# Mistakes in a drop-in name the drop-in.
write "${head_lines[@]}"
printf '[device gpu]\npath = /sys/class/devfreq/ff9a0000.gpu\nmode = govern\ngovernor = turbo\n' \
        >"$tmp/conf.d/50-gpu.conf"
bad "a drop-in's mistake names the drop-in" "$tmp/conf.d/50-gpu.conf" 4 "turbo"

# --- starting the daemon with a broken file: exit 1, nothing written, never READY
rm "$tmp/conf.d/50-gpu.conf"
write '[daemon]' 'autodiscover = yes' 'default-mode = govern' 'default-governor = performance' \
        'polling-interval = fast'
sum=$(tree_sum)
start_bus
start_notify_listener
set +e
NOTIFY_SOCKET=$tmp/notify.socket LD_PRELOAD=$fakekernel timeout 20 "$devfreqd" --root "$root" \
        --bus "$bus_address" --config "$conf" --config-dir "$tmp/conf.d" --runtime-dir "$tmp/run" \
        --state-dir "$tmp/state" >"$daemon_log" 2>&1
status=$?
set -e
is "the daemon with a broken file exits 1" "$status" 1
contains "... naming file:line" "$(cat "$daemon_log")" "$conf:5: "
is "... having written nothing" "$(tree_sum)" "$sum"
check "... not even an originals file" test ! -e "$tmp/run/originals"
check "... and never said READY=1" bash -c "! grep -q '^READY=1' '$notify_log'"

# --- what is not a regular file, as the main file or a drop-in: refused at once, never waited on
write "${head_lines[@]}"
mkfifo "$tmp/fifo.conf"
set +e
out=$(timeout 20 "$devfreqd" --root "$root" --config "$tmp/fifo.conf" --config-dir "$tmp/conf.d" --check-config 2>&1)
status=$?
set -e
is "a FIFO as the main file: exit 1 at once (not 124, a wait for a writer)" "$status" 1
contains "... saying what it is" "$out" "$tmp/fifo.conf: not a regular file (a FIFO)"
mkdir "$tmp/dir.conf"
out=$("$devfreqd" --root "$root" --config "$tmp/dir.conf" --config-dir "$tmp/conf.d" --check-config 2>&1 || true)
contains "a directory as the main file: refused" "$out" "$tmp/dir.conf: not a regular file (a directory)"
ln -s /dev/null "$tmp/null.conf"
out=$("$devfreqd" --root "$root" --config "$tmp/null.conf" --config-dir "$tmp/conf.d" --check-config 2>&1 || true)
contains "a character device as the main file: refused" "$out" "$tmp/null.conf: not a regular file (a character device)"
rm -r "$tmp/fifo.conf" "$tmp/dir.conf" "$tmp/null.conf"

# --- a file without devices is a valid, if idle, configuration
write "${head_lines[@]}"
: >"$daemon_log"
start_daemon
contains "no devices: the daemon starts and says so" "$(cat "$notify_log")" "STATUS=0 devices"
stop_daemon
is "... and stops with status 0" "$daemon_status" 0
check "... without a sanitizer report" bash -c "! grep -qE 'Sanitizer|runtime error' '$daemon_log'"

# --- a good file
write "${head_lines[@]}" '' '[device gpu]' 'path = /sys/class/devfreq/ff9a0000.gpu' 'mode = govern' \
        'governor = simple_ondemand' 'polling-interval = 50ms' \
        'load = counters:/sys/devices/platform/ff9a0000.gpu/busy' 'min-frequency = 300MHz' '' '[device cpu]' 'path = /sys/devices/system/cpu/cpufreq/policy0'
set +e
out=$(check_config 2>&1)
status=$?
set -e
is "a good file: exit 0" "$status" 0
like "... prints each device with its kind, mode and resolved path" "$out" \
        "gpu"$'\n'"  kind: +devfreq"$'\n'"  mode: +govern"$'\n'"  path: +$gpu"
like "... its governor and tunables" "$out" "governor: simple_ondemand \(upthreshold=90 downdifferential=5\)"
like "... its range (the configured floor)" "$out" "range: +300 MHz - 800 MHz"
like "... its load source" "$out" "load: +counters:/sys/devices/platform/ff9a0000.gpu/busy"
cpu_pattern="cpu"$'\n'"  kind: +cpufreq"$'\n'"  mode: +clamp"$'\n'"  path: +$policy0"$'\n'
cpu_pattern+=".*points: +800 MHz, 1.2 GHz, 1.6 GHz, 2 GHz, 2.4 GHz"
like "... the cpufreq policy in its default mode, with its points" "$out" "$cpu_pattern"
like "... and a summary" "$out" "2 devices, configuration OK"
is "... having written nothing" "$(tree_sum)" "$sum"

# --- a cpufreq policy through a path that does not spell its kind: the node decides the load source
mkdir -p "$root/sys/bus/cpu/devices"
ln -s ../../../devices/system/cpu/cpu0 "$root/sys/bus/cpu/devices/cpu0"
write "${head_lines[@]}" '' '[device cpu]' 'path = /sys/bus/cpu/devices/cpu0/cpufreq' 'mode = govern' \
        'governor = ondemand'
set +e
out=$(check_config 2>&1)
status=$?
set -e
is "a policy through /sys/bus/cpu/devices/cpu0/cpufreq, ondemand without load =: exit 0" "$status" 0
like "... resolved to the policy, with the CPUs' load (proc-stat)" "$out" \
        "path: +$policy0"$'\n'".*load: +proc-stat"
tap_done
