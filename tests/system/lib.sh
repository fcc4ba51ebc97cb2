# Sourced by tests/system/system.sh: the installed build under a real systemd, PID 1 of new
# PID, mount, cgroup, network, UTS and IPC namespaces (init.sh sets them up), driven from the
# host with nsenter; then the checks that nothing of it is left on the host.
# shellcheck shell=bash
source "$(dirname "${BASH_SOURCE[0]}")/../integration/tap.sh"

system_dir=$top_srcdir/tests/system
work=
cgroup=
unshare_pid=
init_pid=

# skip_all REASON: the whole tier cannot run here; said as a SKIP, never as a pass.
skip_all() {
        echo "1..0 # SKIP $*"
        exit 0
}

# What the tier needs of the machine; a SKIP with the reason for the first thing missing.
check_machine() {
        local cmd dir
        ((EUID == 0)) || skip_all "not root: systemd runs as PID 1 of new namespaces"
        for cmd in unshare nsenter setpriv findmnt busctl systemctl journalctl systemd-analyze \
                dbus-daemon pkaction "$PYTHON3"; do
                command -v "$cmd" >/dev/null || skip_all "$cmd is not installed (tools/bootstrap installs it)"
        done
        [[ -x /lib/systemd/systemd ]] || skip_all "/lib/systemd/systemd is missing (package systemd)"
        [[ -x /usr/lib/polkit-1/polkitd ]] || skip_all "polkitd is missing (package polkitd)"
        grep -qw overlay /proc/filesystems || skip_all "the kernel has no overlay file system"
        for dir in /sys/class /sys/devices/platform /sys/devices/system/cpu/cpufreq; do
                [[ -d $dir ]] || skip_all "$dir does not exist here: the fake devices are mounted on it"
        done
        unshare --pid --fork --mount --cgroup --net --uts --ipc true 2>/dev/null ||
                skip_all "cannot create PID, mount, cgroup, network, UTS and IPC namespaces here"
        cgroup_root=$(head -n1 < <(findmnt -n -t cgroup2 -o TARGET))
        [[ -n $cgroup_root && -w $cgroup_root ]] || skip_all "no writable cgroup2 hierarchy is mounted"
}

# install_build: make install into $work/dest; the directories the system reads must be the
# ones configure chose (tools/bootstrap configures --prefix=/usr --sysconfdir=/etc).
install_build() {
        local f
        if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top_builddir" -s install \
                DESTDIR="$work/dest" >"$work/install.log" 2>&1; then
                echo "Bail out! make install DESTDIR=$work/dest failed:"
                sed 's/^/# /' "$work/install.log"
                exit 1
        fi
        for f in /usr/sbin/devfreqd /etc/devfreqd.conf /usr/share/dbus-1/system.d/org.devfreqd.Devfreq1.conf \
                /usr/share/dbus-1/system-services/org.devfreqd.Devfreq1.service \
                /usr/share/polkit-1/actions/org.devfreqd.devfreq1.policy; do
                [[ -e $work/dest$f ]] ||
                        skip_all "make install did not put $f where the system reads it (configure --prefix=/usr --sysconfdir=/etc, as tools/bootstrap does)"
        done
        unit_file=$(head -n1 < <(find "$work/dest" -path '*/systemd/system/devfreqd.service'))
        [[ -n $unit_file ]] || skip_all "make install installed no devfreqd.service"
}

# prepare_units: SYSTEMD_UNIT_PATH holds the test's targets, the system's own units of the
# journal, the bus and polkit, and the installed devfreqd.service, all as they are. In the
# package mode the units are copies (the namespace's /lib/systemd/system starts empty) and
# devfreqd.service is the package's own, in /lib/systemd/system.
prepare_units() {
        local u
        mkdir -p "$work/units"
        cp "$system_dir"/units/*.target "$work/units/"
        for u in systemd-journald.socket systemd-journald.service dbus.socket dbus.service polkit.service; do
                [[ -f /lib/systemd/system/$u ]] || skip_all "the system has no $u"
                if [[ -n ${package:-} ]]; then
                        cp "/lib/systemd/system/$u" "$work/units/$u"
                else
                        ln -s "/lib/systemd/system/$u" "$work/units/$u"
                fi
        done
        [[ -z ${package:-} ]] || return 0
        # The work directory as the namespace sees it (init.sh binds it there, wherever it is).
        ln -s "/run/devfreqd-system-test/work${unit_file#"$work"}" "$work/units/devfreqd.service"
}

# --- what the host looks like, before and after ---------------------------------------------------

# host_state: the host's side of everything the namespaces write or mount: the mount points
# the test uses, the paths systemd, journald, dbus-daemon, polkitd and devfreqd write to, the
# files the make install and the cases add, and the user database the polkit case extends.
# Only these: other programs may change the rest of the machine meanwhile.
host_state() {
        local p
        awk '{ print $5 }' /proc/self/mountinfo |
                grep -E "^(/run|/tmp|/usr|/etc|/var|/sys/class|/sys/devices/platform|/sys/devices/system/cpu/cpufreq|/sys/fs/cgroup|/dev/console|/dev/kmsg)\$|^$work" || true
        for p in /run/devfreqd /run/devfreqd-system-test /run/dbus /run/systemd /run/log /var/lib/devfreqd \
                /var/log/journal /etc/devfreqd.conf /etc/devfreqd.conf.d /etc/polkit-1/rules.d /etc/machine-id \
                /usr/sbin/devfreqd /usr/bin/devfreqctl /lib/systemd/system/devfreqd.service \
                /usr/share/dbus-1/system.d/org.devfreqd.Devfreq1.conf \
                /usr/share/dbus-1/system-services/org.devfreqd.Devfreq1.service \
                /usr/share/polkit-1/actions/org.devfreqd.devfreq1.policy; do
                if [[ -e $p || -L $p ]]; then
                        find "$p" -maxdepth 2 -printf '%p %y %s\n'
                else
                        echo "$p absent"
                fi
        done
        find /tmp /var/tmp -maxdepth 1 -name 'systemd-private-*' -printf '%p\n'
        sha256sum /etc/passwd /etc/group
        # The host's dpkg database and systemd's enablement state stay as they were: the package
        # mode installs, removes and purges the package in the namespace's copy of them.
        dpkg-query -W -f='devfreqd in dpkg: ${db:Status-Abbrev}${Version}\n' devfreqd 2>/dev/null ||
                echo "devfreqd unknown to dpkg"
        find /var/lib/dpkg/info /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
                /var/lib/systemd/deb-systemd-helper-masked -name '*devfreqd*' -printf '%p %y\n' 2>/dev/null
        echo "dpkg.log lines naming devfreqd: $(grep -sc devfreqd /var/log/dpkg.log)"
}

# --- the namespaces ------------------------------------------------------------------------------

# inside COMMAND...: run in the test's mount and PID namespaces (as root).
inside() { nsenter -t "$init_pid" -m -p -- "$@"; }
sctl() { inside systemctl --no-pager "$@"; }
# as USER COMMAND...: inside, as USER with the groups the user database gives it.
as() {
        local user=$1
        shift
        inside setpriv --reuid="$user" --regid="$(inside id -g "$user")" --init-groups -- "$@"
}

# boot: systemd as PID 1 of the namespaces, in a cgroup of the test's own; waits for the target.
boot() {
        local self
        self=$(sed -n 's/^0:://p' /proc/self/cgroup)
        cgroup=$cgroup_root${self%/}/devfreqd-system-test.$$
        mkdir "$cgroup"
        (
                echo "$BASHPID" >"$cgroup/cgroup.procs"
                exec unshare --pid --fork --mount --propagation private --mount-proc --cgroup --net --uts --ipc \
                        "$system_dir/init.sh" "$work"
        ) >"$work/init.log" 2>&1 &
        unshare_pid=$!
        wait_until 10 find_init || bail "systemd did not start in the namespaces"
        ns_pid=$(readlink "/proc/$init_pid/ns/pid")
        ns_mnt=$(readlink "/proc/$init_pid/ns/mnt")
        wait_until 30 target_active || bail "devfreqd-system-test.target did not become active"
}

find_init() {
        local child
        child=$(cat "/proc/$unshare_pid/task/$unshare_pid/children") || return 1
        child=${child%% *}
        [[ -n $child && $(cat "/proc/$child/comm") == systemd ]] || return 1
        init_pid=$child
}

target_active() { [[ $(sctl is-active devfreqd-system-test.target 2>/dev/null) == active ]]; }

# A command that fails where no case expected it (set -e would end the script with no word): a
# not ok line naming it and where, the journal's tail when the namespace runs, and the plan.
unexpected_failure() {
        local status=$1 line=$2 command=$3
        # Only where set -e is about to end the script: not under set +e, not in a command
        # substitution (its caller judges it), not the verdict of tap_done.
        [[ $- == *e* ]] && ((BASH_SUBSHELL == 0)) && [[ ${FUNCNAME[1]:-} != tap_done ]] || return 0
        not_ok "unexpected failure (status $status) at ${BASH_SOURCE[1]##*/}:$line: $command"
        if [[ -n ${init_pid:-} ]] && kill -0 "$init_pid" 2>/dev/null; then
                inside journalctl --no-pager -n 30 2>/dev/null | sed 's/^/# journal: /' || true
        fi
        [[ -n ${work:-} && -s $work/console.log ]] && tail -n 10 "$work/console.log" | sed 's/^/# console: /'
        echo "1..$tap_count"
}
set -E
trap 'unexpected_failure $? $LINENO "$BASH_COMMAND"' ERR

bail() {
        echo "Bail out! $*"
        [[ -s $work/init.log ]] && sed 's/^/# init: /' "$work/init.log"
        # PID 1's own messages until journald runs.
        [[ -s $work/console.log ]] && tail -n 30 "$work/console.log" | sed 's/^/# console: /'
        exit 1
}

# shutdown_namespaces: SIGKILL to the namespace's init by its PID takes every process of its PID
# namespace with it; the mounts go with the last of them. Then the test's cgroups go.
shutdown_namespaces() {
        local child
        if [[ -n $unshare_pid ]]; then
                # Before boot saw it, init may still be init.sh: unshare's only child either way.
                child=$(cat "/proc/$unshare_pid/task/$unshare_pid/children" 2>/dev/null) || true
                child=${child%% *}
                # Each PID once (init is usually that child): unshare may reap it between two
                # kills, and a second kill's ESRCH under set -e ended the script with no plan.
                # A process that is gone already is what the kill wants, so its failure is no error;
                # the cases below check that nothing is left.
                if [[ -n $child ]]; then
                        kill -KILL "$child" 2>/dev/null || true
                fi
                if [[ -n $init_pid && $init_pid != "$child" ]]; then
                        kill -KILL "$init_pid" 2>/dev/null || true
                fi
                # unshare reaps init and exits; it is killed only if it never forked one.
                if [[ -z $child && -z $init_pid ]]; then
                        kill -KILL "$unshare_pid" 2>/dev/null || true
                fi
                wait "$unshare_pid" 2>/dev/null || true
                unshare_pid=
        fi
        if [[ -n $cgroup && -d $cgroup ]]; then
                # Clean-up on the way out: the cases "no process ... is left" and "the test's
                # cgroup is gone" check the result, so a cgroup that stays cannot hide there.
                wait_until 10 cgroup_empty || true
                find "$cgroup" -depth -type d -exec rmdir {} + 2>/dev/null || true
        fi
}

cgroup_empty() { [[ -z $(find "$cgroup" -name cgroup.procs -exec cat {} +) ]]; }

# ns_processes: the host PIDs of processes still in the test's PID or mount namespace.
ns_processes() {
        local p
        for p in /proc/[0-9]*; do
                [[ $(readlink "$p/ns/pid" 2>/dev/null) == "$ns_pid" || $(readlink "$p/ns/mnt" 2>/dev/null) == "$ns_mnt" ]] &&
                        echo "${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
        done
        return 0
}

no_ns_processes() { [[ -z $(ns_processes) ]]; }

# wait_until SECONDS COMMAND...: poll until the command succeeds; 1 after the deadline.
wait_until() {
        local deadline=$(($(date +%s%N) + $1 * 1000000000))
        shift
        until "$@" 2>/dev/null; do
                (($(date +%s%N) >= deadline)) && return 1
                sleep 0.1
        done
}
