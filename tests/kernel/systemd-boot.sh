#!/bin/bash
# The kernel tier's second part: after tests/kernel/guest.sh, tests/kernel/init runs this in the
# chroot of the host's root, then makes systemd PID 1 of the guest (switch_root). This lays the
# installed build (make install DESTDIR=, by tests/kernel/run) over /usr and /etc, and writes the
# units systemd boots: the journal, the system bus, udevd, polkitd (started by a case), the
# installed devfreqd.service (with make install's bus policy and polkit actions) and the cases
# of tests/kernel/guest-systemd.sh, which power the guest off when they end. Nothing more of the
# host's boot: the unit directory is the test's own (SYSTEMD_UNIT_PATH).
#
#   systemd-boot.sh DEST UNITDIR     (top_srcdir, top_builddir and kver in the environment)
set -euo pipefail
dest=$1 units=$2
layers=/run/kernel-tier-layers

modprobe overlay
mkdir -p "$layers/etc/upper" "$layers/etc/work" "$units"
# /usr only read (the unit's ProtectSystem=strict makes it so in any case); /etc takes the drop-in.
mount -t overlay overlay -o "ro,lowerdir=$dest/usr:/usr" /usr
mount -t overlay overlay -o "lowerdir=$dest/etc:/etc,upperdir=$layers/etc/upper,workdir=$layers/etc/work" /etc
mkdir -p /var/tmp /var/lib /var/log
chmod 1777 /var/tmp
# The guest's /var is empty: /var/run is the distribution's link to /run, where GLib's clients
# (polkitd among them) look for the system bus.
ln -sfn /run /var/run

cp "$top_srcdir"/tests/system/units/{basic,sysinit,sockets,shutdown}.target "$units/"
for u in systemd-journald.socket systemd-journald.service dbus.socket dbus.service systemd-udevd.service \
        systemd-udevd-control.socket systemd-udevd-kernel.socket polkit.service; do
        ln -s "/lib/systemd/system/$u" "$units/$u"
done
ln -s "$dest/lib/systemd/system/devfreqd.service" "$units/devfreqd.service"
cat >"$units/devfreqd-kernel-test.target" <<EOU
[Unit]
Description=the kernel tier under systemd
DefaultDependencies=no
Wants=systemd-journald.socket systemd-journald.service dbus.socket systemd-udevd.service
Wants=devfreqd-kernel-cases.service
EOU
# Its output on the console, where tests/kernel/run reads the KTAP lines; the guest powers off
# when it ends, whatever way.
cat >"$units/devfreqd-kernel-cases.service" <<EOU
[Unit]
Description=the kernel tier's cases under systemd
DefaultDependencies=no
After=systemd-journald.service dbus.socket systemd-udevd.service
[Service]
Type=oneshot
Environment=top_srcdir=$top_srcdir top_builddir=$top_builddir kver=$kver units=$units
ExecStart=/bin/bash $top_srcdir/tests/kernel/guest-systemd.sh
StandardOutput=tty
StandardError=tty
TTYPath=/dev/console
SuccessAction=poweroff-immediate
FailureAction=poweroff-immediate
EOU
