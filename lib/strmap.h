/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A table from strings to indexes, for lookups by name or path that must not cost a scan of
 * everything found so far (a configuration of ten thousand devices). The keys are borrowed: the
 * caller keeps each string alive and unchanged while the table holds it. */
#pragma once

#include <stddef.h>

/* Open addressing, linear probing with backward-shift removal, at most half full. */
struct df_strmap_entry {
        const char *key; /* NULL: an empty slot */
        size_t len;
        size_t value;
};

struct df_strmap {
        struct df_strmap_entry *slots;
        size_t size; /* a power of two, or 0 */
        size_t n;
};

/* The first `len` bytes of `key` (no NUL needed among them) map to `value`: 0, -EEXIST when they
 * are in the table already, or -ENOMEM with the table unchanged. */
int df_strmap_insert(struct df_strmap *m, const char *key, size_t len, size_t value);
/* 1 with *ret set when the `len` bytes of `key` are in the table, else 0. */
int df_strmap_find(const struct df_strmap *m, const char *key, size_t len, size_t *ret);
/* Take the `len` bytes of `key` out: 1 when they were in the table, else 0. */
int df_strmap_remove(struct df_strmap *m, const char *key, size_t len);
void df_strmap_done(struct df_strmap *m);
