/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's logging: one line per event on stderr with a <N> syslog prefix (journald reads it),
 * level and target settable at run time (LogControl1). */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <syslog.h>

#include "macro.h"

enum log_target {
        LOG_TARGET_CONSOLE,
        LOG_TARGET_NULL,
};

void log_set_max_level(int level);
int log_get_max_level(void);
void log_set_target(enum log_target target);
enum log_target log_get_target(void);

/* "emerg" ... "debug" <-> LOG_EMERG ... LOG_DEBUG; -EINVAL for unknown names. */
const char *log_level_to_string(int level);
int log_level_from_string(const char *s);

/*
 * Log at `level`; `error` (a negative or positive errno, or 0) is what %m prints. Returns
 * -abs(error), so `return log_error_errno(r, "...: %m");` logs and passes the error on.
 */
_printf_(3, 4) int log_internal(int level, int error, const char *fmt, ...);
_printf_(3, 0) int log_internalv(int level, int error, const char *fmt, va_list ap);

#define log_full_errno(level, error, ...)                                                                    \
        __extension__({                                                                                      \
                int _e = (error);                                                                            \
                (level) <= log_get_max_level() ? log_internal((level), _e, __VA_ARGS__) : -abs(_e);          \
        })
#define log_full(level, ...) (void) log_full_errno((level), 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(error, ...) log_full_errno(LOG_DEBUG, error, __VA_ARGS__)
#define log_info_errno(error, ...) log_full_errno(LOG_INFO, error, __VA_ARGS__)
#define log_warning_errno(error, ...) log_full_errno(LOG_WARNING, error, __VA_ARGS__)
#define log_error_errno(error, ...) log_full_errno(LOG_ERR, error, __VA_ARGS__)

#define log_oom() log_error_errno(ENOMEM, "Out of memory.")

/* The library's df_log callback, forwarding at the library's level. */
void log_from_lib(void *userdata, int level, const char *message);
