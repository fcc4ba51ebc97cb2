#!/bin/bash
# The kernel tier's cases under systemd, PID 1 of the guest (tests/kernel/systemd-boot.sh): the
# installed devfreqd.service, with its sandbox as shipped, on the real kernel's nodes. Run by
# systemd as a oneshot unit after tests/kernel/guest.sh; it goes on from that script's last case,
# prints the plan, and the guest powers off when it ends.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
devfreqctl=/usr/bin/devfreqctl
tmp=/tmp/kernel-tier-systemd
mkdir -p "$tmp"
n=$(cat /run/kernel-tier-cases 2>/dev/null || echo 0)
pids=()
. "$top_srcdir/tests/kernel/tap.sh"
finish() {
        local p
        for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
        say "1..$n"
        say "# guest done"
        # The console drained, then off at once (the guest's state is of no further use).
        /usr/bin/python3 -c 'import os, termios; termios.tcdrain(os.open("/dev/console", os.O_WRONLY))'
        systemctl poweroff --force --force
        exit 0
}
journal() { journalctl -b -u devfreqd.service -o cat --no-pager 2>&1; }

is "systemd is PID 1 of the guest" "$(readlink /proc/1/exe)" /usr/lib/systemd/systemd

gpu=$(node_of dftest-gpu) && dmc=$(node_of dftest-dmc) || {
        not_ok "the test module's devfreq devices are there"
        finish
}
p1=/sys/devices/system/cpu/cpufreq/policy1
# Every node devfreqd writes here, with what it holds before devfreqd starts.
nodes() {
        local f
        for f in "$gpu/min_freq" "$gpu/max_freq" "$dmc/governor" "$dmc/min_freq" "$dmc/max_freq" \
                "$p1/scaling_governor" "$p1/scaling_min_freq" "$p1/scaling_max_freq"; do
                echo "$f $(cat "$f")"
        done
}
before=$(nodes)
echo "the nodes before devfreqd:" | diag
diag <<<"$before"

# The GPU clamped (autodiscovery), the DMC governed by pinning its limits (the kernel has no
# devfreq userspace governor), policy1 governed through cpufreq's userspace governor (its module
# loaded by tests/kernel/guest.sh).
mkdir -p /etc/devfreqd.conf.d
cat >/etc/devfreqd.conf.d/kernel-tier.conf <<EOC
[device dmc]
path = $dmc
mode = govern
governor = performance

[device cpu1]
path = $p1
mode = govern
governor = powersave
EOC

check "the installed devfreqd.service starts (systemctl start, Type=notify)" systemctl start devfreqd.service
pid=$(systemctl show -P MainPID devfreqd.service)
if [[ $(systemctl show -P ActiveState devfreqd.service) != active || $pid == 0 ]]; then
        # The cases below need it running: one failed case says so, with the journal's tail.
        not_ok "... and stays active with a main PID (ActiveState $(systemctl show -P ActiveState devfreqd.service), MainPID $pid)"
        journal | tail -n 20 | diag
        finish
fi
echo "systemd-analyze security devfreqd: $(systemd-analyze security devfreqd.service 2>&1 | tail -n1)" | diag

# --- the sandbox, as the kernel applies it to the running service ------------------------------
# The mounts of devfreqd's namespace that are writable, outside the pseudo file systems of /proc
# and /dev: the unit's ReadWritePaths=, RuntimeDirectory=, StateDirectory= and PrivateTmp=, and
# nothing else (ProtectSystem=strict, ProtectKernelTunables=, ProtectControlGroups=).
rw_mounts() {
        awk '$6 ~ /^rw/ && $5 !~ /^\/(proc|dev)(\/|$)/ { print $5 }' "/proc/$pid/mountinfo" | sort -u | tr '\n' ' '
}
echo "devfreqd's mounts:" | diag
awk '{ print $5, $6, $9 }' "/proc/$pid/mountinfo" | diag
is "sandbox: the only writable mounts are /sys/devices, /run/devfreqd, /var/lib/devfreqd and the private /tmp, /var/tmp" \
        "$(rw_mounts)" "/run/devfreqd /sys/devices /tmp /var/lib/devfreqd /var/tmp "
# What the kernel answers to a write there: access(W_OK) is EROFS on a read-only mount, for root too.
writable() { nsenter -t "$pid" -m test -w "$1"; }
not_writable() { ! nsenter -t "$pid" -m test -w "$1"; }
check "sandbox: the GPU's min_freq is writable in devfreqd's namespace" writable "$(readlink -f "$gpu")/min_freq"
check "sandbox: policy1's scaling_setspeed is writable" writable "$p1/scaling_setspeed"
for f in /proc/sys/kernel/printk /sys/power/state /sys/module/devfreq_test/parameters/polling_ms \
        /sys/fs/cgroup/cgroup.procs /etc/devfreqd.conf /usr/sbin/devfreqd /run/dbus /var/log; do
        check "sandbox: $f is not writable" not_writable "$f"
done

# --- the writes go through ----------------------------------------------------------------------
check "the DMC, governed (performance), is pinned at its highest point" \
        wait_until 10 eval '[[ "$(cat "$dmc/min_freq") $(cat "$dmc/max_freq")" == "800000000 800000000" ]]'
check "policy1, governed (powersave), runs under userspace at 800 MHz" \
        wait_until 10 eval '[[ "$(cat "$p1/scaling_governor") $(cat "$p1/scaling_cur_freq")" == "userspace 800000" ]]'
hold a dftest-gpu min 600MHz
check "a request over the system bus raises the GPU's floor to 600 MHz" wait_until 10 attr_is "$gpu/min_freq" 600000000
release a
check "... and its end gives the floor back" wait_until 10 attr_is "$gpu/min_freq" "$(sed -n "s|^$gpu/min_freq ||p" <<<"$before")"

# --- polkit: an unprivileged client, let in by a rule, on the real kernel's nodes -------------------
# polkitd as the distribution ships it, with make install's actions over /usr; a user and a group
# of the guest's own (in /etc's writable layer), and a rule that lets the group request, there
# before polkitd starts (a rule added later is read at some time after, a restart leaves devfreqd
# without polkit for a moment: either would race the cases).
echo "devfreq-member:x:4242:4242::/nonexistent:/usr/sbin/nologin" >>/etc/passwd
echo "devfreq-member:x:4242:" >>/etc/group
echo "devfreq-request:x:4243:devfreq-member" >>/etc/group
cat >/etc/polkit-1/rules.d/50-devfreqd-kernel-tier.rules <<'EOR'
polkit.addRule(function(action, subject) {
        if (action.id == "org.devfreqd.devfreq1.request" && subject.isInGroup("devfreq-request"))
                return polkit.Result.YES;
});
EOR
as_user() { local uid=$1; shift; setpriv --reuid="$uid" --regid="$uid" --init-groups "$@"; }
if systemctl start polkit.service; then
        ok "polkit: polkitd starts (systemctl start polkit)"
else
        not_ok "polkit: polkitd starts (systemctl start polkit)"
        { systemctl status --no-pager polkit.service; journalctl -b -u polkit.service -o cat --no-pager | tail -n 20
          echo "polkitd by hand:"; timeout 5 /usr/lib/polkit-1/polkitd 2>&1 | tail -n 20; } 2>&1 | diag
fi
polkit_seen() { grep -q "polkit is on the bus" < <(journal); }
check "polkit: devfreqd sees polkitd on the bus" wait_until 10 polkit_seen
gpu_object=$(busctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager GetDevice s dftest-gpu |
        sed -n 's/^o "\(.*\)"$/\1/p')
# gdbus, for it prints the error's message (busctl as a user gives only its name's text).
other_request=$(as_user 65534 gdbus call --system --dest org.devfreqd.Devfreq1 --object-path "$gpu_object" \
        --method org.devfreqd.Devfreq1.Device.AddRequest min-frequency 600000000 '{}' 2>&1 | sed -n 1p)
# polkit's own no, not devfreqd's groups nor "polkit could not decide".
denied="GDBus.Error:org.freedesktop.DBus.Error.AccessDenied: polkit denied org.devfreqd.devfreq1.request"
if [[ $other_request == *"$denied" || $other_request == *"$denied: interactive authentication is required" ]]; then
        ok "polkit: polkitd refuses a request of nobody, whom the rule does not name"
else
        not_ok "polkit: polkitd refuses a request of nobody, whom the rule does not name"
        { echo "AddRequest as nobody: $other_request"; journal | tail -n 8
          journalctl -b -u polkit.service -o cat --no-pager | tail -n 8; } | diag
fi
rm -f "$tmp/release.member"
as_user 4242 "$devfreqctl" hold dftest-gpu min 600MHz -- bash -c "until [ -e $tmp/release.member ]; do sleep 0.1; done" \
        >"$tmp/hold.member.log" 2>&1 &
member_hold=$!
pids+=("$member_hold")
if wait_until 10 attr_is "$gpu/min_freq" 600000000; then
        ok "polkit: the rule lets a member of its group raise the GPU's floor to 600 MHz"
else
        not_ok "polkit: the rule lets a member of its group raise the GPU's floor to 600 MHz"
        { echo "min_freq $(cat "$gpu/min_freq"); devfreqctl hold as devfreq-member:"; cat "$tmp/hold.member.log"; } | diag
fi
touch "$tmp/release.member"
wait "$member_hold"
check "... and its end gives the floor back" wait_until 10 attr_is "$gpu/min_freq" "$(sed -n "s|^$gpu/min_freq ||p" <<<"$before")"

# --- udevd, as the sandboxed unit meets it ---------------------------------------------------------
dbg=/sys/kernel/debug/devfreq_test
echo "remove gpu" >"$dbg/control"
check "udevd's event reaches the sandboxed devfreqd: the GPU removed, its bus object goes" wait_until 10 gpu_off_bus
echo "add gpu" >"$dbg/control"
check "... the GPU back, its bus object returns" wait_until 10 gpu_on_bus
gpu=$(node_of dftest-gpu)
hold a dftest-gpu min 600MHz
check "... and a request on it reaches min_freq" wait_until 10 attr_is "$gpu/min_freq" 600000000
release a
check "... its end gives the floor back" wait_until 10 attr_is "$gpu/min_freq" "$(sed -n "s|^$gpu/min_freq ||p" <<<"$before")"
is "devfreqd's journal has no refused access" \
        "$(journal | grep -ciE 'read-only file system|permission denied|operation not permitted|EROFS|EACCES|EPERM')" 0

# --- kill -9: the restart, and ExecStopPost= without one ----------------------------------------
restarts=$(systemctl show -P NRestarts devfreqd.service)
systemctl kill -s KILL devfreqd.service
restarted() {
        [[ $(systemctl show -P NRestarts devfreqd.service) -gt $restarts &&
                $(systemctl show -P ActiveState devfreqd.service) == active ]]
}
check "kill -9: systemd restarts devfreqd" wait_until 20 restarted
check "... which pins the DMC again" \
        wait_until 10 eval '[[ "$(cat "$dmc/min_freq") $(cat "$dmc/max_freq")" == "800000000 800000000" ]]'
check "systemctl stop devfreqd" systemctl stop devfreqd.service
is "... every node holds its original" "$(nodes)" "$before"

mkdir -p "$units/devfreqd.service.d"
printf '[Service]\nRestart=no\n' >"$units/devfreqd.service.d/no-restart.conf"
systemctl daemon-reload
check "devfreqd starts again (Restart=no)" systemctl start devfreqd.service
check "... and pins the DMC" \
        wait_until 10 eval '[[ "$(cat "$dmc/min_freq") $(cat "$dmc/max_freq")" == "800000000 800000000" ]]'
systemctl kill -s KILL devfreqd.service
check "kill -9 without a restart: devfreqd failed" \
        wait_until 10 eval '[[ $(systemctl show -P ActiveState devfreqd.service) == failed ]]'
is "... and ExecStopPost= (devfreqd --restore, in the sandbox) put every original back" "$(nodes)" "$before"

echo "devfreqd's journal (tail):" | diag
journal | tail -n 15 | diag
finish
