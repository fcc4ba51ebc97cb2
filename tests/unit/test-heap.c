/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The indexed binary heap: order against a sorted reference, removal anywhere, changed keys both
 * ways, the empty and one-element heaps, and a failed allocation. */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "macro.h"
#include "test-helpers.h"

struct item {
        int64_t key;
        size_t slot;
};

static bool key_below(const void *a, const void *b) {
        return ((const struct item *) a)->key < ((const struct item *) b)->key;
}

static bool key_above(const void *a, const void *b) {
        return ((const struct item *) a)->key > ((const struct item *) b)->key;
}

static const struct df_heap_ops min_ops = { key_below, offsetof(struct item, slot) };
static const struct df_heap_ops max_ops = { key_above, offsetof(struct item, slot) };

/* The allocator of lib/heap.c's growth, failing on demand (this definition comes before libc's). */
static bool fail_alloc;

void *reallocarray(void *p, size_t n, size_t size) {
        if (fail_alloc || (size && n > SIZE_MAX / size)) {
                errno = ENOMEM;
                return NULL;
        }
        return realloc(p, n * size);
}

static int cmp_key(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

        return (x > y) - (x < y);
}

/* Every element sits where its slot says, and no child goes before its parent. One assertion for
 * the whole heap: check reports each assertion to its parent process, and this runs very often. */
static void check_shape(const struct df_heap *h, const struct df_heap_ops *ops) {
        size_t bad = SIZE_MAX;

        for (size_t i = 0; i < h->n && bad == SIZE_MAX; i++)
                if (df_heap_index(ops, h->items[i]) != i ||
                    (i > 0 && ops->before(h->items[i], h->items[(i - 1) / 2])))
                        bad = i;
        ck_assert_msg(bad == SIZE_MAX, "item %zu is not where its slot says or goes before its parent", bad);
}

/* Take everything out from the top: the keys must come in the reference's order (sorted ascending;
 * a max-heap gives them backwards). */
static void drain_against(struct df_heap *h, const struct df_heap_ops *ops, int64_t *ref, size_t n) {
        qsort(ref, n, sizeof(*ref), cmp_key);
        ck_assert_uint_eq(h->n, n);
        for (size_t k = 0; k < n; k++) {
                struct item *top = df_heap_peek(h);
                int64_t want = ops == &min_ops ? ref[k] : ref[n - 1 - k];

                ck_assert_ptr_nonnull(top);
                ck_assert_int_eq(top->key, want);
                ck_assert_ptr_eq(df_heap_remove_at(h, ops, 0), top);
                ck_assert_uint_eq(top->slot, 0);
                check_shape(h, ops);
        }
        ck_assert_ptr_null(df_heap_peek(h));
}

START_TEST(test_empty) {
        struct df_heap h = {};
        struct item a = { .key = 1 };

        ck_assert_ptr_null(df_heap_peek(&h));
        ck_assert_ptr_null(df_heap_remove_at(&h, &min_ops, 0));
        df_heap_fix_at(&h, &min_ops, 0);
        /* An element in no heap has no index, and removing it is a no-op. */
        ck_assert_uint_eq(df_heap_index(&min_ops, &a), SIZE_MAX);
        ck_assert_ptr_null(df_heap_remove_at(&h, &min_ops, df_heap_index(&min_ops, &a)));
        df_heap_done(&h, &min_ops);
        ck_assert_uint_eq(h.n, 0);
}
END_TEST

START_TEST(test_one) {
        struct df_heap h = {};
        struct item a = { .key = 7 };

        ck_assert_int_eq(df_heap_push(&h, &min_ops, &a), 0);
        ck_assert_ptr_eq(df_heap_peek(&h), &a);
        ck_assert_uint_eq(df_heap_index(&min_ops, &a), 0);
        a.key = -7;
        df_heap_fix_at(&h, &min_ops, 0);
        ck_assert_ptr_eq(df_heap_peek(&h), &a);
        ck_assert_ptr_null(df_heap_remove_at(&h, &min_ops, 1));
        ck_assert_ptr_eq(df_heap_remove_at(&h, &min_ops, 0), &a);
        ck_assert_uint_eq(a.slot, 0);
        ck_assert_ptr_null(df_heap_peek(&h));

        /* done() takes the elements out: their slots are 0 again. */
        ck_assert_int_eq(df_heap_push(&h, &min_ops, &a), 0);
        df_heap_done(&h, &min_ops);
        ck_assert_uint_eq(a.slot, 0);
        ck_assert_ptr_null(h.items);
}
END_TEST

#define SMALL 31

/* A heap of the keys 0, 10, ..., 300, pushed in a shuffled order. */
static void
fill_small(struct df_heap *h, const struct df_heap_ops *ops, struct item items[SMALL], int64_t ref[SMALL]) {
        uint64_t state = 0x1234567;
        size_t order[SMALL];

        for (size_t i = 0; i < SMALL; i++)
                order[i] = i;
        df_test_shuffle(order, SMALL, &state);
        for (size_t i = 0; i < SMALL; i++) {
                items[order[i]] = (struct item){ .key = (int64_t) order[i] * 10 };
                ref[i] = (int64_t) i * 10;
                ck_assert_int_eq(df_heap_push(h, ops, &items[order[i]]), 0);
        }
        check_shape(h, ops);
}

START_TEST(test_remove_any_position) {
        for (size_t pos = 0; pos < SMALL; pos++) {
                struct df_heap h = {};
                struct item items[SMALL];
                int64_t ref[SMALL];
                struct item *gone;

                fill_small(&h, &min_ops, items, ref);
                gone = h.items[pos];
                ck_assert_ptr_eq(df_heap_remove_at(&h, &min_ops, pos), gone);
                ck_assert_uint_eq(gone->slot, 0);
                check_shape(&h, &min_ops);
                /* The reference without the removed key (keys are distinct). */
                for (size_t i = 0, k = 0; i < SMALL; i++)
                        if (ref[i] != gone->key)
                                ref[k++] = ref[i];
                drain_against(&h, &min_ops, ref, SMALL - 1);
                df_heap_done(&h, &min_ops);
        }
}
END_TEST

START_TEST(test_fix_both_ways) {
        const struct df_heap_ops *ops = _i == 0 ? &min_ops : &max_ops;
        struct df_heap h = {};
        struct item items[SMALL];
        int64_t ref[SMALL];
        struct item *leaf, *top;
        int64_t first = ops == &min_ops ? -1 : 1000;

        fill_small(&h, ops, items, ref);

        /* A leaf that moves to the front rises to the top. */
        leaf = h.items[SMALL - 1];
        for (size_t i = 0; i < SMALL; i++)
                if (ref[i] == leaf->key)
                        ref[i] = first;
        leaf->key = first;
        df_heap_fix_at(&h, ops, df_heap_index(ops, leaf));
        ck_assert_ptr_eq(df_heap_peek(&h), leaf);
        check_shape(&h, ops);

        /* The top that moves to the back sinks, and the next comes up. */
        top = df_heap_peek(&h);
        for (size_t i = 0; i < SMALL; i++)
                if (ref[i] == top->key)
                        ref[i] = -first + 300;
        top->key = -first + 300;
        df_heap_fix_at(&h, ops, 0);
        ck_assert_ptr_ne(df_heap_peek(&h), top);
        ck_assert_uint_ge(df_heap_index(ops, top), SMALL / 2); /* a leaf again */
        check_shape(&h, ops);

        /* A change in the middle, either way, and one that changes nothing. */
        ((struct item *) h.items[5])->key += 1;
        for (size_t i = 0; i < SMALL; i++)
                ref[i] = ((struct item *) h.items[i])->key;
        df_heap_fix_at(&h, ops, 5);
        df_heap_fix_at(&h, ops, 3);
        check_shape(&h, ops);
        drain_against(&h, ops, ref, SMALL);
        df_heap_done(&h, ops);
}
END_TEST

#define POOL 600
#define OPS 40000

/*
 * Random pushes, removals at random positions, pops and key changes both ways, with ties, checked
 * after every operation against the pool (what is in the heap), and drained against a sorted
 * reference every few thousand operations.
 */
START_TEST(test_random_against_reference) {
        const struct df_heap_ops *ops = _i == 0 ? &min_ops : &max_ops;
        static struct item pool[POOL];
        static int64_t ref[POOL];
        struct df_heap h = {};
        uint64_t state = 0x9e3779b97f4a7c15 + (uint64_t) _i;

        memset(pool, 0, sizeof(pool));
        for (size_t k = 1; k <= OPS; k++) {
                uint64_t r = df_test_random(&state);
                struct item *it = &pool[(r >> 8) % POOL];
                int64_t key = (int64_t) ((r >> 24) % 1000) - 500;

                if (it->slot == 0) {
                        it->key = r % 5 == 0 ? 0 : key; /* many ties at 0 */
                        ck_assert_int_eq(df_heap_push(&h, ops, it), 0);
                } else if (r % 4 == 0)
                        ck_assert_ptr_eq(df_heap_remove_at(&h, ops, df_heap_index(ops, it)), it);
                else if (r % 4 == 1 && h.n > 0)
                        ck_assert_ptr_nonnull(df_heap_remove_at(&h, ops, 0));
                else {
                        it->key = key;
                        df_heap_fix_at(&h, ops, df_heap_index(ops, it));
                }
                check_shape(&h, ops);

                if (k % 5000 == 0) {
                        size_t n = 0;

                        for (size_t i = 0; i < POOL; i++)
                                if (pool[i].slot)
                                        ref[n++] = pool[i].key;
                        drain_against(&h, ops, ref, n);
                }
        }
        df_heap_done(&h, ops);
}
END_TEST

START_TEST(test_allocation_failure) {
        struct df_heap h = {};
        struct item items[9];

        for (size_t i = 0; i < 9; i++)
                items[i] = (struct item){ .key = 100 - (int64_t) i };
        for (size_t i = 0; i < 8; i++)
                ck_assert_int_eq(df_heap_push(&h, &min_ops, &items[i]), 0);
        ck_assert_uint_eq(h.allocated, 8);

        /* The ninth needs room: without it the heap and the element stay as they were. */
        fail_alloc = true;
        ck_assert_int_eq(df_heap_push(&h, &min_ops, &items[8]), -ENOMEM);
        fail_alloc = false;
        ck_assert_uint_eq(h.n, 8);
        ck_assert_uint_eq(items[8].slot, 0);
        ck_assert_ptr_eq(df_heap_peek(&h), &items[7]);
        check_shape(&h, &min_ops);

        ck_assert_int_eq(df_heap_push(&h, &min_ops, &items[8]), 0);
        ck_assert_ptr_eq(df_heap_peek(&h), &items[8]);
        df_heap_done(&h, &min_ops);
}
END_TEST

static Suite *heap_suite(void) {
        Suite *s = suite_create("heap");
        TCase *tc;

        tc = tcase_create("edges");
        tcase_add_test(tc, test_empty);
        tcase_add_test(tc, test_one);
        tcase_add_test(tc, test_allocation_failure);
        suite_add_tcase(s, tc);

        tc = tcase_create("positions");
        tcase_add_test(tc, test_remove_any_position);
        tcase_add_loop_test(tc, test_fix_both_ways, 0, 2);
        suite_add_tcase(s, tc);

        tc = tcase_create("random");
        tcase_add_loop_test(tc, test_random_against_reference, 0, 2);
        tcase_set_timeout(tc, 120);
        suite_add_tcase(s, tc);

        return s;
}

int main(void) {
        return df_test_run(heap_suite());
}
