/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Strings to indexes: FNV-1a hashes in an open-addressed table. */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

static uint64_t hash(const char *key, size_t len) {
        uint64_t h = UINT64_C(14695981039346656037);

        for (size_t i = 0; i < len; i++) {
                h ^= (unsigned char) key[i];
                h *= UINT64_C(1099511628211);
        }
        return h;
}

/* The slot holding the key, or the empty slot where it would go. */
static struct df_strmap_entry *slot_of(const struct df_strmap *m, const char *key, size_t len) {
        size_t mask = m->size - 1;

        for (size_t i = hash(key, len) & mask;; i = (i + 1) & mask) {
                struct df_strmap_entry *e = &m->slots[i];
                if (!e->key || (e->len == len && memcmp(e->key, key, len) == 0))
                        return e;
        }
}

static int grow(struct df_strmap *m) {
        struct df_strmap old = *m;
        size_t size = m->size ? m->size * 2 : 16;

        if (size < m->size)
                return -ENOMEM;
        m->slots = calloc(size, sizeof(*m->slots));
        if (!m->slots) {
                *m = old;
                return -ENOMEM;
        }
        m->size = size;
        for (size_t i = 0; i < old.size; i++)
                if (old.slots[i].key)
                        *slot_of(m, old.slots[i].key, old.slots[i].len) = old.slots[i];
        free(old.slots);
        return 0;
}

int df_strmap_insert(struct df_strmap *m, const char *key, size_t len, size_t value) {
        struct df_strmap_entry *e;
        int r;

        assert(m);
        assert(key);
        if (m->size > 0 && slot_of(m, key, len)->key)
                return -EEXIST;
        if ((m->n + 1) * 2 > m->size) {
                r = grow(m);
                if (r < 0)
                        return r;
        }
        e = slot_of(m, key, len);
        *e = (struct df_strmap_entry){ .key = key, .len = len, .value = value };
        m->n++;
        return 0;
}

int df_strmap_find(const struct df_strmap *m, const char *key, size_t len, size_t *ret) {
        const struct df_strmap_entry *e;

        assert(m);
        assert(key);
        if (m->size == 0)
                return 0;
        e = slot_of(m, key, len);
        if (!e->key)
                return 0;
        if (ret)
                *ret = e->value;
        return 1;
}

/* Backward shift: each entry after the hole that may move into it does, so that no probe sequence
 * ever meets a hole before its key. */
int df_strmap_remove(struct df_strmap *m, const char *key, size_t len) {
        size_t mask, i, j;

        assert(m);
        assert(key);
        if (m->size == 0)
                return 0;
        mask = m->size - 1;
        i = (size_t) (slot_of(m, key, len) - m->slots);
        if (!m->slots[i].key)
                return 0;
        for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
                size_t home = hash(m->slots[j].key, m->slots[j].len) & mask;

                /* The entry at j stays when its home lies cyclically in (i, j]. */
                if (((j - home) & mask) < ((j - i) & mask))
                        continue;
                m->slots[i] = m->slots[j];
                i = j;
        }
        m->slots[i] = (struct df_strmap_entry){};
        m->n--;
        return 1;
}

void df_strmap_done(struct df_strmap *m) {
        assert(m);
        free(m->slots);
        *m = (struct df_strmap){};
}
