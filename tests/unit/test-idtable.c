/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Request ids and the id table: the permutation's values, distinct ids, collisions, growth, and
 * removals that keep every probe run whole. */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idtable.h"
#include "macro.h"
#include "test-helpers.h"

/* --- ids ------------------------------------------------------------------------------------- */

/*
 * The permutation's first values for the key 00 01 .. 0f (two little-endian words), as the
 * daemon has always made them; worked out apart from this code by a SipHash-2-4 written from its
 * paper (which gives 0x93f5f5799a932462 for the message 00 .. 07 under this key) in a
 * four-round Feistel network over the counter's halves.
 */
START_TEST(test_permutation_values) {
        static const uint64_t key[2] = { UINT64_C(0x0706050403020100), UINT64_C(0x0f0e0d0c0b0a0908) };
        static const uint64_t want[] = {
                UINT64_C(0x4b67af5dc844c3cf), UINT64_C(0x0f4312ed5b50787a), UINT64_C(0xadd096a3cbe3fa76),
                UINT64_C(0xd06a34a3f406ce71), UINT64_C(0x521c2e2e326207d5), UINT64_C(0xe8452c09b79ea5fa),
        };
        static const uint64_t small_key[2] = { 1, 2 };
        struct df_idgen g;

        df_idgen_init(&g, key);
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                ck_assert_uint_eq(df_idgen_next(&g), want[i]);

        df_idgen_init(&g, small_key);
        ck_assert_uint_eq(df_idgen_next(&g), UINT64_C(0x4370cad7f4b84aa4));
        g.counter = 1000000;
        ck_assert_uint_eq(df_idgen_next(&g), UINT64_C(0x1cfa1a37c54ecfb4));
        ck_assert_uint_eq(g.counter, 1000001);
}
END_TEST

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

#define MANY_IDS 300000

START_TEST(test_ids_distinct) {
        struct df_idgen g = {}, other = {};
        uint64_t *ids = calloc(MANY_IDS, sizeof(*ids));

        ck_assert_ptr_nonnull(ids);
        for (size_t i = 0; i < MANY_IDS; i++)
                ids[i] = df_idgen_next(&g);
        /* The key came from the random pool; another generator draws another. */
        ck_assert(g.key[0] != 0 || g.key[1] != 0);
        ck_assert_uint_ne(df_idgen_next(&other), ids[0]);

        qsort(ids, MANY_IDS, sizeof(*ids), cmp_u64);
        ck_assert_uint_ne(ids[0], 0);
        for (size_t i = 1; i < MANY_IDS; i++)
                if (ids[i] == ids[i - 1])
                        ck_abort_msg("id %" PRIu64 " came twice", ids[i]);
        /* Not a counter: the ids spread over the whole range. */
        ck_assert_uint_lt(ids[0], UINT64_MAX / 1000);
        ck_assert_uint_gt(ids[MANY_IDS - 1], UINT64_MAX / 1000 * 999);
        free(ids);
}
END_TEST

/* --- the table ------------------------------------------------------------------------------- */

/* The table's slot for an id, as lib/idtable.c hashes it: used only to pick ids that collide; the
 * test then checks that they did. */
static size_t home_slot(uint64_t id, size_t size) {
        return (size_t) (id * UINT64_C(0x9e3779b97f4a7c15) >> 7) & (size - 1);
}

/* `n` ids, from `start` on, whose home slot in a table of `size` is `slot`. */
static void colliding_ids(uint64_t start, size_t slot, size_t size, uint64_t *ret, size_t n) {
        for (uint64_t id = start; n > 0; id++)
                if (home_slot(id, size) == slot) {
                        *ret++ = id;
                        n--;
                }
}

static int value[16];

START_TEST(test_empty_and_errors) {
        struct df_idtable t = {};
        size_t i = 0;

        ck_assert_ptr_null(df_idtable_find(&t, 1));
        ck_assert_ptr_null(df_idtable_remove(&t, 1));
        ck_assert_ptr_null(df_idtable_next(&t, &i));
        ck_assert_int_eq(df_idtable_insert(&t, 1, NULL), -EINVAL);
        ck_assert_uint_eq(df_idtable_count(&t), 0);

        ck_assert_int_eq(df_idtable_insert(&t, 1, &value[0]), 0);
        ck_assert_int_eq(df_idtable_insert(&t, 1, &value[1]), -EEXIST);
        ck_assert_ptr_eq(df_idtable_find(&t, 1), &value[0]);
        ck_assert_ptr_null(df_idtable_find(&t, 2));
        ck_assert_ptr_null(df_idtable_remove(&t, 2));
        /* 0 is an id like any other here (the generator never makes it). */
        ck_assert_int_eq(df_idtable_insert(&t, 0, &value[2]), 0);
        ck_assert_ptr_eq(df_idtable_find(&t, 0), &value[2]);
        ck_assert_uint_eq(df_idtable_count(&t), 2);
        ck_assert_ptr_eq(df_idtable_remove(&t, 1), &value[0]);
        ck_assert_ptr_null(df_idtable_find(&t, 1));
        ck_assert_uint_eq(df_idtable_count(&t), 1);
        df_idtable_done(&t);
        ck_assert_ptr_null(t.slots);
        ck_assert_uint_eq(df_idtable_count(&t), 0);
}
END_TEST

/* Slot of an id in the table (it must be there). */
static size_t slot_of(const struct df_idtable *t, uint64_t id) {
        for (size_t s = 0; s < t->size; s++)
                if (t->slots[s].ptr && t->slots[s].id == id)
                        return s;
        ck_abort_msg("id %" PRIu64 " is in no slot", id);
        return 0;
}

/*
 * Five ids with one home slot form one probe run; removing any of them, the others stay found. The
 * loop runs with the home slot at 10 and at the table's last slot (the run wraps round to 0).
 */
START_TEST(test_collisions_and_removal) {
        const size_t size = 64, home = _i == 0 ? 10 : size - 1;
        uint64_t ids[5];

        colliding_ids(1000, home, size, ids, ELEMENTSOF(ids));
        for (size_t gone = 0; gone < ELEMENTSOF(ids); gone++) {
                struct df_idtable t = {};

                for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                        ck_assert_int_eq(df_idtable_insert(&t, ids[i], &value[i]), 0);
                ck_assert_uint_eq(t.size, size);
                /* They collided: one after the other from their home slot. */
                for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                        ck_assert_uint_eq(slot_of(&t, ids[i]), (home + i) & (size - 1));

                ck_assert_ptr_eq(df_idtable_remove(&t, ids[gone]), &value[gone]);
                for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                        if (i == gone)
                                ck_assert_ptr_null(df_idtable_find(&t, ids[i]));
                        else
                                ck_assert_ptr_eq(df_idtable_find(&t, ids[i]), &value[i]);
                /* No hole is left inside the run. */
                for (size_t i = 0; i + 1 < ELEMENTSOF(ids); i++)
                        ck_assert_ptr_nonnull(t.slots[(home + i) & (size - 1)].ptr);
                ck_assert_ptr_null(t.slots[(home + ELEMENTSOF(ids) - 1) & (size - 1)].ptr);
                df_idtable_done(&t);
        }
}
END_TEST

/* An id whose home slot is taken by another run's member must not be pulled before its home. */
START_TEST(test_removal_keeps_home_order) {
        struct df_idtable t = {};
        uint64_t a[3], b[1];

        colliding_ids(1, 20, 64, a, ELEMENTSOF(a)); /* slots 20, 21, 22 */
        colliding_ids(1, 22, 64, b, ELEMENTSOF(b)); /* home 22, lands at 23 */
        for (size_t i = 0; i < ELEMENTSOF(a); i++)
                ck_assert_int_eq(df_idtable_insert(&t, a[i], &value[i]), 0);
        ck_assert_int_eq(df_idtable_insert(&t, b[0], &value[3]), 0);
        ck_assert_uint_eq(slot_of(&t, b[0]), 23);

        ck_assert_ptr_eq(df_idtable_remove(&t, a[2]), &value[2]); /* frees slot 22: b comes home */
        ck_assert_uint_eq(slot_of(&t, b[0]), 22);
        ck_assert_ptr_eq(df_idtable_remove(&t, a[0]), &value[0]); /* frees 20: a[1] moves, b stays */
        ck_assert_uint_eq(slot_of(&t, a[1]), 20);
        ck_assert_uint_eq(slot_of(&t, b[0]), 22);
        ck_assert_ptr_eq(df_idtable_find(&t, a[1]), &value[1]);
        ck_assert_ptr_eq(df_idtable_find(&t, b[0]), &value[3]);
        df_idtable_done(&t);
}
END_TEST

#define GROWTH 20000

START_TEST(test_growth_and_iteration) {
        struct df_idtable t = {};
        struct df_idgen g;
        static const uint64_t key[2] = { 3, 4 };
        static uint64_t ids[GROWTH];
        static bool seen[GROWTH];
        uint64_t *p;
        size_t i = 0, n = 0;

        df_idgen_init(&g, key);
        for (size_t k = 0; k < GROWTH; k++) {
                ids[k] = df_idgen_next(&g);
                if (df_idtable_insert(&t, ids[k], &ids[k]) < 0)
                        ck_abort_msg("insert %zu failed", k);
                /* At most half full, a power of two. */
                if (2 * df_idtable_count(&t) > t.size || (t.size & (t.size - 1)) != 0)
                        ck_abort_msg("%zu entries in %zu slots", df_idtable_count(&t), t.size);
        }
        ck_assert_uint_eq(df_idtable_count(&t), GROWTH);
        for (size_t k = 0; k < GROWTH; k++)
                if (df_idtable_find(&t, ids[k]) != &ids[k])
                        ck_abort_msg("id %zu is lost", k);

        /* Every pointer once. */
        while ((p = df_idtable_next(&t, &i))) {
                size_t k = (size_t) (p - ids);

                ck_assert_uint_lt(k, GROWTH);
                ck_assert(!seen[k]);
                seen[k] = true;
                n++;
        }
        ck_assert_uint_eq(n, GROWTH);
        df_idtable_done(&t);
}
END_TEST

#define CHURN_IDS 3000
#define CHURN_OPS 60000

/* Inserts and removals of small ids (dense, many shared home slots) against a reference array; every
 * few hundred operations, every id is looked up. */
START_TEST(test_random_churn) {
        static void *ref[CHURN_IDS];
        static char payload[CHURN_IDS];
        struct df_idtable t = {};
        uint64_t state = 0xdeadbeefcafef00d;
        size_t n = 0;

        memset(ref, 0, sizeof(ref));
        for (size_t k = 1; k <= CHURN_OPS; k++) {
                uint64_t r = df_test_random(&state);
                /* A spread of ids in a few ranges: small, and near the top of the range. */
                size_t i = (size_t) ((r >> 8) % CHURN_IDS);
                uint64_t id = i % 2 ? i : UINT64_MAX - i;

                if (ref[i]) {
                        ck_assert_ptr_eq(df_idtable_remove(&t, id), ref[i]);
                        ref[i] = NULL;
                        n--;
                } else {
                        ck_assert_int_eq(df_idtable_insert(&t, id, &payload[i]), 0);
                        ref[i] = &payload[i];
                        n++;
                }
                ck_assert_uint_eq(df_idtable_count(&t), n);
                if (k % 500 == 0) {
                        size_t wrong = SIZE_MAX; /* one assertion: check reports each to its parent */

                        for (size_t j = 0; j < CHURN_IDS && wrong == SIZE_MAX; j++)
                                if (df_idtable_find(&t, j % 2 ? j : UINT64_MAX - j) != ref[j])
                                        wrong = j;
                        ck_assert_msg(wrong == SIZE_MAX, "op %zu: the table is wrong about entry %zu", k, wrong);
                }
        }
        df_idtable_done(&t);
}
END_TEST

static Suite *idtable_suite(void) {
        Suite *s = suite_create("idtable");
        TCase *tc;

        tc = tcase_create("ids");
        tcase_add_test(tc, test_permutation_values);
        tcase_add_test(tc, test_ids_distinct);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);

        tc = tcase_create("table");
        tcase_add_test(tc, test_empty_and_errors);
        tcase_add_loop_test(tc, test_collisions_and_removal, 0, 2);
        tcase_add_test(tc, test_removal_keeps_home_order);
        tcase_add_test(tc, test_growth_and_iteration);
        tcase_add_test(tc, test_random_churn);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);

        return s;
}

int main(void) {
        return df_test_run(idtable_suite());
}
