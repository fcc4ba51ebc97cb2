#!/usr/bin/env bash
# Blame: binding time on a hand-built scenario (two floor requests, the higher binding for a
# measured interval, then removed: the other binds from then on), BindingTime growing while a
# request binds, the ring of ended requests keeping exactly 64, privacy for a caller that is not
# root, devfreqctl blame (table and --json), and a ceiling that lowers nothing not binding.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/bus-lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<EOF
[daemon]
autodiscover = no
request-groups = nogroup
max-requests-per-client = 100

$(gpu_load_section 100ms)
opp = 200MHz 825mV
opp = 400MHz 900mV
opp = 800MHz 1050mV

$(dmc_clamp_section)

; First in the file: on a tie with gpu-hot, the cap is board-hot's.
[thermal board-hot]
zone = cpu-thermal
devices = gpu
trip = 85C
clear = 80C
max-frequency = 400MHz
poll = 50ms

[thermal gpu-hot]
zone = gpu-thermal
devices = gpu
trip = 85C
clear = 80C
max-frequency = 400MHz
poll = 50ms
EOF
start_strict_bus
start_daemon
p_gpu=$(dev_path gpu)
poll_us=100000

now_us() { date +%s%6N; }
# blame PREFIX...: GetBlame on gpu (run through PREFIX, e.g. setpriv), as JSON rows.
blame() {
        "$@" busctl --address="$bus_address" --json=short call "$name" "$p_gpu" "$device_iface" GetBlame |
                "$PYTHON3" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["data"][0]))'
}
# rows CODE: python over the rows of $rows (as r); what it prints is the result.
rows() { "$PYTHON3" -c "import json,sys; r=json.load(sys.stdin); $1" <<<"$rows"; }
binding_of() { getv "$1" "$request_iface" BindingTime; }
# within NAME VALUE LO HI: LO <= VALUE <= HI, saying all three when not.
within() {
        if (($3 <= $2 && $2 <= $4)); then ok "$1"; else
                not_ok "$1"
                diag "$2 is not within [$3, $4]"
        fi
}

# ================================================================ the scenario
client_start A
client_start B
t0=$(now_us)
out=$(client_cmd A add gpu min-frequency 400000000 '{"reason": ["s", "low floor"]}')
t0b=$(now_us)
like "A adds a floor of 400 MHz" "$out" "^ok $manager_path/request/[0-9]+$"
req_a=${out#ok }
sleep 0.5
t1=$(now_us)
out=$(client_cmd B add gpu min-frequency 600000000 '{"reason": ["s", "high floor"]}')
t1b=$(now_us)
like "B adds a floor of 600 MHz" "$out" "^ok $manager_path/request/[0-9]+$"
req_b=${out#ok }
is "B's floor is the aggregate" "$(dget gpu QosMinFrequency)" 600000000
b1=$(binding_of "$req_b")
sleep 0.3
b2=$(binding_of "$req_b")
check "BindingTime of the binding request grows ($b1 -> $b2)" test "$b2" -gt "$b1"
a1=$(binding_of "$req_a")
sleep 0.3
a2=$(binding_of "$req_a")
is "BindingTime of a request that does not bind stays" "$a2" "$a1"
within "A bound from its start until B came, within one polling interval" "$a1" \
        $((t1 - t0b - poll_us)) $((t1b - t0 + poll_us))
sleep 0.5
t2=$(now_us)
is "B removed" "$(client_cmd B remove "$req_b")" "ok"
t2b=$(now_us)
is "A's floor is the aggregate again" "$(dget gpu QosMinFrequency)" 400000000
sleep 0.4
t3=$(now_us)
a3=$(binding_of "$req_a")
t3b=$(now_us)
within "A binds again from B's removal on" "$((a3 - a1))" $((t3 - t2b - poll_us)) $((t3b - t2 + poll_us))

rows=$(blame)
is "GetBlame lists A live and B ended" "$(rows 'print(sorted(f"{e[0] != 0}:{e[5]}" for e in r))')" \
        "['False:high floor', 'True:low floor']"
b_end=$(rows 'print([e[7] for e in r if e[0] == 0][0])')
within "B's binding time is its measured interval, within one polling interval" "$b_end" \
        $((t2 - t1b - poll_us)) $((t2b - t1 + poll_us))
is "an ended request keeps its type, uid, value and command" \
        "$(rows 'e=[e for e in r if e[0] == 0][0]; print(e[1], e[2], e[6], e[4])')" \
        "min-frequency 0 600000000 python3"
is "GetBlame is sorted by binding time, longest first" \
        "$(rows 'v=[e[7] for e in r]; print(v == sorted(v, reverse=True))')" True

# ================================================================ devfreqctl blame
# A, live, binds on: by now it has bound longer than B did (more than B's interval + 0.3 s).
sleep 1
out=$("$devfreqctl" blame gpu)
like "blame: the header" "$out" '^ *BINDING +TYPE +VALUE +REQUEST +UID UNIT +COMMAND'
like "blame: A's live row" "$out" $'\n *[0-9.]+(s|ms) +min-frequency +400 MHz +[0-9]+ +0 [^\n]* +python3: low floor'
like "blame: B's ended row" "$out" $'\n *[0-9.]+(s|ms) +min-frequency +600 MHz +ended +0 [^\n]* +python3: high floor'
contains "blame: the longest first" "$(sed -n 2p <<<"$out")" "low floor"
out=$("$devfreqctl" --json blame gpu)
is "blame --json: the entries GetBlame has" \
        "$("$PYTHON3" -c 'import json,sys; d=json.load(sys.stdin); v=[e["binding_usec"] for e in d["entries"]]; print(d["device"], [e["reason"] for e in d["entries"]], v == sorted(v, reverse=True))' <<<"$out")" \
        "gpu ['low floor', 'high floor'] True"

complete_words() {
        (
                PATH=$top_builddir/tools:$PATH
                # shellcheck source=/dev/null
                source "$top_srcdir/tools/devfreqctl.bash-completion"
                COMP_WORDS=("$@")
                COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
                COMPREPLY=()
                _devfreqctl
                echo "${COMPREPLY[*]}"
        )
}
is "completion: blame and metrics" "$(complete_words devfreqctl b) $(complete_words devfreqctl m)" "blame monitor metrics"
is "completion: blame's devices" "$(complete_words devfreqctl blame '')" "dmc gpu"

# ================================================================ privacy
client_start N "${as_nobody[@]}"
out=$(client_cmd N add gpu max-frequency 800000000 '{"reason": ["s", "nobody reason"]}')
like "nobody adds a request (request-groups)" "$out" "^ok $manager_path/request/[0-9]+$"
rows=$(blame "${as_nobody[@]}")
is "nobody sees root's requests without command and reason" \
        "$(rows 'print(sorted((e[2], e[4], e[5]) for e in r if e[2] == 0))')" "[(0, '', ''), (0, '', '')]"
nobody_uid=$(id -u nobody)
is "nobody sees its own command and reason" \
        "$(rows "print([(e[4], e[5]) for e in r if e[2] == $nobody_uid])")" "[('python3', 'nobody reason')]"
rows=$(blame)
is "root sees every command and reason" "$(rows 'print(sorted(e[5] for e in r))')" \
        "['high floor', 'low floor', 'nobody reason']"
out=$("${as_nobody[@]}" "$devfreqctl" --bus "$bus_address" blame gpu)
contains "devfreqctl blame as nobody marks what is hidden" "$out" "(hidden)"
client_stop N

# ================================================================ the ring keeps exactly 64
client_start C
is "C adds 70 requests" "$(client_cmd C addn gpu min-frequency 200000000 70)" "ok ok=70"
client_stop C
only_a() { [[ $(prop gpu Requests) == "1 \"$req_a\"" ]]; }
wait_until 10 only_a || diag "Requests: $(prop gpu Requests)"
rows=$(blame)
is "the ring keeps the last 64 ended requests" "$(rows 'print(sum(1 for e in r if e[0] == 0))')" 64
is "... beside the live one" "$(rows 'print(sum(1 for e in r if e[0] != 0))')" 1
is "... the oldest ended ones went first (B's and nobody's)" \
        "$(rows 'print(sorted(set(e[5] for e in r if e[0] == 0)))')" "['']"

# ================================================================ a thermal rule owns its cap
temp() { "$setload" --temp "$root/sys/devices/virtual/thermal/thermal_zone1/temp" "$1"; }
cap_is() { [[ $(dget gpu ThermalCap) == "$1" ]]; }
t4=$(now_us)
temp 90000
check "the rule trips" wait_until 5 cap_is 400000000
t4b=$(now_us)
sleep 0.6
t5=$(now_us)
temp 70000
check "the rule releases" wait_until 5 cap_is 0
t5b=$(now_us)
rows=$(blame "${as_nobody[@]}")
is "the rule's cap is in GetBlame, public" "$(rows 'print([(e[1], e[2], e[4], e[5], e[6]) for e in r if e[4].startswith("thermal")])')" \
        "[('max-frequency', 0, 'thermal gpu-hot', 'thermal gpu-hot', 400000000)]"
within "its binding time is the time it capped, within one of its polls" \
        "$(rows 'print([e[7] for e in r if e[4] == "thermal gpu-hot"][0])')" $((t5 - t4b - 50000)) $((t5b - t4 + 50000))

# ================================================================ a tie handed over
# board-hot and gpu-hot set the same cap. While both are tripped it is board-hot's (the first);
# when board-hot releases, the cap stays and its time goes on as gpu-hot's.
board_temp() { "$setload" --temp "$root/sys/devices/virtual/thermal/thermal_zone0/temp" "$1"; }
tripped() { [[ $(getp "$manager_path" "$manager_iface" ThermalRules) =~ \"$1\"\ \"[^\"]*\"\ $2\  ]]; }
thermal_time() { rows 'print(sum(e[7] for e in r if e[4] == "thermal '"$1"'"))'; }
board_temp 90000
check "board-hot trips" wait_until 5 tripped board-hot true
temp 90000
check "gpu-hot trips too, at the same cap" wait_until 5 tripped gpu-hot true
rows=$(blame)
g0=$(thermal_time gpu-hot)
sleep 0.3
rows=$(blame)
is "gpu-hot is not charged while board-hot holds the tie" "$(thermal_time gpu-hot)" "$g0"
board_temp 70000
check "board-hot releases" wait_until 5 tripped board-hot false
is "the cap stays, gpu-hot's" "$(dget gpu ThermalCap)" 400000000
rows=$(blame)
b1=$(thermal_time board-hot) g1=$(thermal_time gpu-hot)
sleep 0.6
rows=$(blame)
b2=$(thermal_time board-hot) g2=$(thermal_time gpu-hot)
like "devfreqctl blame: a rule's row says rule, not ended, while it caps" "$("$devfreqctl" blame gpu)" \
        $'\n *[0-9.]+(s|ms) +max-frequency +400 MHz +rule +0 - +thermal gpu-hot\n'
like "... and after it released" "$("$devfreqctl" blame gpu)" \
        $'\n *[0-9.]+(s|ms) +max-frequency +400 MHz +rule +0 - +thermal board-hot(\n|$)'
is "board-hot's binding time stops when it releases" "$b2" "$b1"
check "gpu-hot's grows from then on ($g1 -> $g2 µs)" test $((g2 - g1)) -ge 500000
temp 70000
check "gpu-hot releases" wait_until 5 cap_is 0

# ================================================================ only a request that decides binds
# A ceiling at the highest point lowers nothing; one at 400 MHz does.
out=$(client_cmd B add gpu max-frequency 800000000 '{"reason": ["s", "no ceiling"]}')
like "B adds a ceiling at the highest point" "$out" "^ok $manager_path/request/[0-9]+$"
req_top=${out#ok }
sleep 0.3
is "a ceiling that lowers nothing does not bind" "$(binding_of "$req_top")" 0
out=$(client_cmd B add gpu max-frequency 400000000 '{"reason": ["s", "real ceiling"]}')
like "B adds a ceiling of 400 MHz" "$out" "^ok $manager_path/request/[0-9]+$"
req_low=${out#ok }
sleep 0.3
c1=$(binding_of "$req_low")
check "a ceiling below the highest point binds ($c1 µs)" test "$c1" -gt 0
is "... and the one at the top still does not" "$(binding_of "$req_top")" 0
is "B removes both" "$(client_cmd B remove "$req_low")$(client_cmd B remove "$req_top")" "okok"

client_stop A
client_stop B
check "the daemon still serves" serving gpu
stop_daemon TERM
is "devfreqd exits cleanly" "$daemon_status" "0"
tap_done
