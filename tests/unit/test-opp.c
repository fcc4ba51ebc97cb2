/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* OPP tables: the kernel OPP library's add/remove/enable rules, lookups over enabled points, notifiers. */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
#include "opp.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define U64_MAX UINT64_C(18446744073709551615)

/* Every notification, in order. */
struct recorder {
        size_t n;
        enum df_opp_event event[16];
        struct df_opp opp[16];
        size_t table_n[16]; /* the table's size when the listener ran */
};

static void record(struct df_opp_table *t, enum df_opp_event event, const struct df_opp *opp, void *userdata) {
        struct recorder *rec = userdata;

        ck_assert_uint_lt(rec->n, ELEMENTSOF(rec->event));
        rec->event[rec->n] = event;
        rec->opp[rec->n] = *opp;
        rec->table_n[rec->n] = t->n;
        rec->n++;
}

/* The README's table: 100 on, 200 off, 300 on, 400 off, 500 on. */
static void readme_table(struct df_opp_table *t, struct recorder *rec) {
        df_opp_table_init(t);
        for (uint64_t f = 100; f <= 500; f += 100)
                ck_assert_int_eq(df_opp_add(t, f * MHZ, 0, 0), 1);
        ck_assert_int_eq(df_opp_disable(t, 200 * MHZ), 1);
        ck_assert_int_eq(df_opp_disable(t, 400 * MHZ), 1);
        *rec = (struct recorder){};
        df_opp_table_set_notifier(t, record, rec);
}

enum call {
        CALL_CEIL,
        CALL_FLOOR,
        CALL_COUNT,
        CALL_ENABLE,
        CALL_DISABLE,
};

/* "OPP lookups with disabled points": each row applied in order to one table. */
struct lookup_row {
        enum call call;
        uint64_t arg;
        int r;           /* lookups: expected index or -ERANGE; enable/disable: return value */
        uint64_t result; /* lookups: the found frequency (or the unchanged argument); count: the count */
        size_t notifications;
        size_t count_after;
};

static const struct lookup_row readme_rows[] = {
        { CALL_CEIL, 0, 0, 100 * MHZ, 0, 3 },
        { CALL_CEIL, 150 * MHZ, 2, 300 * MHZ, 0, 3 },
        { CALL_CEIL, 200 * MHZ, 2, 300 * MHZ, 0, 3 }, /* a disabled exact hit is skipped */
        { CALL_CEIL, 500 * MHZ + 1, -ERANGE, 500 * MHZ + 1, 0, 3 },
        { CALL_FLOOR, U64_MAX, 4, 500 * MHZ, 0, 3 },
        { CALL_FLOOR, 450 * MHZ, 2, 300 * MHZ, 0, 3 },
        { CALL_FLOOR, 99 * MHZ, -ERANGE, 99 * MHZ, 0, 3 },
        { CALL_COUNT, 0, 0, 3, 0, 3 },
        { CALL_ENABLE, 200 * MHZ, 1, 0, 1, 4 },
        { CALL_DISABLE, 400 * MHZ, 0, 0, 1, 4 }, /* already disabled: no further notification */
        { CALL_ENABLE, 250 * MHZ, -ENODEV, 0, 1, 4 },
};

START_TEST(test_readme_lookups) {
        struct df_opp_table t;
        struct recorder rec;

        readme_table(&t, &rec);
        for (size_t i = 0; i < ELEMENTSOF(readme_rows); i++) {
                const struct lookup_row *row = &readme_rows[i];
                uint64_t f = row->arg;
                int r = 0;

                switch (row->call) {
                case CALL_CEIL:
                        r = df_opp_find_ceil(&t, &f);
                        break;
                case CALL_FLOOR:
                        r = df_opp_find_floor(&t, &f);
                        break;
                case CALL_COUNT:
                        f = df_opp_count_enabled(&t);
                        break;
                case CALL_ENABLE:
                        r = df_opp_enable(&t, row->arg);
                        break;
                case CALL_DISABLE:
                        r = df_opp_disable(&t, row->arg);
                        break;
                }
                ck_assert_msg(r == row->r, "row %zu: got %d, expected %d", i, r, row->r);
                if (row->call <= CALL_COUNT)
                        ck_assert_msg(
                                f == row->result, "row %zu: got %" PRIu64 ", expected %" PRIu64, i, f,
                                row->result);
                ck_assert_msg(rec.n == row->notifications, "row %zu: %zu notifications", i, rec.n);
                ck_assert_uint_eq(df_opp_count_enabled(&t), row->count_after);
        }
        ck_assert_int_eq(rec.event[0], DF_OPP_EVENT_ENABLE);
        ck_assert_uint_eq(rec.opp[0].freq, 200 * MHZ);
        ck_assert(rec.opp[0].enabled);
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_add_sorted) {
        static const uint64_t order[] = { 400, 100, 800, 200, 300, 50 };
        static const uint64_t sorted[] = { 50, 100, 200, 300, 400, 800 };
        struct df_opp_table t;

        df_opp_table_init(&t);
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                ck_assert_int_eq(df_opp_add(&t, order[i] * MHZ, (uint32_t) (order[i] * 1000), (uint32_t) i), 1);
        ck_assert_uint_eq(t.n, ELEMENTSOF(sorted));
        for (size_t i = 0; i < t.n; i++) {
                ck_assert_uint_eq(t.opps[i].freq, sorted[i] * MHZ);
                ck_assert_uint_eq(t.opps[i].microvolt, sorted[i] * 1000);
                ck_assert(t.opps[i].enabled);
                ck_assert_int_eq(df_opp_find(&t, sorted[i] * MHZ), (int) i);
        }
        ck_assert_uint_eq(t.opps[0].latency_us, 5);
        ck_assert_int_eq(df_opp_find(&t, 150 * MHZ), -ENODEV);
        ck_assert_int_eq(df_opp_find(&t, 0), -ENODEV);
        ck_assert_int_eq(df_opp_find(&t, U64_MAX), -ENODEV);

        /* Growing past the first allocation keeps the order. */
        for (uint64_t f = 1000; f > 900; f--)
                ck_assert_int_eq(df_opp_add(&t, f * MHZ, 0, 0), 1);
        ck_assert_uint_eq(t.n, ELEMENTSOF(sorted) + 100);
        for (size_t i = 1; i < t.n; i++)
                ck_assert_uint_lt(t.opps[i - 1].freq, t.opps[i].freq);
        ck_assert_uint_eq(t.opps[t.n - 1].freq, 1000 * MHZ);
        df_opp_table_done(&t);
        ck_assert_uint_eq(t.n, 0);
        ck_assert_ptr_null(t.opps);
}
END_TEST

START_TEST(test_add_duplicates) {
        struct df_opp_table t;
        struct recorder rec = {};

        df_opp_table_init(&t);
        df_opp_table_set_notifier(&t, record, &rec);
        ck_assert_int_eq(df_opp_add(&t, 400 * MHZ, 900000, 0), 1);
        ck_assert_uint_eq(rec.n, 1);
        ck_assert_int_eq(rec.event[0], DF_OPP_EVENT_ADD);
        ck_assert_uint_eq(rec.opp[0].freq, 400 * MHZ);
        ck_assert_uint_eq(rec.opp[0].microvolt, 900000);
        ck_assert(rec.opp[0].enabled);
        ck_assert_uint_eq(rec.table_n[0], 1);

        /* Same frequency, same voltage, enabled: 0, nothing added, nobody told. */
        ck_assert_int_eq(df_opp_add(&t, 400 * MHZ, 900000, 0), 0);
        /* The kernel compares only the voltage; another latency is still the same point. */
        ck_assert_int_eq(df_opp_add(&t, 400 * MHZ, 900000, 7), 0);
        ck_assert_uint_eq(t.opps[0].latency_us, 0);
        /* Another voltage. */
        ck_assert_int_eq(df_opp_add(&t, 400 * MHZ, 950000, 0), -EEXIST);
        ck_assert_int_eq(df_opp_add(&t, 400 * MHZ, 0, 0), -EEXIST);
        /* Disabled, even with the same voltage. */
        ck_assert_int_eq(df_opp_disable(&t, 400 * MHZ), 1);
        ck_assert_int_eq(df_opp_add(&t, 400 * MHZ, 900000, 0), -EEXIST);
        ck_assert_uint_eq(t.n, 1);
        ck_assert_uint_eq(rec.n, 2);
        ck_assert_int_eq(rec.event[1], DF_OPP_EVENT_DISABLE);

        /* Frequency 0 is not a point. */
        ck_assert_int_eq(df_opp_add(&t, 0, 0, 0), -EINVAL);
        ck_assert_uint_eq(t.n, 1);
        ck_assert_uint_eq(rec.n, 2);
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_remove) {
        struct df_opp_table t;
        struct recorder rec = {};

        df_opp_table_init(&t);
        for (uint64_t f = 100; f <= 400; f += 100)
                ck_assert_int_eq(df_opp_add(&t, f * MHZ, (uint32_t) f, 0), 1);
        ck_assert_int_eq(df_opp_disable(&t, 300 * MHZ), 1);
        df_opp_table_set_notifier(&t, record, &rec);

        ck_assert_int_eq(df_opp_remove(&t, 250 * MHZ), -ENODEV);
        ck_assert_uint_eq(rec.n, 0);

        /* Any state: a disabled point is removed too. */
        ck_assert_int_eq(df_opp_remove(&t, 300 * MHZ), 0);
        ck_assert_uint_eq(rec.n, 1);
        ck_assert_int_eq(rec.event[0], DF_OPP_EVENT_REMOVE);
        ck_assert_uint_eq(rec.opp[0].freq, 300 * MHZ);
        ck_assert_uint_eq(rec.opp[0].microvolt, 300);
        ck_assert(!rec.opp[0].enabled);
        ck_assert_uint_eq(rec.table_n[0], 3); /* the listener sees the table without it */
        ck_assert_uint_eq(t.n, 3);
        ck_assert_uint_eq(t.opps[2].freq, 400 * MHZ);
        ck_assert_int_eq(df_opp_find(&t, 300 * MHZ), -ENODEV);
        ck_assert_int_eq(df_opp_remove(&t, 300 * MHZ), -ENODEV);

        /* First and last. */
        ck_assert_int_eq(df_opp_remove(&t, 100 * MHZ), 0);
        ck_assert_int_eq(df_opp_remove(&t, 400 * MHZ), 0);
        ck_assert_uint_eq(t.n, 1);
        ck_assert_uint_eq(t.opps[0].freq, 200 * MHZ);
        ck_assert_int_eq(df_opp_remove(&t, 200 * MHZ), 0);
        ck_assert_uint_eq(t.n, 0);
        ck_assert_uint_eq(rec.n, 4);

        /* The point can come back. */
        ck_assert_int_eq(df_opp_add(&t, 300 * MHZ, 1, 0), 1);
        ck_assert_int_eq(rec.event[4], DF_OPP_EVENT_ADD);
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_notify_only_on_change) {
        struct df_opp_table t;
        struct recorder rec = {};

        df_opp_table_init(&t);
        df_opp_table_set_notifier(&t, record, &rec);
        ck_assert_int_eq(df_opp_add(&t, 100 * MHZ, 800000, 0), 1);
        ck_assert_int_eq(df_opp_add(&t, 200 * MHZ, 850000, 0), 1);
        ck_assert_uint_eq(rec.n, 2);

        ck_assert_int_eq(df_opp_enable(&t, 200 * MHZ), 0); /* already enabled */
        ck_assert_int_eq(df_opp_set_enabled(&t, 200 * MHZ, true), 0);
        ck_assert_uint_eq(rec.n, 2);

        ck_assert_int_eq(df_opp_disable(&t, 200 * MHZ), 1);
        ck_assert_uint_eq(rec.n, 3);
        ck_assert_int_eq(rec.event[2], DF_OPP_EVENT_DISABLE);
        ck_assert_uint_eq(rec.opp[2].freq, 200 * MHZ);
        ck_assert_uint_eq(rec.opp[2].microvolt, 850000);
        ck_assert(!rec.opp[2].enabled); /* the listener sees the new state */

        ck_assert_int_eq(df_opp_disable(&t, 200 * MHZ), 0);
        ck_assert_int_eq(df_opp_set_enabled(&t, 200 * MHZ, false), 0);
        ck_assert_uint_eq(rec.n, 3);

        ck_assert_int_eq(df_opp_set_enabled(&t, 200 * MHZ, true), 1);
        ck_assert_uint_eq(rec.n, 4);
        ck_assert_int_eq(rec.event[3], DF_OPP_EVENT_ENABLE);
        ck_assert(rec.opp[3].enabled);

        ck_assert_int_eq(df_opp_set_enabled(&t, 100 * MHZ, false), 1);
        ck_assert_int_eq(rec.event[4], DF_OPP_EVENT_DISABLE);
        ck_assert_uint_eq(rec.opp[4].freq, 100 * MHZ);

        /* No such point: no notification. */
        ck_assert_int_eq(df_opp_enable(&t, 150 * MHZ), -ENODEV);
        ck_assert_int_eq(df_opp_disable(&t, 150 * MHZ), -ENODEV);
        ck_assert_int_eq(df_opp_set_enabled(&t, 0, true), -ENODEV);
        ck_assert_uint_eq(rec.n, 5);

        /* Without a notifier everything still works. */
        df_opp_table_set_notifier(&t, NULL, NULL);
        ck_assert_int_eq(df_opp_enable(&t, 100 * MHZ), 1);
        ck_assert_int_eq(df_opp_remove(&t, 100 * MHZ), 0);
        ck_assert_uint_eq(rec.n, 5);
        df_opp_table_done(&t);
}
END_TEST

/* The availability of each point of a 100..500 MHz table, as a string of 1s and 0s. */
static const char *availability(const struct df_opp_table *t, char buf[static 8]) {
        for (size_t i = 0; i < t->n; i++)
                buf[i] = t->opps[i].enabled ? '1' : '0';
        buf[t->n] = '\0';
        return buf;
}

START_TEST(test_thermal_cap) {
        struct df_opp_table t;
        struct recorder rec;
        char b[8];

        readme_table(&t, &rec);                             /* 100 on, 200 off, 300 on, 400 off, 500 on */
        ck_assert_int_eq(df_opp_set_cap(&t, 250 * MHZ), 2); /* 300 and 500 go */
        ck_assert_str_eq(availability(&t, b), "10000");
        ck_assert_uint_eq(rec.n, 2);
        ck_assert_int_eq(rec.event[0], DF_OPP_EVENT_DISABLE);
        ck_assert_uint_eq(rec.opp[0].freq, 300 * MHZ);

        /* The administrator's enable is recorded, and does not undo the cap. */
        ck_assert_int_eq(df_opp_enable(&t, 400 * MHZ), 1);
        ck_assert_str_eq(availability(&t, b), "10000");
        ck_assert_uint_eq(rec.n, 2);
        /* A point disabled meanwhile by the administrator stays disabled when the cap goes. */
        ck_assert_int_eq(df_opp_disable(&t, 500 * MHZ), 1);
        ck_assert_uint_eq(rec.n, 2);

        /* Raised: only what it had disabled comes back, and only where the administrator agrees. */
        ck_assert_int_eq(df_opp_set_cap(&t, 400 * MHZ), 2);
        ck_assert_str_eq(availability(&t, b), "10110");
        ck_assert_int_eq(df_opp_set_cap(&t, 0), 0);
        ck_assert_str_eq(availability(&t, b), "10110");
        ck_assert_uint_eq(rec.n, 4);
        ck_assert_int_eq(df_opp_set_cap(&t, 0), 0); /* no flips, no notifications */
        ck_assert_uint_eq(rec.n, 4);

        /* The cap and the administrator leave nothing: the lowest point the administrator has
         * enabled stays. */
        ck_assert_int_eq(df_opp_disable(&t, 100 * MHZ), 1);
        ck_assert_int_eq(df_opp_set_cap(&t, 150 * MHZ), 1);
        ck_assert_str_eq(availability(&t, b), "00100");
        ck_assert_uint_eq(rec.n, 6);
        /* Now one under the cap exists: the kept point goes in the same call, with no help from
         * df_opp_set_cap() (the daemon calls it only when the cap changes). */
        ck_assert_int_eq(df_opp_enable(&t, 100 * MHZ), 1);
        ck_assert_str_eq(availability(&t, b), "10000");
        ck_assert_uint_eq(rec.n, 8);
        ck_assert_int_eq(rec.event[6], DF_OPP_EVENT_ENABLE);
        ck_assert_uint_eq(rec.opp[6].freq, 100 * MHZ);
        ck_assert_int_eq(rec.event[7], DF_OPP_EVENT_DISABLE);
        ck_assert_uint_eq(rec.opp[7].freq, 300 * MHZ);
        ck_assert_int_eq(df_opp_set_cap(&t, 150 * MHZ), 0); /* nothing was left to do */
        df_opp_table_done(&t);
}
END_TEST

/* The other changes of the administrator's states under a cap: each one decides the kept point
 * again, and what comes back is notified before what goes. */
START_TEST(test_thermal_cap_follows_table) {
        struct df_opp_table t;
        struct recorder rec = {};
        char b[8];

        df_opp_table_init(&t);
        df_opp_table_set_notifier(&t, record, &rec);
        for (uint64_t f = 200; f <= 300; f += 100)
                ck_assert_int_eq(df_opp_add(&t, f * MHZ, 0, 0), 1);
        ck_assert_int_eq(df_opp_set_cap(&t, 150 * MHZ), 1); /* 200 kept, nothing under the cap */
        ck_assert_str_eq(availability(&t, b), "10");

        /* A point added under the cap: 200 goes; the new one is notified as added first. */
        rec = (struct recorder){};
        ck_assert_int_eq(df_opp_add(&t, 100 * MHZ, 0, 0), 1);
        ck_assert_str_eq(availability(&t, b), "100");
        ck_assert_uint_eq(rec.n, 2);
        ck_assert_int_eq(rec.event[0], DF_OPP_EVENT_ADD);
        ck_assert_int_eq(rec.event[1], DF_OPP_EVENT_DISABLE);
        ck_assert_uint_eq(rec.opp[1].freq, 200 * MHZ);

        /* The administrator disables the only point under the cap: 200 is kept again, its
         * ENABLE before 100's DISABLE. */
        rec = (struct recorder){};
        ck_assert_int_eq(df_opp_disable(&t, 100 * MHZ), 1);
        ck_assert_str_eq(availability(&t, b), "010");
        ck_assert_uint_eq(rec.n, 2);
        ck_assert_int_eq(rec.event[0], DF_OPP_EVENT_ENABLE);
        ck_assert_uint_eq(rec.opp[0].freq, 200 * MHZ);
        ck_assert_int_eq(rec.event[1], DF_OPP_EVENT_DISABLE);
        ck_assert_uint_eq(rec.opp[1].freq, 100 * MHZ);
        /* ... and the kept one too: the next one up is kept. */
        ck_assert_int_eq(df_opp_disable(&t, 200 * MHZ), 1);
        ck_assert_str_eq(availability(&t, b), "001");

        /* Removing the point under the cap. */
        ck_assert_int_eq(df_opp_enable(&t, 100 * MHZ), 1);
        ck_assert_int_eq(df_opp_enable(&t, 200 * MHZ), 1);
        ck_assert_str_eq(availability(&t, b), "100");
        ck_assert_int_eq(df_opp_remove(&t, 100 * MHZ), 0);
        ck_assert_str_eq(availability(&t, b), "10");

        /* Lifted: every point the administrator has enabled. */
        ck_assert_int_eq(df_opp_set_cap(&t, 0), 1);
        ck_assert_str_eq(availability(&t, b), "11");
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_all_disabled) {
        struct df_opp_table t;
        uint64_t f;

        df_opp_table_init(&t);
        for (uint64_t m = 100; m <= 300; m += 100) {
                ck_assert_int_eq(df_opp_add(&t, m * MHZ, 0, 0), 1);
                ck_assert_int_eq(df_opp_disable(&t, m * MHZ), 1);
        }
        ck_assert_uint_eq(df_opp_count_enabled(&t), 0);
        for (uint64_t probe = 0; probe <= 400; probe += 50) {
                f = probe * MHZ;
                ck_assert_int_eq(df_opp_find_ceil(&t, &f), -ERANGE);
                ck_assert_uint_eq(f, probe * MHZ);
                ck_assert_int_eq(df_opp_find_floor(&t, &f), -ERANGE);
                ck_assert_uint_eq(f, probe * MHZ);
                ck_assert_int_eq(df_opp_recommended(&t, &f, 0), -ERANGE);
                ck_assert_int_eq(df_opp_recommended(&t, &f, DF_FLAG_LEAST_UPPER_BOUND), -ERANGE);
                ck_assert_uint_eq(f, probe * MHZ);
                ck_assert_int_eq(df_opp_find_exact(&t, f, true), -ERANGE);
        }
        f = U64_MAX;
        ck_assert_int_eq(df_opp_find_floor(&t, &f), -ERANGE);
        /* The points still exist. */
        ck_assert_int_eq(df_opp_find_exact(&t, 200 * MHZ, false), 1);
        ck_assert_int_eq(df_opp_find(&t, 300 * MHZ), 2);
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_empty_table) {
        struct df_opp_table t;
        uint64_t f = 100 * MHZ;

        df_opp_table_init(&t);
        ck_assert_uint_eq(df_opp_count_enabled(&t), 0);
        ck_assert_int_eq(df_opp_find_ceil(&t, &f), -ERANGE);
        ck_assert_int_eq(df_opp_find_floor(&t, &f), -ERANGE);
        ck_assert_int_eq(df_opp_recommended(&t, &f, 0), -ERANGE);
        ck_assert_int_eq(df_opp_recommended(&t, &f, DF_FLAG_LEAST_UPPER_BOUND), -ERANGE);
        ck_assert_uint_eq(f, 100 * MHZ);
        ck_assert_int_eq(df_opp_find_exact(&t, f, true), -ERANGE);
        ck_assert_int_eq(df_opp_find_exact(&t, f, false), -ERANGE);
        ck_assert_int_eq(df_opp_find(&t, f), -ENODEV);
        ck_assert_int_eq(df_opp_remove(&t, f), -ENODEV);
        ck_assert_int_eq(df_opp_enable(&t, f), -ENODEV);
        ck_assert_int_eq(df_opp_disable(&t, f), -ENODEV);
        df_opp_table_done(&t);
        df_opp_table_done(&t); /* done twice is harmless */
}
END_TEST

struct recommended_row {
        uint64_t in;
        unsigned flags;
        int r;
        uint64_t out;
};

START_TEST(test_recommended) {
        /* Table 100 on, 200 off, 300 on, 400 off, 500 on (the README's). */
        static const struct recommended_row rows[] = {
                /* GLB (no flag): ceil, falling back to floor above the top */
                { 0, 0, 0, 100 * MHZ },
                { 100 * MHZ, 0, 0, 100 * MHZ },
                { 100 * MHZ + 1, 0, 2, 300 * MHZ },
                { 200 * MHZ, 0, 2, 300 * MHZ },
                { 300 * MHZ, 0, 2, 300 * MHZ },
                { 400 * MHZ, 0, 4, 500 * MHZ },
                { 500 * MHZ, 0, 4, 500 * MHZ },
                { 500 * MHZ + 1, 0, 4, 500 * MHZ }, /* fallback */
                { U64_MAX, 0, 4, 500 * MHZ },       /* fallback */
                /* LUB: floor, falling back to ceil below the bottom */
                { U64_MAX, DF_FLAG_LEAST_UPPER_BOUND, 4, 500 * MHZ },
                { 500 * MHZ, DF_FLAG_LEAST_UPPER_BOUND, 4, 500 * MHZ },
                { 500 * MHZ - 1, DF_FLAG_LEAST_UPPER_BOUND, 2, 300 * MHZ },
                { 400 * MHZ, DF_FLAG_LEAST_UPPER_BOUND, 2, 300 * MHZ },
                { 300 * MHZ, DF_FLAG_LEAST_UPPER_BOUND, 2, 300 * MHZ },
                { 299 * MHZ, DF_FLAG_LEAST_UPPER_BOUND, 0, 100 * MHZ },
                { 100 * MHZ, DF_FLAG_LEAST_UPPER_BOUND, 0, 100 * MHZ },
                { 100 * MHZ - 1, DF_FLAG_LEAST_UPPER_BOUND, 0, 100 * MHZ }, /* fallback */
                { 0, DF_FLAG_LEAST_UPPER_BOUND, 0, 100 * MHZ },             /* fallback */
        };
        struct df_opp_table t;
        struct recorder rec;

        readme_table(&t, &rec);
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                uint64_t f = rows[i].in;
                int r = df_opp_recommended(&t, &f, rows[i].flags);

                ck_assert_msg(r == rows[i].r, "row %zu: got %d, expected %d", i, r, rows[i].r);
                ck_assert_msg(
                        f == rows[i].out, "row %zu: got %" PRIu64 ", expected %" PRIu64, i, f, rows[i].out);
        }
        ck_assert_uint_eq(rec.n, 0);
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_ceil_floor_edges) {
        struct df_opp_table t;
        struct recorder rec;
        uint64_t f;

        readme_table(&t, &rec);
        /* Disabling the top and bottom moves both ends inwards. */
        ck_assert_int_eq(df_opp_disable(&t, 100 * MHZ), 1);
        ck_assert_int_eq(df_opp_disable(&t, 500 * MHZ), 1);
        f = 0;
        ck_assert_int_eq(df_opp_find_ceil(&t, &f), 2);
        ck_assert_uint_eq(f, 300 * MHZ);
        f = U64_MAX;
        ck_assert_int_eq(df_opp_find_floor(&t, &f), 2);
        ck_assert_uint_eq(f, 300 * MHZ);
        f = 300 * MHZ + 1;
        ck_assert_int_eq(df_opp_find_ceil(&t, &f), -ERANGE);
        ck_assert_uint_eq(f, 300 * MHZ + 1);
        f = 300 * MHZ - 1;
        ck_assert_int_eq(df_opp_find_floor(&t, &f), -ERANGE);
        ck_assert_uint_eq(f, 300 * MHZ - 1);
        f = 500 * MHZ;
        ck_assert_int_eq(df_opp_find_floor(&t, &f), 2); /* a disabled exact hit is skipped downwards too */
        ck_assert_uint_eq(f, 300 * MHZ);
        f = 500 * MHZ;
        ck_assert_int_eq(df_opp_recommended(&t, &f, 0), 2); /* ceil misses, floor finds 300 */
        ck_assert_uint_eq(f, 300 * MHZ);
        f = 100 * MHZ;
        ck_assert_int_eq(df_opp_recommended(&t, &f, DF_FLAG_LEAST_UPPER_BOUND), 2);
        ck_assert_uint_eq(f, 300 * MHZ);
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_find_exact) {
        struct df_opp_table t;
        struct recorder rec;

        readme_table(&t, &rec);
        ck_assert_int_eq(df_opp_find_exact(&t, 100 * MHZ, true), 0);
        ck_assert_int_eq(df_opp_find_exact(&t, 100 * MHZ, false), -ERANGE);
        ck_assert_int_eq(df_opp_find_exact(&t, 200 * MHZ, true), -ERANGE);
        ck_assert_int_eq(df_opp_find_exact(&t, 200 * MHZ, false), 1);
        ck_assert_int_eq(df_opp_find_exact(&t, 500 * MHZ, true), 4);
        ck_assert_int_eq(df_opp_find_exact(&t, 400 * MHZ, false), 3);
        ck_assert_int_eq(df_opp_find_exact(&t, 150 * MHZ, true), -ERANGE);
        ck_assert_int_eq(df_opp_find_exact(&t, 150 * MHZ, false), -ERANGE);
        ck_assert_int_eq(df_opp_find_exact(&t, 0, true), -ERANGE);
        ck_assert_int_eq(df_opp_find_exact(&t, U64_MAX, false), -ERANGE);
        /* df_opp_find ignores the state. */
        ck_assert_int_eq(df_opp_find(&t, 200 * MHZ), 1);
        ck_assert_int_eq(df_opp_find(&t, 300 * MHZ), 2);
        df_opp_table_done(&t);
}
END_TEST

struct freqs_row {
        uint64_t f;
        int ceil;
        int floor;
};

START_TEST(test_freqs_ceil_floor) {
        static const uint64_t v[] = { 100 * MHZ, 200 * MHZ, 400 * MHZ, 800 * MHZ };
        static const struct freqs_row rows[] = {
                { 0, 0, -ERANGE },
                { 100 * MHZ - 1, 0, -ERANGE },
                { 100 * MHZ, 0, 0 }, /* first */
                { 100 * MHZ + 1, 1, 0 },
                { 200 * MHZ, 1, 1 },
                { 300 * MHZ, 2, 1 }, /* between */
                { 400 * MHZ - 1, 2, 1 },
                { 400 * MHZ, 2, 2 },
                { 400 * MHZ + 1, 3, 2 },
                { 800 * MHZ - 1, 3, 2 },
                { 800 * MHZ, 3, 3 }, /* last */
                { 800 * MHZ + 1, -ERANGE, 3 },
                { U64_MAX, -ERANGE, 3 },
        };
        static const uint64_t one[] = { 5 };
        static const uint64_t extremes[] = { 0, U64_MAX };

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                ck_assert_msg(df_freqs_ceil(v, ELEMENTSOF(v), rows[i].f) == rows[i].ceil, "ceil row %zu", i);
                ck_assert_msg(df_freqs_floor(v, ELEMENTSOF(v), rows[i].f) == rows[i].floor, "floor row %zu", i);
        }

        /* n = 0, with and without an array. */
        ck_assert_int_eq(df_freqs_ceil(NULL, 0, 0), -ERANGE);
        ck_assert_int_eq(df_freqs_floor(NULL, 0, U64_MAX), -ERANGE);
        ck_assert_int_eq(df_freqs_ceil(v, 0, 100 * MHZ), -ERANGE);
        ck_assert_int_eq(df_freqs_floor(v, 0, 100 * MHZ), -ERANGE);

        ck_assert_int_eq(df_freqs_ceil(one, 1, 4), 0);
        ck_assert_int_eq(df_freqs_ceil(one, 1, 5), 0);
        ck_assert_int_eq(df_freqs_ceil(one, 1, 6), -ERANGE);
        ck_assert_int_eq(df_freqs_floor(one, 1, 4), -ERANGE);
        ck_assert_int_eq(df_freqs_floor(one, 1, 5), 0);
        ck_assert_int_eq(df_freqs_floor(one, 1, 6), 0);

        ck_assert_int_eq(df_freqs_ceil(extremes, 2, 0), 0);
        ck_assert_int_eq(df_freqs_floor(extremes, 2, 0), 0);
        ck_assert_int_eq(df_freqs_ceil(extremes, 2, 1), 1);
        ck_assert_int_eq(df_freqs_floor(extremes, 2, U64_MAX - 1), 0);
        ck_assert_int_eq(df_freqs_ceil(extremes, 2, U64_MAX), 1);
        ck_assert_int_eq(df_freqs_floor(extremes, 2, U64_MAX), 1);
}
END_TEST

/* The array lookups agree with a linear scan on every probe around every element. */
START_TEST(test_freqs_against_scan) {
        uint64_t v[33];

        for (size_t n = 0; n <= ELEMENTSOF(v); n++) {
                for (size_t i = 0; i < n; i++)
                        v[i] = 10 * (i + 1);
                for (uint64_t f = 0; f <= 10 * (n + 2); f++) {
                        int c = -ERANGE, fl = -ERANGE;

                        for (size_t i = 0; i < n; i++) {
                                if (c < 0 && v[i] >= f)
                                        c = (int) i;
                                if (v[i] <= f)
                                        fl = (int) i;
                        }
                        ck_assert_int_eq(df_freqs_ceil(v, n, f), c);
                        ck_assert_int_eq(df_freqs_floor(v, n, f), fl);
                }
        }
}
END_TEST

static Suite *opp_suite(void) {
        Suite *s = suite_create("opp");
        TCase *tc;

        tc = tcase_create("readme_lookups");
        tcase_add_test(tc, test_readme_lookups);
        suite_add_tcase(s, tc);

        tc = tcase_create("add");
        tcase_add_test(tc, test_add_sorted);
        tcase_add_test(tc, test_add_duplicates);
        suite_add_tcase(s, tc);

        tc = tcase_create("remove");
        tcase_add_test(tc, test_remove);
        suite_add_tcase(s, tc);

        tc = tcase_create("notifier");
        tcase_add_test(tc, test_notify_only_on_change);
        suite_add_tcase(s, tc);

        tc = tcase_create("all_disabled");
        tcase_add_test(tc, test_all_disabled);
        tcase_add_test(tc, test_thermal_cap);
        tcase_add_test(tc, test_thermal_cap_follows_table);
        suite_add_tcase(s, tc);

        tc = tcase_create("empty");
        tcase_add_test(tc, test_empty_table);
        suite_add_tcase(s, tc);

        tc = tcase_create("recommended");
        tcase_add_test(tc, test_recommended);
        suite_add_tcase(s, tc);

        tc = tcase_create("ceil_floor");
        tcase_add_test(tc, test_ceil_floor_edges);
        suite_add_tcase(s, tc);

        tc = tcase_create("exact");
        tcase_add_test(tc, test_find_exact);
        suite_add_tcase(s, tc);

        tc = tcase_create("freqs");
        tcase_add_test(tc, test_freqs_ceil_floor);
        tcase_add_test(tc, test_freqs_against_scan);
        suite_add_tcase(s, tc);

        return s;
}

int main(void) {
        return df_test_run(opp_suite());
}
