# devfreq-replay's tests share these (sourced after tap.sh, with $replay set): bad input is exit
# status 2 and one line on stderr.
# replay_bad DESCRIPTION PATTERN ARGS...: exit status 2 and one line on stderr matching PATTERN.
replay_bad() {
        local desc=$1 pattern=$2 status err
        shift 2
        set +e
        err=$("$replay" "$@" 2>&1 >/dev/null)
        status=$?
        set -e
        if [[ $status == 2 && $(wc -l <<<"$err") == 1 && $err =~ $pattern ]]; then
                ok "$desc"
        else
                not_ok "$desc"
                diag "status $status, stderr: $err"
        fi
}
# replay_refused DESCRIPTION LINE ARGS...: exit status 2, and LINE the whole of stderr after
# "devfreq-replay: ".
replay_refused() {
        local desc=$1 line=$2 status err
        shift 2
        set +e
        err=$("$replay" "$@" 2>&1 >/dev/null)
        status=$?
        set -e
        is "$desc" "$status: $err" "2: devfreq-replay: $line"
}
