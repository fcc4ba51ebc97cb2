/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unguessable never-reused 64-bit ids, and a table from id to pointer. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Ids: a keyed permutation of a counter (SipHash-2-4 rounds in a Feistel network), so every id is
 * unique for the generator's life without remembering the old ones, and unguessable without the
 * key. Never 0. A zeroed generator draws its key from getrandom() on first use (without the random
 * pool, from the clocks and the pid: unique still, less unguessable).
 */
struct df_idgen {
        uint64_t key[2];
        uint64_t counter;
};

/* A generator with a fixed key, for tests and reproducible runs. */
void df_idgen_init(struct df_idgen *g, const uint64_t key[2]);
uint64_t df_idgen_next(struct df_idgen *g);

/* The table: open addressing, linear probing, backward-shift deletion; at most half full. */
struct df_idtable_entry {
        uint64_t id;
        void *ptr; /* NULL: an empty slot */
};

struct df_idtable {
        struct df_idtable_entry *slots;
        size_t size; /* a power of two, or 0 */
        size_t n;
};

/* Map `id` to `ptr` (not NULL): 0, -EEXIST when the id is in the table already, -EINVAL for a
 * NULL ptr, or -ENOMEM with the table unchanged. */
int df_idtable_insert(struct df_idtable *t, uint64_t id, void *ptr);
/* The pointer for `id`, NULL when there is none. */
void *df_idtable_find(const struct df_idtable *t, uint64_t id);
/* Take `id` out and return its pointer, NULL when there was none. */
void *df_idtable_remove(struct df_idtable *t, uint64_t id);
/* Every pointer in turn: start with *i = 0; NULL at the end. The table must not change meanwhile. */
void *df_idtable_next(const struct df_idtable *t, size_t *i);
void df_idtable_done(struct df_idtable *t);

static inline size_t df_idtable_count(const struct df_idtable *t) {
        return t->n;
}
