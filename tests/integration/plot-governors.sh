#!/usr/bin/env bash
# tools/plot-governors: on a small trace and on two traces of a family, a valid SVG (xmllint) with
# one series per governor asked for, the misses and the energy of each as devfreq-replay reports
# them; the same bytes twice; and its errors.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

plot=$top_srcdir/tools/plot-governors
replay=$top_builddir/tools/devfreq-replay
PYTHON3=${PYTHON3:-/usr/bin/python3}
export DEVFREQ_REPLAY=$replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$PYTHON3" -c 'import matplotlib' 2>"$tmp/import.err"; then
        not_ok "python3-matplotlib is importable (tools/bootstrap installs it)"
        diag "$(cat "$tmp/import.err")"
        tap_done
        exit 1
fi

# A small trace: the header and the first 150 windows of the 30 Hz video trace (5 s).
awk '/^#/ || n++ < 151' "$top_srcdir/tests/traces/video30.csv" >"$tmp/small.csv"

# plotted GOVERNORS OUT [ARGS...]: run it; sets rc and err.
plotted() {
        local governors=$1 out=$2
        shift 2
        set +e
        "$PYTHON3" "$plot" "$@" --governors "$governors" --out "$out" 2>"$tmp/err"
        rc=$?
        set -e
        err=$(<"$tmp/err")
}
# ids FILE PREFIX: the governors named by the ids PREFIX-NAME in the SVG, sorted, one a line.
ids() { grep -oE "id=\"$2-[a-z_]+\"" "$1" | sed -E "s/^id=\"$2-//; s/\"\$//" | sort | xargs; }
sorted() { tr ',' '\n' <<<"$1" | sort | xargs; }
# misses_of GOVERNOR TRACE: the misses devfreq-replay's own summary reports.
misses_of() {
        "$replay" --work --summary --interval 33333us --opp "$(awk '!/^#/ && !n++' "$top_srcdir/tests/traces/rk3399-gpu.opp")" \
                --governor "$1" "$2" | sed -nE 's/^Misses +: ([0-9]+) .*/\1/p'
}

for governors in simple_ondemand,energy_aware performance,powersave,ondemand; do
        out=$tmp/trace-${governors//,/-}.svg
        plotted "$governors" "$out" trace "$tmp/small.csv"
        is "trace, $governors: exit 0" "$rc" 0
        [[ $rc == 0 ]] || diag "stderr: $err"
        check "... a valid SVG (xmllint --noout)" xmllint --noout "$out"
        is "... one frequency series per governor" "$(ids "$out" frequency)" "$(sorted "$governors")"
        is "... one row of misses per governor" "$(ids "$out" misses)" "$(sorted "$governors")"
        is "... one energy bar per governor" "$(ids "$out" energy)" "$(sorted "$governors")"
        for g in ${governors//,/ }; do
                n=$(misses_of "$g" "$tmp/small.csv")
                check "... $g's label has devfreq-replay's $n misses" grep -qF ">$g ($n)<" "$out"
        done
done
check "the optimum drawn where there is one" grep -qF 'offline optimum (no miss)' "$tmp/trace-simple_ondemand-energy_aware.svg"

plotted simple_ondemand,energy_aware "$tmp/again.svg" trace "$tmp/small.csv"
check "the same input, the same bytes" cmp -s "$tmp/again.svg" "$tmp/trace-simple_ondemand-energy_aware.svg"

plotted simple_ondemand,energy_aware "$tmp/family.svg" family video --seeds 5000-5001
is "family video, seeds 5000-5001: exit 0" "$rc" 0
[[ $rc == 0 ]] || diag "stderr: $err"
check "... a valid SVG" xmllint --noout "$tmp/family.svg"
is "... one series per governor" "$(ids "$tmp/family.svg" family)" "energy_aware simple_ondemand"

plotted simple_ondemand,no_such "$tmp/bad.svg" trace "$tmp/small.csv"
check "an unknown governor: a failure" test "$rc" -ne 0 -a ! -e "$tmp/bad.svg"
like "... naming devfreq-replay's complaint" "$err" '^plot-governors: devfreq-replay --governor no_such'
plotted simple_ondemand "$tmp/bad.svg" trace "$tmp/missing.csv"
check "a missing trace: a failure, one line" eval '[[ $rc -ne 0 && $err == plot-governors:* && $err != *$'"'"'\n'"'"'* ]]'
plotted simple_ondemand,simple_ondemand "$tmp/bad.svg" trace "$tmp/small.csv"
is "a governor twice: a usage error" "$rc" 2

tap_done
