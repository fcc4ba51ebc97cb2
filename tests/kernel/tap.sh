# Sourced by the kernel tier's guest scripts (tests/kernel/guest.sh, tests/kernel/guest-systemd.sh):
# TAP lines on the console, each prefixed with "KTAP " for tests/kernel/run, and the waits and
# lookups both need. The caller sets n (the number of the last case) and tmp (its directory).

say() { echo "KTAP $*"; }
diag() { sed 's/^/KTAP # /'; }
ok() { n=$((n + 1)); say "ok $n - $1"; }
not_ok() { n=$((n + 1)); say "not ok $n - $1"; }
is() {
        if [[ $2 == "$3" ]]; then
                ok "$1"
        else
                not_ok "$1"
                printf 'got:      %s\nexpected: %s\n' "$2" "$3" | diag
        fi
}
like() {
        if [[ $2 =~ $3 ]]; then
                ok "$1"
        else
                not_ok "$1"
                printf 'got:     %s\npattern: %s\n' "$2" "$3" | diag
        fi
}
# A case written with a helper that does not exist is a failure, not a line lost on stderr.
command_not_found_handle() {
        not_ok "the guest script runs '$1', which is not a command"
        return 127
}
check() {
        local what=$1 out
        shift
        if out=$("$@" 2>&1); then
                ok "$what"
        else
                not_ok "$what"
                { echo "failed: $*"; tail -n 15 <<<"$out"; } | diag
        fi
}
wait_until() {
        local end=$((SECONDS + $1))
        shift
        until "$@"; do
                ((SECONDS >= end)) && return 1
                sleep 0.1
        done
}
attr_is() { [[ $(cat "$1") == "$2" ]]; }

node_of() { # the devfreq class node whose parent is the platform device $1
        local d
        for d in /sys/class/devfreq/*; do
                [[ $(basename "$(readlink -f "$d/device")") == "$1" ]] && { echo "$d"; return 0; }
        done
        return 1
}

# Is the test module's GPU on the bus (GetDevice answers)?
gpu_on_bus() {
        busctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager GetDevice s dftest-gpu \
                >/dev/null 2>&1
}
gpu_off_bus() { ! gpu_on_bus; }

# A request of devfreqctl held until it is released: hold TAG DEVICE min|max VALUE; release TAG.
declare -A hold_pids
hold() {
        rm -f "$tmp/release.$1"
        "$devfreqctl" hold "$2" "$3" "$4" -- bash -c "until [ -e $tmp/release.$1 ]; do sleep 0.1; done" \
                >"$tmp/hold.$1.log" 2>&1 &
        hold_pids[$1]=$!
        pids+=($!)
}
# requests_held N: devfreqd lists N requests (a hold in the background has been taken).
requests_held() { [[ $("$devfreqctl" --json requests 2>/dev/null | grep -o '"Path"' | wc -l) == "$1" ]]; }
release() {
        touch "$tmp/release.$1"
        wait "${hold_pids[$1]}"
}
