# SPDX-License-Identifier: LGPL-2.1-or-later
# The system calls of device ticks, from `strace -f -qq -y` of the daemon. Every call from one
# device's load read (pread64 of a .../busy file) to the next device's load read (or the next
# event-loop call) belongs to that device tick; the tick changed the frequency when it wrote (pwrite64
# or write) a file that matches write_re (-v write_re=REGEX: set_freq> on the fake roots, (min|max)_freq> on a real
# devfreq node pinned by devfreqd). The event loop's own calls (epoll, timerfd, reading the timer)
# are overhead shared by every device tick of the wakeup; the bus messages (CurrentFrequency, sent
# at most once per 100 ms and device) are counted on their own. Prints one line:
#   TICKS CHANGED SYSCALLS_UNCHANGED_TICKS SYSCALLS_CHANGED_TICKS OVERHEAD SIGNALS DETAIL
/^[0-9]+ +[a-z_0-9]+\(/ || /^[a-z_0-9]+\(/ {
        line = $0
        sub(/^[0-9]+ +/, "", line)
        if (line ~ /resumed>/ || line ~ /^\+\+\+/ || line ~ /^---/) next
        sc = line; sub(/\(.*/, "", sc)
        loop = sc ~ /^(epoll_wait|epoll_pwait|epoll_pwait2|timerfd_settime|timerfd_gettime|epoll_ctl|ppoll|poll|gettid)$/ ||
                (sc == "read" && line ~ /anon_inode:\[timerfd\]/)
        if (sc == "pread64" && line ~ /\/busy>/) {
                close_tick()
                in_tick = 1; n = 0; changed = 0; ticks++
        }
        if (loop) { close_tick(); overhead++; detail["loop:" sc]++; next }
        if (!in_tick) { other++; detail["other:" sc]++; next }
        if (line ~ /socket:/) { signals++; detail[sc "(bus)"]++; next }
        n++
        if ((sc == "pwrite64" || sc == "write") && line ~ write_re) changed = 1
        key = sc
        if (line ~ /\/busy>/) key = key "(load)"
        else if (line ~ write_re) key = key "(freq)"
        else if (line ~ /socket:/) key = key "(bus)"
        detail[key]++
}
function close_tick() {
        if (!in_tick) return
        if (changed) { nchanged++; sc_changed += n } else sc_unchanged += n
        in_tick = 0
}
END {
        close_tick()
        d = ""
        for (k in detail) d = d k "=" detail[k] ","
        printf "%d %d %d %d %d %d %s\n", ticks, nchanged, sc_unchanged, sc_changed, overhead + other, signals, d
}
