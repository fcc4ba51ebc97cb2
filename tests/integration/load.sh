#!/usr/bin/env bash
# Load: 100 clients (10 processes of 10 bus connections) doing 1,000 random request operations
# each, concurrently, on 8 devices. While the clients still hold their requests, every device's
# QoS aggregates equal what the clients' own models imply and the request objects are exactly the
# models' ones; once the clients are gone no request object remains, and the daemon's RSS is back
# within 256 KiB of where it was after a warm-up round.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

procs=${LOAD_PROCS:-10}
clients_per_proc=${LOAD_CLIENTS_PER_PROC:-10}
ops=${LOAD_OPS:-1000}
warmup_ops=${LOAD_WARMUP_OPS:-200}
seed=${LOAD_SEED:-$RANDOM$RANDOM}
rss_slack_kib=256
diag "seed $seed (LOAD_SEED=$seed reproduces the operations)"

make_root --gpus 8
devices=() client_devices=()
{
        printf '[daemon]\nautodiscover = no\nmax-requests-per-client = 64\nmax-requests = 4096\nmax-clients = 256\n'
        for k in 0 1 2 3 4 5 6 7; do
                devices+=("gpu$k")
                printf '\n[device gpu%s]\npath = /sys/class/devfreq/gpu%s\n' "$k" "$k"
                # Even devices are governed (powersave: no polling), odd ones clamp the kernel's governor.
                if ((k % 2 == 0)); then printf 'mode = govern\ngovernor = powersave\n'; else printf 'mode = clamp\n'; fi
                # Latency data on gpu0..gpu3 only: latency requests are valid there and refused elsewhere.
                if ((k < 4)); then
                        printf 'opp = 200MHz latency=2ms\nopp = 300MHz latency=1500us\nopp = 400MHz latency=1ms\n'
                        printf 'opp = 600MHz latency=500us\nopp = 800MHz latency=200us\n'
                        client_devices+=("gpu$k:latency")
                else
                        client_devices+=("gpu$k")
                fi
        done
} >"$tmp/devfreqd.conf"
start_bus
# Info would log each of the 100,000 operations; notice keeps warnings and errors.
start_daemon --log-level notice

name=org.devfreqd.Devfreq1
manager=/org/devfreqd/Devfreq1
status_kib() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$daemon_pid/status"; }

# no_requests_left: no request object in the tree, and every device's Requests is empty.
no_requests_left() {
        local d
        bctl tree "$name" >"$tmp/tree" || return 1
        ! grep -q "$manager/request/" "$tmp/tree" || return 1
        for d in "${devices[@]}"; do [[ $(prop "$d" Requests) == 0 ]] || return 1; done
}

# round NAME SEED OPS: $procs client processes run OPS operations per client and hold their
# requests; the models are left in $tmp/NAME.P.json. Sets round_ok (all clients ready).
round_fds=() round_pids=()
round_ready() {
        local f
        for f in "$tmp/$1".*.out; do grep -q '^\(ready\|error\)' "$f" || return 1; done
}
round_start() {
        local round=$1 s=$2 n=$3 p fd
        round_fds=() round_pids=()
        for ((p = 0; p < procs; p++)); do
                rm -f "$tmp/$round.$p.in" "$tmp/$round.$p.json"
                mkfifo "$tmp/$round.$p.in"
                : >"$tmp/$round.$p.out"
                (
                        # The other processes' fifos stay with the test only, so closing one ends its reader.
                        for fd in "${round_fds[@]}"; do exec {fd}>&-; done
                        exec "$PYTHON3" "$top_srcdir/tests/integration/load-client.py" run "$bus_address" "$s/$p" \
                                "$clients_per_proc" "$n" "$tmp/$round.$p.json" "${client_devices[@]}" \
                                <"$tmp/$round.$p.in" >"$tmp/$round.$p.out" 2>"$tmp/$round.$p.err"
                ) &
                round_pids+=($!)
                track $!
                exec {fd}>"$tmp/$round.$p.in"
                round_fds+=("$fd")
        done
        round_ok=yes
        if ! wait_until $((600 * slow)) round_ready "$round"; then
                round_ok=no
                diag "$round: not every client finished in time"
        fi
        if grep -h '^error' "$tmp/$round".*.out >"$tmp/$round.errors"; then
                round_ok=no
                diag "$round: a client failed:" "$(head -n 5 "$tmp/$round.errors")" "$(head -n 20 "$tmp/$round".*.err)"
        fi
}
# round_stop: the clients close their connections and exit.
round_stop() {
        local fd pid
        for fd in "${round_fds[@]}"; do exec {fd}>&-; done
        for pid in "${round_pids[@]}"; do
                wait "$pid" 2>/dev/null || true
                untrack "$pid"
        done
}
# round_counts NAME: the operations done, summed over the processes.
round_counts() {
        awk '/^ready/ { a += $2; u += $3; r += $4; i += $5 } END { printf "%d adds, %d updates, %d removes, %d invalid calls refused", a, u, r, i }' \
                "$tmp/$1".*.out
}

# check_models ROUND: the daemon against the union of the round's models; one assertion a device
# and one for the request objects (the warm-up's are summed up in one).
check_models() {
        local round=$1 models=() p d line agree field value objects word live wanted bad=0
        for ((p = 0; p < procs; p++)); do models+=("$tmp/$round.$p.json"); done
        "$PYTHON3" "$top_srcdir/tests/integration/load-client.py" check "$bus_address" "${models[@]}" -- \
                "${devices[@]}" >"$tmp/$round.check" 2>"$tmp/$round.check.err" ||
                diag "$round: the check failed: $(cat "$tmp/$round.check.err")"
        for d in "${devices[@]}"; do
                line=$(grep "^$d " "$tmp/$round.check" || true)
                agree=yes
                for field in ${line#* }; do
                        [[ $field == *=* ]] || { agree=no; continue; }
                        value=${field#*=}
                        [[ ${value%/*} == "${value#*/}" ]] || agree=no
                done
                [[ -n $line ]] || agree=no
                if [[ $round != run ]]; then
                        [[ $agree == yes ]] || { bad=1; diag "$round, daemon/model: ${line:-no answer for $d}"; }
                elif [[ $agree == yes ]]; then
                        ok "$d: aggregates and Requests equal what the clients' models imply (${line#* })"
                else
                        not_ok "$d: aggregates and Requests equal what the clients' models imply"
                        diag "daemon/model: ${line:-no answer}"
                fi
        done
        objects=$(grep '^objects' "$tmp/$round.check" || true)
        read -r word live wanted _ <<<"${objects:-none 0 0}"
        if [[ $word == objects && $live == "$wanted" && $bad == 0 ]]; then
                ok "$round: the $live live request objects are exactly the models' requests (owner, type and value)$(
                        [[ $round == run ]] || echo "; every aggregate agrees")"
        else
                not_ok "$round: the live request objects are exactly the models' requests"
                diag "${objects:-no answer}"
        fi
}

# --- warm-up: the same clients with fewer operations, twice, so that allocator pools and tables
# exist. Twice because of glibc's dynamic mmap threshold: the first large reply (GetManagedObjects
# of ~1,500 objects) is mmapped and freed, which raises the threshold, so the next one of that size
# comes from the heap, which then keeps it; only from then on is the heap at its working size.
started=$(date +%s)
for w in 1 2; do
        round_start "warmup$w" "$seed-warmup$w" "$warmup_ops"
        check "warm-up $w: $((procs * clients_per_proc)) clients x $warmup_ops operations ($(round_counts "warmup$w"))" \
                test "$round_ok" = yes
        check_models "warmup$w"
        round_stop
        check "warm-up $w: every request is gone with its client" wait_until $((30 * slow)) no_requests_left
        diag "after warm-up $w: VmRSS $(status_kib VmRSS) KiB, RssAnon $(status_kib RssAnon) KiB"
done
rss_before=$(status_kib VmRSS) anon_before=$(status_kib RssAnon)
diag "warm-up took $(($(date +%s) - started))s"

# --- the run
started=$(date +%s)
round_start run "$seed" "$ops"
seconds=$(($(date +%s) - started))
check "$((procs * clients_per_proc)) clients x $ops random operations, concurrently, on ${#devices[@]} devices, in ${seconds}s ($(round_counts run))" \
        test "$round_ok" = yes
diag "VmRSS with the clients' requests held: $(status_kib VmRSS) KiB"
check_models run

check "the daemon's log has no warning or error" bash -c "! grep -q '^<[0-4]>' '$daemon_log'"

# --- the clients leave
round_stop
check "once the clients have gone, no request object remains and every device's Requests is empty" \
        wait_until $((30 * slow)) no_requests_left
defaults=yes
for d in "${devices[@]}"; do
        [[ "$(prop "$d" QosMinFrequency) $(prop "$d" QosMaxFrequency) $(prop "$d" QosLatency)" == \
                "0 18446744073709551615 4294967295" ]] || defaults=no
done
is "... and every aggregate is back to its default" "$defaults" yes
rss_after=$(status_kib VmRSS) anon_after=$(status_kib RssAnon)
diag "after the run: VmRSS $rss_after KiB ($((rss_after - rss_before)) KiB), RssAnon $anon_after KiB ($((anon_after - anon_before)) KiB)"
if [[ ${DF_SANITIZERS:-no} == yes ]]; then
        # ASan keeps freed memory in its quarantine and its own allocator caches: RSS says nothing here.
        skip "RSS after the run within $rss_slack_kib KiB of after the warm-up (not meaningful under AddressSanitizer)"
else
        # The daemon's own memory is RssAnon: VmRSS also counts library pages that code paths
        # run for the first time page in (and memory pressure from the rest of the machine
        # pages out), which is no growth of the daemon's.
        check "RSS (RssAnon) after the run ($anon_after KiB) within $rss_slack_kib KiB of after the warm-up ($anon_before KiB)" \
                test $((anon_after - anon_before)) -le "$rss_slack_kib"
fi

check "the daemon is still running" daemon_alive
stop_daemon
is "SIGTERM: exit status 0" "$daemon_status" 0
tap_done
