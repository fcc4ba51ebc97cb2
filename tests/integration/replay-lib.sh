# devfreq-replay's tests share these (sourced after tap.sh, with $replay set): bad input is exit
# status 2 and one line on stderr.
# shellcheck shell=bash

# replay_run ARGS...: devfreq-replay's stderr into $replay_err and its exit status into
# $replay_status (stdout dropped).
replay_run() {
        set +e
        replay_err=$("$replay" "$@" 2>&1 >/dev/null)
        replay_status=$?
        set -e
}

# replay_bad DESCRIPTION PATTERN ARGS...: exit status 2 and one line on stderr matching PATTERN.
replay_bad() {
        local desc=$1 pattern=$2
        shift 2
        replay_run "$@"
        if [[ $replay_status == 2 && $(wc -l <<<"$replay_err") == 1 && $replay_err =~ $pattern ]]; then
                ok "$desc"
        else
                not_ok "$desc"
                diag "status $replay_status, stderr: $replay_err"
        fi
}

# replay_refused DESCRIPTION LINE ARGS...: exit status 2, and LINE the whole of stderr after
# "devfreq-replay: ".
replay_refused() {
        local desc=$1 line=$2
        shift 2
        replay_run "$@"
        is "$desc" "$replay_status: $replay_err" "2: devfreq-replay: $line"
}
