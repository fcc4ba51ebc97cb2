/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The string table: against a plain array as the model, over random inserts, lookups and removals. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "strmap.h"
#include "test-helpers.h"

#define KEYS 600

static char keys[KEYS][16];

static void make_keys(void) {
        for (size_t i = 0; i < KEYS; i++)
                snprintf(keys[i], sizeof(keys[i]), "gpu%zu/", i);
}

START_TEST(test_strmap_basics) {
        struct df_strmap m = {};
        size_t v = 0;

        ck_assert_int_eq(df_strmap_find(&m, "a", 1, &v), 0);
        ck_assert_int_eq(df_strmap_remove(&m, "a", 1), 0);
        ck_assert_int_eq(df_strmap_insert(&m, "path/", 4, 7), 0); /* "path", without the '/' */
        ck_assert_int_eq(df_strmap_insert(&m, "path", 4, 8), -EEXIST);
        ck_assert_int_eq(df_strmap_find(&m, "path", 4, &v), 1);
        ck_assert_uint_eq(v, 7);
        ck_assert_int_eq(df_strmap_find(&m, "path/", 5, &v), 0);
        ck_assert_int_eq(df_strmap_insert(&m, "", 0, 9), 0);
        ck_assert_int_eq(df_strmap_find(&m, "x", 0, &v), 1);
        ck_assert_uint_eq(v, 9);
        ck_assert_int_eq(df_strmap_remove(&m, "path", 4), 1);
        ck_assert_int_eq(df_strmap_find(&m, "path", 4, NULL), 0);
        ck_assert_uint_eq(m.n, 1);
        df_strmap_done(&m);
        ck_assert_uint_eq(m.size, 0);
}
END_TEST

/* Random operations; after each, every key's presence and value agree with the model. */
START_TEST(test_strmap_random) {
        struct df_strmap m = {};
        ssize_t model[KEYS];
        uint64_t state = 0x9e3779b97f4a7c15u;

        make_keys();
        for (size_t i = 0; i < KEYS; i++)
                model[i] = -1;
        for (size_t op = 0; op < 20000; op++) {
                size_t k = df_test_random(&state) % KEYS, v;
                int r;

                if (df_test_random(&state) % 3 == 0) {
                        r = df_strmap_remove(&m, keys[k], strlen(keys[k]));
                        if (r != (model[k] >= 0))
                                ck_abort_msg("op %zu: remove %s returned %d", op, keys[k], r);
                        model[k] = -1;
                } else {
                        r = df_strmap_insert(&m, keys[k], strlen(keys[k]), op);
                        if (r != (model[k] >= 0 ? -EEXIST : 0))
                                ck_abort_msg("op %zu: insert %s returned %d", op, keys[k], r);
                        if (model[k] < 0)
                                model[k] = (ssize_t) op;
                }
                if (op % 97 != 0)
                        continue;
                size_t n = 0;
                for (size_t i = 0; i < KEYS; i++) {
                        /* check's assertions are slow: one only when something is wrong */
                        r = df_strmap_find(&m, keys[i], strlen(keys[i]), &v);
                        if (r != (model[i] >= 0) || (r && v != (size_t) model[i]))
                                ck_abort_msg(
                                        "op %zu key %s: found %d value %zu, model %zd", op, keys[i], r,
                                        r ? v : 0, model[i]);
                        n += model[i] >= 0;
                }
                ck_assert_uint_eq(m.n, n);
                ck_assert(m.n * 2 <= m.size);
        }
        df_strmap_done(&m);
}
END_TEST

static Suite *strmap_suite(void) {
        Suite *s = suite_create("strmap");
        TCase *tc = tcase_create("strmap");

        tcase_add_test(tc, test_strmap_basics);
        tcase_add_test(tc, test_strmap_random);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(strmap_suite());
}
