#!/usr/bin/env bash
# The systemd unit: systemd-analyze verify is clean on it, its exposure score is 1.2 or lower,
# and it carries the directives devfreqd relies on. No systemd manager runs here: nothing starts.
set -euo pipefail
source "$(dirname "$0")/tap.sh"

unit=$top_builddir/systemd/devfreqd.service
devfreqd=$top_builddir/daemon/devfreqd
max_exposure=1.2

if ! command -v systemd-analyze >/dev/null; then
        skip "systemd-analyze is not installed"
        tap_done
        exit
fi
if [[ ! -f $unit ]]; then
        echo "Bail out! $unit was not generated (make builds it from systemd/devfreqd.service.in)"
        exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Quiet but not silenced: warnings and errors still print.
export SYSTEMD_LOG_LEVEL=info SYSTEMD_PAGER=cat SYSTEMD_COLORS=0

# value KEY: the values of KEY= in the generated unit, one a line, in order.
value() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*//p" "$unit"; }

# --- (c) the directives, read from the generated file ------------------------------------------

is "Type=notify" "$(value Type)" notify
is "BusName= is the daemon's name" "$(value BusName)" org.devfreqd.Devfreq1
is "Restart=on-failure" "$(value Restart)" on-failure
is "WatchdogSec=3min" "$(value WatchdogSec)" 3min
like "ExecStart= is the installed devfreqd" "$(value ExecStart)" '^/[^ ]*/devfreqd$'
like "ExecReload= calls Reload() on the bus, absolute path" "$(value ExecReload)" \
        '^/[^ ]*busctl call org\.devfreqd\.Devfreq1 /org/devfreqd/Devfreq1 org\.devfreqd\.Devfreq1\.Manager Reload$'
like "ExecStopPost= is devfreqd --restore" "$(value ExecStopPost)" '^/[^ ]*/devfreqd --restore$'
is "ExecStart= and ExecStopPost= run the same binary" \
        "$(value ExecStopPost)" "$(value ExecStart) --restore"
is "RuntimeDirectory=devfreqd" "$(value RuntimeDirectory)" devfreqd
is "RuntimeDirectoryPreserve=yes (the originals survive a restart)" "$(value RuntimeDirectoryPreserve)" yes
is "StateDirectory=devfreqd" "$(value StateDirectory)" devfreqd
check "no placeholder left by the substitution" bash -c '! grep -n "@[A-Za-z_]*@" "$1"' _ "$unit"
# What keeps the sysfs attributes writable: guarded so that more hardening cannot break it.
like "ProtectKernelTunables=yes comes with ReadWritePaths=/sys/devices" \
        "$(value ProtectKernelTunables) $(value ReadWritePaths | tr '\n' ' ')" '^yes (.* )?/sys/devices( |$)'
check "runs as root (no User=, no DynamicUser=yes, no PrivateUsers=yes)" \
        bash -c '[[ -z $1 && $2 != yes && $3 != yes ]]' _ "$(value User)" "$(value DynamicUser)" "$(value PrivateUsers)"
check "ProcSubset= is not pid (the proc-stat load source reads /proc/stat)" \
        bash -c '[[ $1 != pid ]]' _ "$(value ProcSubset)"

# --- (a) systemd-analyze verify on a copy pointing at the built binary ---------------------------

busctl=$(command -v busctl || true)
if [[ ! -x $devfreqd ]]; then
        skip "systemd-analyze verify: $devfreqd is not built"
elif [[ -z $busctl ]]; then
        skip "systemd-analyze verify: busctl is not installed (ExecReload= would not verify)"
else
        # Same file name (verify names the unit after it); only the executables' paths change.
        sed -e "s|^ExecStart=[^ ]*|ExecStart=$devfreqd|" \
                -e "s|^ExecStopPost=[^ ]*|ExecStopPost=$devfreqd|" \
                -e "s|^ExecReload=[^ ]*|ExecReload=$busctl|" \
                "$unit" >"$tmp/devfreqd.service"
        set +e
        out=$(systemd-analyze verify --man=no "$tmp/devfreqd.service" 2>&1)
        status=$?
        set -e
        is "systemd-analyze verify exits 0" "$status" 0
        is "systemd-analyze verify prints nothing" "$out" ""
fi

# --- (b) the exposure score ----------------------------------------------------------------------

set +e
out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1)
status=$?
set -e
if ((status != 0)) && [[ $out == *"unrecognized option"* ]]; then
        skip "systemd-analyze security --offline needs systemd 250 or later"
else
        score=$(sed -n 's/.*Overall exposure level for devfreqd\.service: *\([0-9][0-9.]*\).*/\1/p' <<<"$out")
        if [[ -z $score ]]; then
                not_ok "systemd-analyze security reports an exposure level"
                printf '%s\n' "$out" | sed 's/^/#   /'
        else
                diag "exposure level: $score (at most $max_exposure)"
                if awk -v s="$score" -v m="$max_exposure" 'BEGIN { exit !(s + 0 <= m + 0) }'; then
                        ok "exposure level $score is at most $max_exposure"
                else
                        not_ok "exposure level $score is at most $max_exposure"
                        printf '%s\n' "$out" | grep '✗' | sed 's/^/#   /' || true
                fi
        fi
fi

tap_done
