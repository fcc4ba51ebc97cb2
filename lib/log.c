/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Forwarding of the library's messages to the function its owner installed. */

#include <stdio.h>

#include "log.h"

void df_logv(const struct df_log *log, int level, const char *fmt, va_list ap) {
        char message[1024];

        if (!log || !log->fn)
                return;
        vsnprintf(message, sizeof(message), fmt, ap);
        log->fn(log->userdata, level, message);
}

void df_logf(const struct df_log *log, int level, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        df_logv(log, level, fmt, ap);
        va_end(ap);
}
