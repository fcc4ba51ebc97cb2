# Sourced by tests/system/system.sh in the package mode (DF_SYSTEM_PACKAGE names the .deb;
# tests/system/system-package.sh sets it): the Debian package is installed with dpkg -i in the
# namespace in place of make install, the tier's cases run on it, then it is removed and purged
# there. dpkg works on the namespace's layers over /usr, /etc and /var, so its database there is
# a copy of the host's that the host never sees.
# shellcheck shell=bash

# Where the namespace sees the copy of the package (init.sh binds the work directory there).
package_inside=/run/devfreqd-system-test/work/devfreqd.deb

# ns_dpkg COMMAND...: run as a root shell of the booted system would run it.
ns_dpkg() { inside env PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# install_package: the package where the namespace reads it, and the list of what it ships.
install_package() {
        local cmd status
        if [[ ! -f $package ]] || [[ $(dpkg-deb --field "$package" Package 2>/dev/null) != devfreqd ]]; then
                echo "Bail out! DF_SYSTEM_PACKAGE=$package is not a devfreqd .deb (tools/package builds one)"
                exit 1
        fi
        for cmd in dpkg dpkg-deb dpkg-query; do
                command -v "$cmd" >/dev/null || skip_all "$cmd is not installed"
        done
        status=$(dpkg-query -W -f='${db:Status-Status}' devfreqd 2>/dev/null || true)
        [[ $status != installed ]] ||
                skip_all "the host has the devfreqd package installed: the namespace's dpkg database starts as the host's"
        cp "$package" "$work/devfreqd.deb"
        # Every path it ships, directories with a trailing slash: /etc/, /etc/devfreqd.conf, ...
        dpkg-deb --fsys-tarfile "$package" | tar -t | sed -n 's|^\./\(.\)|/\1|p' >"$work/package-files"
}

# existing: the paths of stdin that exist in the namespace.
existing() { inside sh -c 'while read -r p; do if [ -e "$p" ] || [ -L "$p" ]; then echo "$p"; fi; done'; }

# dpkg_case DESCRIPTION COMMAND...: one case, dpkg's output when it fails.
dpkg_case() {
        local desc=$1 out
        shift
        if out=$(ns_dpkg "$@" 2>&1); then ok "$desc"; else
                not_ok "$desc"
                sed 's/^/#   /' <<<"$out"
                why
        fi
}

dpkg_status() { inside dpkg-query -W -f='${db:Status-Abbrev}' devfreqd 2>&1; }

# package_install_cases: dpkg -i in the namespace; the service enabled and started by it.
package_install_cases() {
        # A container image's policy-rc.d ("exit 101": start no service) would keep the maintainer
        # scripts from starting and stopping devfreqd; a booted Debian system has none.
        if inside test -e /usr/sbin/policy-rc.d; then
                inside rm /usr/sbin/policy-rc.d
                diag "the machine's /usr/sbin/policy-rc.d is removed in the namespace"
        fi
        # The shared directories (/usr/bin/, ...) exist before and stay after the purge.
        existing <"$work/package-files" >"$work/package-preexisting"
        is "package: of its paths, only directories exist before dpkg -i" \
                "$(grep -v '/$' "$work/package-preexisting" || true)" ""

        dpkg_case "package: dpkg -i installs it in the namespace" dpkg -i "$package_inside"
        is "package: dpkg has it installed" "$(dpkg_status)" "ii "
        contains "package: /etc/devfreqd.conf is a conffile" \
                "$(inside dpkg-query -W -f='${Conffiles}' devfreqd 2>&1)" " /etc/devfreqd.conf "
        is "package: systemd loaded the package's unit" "$(show devfreqd FragmentPath)" \
                /lib/systemd/system/devfreqd.service
        is "package: devfreqd.service is enabled" "$(sctl is-enabled devfreqd 2>&1)" enabled
        is "package: enabled by the link in multi-user.target.wants" \
                "$(inside readlink /etc/systemd/system/multi-user.target.wants/devfreqd.service)" \
                /lib/systemd/system/devfreqd.service
        expect "package: its postinst started the service (active, running)" running
        expect "package: the service drives the nodes" wait_until 10 driven
}

# named_devfreq: what is named after devfreq(d) in the namespace's writable layers (the
# uppers of /usr, /etc and /var, the unit directories, /run and /tmp), the test's own aside.
named_devfreq() {
        local l=/run/devfreqd-system-test
        inside find "$l/_usr/upper" "$l/_etc/upper" "$l/_var/upper" /etc/systemd/system /lib/systemd/system \
                /run /tmp -path "$l" -prune -o -iname '*devfreq*' -print
}

not_in_dpkg() { ! inside dpkg-query -W devfreqd >/dev/null 2>&1; }

prom=/var/lib/prometheus/node-exporter/devfreqd.prom
stopped() { is_state devfreqd inactive; }

# package_metrics_cases: the metrics timer an administrator enabled runs across an upgrade, and a
# run while devfreqd is stopped leaves it stopped (no bus activation by the exporter).
package_metrics_cases() {
        inside mkdir -p "${prom%/*}" # prometheus-node-exporter's directory
        expect "metrics: systemctl start devfreqd succeeds" sctl start devfreqd
        expect "metrics: the service drives the nodes" wait_until 10 driven
        expect "metrics: systemctl enable --now devfreqd-metrics.timer succeeds" \
                sctl enable --now devfreqd-metrics.timer
        expect "metrics: its first run writes devfreqd.prom" wait_until 10 inside test -s "$prom"
        dpkg_case "upgrade: dpkg -i over the installed package" dpkg -i "$package_inside"
        expect "upgrade: the service runs again" wait_until 10 running
        is "upgrade: the enabled metrics timer is still active" "$(show devfreqd-metrics.timer ActiveState)" active
        sctl stop devfreqd
        expect "metrics: devfreqd stopped" wait_until 10 stopped
        check "metrics: a run of devfreqd-metrics.service succeeds" sctl start devfreqd-metrics.service
        is "... and is skipped, its condition false" "$(show devfreqd-metrics.service ConditionResult)" no
        expect "... devfreqd is not started by it" stopped
}

# package_remove_cases: dpkg -r stops the service (the originals back), dpkg -P leaves nothing.
package_remove_cases() {
        package_metrics_cases
        expect "remove: systemctl start devfreqd succeeds" sctl start devfreqd
        expect "remove: before it, the service drives the nodes" wait_until 10 driven
        # A runtime choice, so that the state directory holds the daemon's state file.
        check "remove: SetGovernor powersave on pstate succeeds" \
                bus call "$name" "$(device_object pstate)" "$device_iface" SetGovernor s powersave
        expect "remove: the runtime choice is in /var/lib/devfreqd/state" \
                wait_until 5 inside grep -q powersave /var/lib/devfreqd/state

        dpkg_case "remove: dpkg -r removes it" dpkg -r devfreqd
        expect "remove: its prerm stopped the service: every node holds its original value" originals
        is "remove: systemd no longer knows devfreqd.service" "$(show devfreqd LoadState)" not-found
        is "remove: nor the metrics timer, stopped first" "$(show devfreqd-metrics.timer LoadState)" not-found
        is "remove: no devfreqd unit failed" "$(sctl list-units --failed --plain --no-legend 'devfreqd*')" ""
        is "remove: devfreqd.prom is gone with the exporter" "$(printf '%s\n' "$prom" | existing)" ""
        is "remove: no devfreqd process is left" "$(inside pgrep -x devfreqd || true)" ""
        like "remove: the bus name activates nothing any more" \
                "$(bus call "$name" "$manager_path" "$manager_iface" ListDevices 2>&1 || true)" \
                'not provided by any \.service files'
        is "remove: the programs are gone" \
                "$(printf '%s\n' /usr/sbin/devfreqd /usr/bin/devfreqctl /usr/bin/devfreq-replay | existing)" ""
        is "remove: dpkg keeps its configuration files (rc)" "$(dpkg_status)" "rc "
        check "remove: /etc/devfreqd.conf stays until the purge" inside test -f /etc/devfreqd.conf
        check "remove: /var/lib/devfreqd stays until the purge" inside test -s /var/lib/devfreqd/state

        # The test's own files go first, as an administrator's would: a purge removes only what
        # is the package's, and keeps a directory holding anything else.
        inside rm -f /etc/devfreqd.conf.d/50-system-test.conf /etc/polkit-1/rules.d/50-devfreqd-system-test.rules
        dpkg_case "purge: dpkg -P purges it" dpkg -P devfreqd
        check "purge: dpkg knows no devfreqd any more" not_in_dpkg
        is "purge: none of the package's paths is left, conffiles included" \
                "$(grep -vxF -f "$work/package-preexisting" "$work/package-files" | existing)" ""
        is "purge: the state and runtime directories are gone" \
                "$(printf '%s\n' /var/lib/devfreqd /run/devfreqd | existing)" ""
        is "purge: no enablement link or debhelper state of the unit is left" \
                "$(inside find /etc/systemd /var/lib/systemd -name '*devfreqd*')" ""
        is "purge: nothing named after devfreqd is left in the namespace's writable layers" "$(named_devfreq)" ""
}
