#!/usr/bin/env bash
# The tests' TAP helpers fail loudly: a shell script stopped by set -e (lib.sh) and a Python one
# stopped by an exception (tap.py) print a "Bail out!" that names where and why, never a bare
# exit; a failed case prints "not ok" with its details and the plan, and the script exits non-zero.
# Each is a small script written here and run as the tests are.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# run SCRIPT: its output in $out, its exit status in $rc.
run() {
        rc=0
        out=$("$@" 2>&1) || rc=$?
}

# --- the shell helpers (lib.sh and tap.sh) --------------------------------------------------------
cat >"$tmp/stopped.sh" <<EOS
set -euo pipefail
source "$top_srcdir/tests/integration/lib.sh"
ok "the first case"
false
ok "a case after the failing command"
tap_done
EOS
run bash "$tmp/stopped.sh"
contains "sh: a script stopped by set -e says where, as a bail-out" "$out" \
        "Bail out! stopped.sh stopped at line 4 (status 1): false"
is "sh: ... after its first case, and nothing after the command" "$(grep -c '^ok' <<<"$out")" 1
is "sh: ... and it exits non-zero" "$rc" 1

cat >"$tmp/stopped-in-function.sh" <<EOS
set -euo pipefail
source "$top_srcdir/tests/integration/lib.sh"
helper() { false; }
helper
tap_done
EOS
run bash "$tmp/stopped-in-function.sh"
contains "sh: a script stopped inside a helper function says where too" "$out" \
        "Bail out! stopped-in-function.sh stopped at line 3 (status 1): false"

cat >"$tmp/failed.sh" <<EOS
set -euo pipefail
source "$top_srcdir/tests/integration/lib.sh"
ok "a good case"
is "a bad case" "got this" "wanted that"
is "a bad case of many lines" \$'ok 9 - a line of output\nBail out! another' "one line"
check "a failed command" grep -q "no such line" /dev/null
tap_done
EOS
run bash "$tmp/failed.sh"
contains "sh: a failed case says what it got and what was expected" "$out" \
        $'not ok 2 - a bad case\n#   got:      got this\n#   expected: wanted that'
contains "sh: ... every line of a value of many lines is a comment" "$out" \
        $'not ok 3 - a bad case of many lines\n#   got:      ok 9 - a line of output\n#             Bail out! another\n#   expected: one line'
contains "sh: a failed check names the command and its status" "$out" \
        $'not ok 4 - a failed command\n#   command: grep -q no such line /dev/null\n#   status:  1'
contains "sh: ... the plan follows" "$out" "1..4"
is "sh: ... with no bail-out (the plan was printed)" "$(grep -c '^Bail out' <<<"$out")" 0
is "sh: ... and it exits non-zero" "$rc" 1

# --- the Python helper (tap.py) ---------------------------------------------------------------------
py_prelude="import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, '$top_srcdir/tests/integration')
import tap"
cat >"$tmp/stopped.py" <<EOS
$py_prelude


def main(t):
    t.ok(True, "the first case")
    {}["no such key"]
    t.ok(True, "a case after the exception")


tap.run(main)
EOS
run "$PYTHON3" "$tmp/stopped.py"
contains "py: a script stopped by an exception says so, as a bail-out" "$out" \
        "Bail out! stopped.py stopped after 1 cases: KeyError: 'no such key'"
contains "py: ... with the traceback, line by line" "$out" $'# Traceback (most recent call last):'
like "py: ... that names the line" "$out" "# +File \"$tmp/stopped.py\", line 9, in main"
is "py: ... nothing after the exception, and no plan" "$(grep -cE '^ok 2|^1\.\.' <<<"$out")" 0
is "py: ... and it exits with 99, automake's hard error" "$rc" 99

cat >"$tmp/failed.py" <<EOS
$py_prelude


def main(t):
    t.ok(True, "a good case", ["not printed"])
    t.ok(False, "a bad case", ["line %d" % i for i in range(100)])
    t.ok(False, "a bad case of many lines", ["ok 9 - a line of output\nBail out! another"])


tap.run(main)
EOS
run "$PYTHON3" "$tmp/failed.py"
contains "py: a failed case prints its details" "$out" $'not ok 2 - a bad case\n#   line 0\n#   line 1'
is "py: ... up to 40 lines of them" "$(grep -c '^#   line' <<<"$out")" 40
is "py: ... and none under a passed case" "$(grep -c 'not printed' <<<"$out")" 0
contains "py: ... every line of a detail of many lines is a comment" "$out" \
        $'not ok 3 - a bad case of many lines\n#   ok 9 - a line of output\n#   Bail out! another'
is "py: ... the plan follows, with no bail-out" "$(tail -n 1 <<<"$out") $(grep -c '^Bail out' <<<"$out")" "1..3 0"
is "py: ... and it exits 1" "$rc" 1

cat >"$tmp/passed.py" <<EOS
$py_prelude


def main(t):
    t.ok(True, "a good case")


tap.run(main)
EOS
run "$PYTHON3" "$tmp/passed.py"
is "py: all cases passed: the plan, exit 0" "$out $rc" $'ok 1 - a good case\n1..1 0'

tap_done
