/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* stderr logging with syslog prefixes; the only global state of the daemon besides its manager. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "logging.h"

static int max_level = LOG_INFO;
static enum log_target target = LOG_TARGET_CONSOLE;

static const char *const level_table[] = {
        [LOG_EMERG] = "emerg",     [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit", [LOG_ERR] = "err",
        [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

void log_set_target(enum log_target t) {
        target = t;
}

enum log_target log_get_target(void) {
        return target;
}

DEFINE_STRING_TABLE(log_level, int, level_table, LOG_DEBUG + 1, -EINVAL)

int log_internalv(int level, int error, const char *fmt, va_list ap) {
        char text[2048], line[2048 + 8];
        size_t prefix, n;

        if (error < 0)
                error = -error;
        if (level > max_level || target == LOG_TARGET_NULL)
                return -error;
        /* %m prints the error we were given, not whatever errno happens to be. */
        errno = error;
        if (vsnprintf(text, sizeof(text), fmt, ap) < 0)
                text[0] = '\0';
        prefix = (size_t) snprintf(line, sizeof(line), "<%d>", level);
        /* One record a line: a caller's string with a newline and a "<2>" cannot start another, at
         * a priority of its choosing. */
        n = df_escape_control(line + prefix, sizeof(line) - prefix - 1, text);
        line[prefix + n] = '\n';
        /* One write(2) per line (dprintf() costs three system calls), so lines from a signal-time
         * restore never interleave. */
        (void) !write(STDERR_FILENO, line, prefix + n + 1);
        return -error;
}

int log_internal(int level, int error, const char *fmt, ...) {
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = log_internalv(level, error, fmt, ap);
        va_end(ap);
        return r;
}

void log_from_lib(void *userdata, int level, const char *message) {
        const char *subject = userdata;

        if (level > max_level)
                return;
        if (subject)
                log_internal(level, 0, "%s: %s", subject, message);
        else
                log_internal(level, 0, "%s", message);
}
