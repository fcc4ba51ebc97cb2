/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The requests' bookkeeping: unguessable never-reused ids, the id table, and leases on one
 * CLOCK_BOOTTIME timer. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "bus-internal.h"
#include "logging.h"
#include "units.h"

/* --- ids: a keyed permutation of a counter (SipHash-2-4 rounds in a Feistel network), so every
 * id is unique for the daemon's life without remembering the old ones, and unguessable. */

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

uint64_t request_next_id(struct bus *b) {
        uint64_t id;

        if (b->id_key[0] == 0 && b->id_key[1] == 0 &&
            getrandom(b->id_key, sizeof(b->id_key), 0) != (ssize_t) sizeof(b->id_key)) {
                /* Without the random pool, fall back on time: unique still, less unguessable. */
                b->id_key[0] = df_now_usec(CLOCK_REALTIME);
                b->id_key[1] = df_now_usec(CLOCK_MONOTONIC) ^ (uint64_t) getpid();
        }
        do
                id = permute(b->id_key, b->id_counter++);
        while (id == 0);
        return id;
}

/* --- the id table: open addressing, linear probing, backward-shift deletion ------------------ */

static size_t slot_of(const struct bus *b, uint64_t id) {
        return (size_t) (id * UINT64_C(0x9e3779b97f4a7c15) >> 7) & (b->table_size - 1);
}

static int table_grow(struct bus *b) {
        size_t size = b->table_size ? b->table_size * 2 : 64;
        struct request **t = calloc(size, sizeof(*t)), **old = b->table;
        size_t old_size = b->table_size;

        if (!t)
                return -ENOMEM;
        b->table = t;
        b->table_size = size;
        for (size_t i = 0; i < old_size; i++) {
                if (!old[i])
                        continue;
                size_t s = slot_of(b, old[i]->id);
                while (t[s])
                        s = (s + 1) & (size - 1);
                t[s] = old[i];
        }
        free(old);
        return 0;
}

int request_table_insert(struct bus *b, struct request *q) {
        size_t s;
        int r;

        if ((b->n_requests + 1) * 2 > b->table_size) {
                r = table_grow(b);
                if (r < 0)
                        return r;
        }
        s = slot_of(b, q->id);
        while (b->table[s])
                s = (s + 1) & (b->table_size - 1);
        b->table[s] = q;
        b->n_requests++;
        return 0;
}

struct request *request_table_find(const struct bus *b, uint64_t id) {
        if (b->table_size == 0)
                return NULL;
        for (size_t s = slot_of(b, id); b->table[s]; s = (s + 1) & (b->table_size - 1))
                if (b->table[s]->id == id)
                        return b->table[s];
        return NULL;
}

void request_table_remove(struct bus *b, struct request *q) {
        size_t mask = b->table_size - 1, s = slot_of(b, q->id);

        while (b->table[s] != q)
                s = (s + 1) & mask;
        b->table[s] = NULL;
        b->n_requests--;
        /* Pull later members of the probe run back over the hole. */
        for (size_t j = (s + 1) & mask; b->table[j]; j = (j + 1) & mask) {
                size_t home = slot_of(b, b->table[j]->id);
                if (((j - home) & mask) >= ((j - s) & mask)) {
                        b->table[s] = b->table[j];
                        b->table[j] = NULL;
                        s = j;
                }
        }
}

/* --- leases: a min-heap by expiry and one timer at its top ----------------------------------- */

static void lease_swap(struct bus *b, size_t i, size_t j) {
        struct request *t = b->leases[i];

        b->leases[i] = b->leases[j];
        b->leases[j] = t;
        b->leases[i]->lease_index = i + 1;
        b->leases[j]->lease_index = j + 1;
}

static void lease_sift(struct bus *b, size_t i) {
        while (i > 0 && b->leases[(i - 1) / 2]->expires_boottime > b->leases[i]->expires_boottime) {
                lease_swap(b, i, (i - 1) / 2);
                i = (i - 1) / 2;
        }
        for (;;) {
                size_t l = 2 * i + 1, r = l + 1, m = i;
                if (l < b->n_leases && b->leases[l]->expires_boottime < b->leases[m]->expires_boottime)
                        m = l;
                if (r < b->n_leases && b->leases[r]->expires_boottime < b->leases[m]->expires_boottime)
                        m = r;
                if (m == i)
                        return;
                lease_swap(b, i, m);
                i = m;
        }
}

static int on_lease_timer(sd_event_source *s, uint64_t usec, void *userdata);

static void lease_rearm(struct bus *b) {
        int r;

        if (b->n_leases == 0) {
                if (b->lease_timer)
                        (void) sd_event_source_set_enabled(b->lease_timer, SD_EVENT_OFF);
                return;
        }
        if (!b->lease_timer) {
                r = sd_event_add_time(
                        b->event, &b->lease_timer, CLOCK_BOOTTIME, b->leases[0]->expires_boottime, 1000,
                        on_lease_timer, b);
                if (r < 0) {
                        log_error_errno(r, "Cannot arm the lease timer: %m");
                        return;
                }
                (void) sd_event_source_set_description(b->lease_timer, "request-leases");
                return;
        }
        (void) sd_event_source_set_time(b->lease_timer, b->leases[0]->expires_boottime);
        (void) sd_event_source_set_enabled(b->lease_timer, SD_EVENT_ONESHOT);
}

int request_lease_add(struct bus *b, struct request *q) {
        if (b->n_leases == b->allocated_leases) {
                size_t n = b->allocated_leases ? b->allocated_leases * 2 : 16;
                struct request **v = realloc(b->leases, n * sizeof(*v));
                if (!v)
                        return -ENOMEM;
                b->leases = v;
                b->allocated_leases = n;
        }
        b->leases[b->n_leases] = q;
        q->lease_index = ++b->n_leases;
        lease_sift(b, b->n_leases - 1);
        lease_rearm(b);
        return 0;
}

void request_lease_remove(struct bus *b, struct request *q) {
        size_t i;

        if (q->lease_index == 0)
                return;
        i = q->lease_index - 1;
        q->lease_index = 0;
        b->n_leases--;
        if (i != b->n_leases) {
                b->leases[i] = b->leases[b->n_leases];
                b->leases[i]->lease_index = i + 1;
                lease_sift(b, i);
        }
        lease_rearm(b);
}

static int on_lease_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        struct bus *b = userdata;
        uint64_t now = df_now_usec(CLOCK_BOOTTIME);

        while (b->n_leases > 0 && b->leases[0]->expires_boottime <= now) {
                struct request *q = b->leases[0];
                log_info("%s: request %" PRIu64 " expired", q->device->name, q->id);
                request_drop(q, true);
        }
        lease_rearm(b);
        return 0;
}

/* --- adding and dropping ---------------------------------------------------------------------- */
