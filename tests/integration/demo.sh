#!/usr/bin/env bash
# tools/demo end to end: it prints frequency changes, stops on time and on a signal, and leaves
# no process and no temporary directory behind.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

demo=$top_srcdir/tools/demo
# tmpfs when there is one, as lib.sh does.
[[ -z ${TMPDIR:-} && -w /dev/shm ]] && export TMPDIR=/dev/shm
tmp=$(mktemp -d "${TMPDIR:-/tmp}/devfreqd-demo-test.XXXXXX")
mkdir "$tmp/tmpdir"

# Every process the demo starts inherits this variable: that is how leftovers are found.
marker="DEVFREQD_DEMO_TEST=$tmp"
leftovers() {
        local f
        for f in /proc/[0-9]*/environ; do
                [[ ${f%/environ} == "/proc/$$" || ${f%/environ} == "/proc/$BASHPID" ]] && continue
                grep -qxF "$marker" < <(tr '\0' '\n' <"$f" 2>/dev/null) && echo "${f#/proc/}" | cut -d/ -f1
        done
        return 0
}
# Whatever a failing run left is ours (it carries the marker): stop it by PID.
cleanup() {
        local pid
        for pid in $(leftovers); do kill -TERM "$pid" 2>/dev/null || true; done
        sleep 0.5
        for pid in $(leftovers); do kill -KILL "$pid" 2>/dev/null || true; done
        rm -rf "$tmp"
}
trap cleanup EXIT

# tools/bootstrap may only run make here: regenerating configure or reconfiguring the build under
# test (a sanitizer build, a read-only distcheck tree) is not the test's business.
args=(--duration 15)
if [[ ! $top_srcdir/configure -nt $top_srcdir/configure.ac || ! $top_srcdir/configure -nt $top_srcdir/Makefile.am ||
        ! $top_builddir/Makefile -nt $top_srcdir/configure ]]; then
        args+=(--no-bootstrap)
        diag "configure or the build is older than its sources: running the demo with --no-bootstrap"
fi

run_demo() {
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$marker" TMPDIR="$tmp/tmpdir" BUILD_DIR="$top_builddir" "$@"
}

# Reads of 2 ms time out in the middle of lines many times a run: none may be cut.
set +e
DEMO_READ_TIMEOUT=0.002 run_demo timeout 300 "$demo" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
status=$?
set -e
is "tools/demo ${args[*]} exits 0" "$status" 0
((status == 0)) || diag "stderr: $(tail -n 20 "$tmp/err")"
changes=$(grep -v '^demo:' "$tmp/out" | grep -Ec '[0-9] ?[MG]Hz' || true)
diag "$changes frequency changes printed"
check "it printed frequency changes (at least 4, got $changes)" test "$changes" -ge 4
printed() { grep -q "$1" < <(grep -v '^demo:' "$tmp/out"); }
check "... of the GPU" printed gpu
check "... and of the CPU" printed cpu
# Every line the monitor gave, whole: "HH:MM:SS  gpu: CurrentFrequency 800 MHz -> 200 MHz", another
# property of gpu or cpu, or devfreqctl's greeting.
line_re='^[0-9]{2}:[0-9]{2}:[0-9]{2}  ((gpu|cpu): CurrentFrequency [0-9]+(\.[0-9])? [MG]Hz -> [0-9]+(\.[0-9])? [MG]Hz'
line_re+='|(gpu|cpu): [A-Z][A-Za-z]+ [^ ].*|(gpu|cpu): request [0-9]+ (added \(.*\)|removed)'
line_re+='|profile: (power-saver \(client\)|none)|Monitoring devfreqd\. Press Ctrl-C to stop\.'
line_re+='|thermal gpu-hot: gpu-thermal at [0-9.]+ C, (tripped|released), cap 600 MHz)$'
malformed=$(grep -v '^demo:' "$tmp/out" | grep -Evc "$line_re" || true)
is "every line is whole and in the monitor's format" "$malformed" 0
((malformed == 0)) || diag "$(head -n 5 < <(grep -v '^demo:' "$tmp/out" | grep -Ev "$line_re"))"
# (a "demo: building ..." line may come first, when the fake kernel is not built yet)
is "... and the demo's own lines too" "$(grep '^demo:' "$tmp/out" | grep -vc '^demo: building')" 5
check "it switched to power-saver halfway" printed "  profile: power-saver (client)$"
check "... which lowered the GPU's ceiling" printed "  gpu: MaxFrequency [68]00 MHz -> 400 MHz$"
check "... and back" printed "  profile: none$"
# The simulated GPU heats under its load: the rule trips (the 800 MHz point disabled) and releases.
check "the hot GPU trips the thermal rule" printed "  thermal gpu-hot: gpu-thermal at [0-9.]* C, tripped, cap 600 MHz$"
check "... which caps it at 600 MHz" printed "  gpu: ThermalCap none -> 600 MHz$"
check "... and the cooled GPU releases it" printed "  thermal gpu-hot: gpu-thermal at [0-9.]* C, released, cap 600 MHz$"
check "... and the cap goes" printed "  gpu: ThermalCap 600 MHz -> none$"
like "it says how many changes it saw" "$(tail -n1 "$tmp/out")" "^demo: [0-9]+ frequency changes; stopping\.$"
is "no process left behind" "$(leftovers | xargs)" ""
is "no temporary directory left behind" "$(ls -A "$tmp/tmpdir")" ""
((tap_failures == 0)) || tap_value "the demo printed (its last 40 lines):" "$(tail -n 40 "$tmp/out")"

# The GPU on energy_aware: the daemon runs it on the demo's load.
set +e
run_demo timeout 300 "$demo" --duration 6 --no-bootstrap --gpu-governor energy_aware >"$tmp/out3" 2>"$tmp/err3"
status=$?
set -e
is "tools/demo --gpu-governor energy_aware exits 0" "$status" 0
((status == 0)) || diag "stderr: $(tail -n 20 "$tmp/err3")"
check "... and the GPU's frequency changed under it" grep -q 'gpu: CurrentFrequency .* -> ' "$tmp/out3"
set +e
run_demo "$demo" --no-bootstrap --gpu-governor 'no such' >/dev/null 2>"$tmp/err4"
status=$?
set -e
is "a malformed --gpu-governor: exit 2" "$status" 2

# Ctrl-C: a shell would start it with SIGINT at its default; a background job has it ignored.
# One simple command in the background, so $! is the demo itself (env and python3 exec it).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$marker" TMPDIR="$tmp/tmpdir" BUILD_DIR="$top_builddir" \
        "${PYTHON3:-/usr/bin/python3}" -c '
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$demo" --no-bootstrap >"$tmp/out2" 2>"$tmp/err2" &
pid=$!
started() {
        for _ in $(seq 300); do
                grep -q 'one line per frequency change' "$tmp/out2" && return 0
                kill -0 "$pid" 2>/dev/null || return 1
                sleep 0.1
        done
        return 1
}
check "without --duration it runs until interrupted" started
sleep 1
check "... still running a second later" kill -0 "$pid"
kill -INT "$pid"
set +e
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$pid" 2>/dev/null
wait "$pid"
status=$?
set -e
is "SIGINT (Ctrl-C) stops it with status 130" "$status" 130
is "... leaving no process" "$(leftovers | xargs)" ""
is "... and no temporary directory" "$(ls -A "$tmp/tmpdir")" ""

# In a terminal (tests/integration/pty-run.py): devfreqctl top, the GPU and the CPU moving on it,
# the profile switch in its header; --duration ends it with 0 and nothing left behind.
PYTHON3=${PYTHON3:-/usr/bin/python3}
mkfifo "$tmp/control"
run_demo "$PYTHON3" "$top_srcdir/tests/integration/pty-run.py" 30 120 "$tmp/screen" "$tmp/control" -- \
        "$demo" --duration 8 --no-bootstrap 2>"$tmp/err5" &
pid=$!
# Every 0.2 s the CURRENT column of gpu and cpu and the header's profile, while it runs.
: >"$tmp/seen"
while kill -0 "$pid" 2>/dev/null && [[ $(wc -l <"$tmp/seen") -lt 200 ]]; do
        if [[ -f $tmp/screen ]]; then
                grep -oE '^[ >](gpu|cpu) .*\] +[0-9.]+ [MG]Hz' "$tmp/screen" | tr '>' ' ' | awk '{print $1, $(NF-1), $NF}' >>"$tmp/seen" || true
                grep -oE 'Profile: [a-z-]+' "$tmp/screen" >>"$tmp/seen" || true
        fi
        sleep 0.2
done
set +e
wait "$pid"
status=$?
set -e
is "tools/demo in a terminal exits 0 at the end of --duration" "$status" 0
((status == 0)) || { diag "stderr: $(tail -n 20 "$tmp/err5")"; sed 's/^/#   |/' "$tmp/screen"; }
distinct() { grep -E "^$1 " "$tmp/seen" | sort -u | wc -l; }
check "... showed devfreqctl top with gpu's frequency moving ($(distinct gpu) values)" test "$(distinct gpu)" -ge 2
check "... and cpu's ($(distinct cpu) values)" test "$(distinct cpu)" -ge 2
check "... the profile power-saver in the header at a third" grep -qx 'Profile: power-saver' "$tmp/seen"
check "... after none" grep -qx 'Profile: none' "$tmp/seen"
check "... then said it stopped" grep -q '^demo: stopping' "$tmp/screen"
is "... leaving no process" "$(leftovers | xargs)" ""
is "... and no temporary directory" "$(ls -A "$tmp/tmpdir")" ""
tap_done
