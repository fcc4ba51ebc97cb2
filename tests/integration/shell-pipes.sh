#!/usr/bin/env bash
# The project's shell scripts run with pipefail, where a pipe into a reader that stops early (grep
# -q or -m, head) fails whenever the writer still had output when the reader left: the writer dies
# of SIGPIPE and the pipe's status is 141, a case that fails or an assignment that stops the script
# on a busy machine only. Such a reader reads from a process substitution instead, whose writer's
# status nobody takes: grep -q PATTERN < <(COMMAND). This checks that no script of the tree breaks
# the rule, and that the hazard is real. TAP on stdout.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

# A writer with more than a pipe's buffer to say, into grep -q that finds its first line.
set +e
bash -o pipefail -c 'seq 200000 | grep -q "^1$"'
status=$?
set -e
is "under pipefail, a pipe into grep -q that leaves early fails with the writer's SIGPIPE" "$status" 141
set +e
bash -o pipefail -c 'grep -q "^1$" < <(seq 200000)'
status=$?
set -e
is "... and grep -q from a process substitution does not" "$status" 0

# Every shell script of the source tree: the .sh files and those whose first line names a shell.
scripts=()
while IFS= read -r -d '' f; do
        [[ $f == */shell-pipes.sh ]] && continue
        first=
        [[ $f == *.sh ]] || IFS= read -r first <"$f" || true
        if [[ $f == *.sh || $first =~ ^#!.*[/\ ](ba)?sh$ ]]; then scripts+=("$f"); fi
done < <(find "$top_srcdir/tests" "$top_srcdir/tools" "$top_srcdir/debian" "$top_srcdir/.ci" \
        "$top_srcdir/autogen.sh" -type f ! -name '*.[ch]' ! -name '*.py' -print0 2>/dev/null)
diag "${#scripts[@]} shell scripts"
check "the tree has shell scripts to read (at least 40, found ${#scripts[@]})" test "${#scripts[@]}" -ge 40

# A pipe (not ||) into grep with -q, -m or their long names, or with its output to /dev/null (GNU
# grep then stops at the first match too), or into head; comment lines aside.
pipe='(^|[^|])\|&?[[:space:]]*'
early="$pipe(grep|egrep|fgrep)[[:space:]]([^|]*[[:space:]])?(-[a-zA-Z]*[qm]|--quiet|--silent|--max-count)"
early+="|$pipe(grep|egrep|fgrep)[[:space:]][^|)]*[[:space:]](1?>|&>)[[:space:]]*/dev/null"
early+="|$pipe""head\b"
# The rule reads what it must: each form it forbids, and none of the forms that are fine.
bad=('log | grep -q x' 'f() { a |grep -i -q x; }' 'x=$(a | grep -m1 x)' 'a | grep --quiet x' 'a |& head -n1'
        'a | grep x >/dev/null' 'a | grep x &> /dev/null')
good=('a || grep -q x f' 'grep -q x < <(a)' 'x=$(head -n1 < <(a))' 'a | grep -c x' 'a | grep -v x 2>/dev/null'
        'cmd "$(a | grep x)" >/dev/null' 'a | sed -n 1p')
flagged() { grep -Eq "$early" <<<"$1"; }
for line in "${bad[@]}"; do check "the rule flags: $line" flagged "$line"; done
for line in "${good[@]}"; do check "the rule lets pass: $line" eval '! flagged "$line"'; done

found=$(grep -HnE "$early" "${scripts[@]}" | grep -Ev '^[^:]+:[0-9]+:[[:space:]]*#' || true)
found=${found//"$top_srcdir/"/}
is "no script pipes into a reader that stops early" "$found" ""

tap_done
