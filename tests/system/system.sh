#!/usr/bin/env bash
# The system tier: the installed devfreqd (make install DESTDIR=) as devfreqd.service under a
# real systemd, PID 1 of new namespaces, with systemd-journald, the system dbus-daemon started
# by dbus.socket, polkitd, the installed unit, bus policy, activation file, polkit actions and
# /etc/devfreqd.conf; the devices are fake sysfs nodes on tmpfs mounts in the namespace. Each
# case drives it from outside with systemctl, busctl and journalctl, as an administrator would.
# Needs root and namespaces; otherwise the whole tier is a SKIP with the reason.
set -euo pipefail
PYTHON3=/usr/bin/python3
source "$(dirname "$0")/lib.sh"
# The package mode: DF_SYSTEM_PACKAGE names a devfreqd .deb, installed with dpkg -i in the
# namespace instead of make install, then removed and purged (tests/system/package.sh).
package=${DF_SYSTEM_PACKAGE:-}
if [[ -n $package ]]; then
        package=$(realpath -- "$package")
        source "$(dirname "$0")/package.sh"
fi

# The highest exposure level systemd-analyze security may give the installed unit.
max_exposure=1.2

name=org.devfreqd.Devfreq1
manager_path=/org/devfreqd/Devfreq1
manager_iface=org.devfreqd.Devfreq1.Manager
device_iface=org.devfreqd.Devfreq1.Device
denied=org.freedesktop.DBus.Error.AccessDenied
dmc=/sys/devices/platform/dmc/devfreq/dmc
pstate=/sys/devices/system/cpu/cpufreq/policy2

check_machine
# Under the unit's SystemCallFilter=, LeakSanitizer cannot ptrace the daemon at exit and makes
# every clean stop exit 1: the normal build runs this tier.
[[ ${DF_SANITIZERS:-no} == yes ]] &&
        skip_all "sanitizer build: LeakSanitizer needs ptrace(), which the unit's system call filter refuses"

mkdir -p "$top_builddir/tests/system"
# In the build tree, not /tmp: the unit's PrivateTmp= and ProtectHome= hide those paths.
work=$(mktemp -d "$top_builddir/tests/system/work.XXXXXX")
cleanup() {
        shutdown_namespaces
        rm -rf "$work"
}
trap cleanup EXIT

if [[ -n $package ]]; then install_package; else install_build; fi
prepare_units
"$top_srcdir/tests/fixtures/mkroot" "$work/fakeroot"
# Originals that are neither the daemon's values nor the hardware bounds: a restore that writes
# "no limit" or leaves the daemon's values is told apart from one that puts these back.
printf '666000000\n' >"$work/fakeroot$dmc/max_freq"
printf '1200000\n' >"$work/fakeroot$pstate/scaling_min_freq"
before=$(host_state)

boot

# --- helpers over the namespace -------------------------------------------------------------------

node() { inside cat "$1" | tr -d '\n'; }
show() { sctl show -P "$2" "$1"; }
state() { echo "$(show devfreqd ActiveState)/$(show devfreqd SubState)"; }
running() { [[ $(state) == active/running ]]; }
running_as() { running && [[ $(show devfreqd MainPID) == "$1" ]]; }
# is_state UNIT STATE: the unit's ActiveState is STATE.
is_state() { [[ $(show "$1" ActiveState) == "$2" ]]; }
# node_is PATH VALUE: the fake node's attribute holds VALUE.
node_is() { [[ $(node "$1") == "$2" ]]; }
journal() { inside journalctl --no-pager -o cat "$@"; }
# journal_has UNIT TEXT: a message of UNIT contains TEXT.
journal_has() { grep -qF -- "$2" < <(journal -u "$1"); }
# write_file PATH: stdin to PATH in the namespace.
write_file() { inside sh -c 'mkdir -p "$(dirname "$1")" && cat >"$1"' _ "$1"; }
# The daemon's state on the two driven nodes, and their originals.
driven() { [[ $(node $dmc/max_freq) == 200000000 && $(node $pstate/scaling_min_freq) == 4600000 ]]; }
originals() { [[ $(node $dmc/max_freq) == 666000000 && $(node $pstate/scaling_min_freq) == 1200000 ]]; }
nodes_now() { echo "dmc max_freq $(node $dmc/max_freq), policy2 scaling_min_freq $(node $pstate/scaling_min_freq)"; }
# why: what the journal says of devfreqd, for a failed check.
why() {
        diag "devfreqd is $(state); $(nodes_now)"
        journal -u devfreqd -n 25 | sed 's/^/  /' | while IFS= read -r l; do diag "$l"; done
}
# expect DESCRIPTION COMMAND...: check, and the journal when it fails.
expect() {
        local desc=$1
        shift
        if "$@"; then ok "$desc"; else
                not_ok "$desc"
                why
        fi
}
restarted_from() { [[ $(show devfreqd NRestarts) -gt $1 ]] && running && [[ $(show devfreqd MainPID) != "$2" ]]; }
bus() { inside busctl "$@"; }
# device_object NAME: the object path of the named device.
device_object() { bus call "$name" "$manager_path" "$manager_iface" GetDevice s "$1" | sed 's/^o "\(.*\)"$/\1/'; }
# gcall USER OBJECT METHOD ARGS...: gdbus call as USER; the reply, or "ERROR_NAME: MESSAGE".
gcall() {
        local user=$1 obj=$2 method=$3
        shift 3
        as "$user" gdbus call --system --dest "$name" --object-path "$obj" --method "$method" "$@" 2>&1 |
                head -n1 | sed 's/^Error: GDBus\.Error://'
}

# A drop-in in the installed drop-in directory: two devices driven in govern mode, the others
# found by the installed devfreqd.conf's autodiscovery and clamped.
write_file /etc/devfreqd.conf.d/50-system-test.conf <<EOF
[device dmc]
path = /sys/class/devfreq/dmc
mode = govern
governor = powersave

[device pstate]
path = $pstate
mode = govern
governor = performance
EOF
if [[ -n $package ]]; then package_install_cases; fi

# --- start: Type=notify, the status line, the writes under the unit's sandbox ---------------------

# Type=notify: systemctl start returns once the daemon said READY=1.
expect "start: systemctl start devfreqd succeeds" sctl start devfreqd
expect "start: devfreqd is active (running) when it returns" running
like "start: systemctl status shows active (running)" "$(sctl status devfreqd 2>&1 || true)" 'Active: active \(running\)'
status_text=$(show devfreqd StatusText)
like "start: Status: is the daemon's summary" "$status_text" '[0-9]+ devices?'
diag "Status: $status_text"
expect "start: the writes reached the fake nodes (dmc max_freq, policy2 scaling_min_freq)" driven
pid=$(show devfreqd MainPID)
# mount_mode PATH: ro or rw, as the daemon's mount namespace has PATH.
mount_mode() { inside nsenter -t "$pid" -m findmnt -n -o OPTIONS --mountpoint "$1" | cut -c1-2; }
is "start: the daemon's /sys is read-only (ProtectKernelTunables=)" "$(mount_mode /sys)" ro
is "start: the daemon's /sys/devices is writable (ReadWritePaths=)" "$(mount_mode /sys/devices)" rw
write_errors=$(journal -u devfreqd | grep -E 'Read-only file system|Permission denied|Operation not permitted' || true)
if [[ -z $write_errors ]]; then ok "start: no write error in the journal"; else
        not_ok "start: no write error in the journal"
        mapfile -t lines <<<"$write_errors"
        diag "${lines[@]}"
fi
expect "start: the originals file is in the runtime directory" inside test -s /run/devfreqd/originals

# --- reload: a good configuration is applied, a broken one refused, the old one kept --------------

pid=$(show devfreqd MainPID)
write_file /etc/devfreqd.conf.d/55-reload.conf <<EOF
[device pstate]
governor = powersave
EOF
check "reload: systemctl reload with a good configuration succeeds" sctl reload devfreqd
expect "reload: the new configuration is applied (policy2 at its lowest)" \
        wait_until 10 node_is $pstate/scaling_max_freq 400000
write_file /etc/devfreqd.conf.d/60-broken.conf <<EOF
[daemon]
polling-interval = soon
EOF
set +e
out=$(sctl reload devfreqd 2>&1)
status=$?
set -e
check "reload: systemctl reload with a broken configuration fails" test "$status" -ne 0
expect "reload: the journal has the daemon's file:line message" \
        wait_until 5 journal_has devfreqd "/etc/devfreqd.conf.d/60-broken.conf:2: "
diag "$(grep -m1 '60-broken.conf:2:' < <(journal -u devfreqd))"
expect "reload: the daemon keeps running, same process" running_as "$pid"
is "reload: the old configuration stays in force" "$(node $pstate/scaling_max_freq)" 400000
inside rm /etc/devfreqd.conf.d/55-reload.conf /etc/devfreqd.conf.d/60-broken.conf
sctl reload devfreqd
expect "reload: back to the first configuration" wait_until 10 driven

# --- kill -s KILL: restarted; the true originals from the preserved runtime directory -------------

# drop_in NAME [LINE...]: a drop-in of the test's for devfreqd.service ([Service] LINE...), or
# none (no LINE), then daemon-reload.
drop_in() {
        local f=$work/units/devfreqd.service.d/$1.conf
        shift
        mkdir -p "$(dirname "$f")"
        if (($#)); then printf '%s\n' "[Service]" "$@" >"$f"; else rm -f "$f"; fi
        sctl daemon-reload
}

# Without ExecStopPost=, the killed daemon's values stay in sysfs: the new process must take the
# originals from /run/devfreqd (RuntimeDirectoryPreserve=yes), not from what it finds.
drop_in no-stop-post "ExecStopPost="
sctl restart devfreqd
is "kill: the drop-in resets ExecStopPost=" "$(show devfreqd ExecStopPost)" ""
restarts=$(show devfreqd NRestarts)
pid=$(show devfreqd MainPID)
sctl kill -s KILL devfreqd
expect "kill: systemd restarts devfreqd (NRestarts grows, a new process)" wait_until 20 restarted_from "$restarts" "$pid"
expect "kill: the new process drives the nodes" wait_until 10 driven
like "kill: its originals file holds the true originals, not the killed one's values" \
        "$(inside grep -F $dmc /run/devfreqd/originals || true)" $'\t666000000\t'
sctl stop devfreqd
is "kill: systemctl stop leaves devfreqd inactive" "$(show devfreqd ActiveState)" inactive
expect "kill: the new process restored the true originals at its stop" originals
drop_in no-stop-post

# With ExecStopPost= and no restart: devfreqd --restore puts the originals back after SIGKILL.
drop_in no-restart "Restart=no"
sctl start devfreqd
expect "stop-post: devfreqd drives the nodes" driven
sctl kill -s KILL devfreqd
expect "stop-post: SIGKILL without a restart leaves devfreqd failed" \
        wait_until 10 is_state devfreqd failed
expect "stop-post: ExecStopPost= (devfreqd --restore) put every original back" originals
sctl reset-failed devfreqd
drop_in no-restart

# --- the watchdog: a stopped daemon is killed and restarted ---------------------------------------

drop_in watchdog "WatchdogSec=2s" "LimitCORE=0"
sctl start devfreqd
restarts=$(show devfreqd NRestarts)
pid=$(show devfreqd MainPID)
is "watchdog: the drop-in sets WatchdogUSec=2s" "$(show devfreqd WatchdogUSec)" 2s
inside kill -STOP "$pid"
expect "watchdog: the stopped daemon is killed and restarted" wait_until 30 restarted_from "$restarts" "$pid"
# journald stores systemd's message on its own time. A wait that runs out hides nothing: the case
# below then finds no such message and fails.
wait_until 10 journal_has devfreqd "atchdog timeout" || true
like "watchdog: systemd says why" "$(grep -m1 -i watchdog < <(journal -u devfreqd))" '[Ww]atchdog timeout'
expect "watchdog: the new process drives the nodes again" wait_until 10 driven
sctl stop devfreqd
expect "watchdog: after systemctl stop, every node holds its original value" originals
drop_in watchdog

# --- bus activation: a call to the name starts the service ----------------------------------------

is "activation: devfreqd is stopped" "$(show devfreqd ActiveState)" inactive
like "activation: busctl call to the name answers" \
        "$(bus call "$name" "$manager_path" "$manager_iface" ListDevices 2>&1 || true)" \
        '^a\(so\) [0-9]+ .*"dmc"'
expect "activation: devfreqd.service was started by it" running

# --- the installed bus policy ---------------------------------------------------------------------

like "policy: root owns the name" "$(grep -m1 '^UID=' < <(bus status "$name" 2>&1))" '^UID=0$'
like "policy: an unprivileged user can call" \
        "$(as nobody busctl call "$name" "$manager_path" "$manager_iface" ListDevices 2>&1 || true)" '"dmc"'
like "policy: an unprivileged user can read properties" \
        "$(as nobody busctl get-property "$name" "$manager_path" "$manager_iface" Version 2>&1 || true)" '^s "'
like "policy: an unprivileged user cannot own the name" \
        "$(as nobody "$PYTHON3" -c 'import dbus; dbus.SystemBus().request_name("'"$name"'")' 2>&1 || true)" \
        "$denied"

# --- polkit: the installed actions, a rule of the test's --------------------------------------------

dev=$(device_object dmc)
sctl start polkit
expect "polkit: polkitd runs" is_state polkit active
like "polkit: pkaction lists the installed request action" \
        "$(inside pkaction --action-id org.devfreqd.devfreq1.request --verbose 2>&1 || true)" \
        'org\.devfreqd\.devfreq1\.request:.*description: *Request device frequency or latency limits'
like "polkit: without a rule, an unprivileged AddRequest is refused" \
        "$(gcall nobody "$dev" "$device_iface.AddRequest" max-frequency 400000000 '{}')" "^$denied: "
inside sh -c 'echo "devfreq-member:x:4242:4242::/nonexistent:/usr/sbin/nologin" >>/etc/passwd &&
        echo "devfreq-member:x:4242:" >>/etc/group && echo "devfreq-request:x:4243:devfreq-member" >>/etc/group'
write_file /etc/polkit-1/rules.d/50-devfreqd-system-test.rules <<'EOF'
polkit.addRule(function(action, subject) {
        if (action.id == "org.devfreqd.devfreq1.request" && subject.isInGroup("devfreq-request"))
                return polkit.Result.YES;
});
EOF
sctl restart polkit
like "polkit: the rule lets a member of the group add a request" \
        "$(gcall devfreq-member "$dev" "$device_iface.AddRequest" max-frequency 400000000 '{}')" \
        "^\(objectpath '$manager_path/request/"
like "polkit: the rule does not let the member set a governor" \
        "$(gcall devfreq-member "$dev" "$device_iface.SetGovernor" performance)" "^$denied: "
like "polkit: the rule does not let others add a request" \
        "$(gcall nobody "$dev" "$device_iface.AddRequest" max-frequency 400000000 '{}')" "^$denied: "

# --- LogControl1 through systemctl ------------------------------------------------------------------

check "log level: systemctl service-log-level devfreqd debug succeeds" sctl service-log-level devfreqd debug
is "log level: systemctl service-log-level reads debug back" "$(sctl service-log-level devfreqd 2>&1)" debug
sctl service-log-level devfreqd info
is "log level: and info again" "$(sctl service-log-level devfreqd 2>&1)" info

# --- hotplug under the unit's sandbox: netlink allowed, the host's network namespace -------------

monitor_runs() { ! grep -q 'running without hotplug' < <(journal -u devfreqd); }
check "hotplug: the device monitor runs under the unit's sandbox" monitor_runs
out=$(inside sh -c 'cp -a /sys/devices/platform/dmc /sys/devices/platform/dmc2 &&
        mv /sys/devices/platform/dmc2/devfreq/dmc /sys/devices/platform/dmc2/devfreq/dmc2 &&
        ln -s ../../devices/platform/dmc2/devfreq/dmc2 /sys/class/devfreq/dmc2' 2>&1) || diag "making dmc2: $out"
nsenter -t "$init_pid" -n "$PYTHON3" "$top_srcdir/tests/fixtures/uevent-send.py" add devfreq \
        /devices/platform/dmc2/devfreq/dmc2
dmc2_on_bus() { bus call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager GetDevice s dmc2 >/dev/null 2>&1; }
check "hotplug: a node that appears is attached (uevent in the unit's network namespace)" wait_until 10 dmc2_on_bus

# --- the exposure level of the installed unit, as loaded by systemd --------------------------------

out=$(inside systemd-analyze security --no-pager devfreqd.service 2>&1 || true)
score=$(sed -n 's/.*Overall exposure level for devfreqd\.service: *\([0-9][0-9.]*\).*/\1/p' <<<"$out")
diag "exposure level: ${score:-none} (at most $max_exposure)"
if [[ -n $score ]] && awk -v s="$score" -v m="$max_exposure" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
        ok "security: exposure level $score is at most $max_exposure"
else
        not_ok "security: exposure level ${score:-none} is at most $max_exposure"
        printf '%s\n' "$out" | grep -E '✗|Overall' | sed 's/^/#   /' || true
fi

# --- nothing is left on the host ----------------------------------------------------------------------

sctl stop devfreqd
if [[ -n $package ]]; then package_remove_cases; fi
shutdown_namespaces
# The next case checks the end state and prints what is left: a wait that times out is reported there.
wait_until 10 no_ns_processes || true
is "host: no process of the test's namespaces is left" "$(ns_processes)" ""
check "host: the test's cgroup is gone" test ! -e "$cgroup"
after=$(host_state)
is "host: mount table, /run, /etc, /var and /tmp hold nothing of the test" \
        "$(diff <(echo "$before") <(echo "$after") || true)" ""

tap_done
