/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Control characters out of strings that reach a log line or a property, and the UTF-8 they must
 * be. */

#include <assert.h>
#include <stdint.h>
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

bool df_utf8_valid(const char *text, size_t n) {
        const unsigned char *s = (const unsigned char *) text;

        for (size_t i = 0; i < n;) {
                uint32_t cp, min;
                size_t len;

                if (s[i] < 0x80) {
                        i++;
                        continue;
                }
                if ((s[i] & 0xE0) == 0xC0)
                        len = 2, cp = s[i] & 0x1Fu, min = 0x80;
                else if ((s[i] & 0xF0) == 0xE0)
                        len = 3, cp = s[i] & 0x0Fu, min = 0x800;
                else if ((s[i] & 0xF8) == 0xF0)
                        len = 4, cp = s[i] & 0x07u, min = 0x10000;
                else
                        return false;
                if (n - i < len)
                        return false;
                for (size_t k = 1; k < len; k++) {
                        if ((s[i + k] & 0xC0) != 0x80)
                                return false;
                        cp = cp << 6 | (s[i + k] & 0x3Fu);
                }
                /* Overlong forms, surrogates and values beyond Unicode are not UTF-8. */
                if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                        return false;
                i += len;
        }
        return true;
}
