/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The library never logs: objects that have something to say call a function their owner installs. */
#pragma once

#include <stdarg.h>
#include <syslog.h>

#include "macro.h"

/* Levels are syslog's (LOG_ERR ... LOG_DEBUG). `message` has no trailing newline. */
struct df_log {
        void (*fn)(void *userdata, int level, const char *message);
        void *userdata;
};

/* Format and pass on; nothing happens when no function is installed. */
_printf_(3, 4) void df_logf(const struct df_log *log, int level, const char *fmt, ...);
_printf_(3, 0) void df_logv(const struct df_log *log, int level, const char *fmt, va_list ap);
