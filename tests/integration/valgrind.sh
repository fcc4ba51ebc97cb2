#!/usr/bin/env bash
# Memory errors and leaks: a representative set of the integration tests runs again with devfreqd
# under valgrind's memcheck (DF_VALGRIND=1, lib.sh); each still passes, and every run's log says
# "ERROR SUMMARY: 0 errors" with no definitely or indirectly lost bytes. Runs ended by kill -9 (the
# restore tests) write no summary: they pass when nothing was reported before the kill.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

tests=(daemon-load daemon-reload daemon-faults daemon-restore bus-clients devfreqctl)

if [[ ${DF_SANITIZERS:-no} == yes ]]; then
        skip "sanitizer build: valgrind cannot run AddressSanitizer binaries"
        tap_done
        exit
fi
if ! command -v valgrind >/dev/null 2>&1; then
        skip "valgrind is not installed"
        tap_done
        exit
fi
diag "$(valgrind --version)"

# valgrind 3.19 does not know openat2 (syscall 437 on every architecture): libdevfreq falls back to
# a userspace walk on ENOSYS, and valgrind prints these five lines for each call. Only they are
# dropped; every other line of the log is kept for the checks below.
noise='^--[0-9]+-- (WARNING: unhandled [a-z0-9]+-linux syscall: 437|You may be able to write your own handler\.|Read the file README_MISSING_SYSCALL_OR_IOCTL\.|Nevertheless we consider this a bug\.  Please report|it at http://valgrind\.org/support/bug_reports\.html\.)$'
log_body() { grep -v -E "$noise" "$1" || true; }

# vg_problems LOG: prints what is wrong with one run's log (nothing when it is clean).
vg_problems() {
        local body summary
        body=$(log_body "$1")
        # A stack trace means memcheck reported something (an error, or a leak it counts as one).
        head -n 5 < <(grep -E '^==[0-9]+== +(at|by) 0x' <<<"$body")
        grep -E '^==[0-9]+== Process terminating' <<<"$body" || true
        grep -E '^==[0-9]+== +(definitely|indirectly) lost: [1-9]' <<<"$body" || true
        summary=$(grep -E '^==[0-9]+== ERROR SUMMARY:' <<<"$body" || true)
        if [[ -n $summary && $summary != *"ERROR SUMMARY: 0 errors"* ]]; then
                echo "$summary"
        fi
        # Anything valgrind itself warned about, other than the openat2 noise.
        grep -E '^--[0-9]+-- ' <<<"$body" | sort | uniq -c | sed 's/^ */valgrind warning (x/; s/ /): /' || true
}

total_runs=0 total_killed=0 total_allocs=0
for t in "${tests[@]}"; do
        logdir=$tmp/valgrind/$t
        mkdir -p "$logdir"
        started=$(date +%s)
        set +e
        DF_VALGRIND=1 DF_VALGRIND_LOGDIR=$logdir bash "$top_srcdir/tests/integration/$t.sh" >"$tmp/$t.tap" 2>&1
        status=$?
        set -e
        seconds=$(($(date +%s) - started))
        passed=$(grep -c '^ok ' "$tmp/$t.tap" || true)
        failed=$(grep -c '^not ok ' "$tmp/$t.tap" || true)
        plan=$(grep -E '^1\.\.[0-9]+$' "$tmp/$t.tap" || true)
        if ((status == 0 && failed == 0 && passed > 0)) && [[ $plan == "1..$passed" ]]; then
                ok "$t.sh passes with devfreqd under valgrind ($passed assertions, ${seconds}s)"
        else
                not_ok "$t.sh passes with devfreqd under valgrind"
                diag "exit status $status, $passed ok, $failed not ok, plan '$plan', ${seconds}s; failures:"
                head -n 60 < <(grep -A4 '^not ok \|^Bail out' "$tmp/$t.tap") | sed 's/^/#   /'
        fi

        logs=()
        for log in "$logdir"/*.log; do [[ -e $log ]] && logs+=("$log"); done
        check "$t.sh: devfreqd ran under valgrind (${#logs[@]} runs)" test "${#logs[@]}" -gt 0
        for log in "${logs[@]}"; do
                run=${log%.log}
                run="$t, run ${run##*.}"
                total_runs=$((total_runs + 1))
                problems=$(vg_problems "$log")
                summary=$(log_body "$log" | grep -E '^==[0-9]+== ERROR SUMMARY:' | sed 's/^==[0-9]*== //' || true)
                usage=$(log_body "$log" | grep -E 'total heap usage:' | sed 's/^==[0-9]*== *//' || true)
                if [[ -n $summary ]]; then
                        allocs=$(sed -n 's/total heap usage: \([0-9,]*\) allocs.*/\1/p' <<<"$usage" | tr -d ,)
                        total_allocs=$((total_allocs + ${allocs:-0}))
                        lost=$(log_body "$log" | grep -E '(definitely|indirectly) lost:' | sed 's/^==[0-9]*== *//' |
                                paste -sd ';' - || true)
                        desc="$run: $summary; ${lost:-no leaks possible} ($usage)"
                else
                        total_killed=$((total_killed + 1))
                        desc="$run: killed with SIGKILL by the test, nothing reported before"
                fi
                if [[ -z $problems && (-n $summary || $(log_body "$log") == *"Command: "*) ]]; then
                        ok "$desc"
                else
                        not_ok "$desc"
                        diag "log $log:" "$problems"
                        head -n 80 < <(log_body "$log" | grep -E '^==[0-9]+== ') | sed 's/^/#   /'
                fi
        done
done
diag "$total_runs runs of devfreqd under memcheck ($total_killed ended by SIGKILL), $total_allocs allocations checked"
tap_done
