/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A NULL-terminated array of strings with its length beside it (systemd's strv, kept small). */
#pragma once

#include <stddef.h>

/* Free the n strings and the array; NULL. */
char **strv_free(char **v, size_t n);
/* Append `s` (taken: freed on failure) and keep the array NULL-terminated. 0 or -ENOMEM. */
int strv_consume(char ***v, size_t *n, char *s);
/* Append a copy of `s`. 0 or -ENOMEM. */
int strv_push(char ***v, size_t *n, const char *s);
