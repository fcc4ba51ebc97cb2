/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers of the bus files, calling none of them: a caller's string echoed safely in an
 * error, the length check of name arguments, a property's vtable entry by name. */

#include <string.h>

#include "bus-internal.h"
#include "escape.h"
#include "macro.h"

const char *bus_echo(const char *s, char buf[static ECHO_BUFFER]) {
        char cut[ECHO_MAX + 1];
        size_t n = strlen(s);
        bool longer = n > ECHO_MAX;

        if (longer) {
                /* Back to the first byte of a UTF-8 sequence: the message must stay valid UTF-8. */
                n = ECHO_MAX;
                while (n > 0 && ((unsigned char) s[n] & 0xc0) == 0x80)
                        n--;
        }
        memcpy(cut, s, n);
        cut[n] = '\0';
        /* A caller's string may be logged by whoever reads the error: no control character in it. */
        n = df_escape_control(buf, ECHO_BUFFER - sizeof("…") + 1, cut);
        if (longer)
                memcpy(buf + n, "…", sizeof("…"));
        return buf;
}

int bus_check_name_arg(const char *what, const char *name, sd_bus_error *error) {
        char e[ECHO_BUFFER];

        if (strlen(name) <= NAME_ARG_MAX)
                return 0;
        return sd_bus_error_setf(
                error, SD_BUS_ERROR_INVALID_ARGS, "The %s name '%s' is longer than %d bytes", what,
                bus_echo(name, e), NAME_ARG_MAX);
}

const sd_bus_vtable *bus_vtable_property(const sd_bus_vtable *vtable, const char *name) {
        for (const sd_bus_vtable *v = vtable; v->type != _SD_BUS_VTABLE_END; v++)
                if (v->type == _SD_BUS_VTABLE_PROPERTY && streq(v->x.property.member, name))
                        return v;
        return NULL;
}
