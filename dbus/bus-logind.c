/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Following logind's PrepareForSleep: after a resume, the manager writes again what a driver or the
 * firmware reset. The match is in place from the start, whether logind runs yet or not, with the
 * sender set to logind's name; logind is never activated for it. The signal is believed only from
 * the unique name that owns org.freedesktop.login1 when it arrives. */

#include "bus-internal.h"
#include "logging.h"

#define LOGIND_NAME "org.freedesktop.login1"

static int on_prepare_for_sleep(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct bus *b = userdata;
        int sleeping, r;

        if (!signal_from_owner(b, b->logind, m))
                return 0;
        r = sd_bus_message_read(m, "b", &sleeping);
        if (r < 0) {
                log_debug_errno(r, "Malformed PrepareForSleep from logind: %m");
                return 0;
        }
        log_debug("logind: %s", sleeping ? "going to sleep" : "resumed");
        if (!sleeping)
                manager_resume(b->manager);
        return 0;
}

int logind_watch_start(struct bus *b) {
        int r;

        r = name_watch_new(b, LOGIND_NAME, NULL, NULL, &b->logind);
        if (r < 0)
                return r;
        return sd_bus_match_signal_async(
                b->bus, NULL, LOGIND_NAME, "/org/freedesktop/login1", "org.freedesktop.login1.Manager",
                "PrepareForSleep", on_prepare_for_sleep, NULL, b);
}
