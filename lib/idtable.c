/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unguessable never-reused ids (a keyed permutation of a counter) and the id -> pointer table. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "idtable.h"
#include "units.h"

/* --- ids: SipHash-2-4 rounds in a Feistel network over a counter ----------------------------- */

static inline uint64_t rotl(uint64_t x, int b) {
        return (x << b) | (x >> (64 - b));
}

#define SIPROUND(v0, v1, v2, v3)                                                                             \
        do {                                                                                                 \
                v0 += v1;                                                                                    \
                v1 = rotl(v1, 13);                                                                           \
                v1 ^= v0;                                                                                    \
                v0 = rotl(v0, 32);                                                                           \
                v2 += v3;                                                                                    \
                v3 = rotl(v3, 16);                                                                           \
                v3 ^= v2;                                                                                    \
                v0 += v3;                                                                                    \
                v3 = rotl(v3, 21);                                                                           \
                v3 ^= v0;                                                                                    \
                v2 += v1;                                                                                    \
                v1 = rotl(v1, 17);                                                                           \
                v1 ^= v2;                                                                                    \
                v2 = rotl(v2, 32);                                                                           \
        } while (0)

/* SipHash-2-4 of one 64-bit word. */
static uint64_t siphash_u64(const uint64_t key[2], uint64_t m) {
        uint64_t v0 = key[0] ^ UINT64_C(0x736f6d6570736575), v1 = key[1] ^ UINT64_C(0x646f72616e646f6d);
        uint64_t v2 = key[0] ^ UINT64_C(0x6c7967656e657261), v3 = key[1] ^ UINT64_C(0x7465646279746573);
        uint64_t b = UINT64_C(8) << 56;

        v3 ^= m;
        SIPROUND(v0, v1, v2, v3);
        SIPROUND(v0, v1, v2, v3);
        v0 ^= m;
        v3 ^= b;
        SIPROUND(v0, v1, v2, v3);
        SIPROUND(v0, v1, v2, v3);
        v0 ^= b;
        v2 ^= 0xff;
        for (int i = 0; i < 4; i++)
                SIPROUND(v0, v1, v2, v3);
        return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t permute(const uint64_t key[2], uint64_t x) {
        uint32_t l = (uint32_t) (x >> 32), r = (uint32_t) x;

        for (uint64_t round = 0; round < 4; round++) {
                uint32_t f = (uint32_t) siphash_u64(key, (round << 32) | r);
                uint32_t t = r;
                r = l ^ f;
                l = t;
        }
        return ((uint64_t) l << 32) | r;
}

void df_idgen_init(struct df_idgen *g, const uint64_t key[2]) {
        *g = (struct df_idgen){ .key = { key[0], key[1] } };
}

uint64_t df_idgen_next(struct df_idgen *g) {
        uint64_t id;

        if (g->key[0] == 0 && g->key[1] == 0 &&
            getrandom(g->key, sizeof(g->key), 0) != (ssize_t) sizeof(g->key)) {
                /* Without the random pool, fall back on time: unique still, less unguessable. */
                g->key[0] = df_now_usec(CLOCK_REALTIME);
                g->key[1] = df_now_usec(CLOCK_MONOTONIC) ^ (uint64_t) getpid();
        }
        do
                id = permute(g->key, g->counter++);
        while (id == 0);
        return id;
}

/* --- the table: open addressing, linear probing, backward-shift deletion ---------------------- */

static size_t home_of(size_t size, uint64_t id) {
        return (size_t) (id * UINT64_C(0x9e3779b97f4a7c15) >> 7) & (size - 1);
}

/* The slot of `id`, or of the empty slot that ends its probe run. */
static size_t probe(const struct df_idtable_entry *slots, size_t size, uint64_t id) {
        size_t s = home_of(size, id);

        while (slots[s].ptr && slots[s].id != id)
                s = (s + 1) & (size - 1);
        return s;
}

static int grow(struct df_idtable *t) {
        size_t size = t->size ? t->size * 2 : 64;
        struct df_idtable_entry *slots = calloc(size, sizeof(*slots));

        if (!slots)
                return -ENOMEM;
        for (size_t i = 0; i < t->size; i++)
                if (t->slots[i].ptr)
                        slots[probe(slots, size, t->slots[i].id)] = t->slots[i];
        free(t->slots);
        t->slots = slots;
        t->size = size;
        return 0;
}

int df_idtable_insert(struct df_idtable *t, uint64_t id, void *ptr) {
        size_t s;
        int r;

        assert(t);
        if (!ptr)
                return -EINVAL;
        if (df_idtable_find(t, id))
                return -EEXIST;
        if ((t->n + 1) * 2 > t->size) {
                r = grow(t);
                if (r < 0)
                        return r;
        }
        s = probe(t->slots, t->size, id);
        t->slots[s] = (struct df_idtable_entry){ id, ptr };
        t->n++;
        return 0;
}

void *df_idtable_find(const struct df_idtable *t, uint64_t id) {
        assert(t);
        if (t->size == 0)
                return NULL;
        return t->slots[probe(t->slots, t->size, id)].ptr;
}

void *df_idtable_remove(struct df_idtable *t, uint64_t id) {
        size_t mask = t->size - 1, s;
        void *ptr;

        assert(t);
        if (t->size == 0)
                return NULL;
        s = probe(t->slots, t->size, id);
        ptr = t->slots[s].ptr;
        if (!ptr)
                return NULL;
        t->slots[s] = (struct df_idtable_entry){};
        t->n--;
        /* Pull later members of the probe run back over the hole, so that no run is cut short. */
        for (size_t j = (s + 1) & mask; t->slots[j].ptr; j = (j + 1) & mask) {
                size_t home = home_of(t->size, t->slots[j].id);

                if (((j - home) & mask) >= ((j - s) & mask)) {
                        t->slots[s] = t->slots[j];
                        t->slots[j] = (struct df_idtable_entry){};
                        s = j;
                }
        }
        return ptr;
}

void *df_idtable_next(const struct df_idtable *t, size_t *i) {
        assert(t && i);
        for (; *i < t->size; (*i)++)
                if (t->slots[*i].ptr)
                        return t->slots[(*i)++].ptr;
        return NULL;
}

void df_idtable_done(struct df_idtable *t) {
        free(t->slots);
        *t = (struct df_idtable){};
}
