/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Control characters out of strings that reach a log line or a property. */

#include <assert.h>
#include <stdio.h>

#include "escape.h"

static bool is_control(unsigned char c) {
        return c < 0x20 || c == 0x7f;
}

bool df_has_control(const char *s) {
        assert(s);
        for (; *s; s++)
                if (is_control((unsigned char) *s))
                        return true;
        return false;
}

size_t df_escape_control(char *dst, size_t size, const char *s) {
        size_t n = 0;

        assert(dst && size > 0 && s);
        for (; *s; s++) {
                unsigned char c = (unsigned char) *s;
                char e[5];
                size_t len;

                if (!is_control(c)) {
                        e[0] = (char) c;
                        len = 1;
                } else if (c == '\n' || c == '\r' || c == '\t') {
                        e[0] = '\\';
                        e[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
                        len = 2;
                } else
                        len = (size_t) snprintf(e, sizeof(e), "\\x%02x", c);
                if (n + len >= size)
                        break;
                for (size_t i = 0; i < len; i++)
                        dst[n++] = e[i];
        }
        dst[n] = '\0';
        return n;
}

void df_fput_label_value(FILE *f, const char *s) {
        for (; s && *s; s++)
                if (*s == '\\' || *s == '"')
                        fprintf(f, "\\%c", *s);
                else if (*s == '\n')
                        fputs("\\n", f);
                else
                        fputc(*s, f);
}
