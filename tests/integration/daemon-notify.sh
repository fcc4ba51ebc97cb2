#!/usr/bin/env bash
# sd_notify: READY=1 with a STATUS= line once the devices are attached and the name is owned;
# RELOADING=1 then READY=1 around a SIGHUP reload (good or broken file: a failed one stays in
# STATUS= until a reload succeeds); STOPPING=1 at SIGTERM.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

make_root
cat >"$tmp/devfreqd.conf" <<'EOF'
[daemon]
autodiscover = no

[device gpu]
path = /sys/class/devfreq/ff9a0000.gpu
mode = govern
governor = performance
EOF
start_bus
start_daemon

# The listener writes each datagram's lines followed by a "--" line; one message a line here.
messages() { awk '/^--$/ { print msg; msg = ""; next } { msg = msg (msg == "" ? "" : "|") $0 }' "$notify_log"; }

first=$(head -n1 < <(messages))
like "the first message is READY=1" "$first" '^READY=1(\||$)'
like "... with a STATUS= summary" "$first" '\|STATUS=1 devices \(1 govern, 0 clamp\), 0 polling$'
name_owned() { bctl status org.devfreqd.Devfreq1 >/dev/null; }
check "at READY=1 the bus name is owned" name_owned
is "at READY=1 the device is attached and applied" "$(kread "$gpu/userspace/set_freq")" 800000000

# SIGHUP with a good, changed file.
sed -i 's/governor = performance/governor = powersave/' "$tmp/devfreqd.conf"
: >"$notify_log"
kill -HUP "$daemon_pid"
check "SIGHUP: READY=1 again" wait_until 10 grep -q '^READY=1' "$notify_log"
msgs=$(messages | tr '\n' '#')
like "SIGHUP: RELOADING=1 first, then READY=1" "$msgs" '^RELOADING=1[^#]*#READY=1'
like "... READY=1 carries a STATUS= line" "$msgs" '#READY=1\|STATUS=[^#]+#$'
is "... and the reload was applied before READY=1" "$(kread "$gpu/userspace/set_freq")" 200000000

# SIGHUP with a broken file: the daemon still says READY=1 (the old configuration runs).
echo 'bogus line' >>"$tmp/devfreqd.conf"
: >"$notify_log"
kill -HUP "$daemon_pid"
check "broken file: READY=1 again" wait_until 10 grep -q '^READY=1' "$notify_log"
like "... after RELOADING=1" "$(messages | tr '\n' '#')" '^RELOADING=1[^#]*#READY=1'
like "... its STATUS= says the reload failed, and where" "$(messages | tr '\n' '#')" \
        "#READY=1\\|STATUS=1 devices \\(1 govern, 0 clamp\\), 0 polling; reload failed, the previous configuration runs: $tmp/devfreqd.conf:[0-9]+: [^#]+#\$"

# Reload() over the bus reloads like SIGHUP, so it is announced the same way.
sed -i '/^bogus line$/d' "$tmp/devfreqd.conf"
: >"$notify_log"
bctl call org.devfreqd.Devfreq1 /org/devfreqd/Devfreq1 org.devfreqd.Devfreq1.Manager Reload
check "Reload(): READY=1 again" wait_until 10 grep -q '^READY=1' "$notify_log"
like "... after RELOADING=1" "$(messages | tr '\n' '#')" '^RELOADING=1[^#]*#READY=1\|STATUS=[^#]+#$'
like "... and a good reload clears the failure from STATUS=" "$(messages | tr '\n' '#')" \
        '#READY=1\|STATUS=1 devices \(1 govern, 0 clamp\), 0 polling#$'

# SIGTERM.
: >"$notify_log"
stop_daemon TERM
is "SIGTERM: exit status 0" "$daemon_status" 0
# The listener may not have written the last datagram yet when devfreqd has exited. A wait that
# runs out hides nothing: the case below then finds no STOPPING=1 and fails.
wait_until 5 grep -q '^STOPPING=1' "$notify_log" || true
like "SIGTERM: STOPPING=1" "$(messages | tr '\n' '#')" '(^|#)STOPPING=1'
check "no READY=1 after STOPPING=1" bash -c "! grep -q '^READY=1' '$notify_log'"
tap_done
