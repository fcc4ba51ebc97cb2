/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Strings from outside (a caller's reason, another service's profile name, a name in an error)
 * made safe for one log line or one property: no control character gets through. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether the n bytes at s are UTF-8: no overlong form, no surrogate, nothing beyond U+10FFFF (a
 * D-Bus string must be, and so must the configuration). */
bool df_utf8_valid(const char *s, size_t n);

/* A control character (below 0x20, or 0x7f) anywhere in s. */
bool df_has_control(const char *s);

/* Copy s into dst (size > 0 bytes, always terminated) with each control character written as a C
 * escape (\n, \r, \t, else \xNN); other bytes, UTF-8 included, are kept. An escape is never cut in
 * half when dst is short. The length written. */
size_t df_escape_control(char *dst, size_t size, const char *s);

/* A Prometheus label value, as the text exposition format wants it between its quotes: backslash,
 * double quote and newline escaped (\\, \", \n), every other byte as it is. */
void df_fput_label_value(FILE *f, const char *s);
