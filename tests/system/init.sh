#!/bin/bash
# The first process of the system test's namespaces (tests/system/system.sh starts it with
# unshare): it lays the installed files over the machine's and the fake devices over its sysfs,
# in this mount namespace only, then becomes systemd, PID 1 of the namespace.
#
#   init.sh WORKDIR
#
# WORKDIR (on the host) holds dest/ (make install DESTDIR=; absent when the test installs the
# Debian package instead), units/ (SYSTEMD_UNIT_PATH) and fakeroot/ (tests/fixtures/mkroot).
# Everything written below lives on tmpfs mounts of this namespace and disappears with it:
# nothing reaches the host's /run, /etc, /var, /tmp or /sys.
set -euo pipefail
layers=/run/devfreqd-system-test
# WORKDIR may lie under /tmp or /run, which get tmpfs mounts here: it stays reachable through
# this descriptor, and is bound where those mounts do not hide it.
exec 9<"$1"

mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run
mkdir -p "$layers/work"
mount --bind /proc/self/fd/9 "$layers/work"
exec 9<&-
work=$layers/work
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
# udev's sign that it runs, for libsystemd's device monitor (devfreqd's hotplug).
mkdir -p /run/udev
: >/run/udev/control
mkdir -p "$layers"

# overlay DIR LOWER...: DIR becomes LOWER... over DIR itself, writable, the changes kept in /run.
overlay() {
        local dir=$1 name lower=
        shift
        name=$(tr / _ <<<"$dir")
        ((!$#)) || lower=$(printf '%s:' "$@")
        mkdir -p "$layers/$name/upper" "$layers/$name/work"
        mount -t overlay overlay \
                -o "lowerdir=$lower$dir,upperdir=$layers/$name/upper,workdir=$layers/$name/work" "$dir"
}
if [[ -d $work/dest ]]; then
        # The installed files where make install without DESTDIR would have put them.
        overlay /usr "$work/dest/usr"
        overlay /etc "$work/dest/etc"
        unit_path=$work/units
else
        # The package mode (no dest/): dpkg -i writes into these layers. The unit directories
        # start empty, so that systemd finds there the package's unit and enablement links and
        # nothing of the machine's boot (their .wants/ would pull it in).
        overlay /usr
        overlay /etc
        mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /usr/lib/systemd/system
        mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /etc/systemd/system
        unit_path=$work/units:/etc/systemd/system:/lib/systemd/system
fi
# State (/var/lib/devfreqd, /var/tmp of PrivateTmp=, and the dpkg database that dpkg -i changes
# in the package mode) stays in the namespace.
overlay /var

# PID 1 writes to /dev/console and the kernel log, journald reads the latter: neither is the host's.
: >"$work/console.log"
mount --bind "$work/console.log" /dev/console
mount --bind /dev/null /dev/kmsg

# A cgroup namespace was entered: its own cgroup2 tree, rooted at the test's cgroup.
mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 /sys/fs/cgroup

# The fake devices: mkroot's tree on tmpfs over the directories of the real ones.
for dir in /sys/class /sys/devices/platform /sys/devices/system/cpu/cpufreq; do
        mount -t tmpfs -o mode=0755,nosuid,nodev,noexec tmpfs "$dir"
        cp -a "$work/fakeroot$dir/." "$dir/"
done

export SYSTEMD_UNIT_PATH=$unit_path
exec env container=other /lib/systemd/systemd --system --unit=devfreqd-system-test.target \
        --log-target=journal-or-kmsg
