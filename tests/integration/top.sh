#!/usr/bin/env bash
# devfreqctl top in a pseudo-terminal (tests/integration/pty-run.py keeps its screen in a file):
# every device of the fake root on the screen, the range bar following a request, the detail of a
# device, sorting, resizing, the daemon leaving and coming back, q; and the status table when
# standard output is not a terminal.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = yes

$(gpu_load_section)
opp = 200MHz 825mV latency=2ms
opp = 300MHz 850mV latency=1500us
opp = 400MHz 900mV latency=1ms
opp = 600MHz 950mV latency=500us
opp = 800MHz 1050mV latency=200us

[thermal gpu-hot]
zone = gpu-thermal
devices = gpu
trip = 85C
clear = 80C
max-frequency = 300MHz
poll = 50ms
EOF
gpu_zone=/sys/devices/virtual/thermal/thermal_zone1
start_bus
start_daemon

# The devices as the daemon lists them (ListDevices), not as top shows them.
mapfile -t devices < <(bctl --json=short call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 \
        org.devfreqd.Devfreq1.Manager ListDevices |
        "$PYTHON3" -c 'import json,sys; [print(n) for n, _ in json.load(sys.stdin)["data"][0]]')
check "the fake root has gpu among several devices" eval '((${#devices[@]} >= 3)) && [[ " ${devices[*]} " == *" gpu "* ]]'

# --- not a terminal: the status table ----------------------------------------------------------

set +e
"$devfreqctl" top </dev/null >"$tmp/plain" 2>"$tmp/plain.err"
rc=$?
set -e
is "top into a file: exit 0" "$rc" 0
plain=$(<"$tmp/plain")
like "... the profile line first" "$plain" '^Profile: none'
like "... the status table's header" "$plain" $'\nNAME +KIND +MODE +GOVERNOR +CURRENT +MIN +MAX +LOAD +REQUESTS'
for d in "${devices[@]}"; do
        like "... a row for $d" "$plain" $'\n'"$d +(devfreq|cpufreq) "
done
check "... no terminal control sequences" eval '! grep -q $'"'"'\x1b'"'"' "$tmp/plain"'

# --- a terminal curses cannot drive: the status table, and why --------------------------------------

mkfifo "$tmp/control"
set +e
PTY_TERM=dumb "$PYTHON3" "$top_srcdir/tests/integration/pty-run.py" 30 130 "$tmp/dumb" "$tmp/control" -- \
        "$devfreqctl" top 2>"$tmp/pty.err"
rc=$?
set -e
is "top with TERM=dumb: exit 0" "$rc" 0
check "... says why it prints the table" grep -qF "devfreqctl: this terminal cannot move the cursor (TERM=dumb)" "$tmp/dumb"
check "... the status table" grep -qE '^NAME +KIND +MODE +GOVERNOR +CURRENT' "$tmp/dumb"
[[ $rc == 0 ]] || sed 's/^/#   |/' "$tmp/dumb"

# --- in a terminal -------------------------------------------------------------------------------

"$PYTHON3" "$top_srcdir/tests/integration/pty-run.py" 30 130 "$tmp/screen" "$tmp/control" -- \
        "$devfreqctl" top 2>"$tmp/pty.err" &
top_pid=$!
track $top_pid

# Written to a FIFO opened for reading too: never blocks, whether or not pty-run.py is still there.
send() { printf '%s\n' "$1" 1<>"$tmp/control"; }
has() { grep -qE -- "$1" "$tmp/screen"; }
row() { grep -E "^[ >]$1 " "$tmp/screen"; }
bar() {
        local b
        b=$(row "$1" | grep -oE '\[[-=#?]+\]') || return 1
        printf '%s\n' "${b%%$'\n'*}"
}
show_screen() {
        diag "the screen:"
        sed 's/^/#   |/' "$tmp/screen"
        [[ -s $tmp/pty.err ]] && sed 's/^/#   stderr: /' "$tmp/pty.err"
        return 0
}
# screen DESCRIPTION COMMAND...: one test waiting (5 s) for the screen to satisfy COMMAND; the
# screen is printed when it does not.
screen() {
        local desc=$1
        shift
        if wait_until $((5 * slow)) "$@"; then ok "$desc"; else
                not_ok "$desc"
                show_screen
        fi
}
alive() { kill -0 "$top_pid" 2>/dev/null; }
hz() { prop "$1" "$2"; }

# bar_fits DEVICE LOW HIGH: the device's bar is the effective range [MinFrequency, MaxFrequency]
# (read from the bus) over the table LOW..HIGH Hz: '=' inside, '-' outside, one '#' at the
# current frequency. The cell of F: (F - LOW) * (width - 1) / (HIGH - LOW), clipped to the bar.
bar_fits() {
        local b
        b=$(bar "$1") || return 1
        "$PYTHON3" - "$b" "$2" "$3" "$(hz "$1" MinFrequency)" "$(hz "$1" MaxFrequency)" \
                "$(hz "$1" CurrentFrequency)" <<'EOF'
import sys
bar, lo, hi, fmin, fmax, cur = sys.argv[1][1:-1], *map(int, sys.argv[2:])
w = len(bar)
cell = lambda f: 0 if f <= lo else w - 1 if f >= hi else (f - lo) * (w - 1) // (hi - lo)
want = ["=" if cell(fmin) <= i <= cell(fmax) else "-" for i in range(w)]
want[cell(cur)] = "#"
sys.exit(0 if bar == "".join(want) else 1)
EOF
}
requests_column() { row "$1" | awk '{print $NF}'; }

screen "top: the header with the profile and the sort" has '^ devfreqd .*Profile: none .*Sort: name'
for d in "${devices[@]}"; do
        screen "top: a row for $d" eval "row $d >/dev/null"
done
screen "top: gpu's bar is its whole table, the current point marked" bar_fits gpu 200000000 800000000
is "top: gpu has no request" "$(requests_column gpu)" 0

# --- a request narrows the range ------------------------------------------------------------------

wide_bar=$(bar gpu)
"$devfreqctl" --reason "top test" request gpu max 400MHz >"$tmp/request.out" 2>&1 &
request_pid=$!
track $request_pid
screen "top: the bar narrows to the ceiling of the request" eval '[[ $(bar gpu) == *-* ]] && bar_fits gpu 200000000 800000000'
is "... the bar is no longer the one before" "$([[ $(bar gpu) != "$wide_bar" ]] && echo changed)" changed
screen "... the request counted" eval '[[ $(requests_column gpu) == 1 ]]'

# --- the detail of gpu ------------------------------------------------------------------------------

first_row=4 # the header, a blank line, the column names
gpu_line=$(grep -nE '^[ >]gpu ' "$tmp/screen" | cut -d: -f1)
send "key $(printf 'j%.0s' $(seq $((gpu_line - first_row))))"
screen "top: j moves the selection to gpu" has '^>gpu '
send 'key \r'
screen "top: Enter opens gpu's detail" has '^ gpu \(devfreq, govern, simple_ondemand\)'
screen "... with its request, value and reason" has '^ max-frequency +400 MHz +:[0-9.]+ .*top test'
screen "... the aggregate that binds the range" has '^ QoS: max 400 MHz$'
screen "... and the time in state" has '^ Time in state:'
for f in "200 MHz" "300 MHz" "400 MHz" "600 MHz" "800 MHz"; do
        screen "... a histogram line for $f" has "^ +$f +[0-9]+\.[0-9]%"
done
send 'key \x1b'
screen "top: Esc goes back to the list" eval 'has "^ NAME +KIND" && row gpu >/dev/null'

# --- sorting ------------------------------------------------------------------------------------------

# sorted_by COLUMN: the rows' names ascending (name) or their CURRENT column descending (frequency).
sorted_by() {
        "$PYTHON3" - "$1" "$tmp/screen" <<'EOF'
import re, sys
unit = {"Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}
rows = [l for l in open(sys.argv[2]).read().splitlines() if re.match(r"^[ >][a-z0-9]+ +(devfreq|cpufreq) ", l)]
if len(rows) < 2:
    sys.exit(1)
if sys.argv[1] == "name":
    keys = [l[1:].split()[0] for l in rows]
    sys.exit(0 if keys == sorted(keys) else 1)
keys = [float(m.group(1)) * unit[m.group(2)] for m in (re.search(r"\] +([0-9.]+) (k?Hz|MHz|GHz) ", l) for l in rows)]
sys.exit(0 if keys == sorted(keys, reverse=True) else 1)
EOF
}
check "top: sorted by name at first" sorted_by name
send "key s"
screen "top: s sorts by frequency" eval 'has "Sort: frequency" && sorted_by frequency'
check "... the selection stays on gpu wherever its row went" has '^>gpu '
send "key s"
screen "top: s again sorts by load" has "Sort: load"
send "key s"
screen "top: and back to name" eval 'has "Sort: name" && sorted_by name'

# --- resizing -----------------------------------------------------------------------------------------

before=$(bar gpu)
send "resize 20 100"
screen "top: after a resize to 100 columns, a narrower bar" eval '(($(bar gpu | wc -c) < ${#before}))'
for d in "${devices[@]}"; do
        screen "... $d still shown" eval "row $d >/dev/null"
done
send "resize 20 70"
screen "top: at 70 columns, no room for a bar of 8 cells: no bar, gpu's row whole to its REQ column" \
        eval '! bar gpu >/dev/null && [[ $(requests_column gpu) == 1 ]]'
send "resize 40 160"
screen "top: after a resize to 160 columns, a wider bar" eval '(($(bar gpu | wc -c) > ${#before} + 1))'
screen "... which still fits the range" bar_fits gpu 200000000 800000000
check "top: still running after the resizes" alive

# --- the request ends ----------------------------------------------------------------------------------

kill -INT "$request_pid"
wait "$request_pid" || true
untrack "$request_pid"
screen "top: the request gone, the bar is the whole table again" eval '[[ $(bar gpu) != *-* ]] && bar_fits gpu 200000000 800000000'
screen "... no request counted" eval '[[ $(requests_column gpu) == 0 ]]'

# --- a thermal cap: its column only while a rule caps a device ------------------------------------

check "top: no CAP column while nothing is capped" eval '! has "^ NAME .* CAP *$"'
"$setload" --temp "$root$gpu_zone/temp" 90000
screen "top: a tripped rule adds the CAP column" has '^ NAME .* CAP *$'
screen "... with gpu's cap at the end of its row" eval '[[ $(row gpu) =~ \ 300\ MHz\ *$ ]]'
screen "... and the bar ends at the cap" eval '[[ $(bar gpu) == *-* ]] && bar_fits gpu 200000000 800000000'
"$setload" --temp "$root$gpu_zone/temp" 70000
screen "top: the rule released, the CAP column goes" eval '! has "^ NAME .* CAP *$" && [[ $(bar gpu) != *-* ]]'

# --- the daemon leaves and comes back --------------------------------------------------------------------

stop_daemon
screen "top: says when devfreqd leaves the bus" has 'devfreqd is not on the bus'
check "... and keeps running" alive
start_daemon
screen "top: shows the devices again when it comes back" eval 'row gpu >/dev/null && has "Profile: none"'

# --- q ---------------------------------------------------------------------------------------------------------

send "key q"
set +e
wait "$top_pid" # pty-run.py kills what is still running after 120 s
rc=$?
set -e
untrack "$top_pid"
is "top: q exits 0" "$rc" 0
[[ $rc == 0 ]] || show_screen
check "... with nothing on standard error" test ! -s "$tmp/pty.err"

# --- a terminal too small for anything: every line cut at its edge, q and ^C still end top ----------

# top_pty ROWS COLS [ENV...]: top in the background on a ROWS x COLS terminal, its PID in top_pid;
# $tmp/modes follows the terminal's modes. pty-run.py kills top after $deadline seconds.
deadline=$((10 * slow))
top_pty() {
        local rows=$1 cols=$2
        shift 2
        rm -f "$tmp/screen" "$tmp/modes"
        env PTY_MODES="$tmp/modes" PTY_RUN_SECONDS=$deadline "$@" "$PYTHON3" \
                "$top_srcdir/tests/integration/pty-run.py" "$rows" "$cols" "$tmp/screen" "$tmp/control" -- \
                "$devfreqctl" top 2>"$tmp/pty.err" &
        top_pid=$!
        track $top_pid
}
# quit: q, and top waited for (its exit and the terminal are checked below).
quit() {
        send "key q"
        wait "$top_pid" || true
        untrack "$top_pid"
}
# curses_up: top has the terminal in its own modes (no line editing, no echo), signals blocked.
curses_up() { grep -qx -- "-icanon -echo" "$tmp/modes"; }
# top_ends NAME: top's exit status and the terminal's modes once it has ended.
top_ends() {
        local rc
        set +e
        wait "$top_pid"
        rc=$?
        set -e
        untrack "$top_pid"
        is "$1: exit 0 within $deadline s" "$rc" 0
        ((rc == 0)) || diag "137 is top killed at the deadline, another 128 + N top killed by signal N" \
                "$(cat "$tmp/pty.err")"
        is "... the terminal back in line mode with echo (icanon echo)" "$(cat "$tmp/modes" 2>/dev/null)" "icanon echo"
}

for size in "3 20" "1 1"; do
        for key in q '\x03'; do
                name="top on a ${size/ /x} terminal, $([[ $key == q ]] && echo q || echo ^C)"
                top_pty $size
                if ! wait_until $((5 * slow)) curses_up; then
                        not_ok "$name: curses takes the terminal within $((5 * slow)) s"
                        diag "the terminal's modes: $(cat "$tmp/modes" 2>/dev/null)"
                fi
                send "key $key"
                top_ends "$name"
                if [[ $size == "3 20" ]]; then
                        like "... the header drawn on the first line" "$(sed -n 1p "$tmp/screen")" '^ devfreqd '
                        is "... cut at the 20th column: nothing wrapped onto the second line" \
                                "$(sed -n 2p "$tmp/screen")" ""
                fi
        done
done

# --- a narrow terminal: no bar, every row on its own line with its current frequency -------------------

# rows_fit: every device row of the screen has the current frequency that devfreqctl status shows
# for it, and every line between the column names and the keys is a row or blank (no row's end
# wrapped onto the next line). Why not, on standard error.
rows_fit() {
        "$devfreqctl" status >"$tmp/status" 2>&1 || return 1
        "$PYTHON3" - "$tmp/status" "$tmp/screen" <<'EOF'
import re, sys
freq = r"[0-9.]+ (?:Hz|kHz|MHz|GHz)"
want = {m.group(1): m.group(2) for m in
        (re.match(rf"^(\S+) +(?:devfreq|cpufreq) +\S+ +\S+ +({freq}) ", l) for l in open(sys.argv[1])) if m}
lines = open(sys.argv[2]).read().splitlines()
room = len(lines) - 4  # the header, a blank line, the column names; the keys at the bottom
if room < 1:
    sys.exit(f"no room for a row: the screen has {len(lines)} lines")
shown = 0
for n, line in enumerate(lines[3:-1], start=4):
    m = re.match(r"^[ >](\S+) +(?:devfreq|cpufreq) ", line)
    if not m:
        if line.strip():
            sys.exit(f"line {n} is neither a row nor blank: {line!r}")
        continue
    shown += 1
    if not re.search(rf" {re.escape(want.get(m.group(1), '?'))}( |$)", line):
        sys.exit(f"line {n}: {m.group(1)} without its current frequency {want.get(m.group(1))!r}: {line!r}")
if shown < min(len(want), room):
    sys.exit(f"{shown} rows shown of {len(want)}")
EOF
}
top_pty 12 60
if wait_until $((5 * slow)) rows_fit; then
        ok "top at 12x60: every row on its own line, with its current frequency"
else
        not_ok "top at 12x60: every row on its own line, with its current frequency"
        rows_fit 2>&1 | sed 's/^/# /' || true
        show_screen
fi
bars=$(grep -E '\[[-=#?]+\]' "$tmp/screen" || true)
is "... no bar: 60 columns leave none of 8 cells" "$bars" ""
send "resize 3 20"
screen "... resized to 3x20: the header cut at the 20th column, the line below it blank" \
        eval '[[ $(sed -n 1p "$tmp/screen") == " devfreqd "* && -z $(sed -n 2p "$tmp/screen") ]]'
send "resize 12 60"
screen "... and back to 12x60: the rows again" eval 'alive && rows_fit'
quit

# --- text in UTF-8 (a reason): drawn as it is, cut only between whole characters ---------------------

reason="café – ok 日本語" # two-, three-byte and double-width characters
"$devfreqctl" --reason "$reason" request gpu min 300MHz >"$tmp/request.out" 2>&1 &
request_pid=$!
track $request_pid
# gpu_detail: the selection moved to gpu, then its detail opened.
gpu_detail() {
        local n
        wait_until $((5 * slow)) eval 'row gpu >/dev/null' || return 0
        n=$(grep -nE '^[ >]gpu ' "$tmp/screen" | cut -d: -f1)
        ((n <= first_row)) || send "key $(printf 'j%.0s' $(seq $((n - first_row))))"
        wait_until $((5 * slow)) has '^>gpu ' || return 0
        send 'key \r'
}

top_pty 30 130 LC_ALL=C.UTF-8 PTY_RAW="$tmp/raw"
gpu_detail
screen "top under LC_ALL=C.UTF-8: gpu's request with its reason in UTF-8" has "^ min-frequency .* $reason\$"
check "... sent to the terminal as the very bytes of the reason" grep -qF "$reason" "$tmp/raw"
# bytes_at FILE TEXT: the bytes of FILE from the first "caf" on, as Python writes bytes.
bytes_at() {
        "$PYTHON3" -c 'import sys; d = open(sys.argv[1], "rb").read(); i = d.find(b"caf")
print(d[i:i + 40] if i >= 0 else "no \"caf\" at all")' "$1"
}
grep -qF "$reason" "$tmp/raw" || diag "what top wrote for it: $(bytes_at "$tmp/raw")"
quit
# At 70 columns the reason has 13: "café – ok 日" takes 12, 本 would end in the 14th.
top_pty 30 70 LC_ALL=C.UTF-8 PTY_RAW="$tmp/raw"
gpu_detail
cut="café – ok 日"
if wait_until $((5 * slow)) grep -qF "$cut" "$tmp/raw"; then
        ok "top at 70 columns: the reason cut at the edge, after \"$cut\""
else
        not_ok "top at 70 columns: the reason cut at the edge, after \"$cut\""
        show_screen
fi
check "... not a column further (本 would not fit)" eval '! grep -qF "$cut本" "$tmp/raw"'
grep -qF "$cut" "$tmp/raw" || diag "what top wrote for it: $(bytes_at "$tmp/raw")"
not_utf8=$("$PYTHON3" -c '
import sys
d = open(sys.argv[1], "rb").read()
try:
    d.decode("utf-8")
except UnicodeDecodeError as e:
    print(f"{e.reason} at byte {e.start}: {d[max(0, e.start - 12):e.end + 12]!r}")' "$tmp/raw")
is "... all that top wrote is UTF-8: no character cut in half" "$not_utf8" ""
quit
kill -INT "$request_pid"
wait "$request_pid" || true
untrack "$request_pid"

# --- the bus goes away: exit 1, saying so ------------------------------------------------------------

rm -f "$tmp/screen"
"$PYTHON3" "$top_srcdir/tests/integration/pty-run.py" 30 130 "$tmp/screen" "$tmp/control" -- \
        "$devfreqctl" top 2>"$tmp/pty.err" &
top_pid=$!
track $top_pid
screen "top again" eval 'row gpu >/dev/null'
kill -TERM "$bus_pid"
set +e
wait "$top_pid"
rc=$?
set -e
untrack "$top_pid"
is "top: the bus gone, exit 1" "$rc" 1
check "... saying so" grep -qF "devfreqctl: lost the connection to the bus" "$tmp/screen"
grep -qF "lost the connection" "$tmp/screen" || show_screen

stop_daemon
tap_done
