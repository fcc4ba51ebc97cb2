/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Statistics: kernel devfreq_update_status() accounting and the trans_stat text. */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "stats.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define MS UINT64_C(1000)

static const uint64_t four[] = { 100 * MHZ, 200 * MHZ, 400 * MHZ, 800 * MHZ };

/* The README's table: rows from, columns to. */
START_TEST(test_format_vector) {
        static const uint64_t trans[16] = { 0, 3, 1, 0, 2, 0, 2, 0, 1, 1, 0, 4, 0, 1, 3, 0 };
        static const uint64_t time_ms[4] = { 1200, 340, 5000, 812 };
        _cleanup_free_ char *path = df_test_vector_path("trans_stat.txt");
        _cleanup_free_ char *expected = df_test_read_file(path);
        _cleanup_free_ char *text = NULL;

        ck_assert_int_eq(df_stats_format_table(four, time_ms, trans, 4, 18, 400 * MHZ, &text), 0);
        ck_assert_str_eq(text, expected);
}
END_TEST

/*
 * Reaching the README's table through accounting gives the same text. Its transition counts
 * form an Eulerian path from 100 MHz to 200 MHz; an excursion to a frequency outside the table
 * then lands on 400 MHz without counting a transition (kernel: no previous state to charge).
 */
START_TEST(test_accounting_reaches_vector) {
        static const int path[] = { 0, 1, 0, 1, 0, 2, 3, 2, 3, 2, 3, 2, 3, 1, 2, 1, 2, 0, 1 };
        static const uint64_t stay_ms[4] = { 1200, 340, 5000, 812 };
        _cleanup_free_ char *vector = df_test_vector_path("trans_stat.txt");
        _cleanup_free_ char *expected = df_test_read_file(vector);
        _cleanup_free_ char *text = NULL;
        bool visited[4] = {};
        struct df_stats s;
        uint64_t now = 0;

        ck_assert_int_eq(df_stats_init(&s, four, 4, now), 0);
        for (size_t i = 0; i < ELEMENTSOF(path); i++) {
                ck_assert_int_eq(df_stats_update(&s, four[path[i]], now), 0);
                /* Each state's whole time is spent on its first visit. */
                if (!visited[path[i]]) {
                        visited[path[i]] = true;
                        now += stay_ms[path[i]] * MS;
                }
        }
        ck_assert_int_eq(df_stats_update(&s, 150 * MHZ, now), -EINVAL);
        now += 777 * MS; /* not charged to anything */
        ck_assert_int_eq(df_stats_update(&s, 400 * MHZ, now), 0);
        ck_assert_uint_eq(s.total, 18);
        ck_assert_int_eq(df_stats_format(&s, now, &text), 0);
        ck_assert_str_eq(text, expected);
        df_stats_done(&s);
}
END_TEST

START_TEST(test_time_charged_to_previous) {
        struct df_stats s;
        _cleanup_free_ uint64_t *ms = NULL;

        ck_assert_int_eq(df_stats_init(&s, four, 4, 1000), 0);
        ck_assert_int_eq(df_stats_update(&s, 200 * MHZ, 1000), 0); /* initial, no transition */
        ck_assert_uint_eq(s.total, 0);
        ck_assert_int_eq(df_stats_update(&s, 800 * MHZ, 1000 + 50 * MS), 0);
        ck_assert_uint_eq(s.total, 1);
        ck_assert_uint_eq(s.trans[1 * 4 + 3], 1);
        ck_assert_uint_eq(s.time_us[1], 50 * MS);
        /* Same frequency: the slice closes, no transition. */
        ck_assert_int_eq(df_stats_update(&s, 800 * MHZ, 1000 + 80 * MS), 0);
        ck_assert_uint_eq(s.total, 1);
        ck_assert_uint_eq(s.time_us[3], 30 * MS);
        /* Reading includes the running interval without changing the state. */
        ck_assert_int_eq(df_stats_time_ms(&s, 1000 + 100 * MS, &ms), 0);
        ck_assert_uint_eq(ms[3], 50);
        ck_assert_uint_eq(s.time_us[3], 30 * MS);
        df_stats_done(&s);
}
END_TEST

START_TEST(test_unknown_frequency) {
        struct df_stats s;

        ck_assert_int_eq(df_stats_init(&s, four, 4, 0), 0);
        ck_assert_int_eq(df_stats_update(&s, 100 * MHZ, 0), 0);
        /* A frequency outside the table: time still charged to 100 MHz, then nothing is in force. */
        ck_assert_int_eq(df_stats_update(&s, 150 * MHZ, 10 * MS), -EINVAL);
        ck_assert_uint_eq(s.time_us[0], 10 * MS);
        ck_assert_int_eq(s.cur, -1);
        /* No time is charged while nothing known is in force, and no transition is counted. */
        ck_assert_int_eq(df_stats_update(&s, 400 * MHZ, 30 * MS), 0);
        ck_assert_uint_eq(s.total, 0);
        for (int i = 0; i < 4; i++)
                ck_assert_uint_eq(s.time_us[i], i == 0 ? 10 * MS : 0);
        ck_assert_int_eq(s.cur, 2);
        df_stats_done(&s);
}
END_TEST

START_TEST(test_reset) {
        struct df_stats s;
        _cleanup_free_ char *text = NULL;

        ck_assert_int_eq(df_stats_init(&s, four, 4, 0), 0);
        ck_assert_int_eq(df_stats_update(&s, 100 * MHZ, 0), 0);
        ck_assert_int_eq(df_stats_update(&s, 200 * MHZ, 5 * MS), 0);
        df_stats_reset(&s, 7 * MS);
        ck_assert_uint_eq(s.total, 0);
        ck_assert_uint_eq(s.time_us[0], 0);
        ck_assert_int_eq(s.cur, 1);
        ck_assert_int_eq(df_stats_format(&s, 9 * MS, &text), 0);
        ck_assert_str_eq(
                text,
                "     From  :   To\n"
                "           : 100000000 200000000 400000000 800000000   time(ms)\n"
                "  100000000:         0         0         0         0         0\n"
                "* 200000000:         0         0         0         0         2\n"
                "  400000000:         0         0         0         0         0\n"
                "  800000000:         0         0         0         0         0\n"
                "Total transition : 0\n");
        df_stats_done(&s);
}
END_TEST

/* Ten-digit frequencies fill %10 completely, so columns touch, as in the kernel. */
START_TEST(test_ten_digits) {
        static const uint64_t f[] = { 533000000, 1066000000 };
        static const uint64_t t[] = { 0, 7, 4294967296ULL, 0 };
        static const uint64_t ms[] = { 12, 9999999999ULL };
        _cleanup_free_ char *text = NULL;

        ck_assert_int_eq(df_stats_format_table(f, ms, t, 2, 4294967303ULL, 1066000000, &text), 0);
        ck_assert_str_eq(
                text,
                "     From  :   To\n"
                "           : 5330000001066000000   time(ms)\n"
                "  533000000:         0         7        12\n"
                "*1066000000:4294967296         09999999999\n"
                "Total transition : 4294967303\n");
}
END_TEST

START_TEST(test_no_marker) {
        _cleanup_free_ char *text = NULL;
        static const uint64_t t[16] = {}, ms[4] = {};

        ck_assert_int_eq(df_stats_format_table(four, ms, t, 4, 0, 300 * MHZ, &text), 0);
        ck_assert_ptr_null(strchr(text, '*'));
}
END_TEST

START_TEST(test_init_limits) {
        struct df_stats s;

        ck_assert_int_eq(df_stats_init(&s, four, 0, 0), -EINVAL);
        ck_assert_int_eq(df_stats_init(&s, four, DF_STATS_MAX_STATES + 1, 0), -EINVAL);
}
END_TEST

/* A table that gains 300 MHz and loses 100 MHz keeps what the points of both counted. */
START_TEST(test_carry_to_another_table) {
        static const uint64_t other[] = { 200 * MHZ, 300 * MHZ, 400 * MHZ, 800 * MHZ };
        static const uint32_t uv[] = { 800000, 900000, 1000000, 1000000 };
        struct df_stats from, to;

        ck_assert_int_eq(df_stats_init(&from, four, 4, 0), 0);
        ck_assert_int_eq(df_stats_set_voltages(&from, uv), 0);
        ck_assert_int_eq(df_stats_update(&from, 100 * MHZ, 0), 0);
        ck_assert_int_eq(df_stats_update(&from, 200 * MHZ, 1000000), 0); /* 100: 1 s */
        ck_assert_int_eq(df_stats_update(&from, 800 * MHZ, 3000000), 0); /* 200: 2 s */
        ck_assert_int_eq(df_stats_update(&from, 200 * MHZ, 4000000), 0); /* 800: 1 s */
        ck_assert_uint_eq(from.total, 3);

        ck_assert_int_eq(df_stats_init(&to, other, 4, 4500000), 0);
        ck_assert_int_eq(df_stats_update(&to, 300 * MHZ, 4500000), 0);
        df_stats_carry(&to, &from, 5000000); /* 200 runs 1 s more */
        ck_assert_uint_eq(to.time_us[0], 3000000);
        ck_assert_uint_eq(to.time_us[1], 0);
        ck_assert_uint_eq(to.time_us[2], 0);
        ck_assert_uint_eq(to.time_us[3], 1000000);
        ck_assert_uint_eq(to.trans[0 * 4 + 3], 1); /* 200 -> 800 */
        ck_assert_uint_eq(to.trans[3 * 4 + 0], 1); /* 800 -> 200 */
        ck_assert_uint_eq(to.trans[0 * 4 + 1], 0);
        ck_assert_uint_eq(to.total, 3); /* 100 -> 200 too, though 100 is gone */
        ck_assert_int_eq(to.cur, 0);
        ck_assert_uint_eq(to.last_update, 5000000);
        /* f×V² over 800 MHz 1 V: 100 MHz 0.8 V 0.08 for 1 s, 200 MHz 0.9 V 0.2025 for 3 s, 800 MHz 1 s. */
        ck_assert_double_eq_tol(df_stats_energy(&to, 5000000), 0.08 + 3 * 0.2025 + 1, 1e-9);

        /* From now on the new voltages: none, so no more energy; the time goes on. */
        ck_assert_int_eq(df_stats_update(&to, 400 * MHZ, 6000000), 0);
        ck_assert_uint_eq(to.time_us[0], 4000000);
        ck_assert_uint_eq(to.total, 4);
        ck_assert_double_eq_tol(df_stats_energy(&to, 7000000), 0.08 + 3 * 0.2025 + 1, 1e-9);
        df_stats_done(&from);
        df_stats_done(&to);
}
END_TEST

/* Energy is charged with the voltages in force during each interval, not those of today. */
START_TEST(test_energy_with_the_voltages_of_the_time) {
        static const uint32_t high[] = { 1000000, 1000000, 1000000, 1000000 };
        static const uint32_t low[] = { 500000, 1000000, 1000000, 1000000 };
        struct df_stats s;

        ck_assert_int_eq(df_stats_init(&s, four, 4, 0), 0);
        ck_assert_int_eq(df_stats_set_voltages(&s, high), 0);
        ck_assert_int_eq(df_stats_update(&s, 400 * MHZ, 0), 0);
        ck_assert_int_eq(df_stats_update(&s, 400 * MHZ, 2000000), 0);
        ck_assert_double_eq_tol(df_stats_energy(&s, 2000000), 1.0, 1e-9);
        ck_assert_int_eq(df_stats_set_voltages(&s, low), 0); /* the top stays 800 MHz 1 V */
        ck_assert_double_eq_tol(df_stats_energy(&s, 3000000), 1.5, 1e-9);
        df_stats_reset(&s, 3000000);
        ck_assert_double_eq_tol(df_stats_energy(&s, 3000000), 0, 1e-9);
        df_stats_done(&s);
}
END_TEST

/* A time in state counted elsewhere (clamp mode: the kernel's), charged at each reading with the
 * voltages in force then. */
START_TEST(test_energy_of_a_time_in_state) {
        static const uint32_t high[] = { 1000000, 1000000, 1000000, 1000000 };
        static const uint32_t low[] = { 1000000, 1000000, 500000, 1000000 }; /* 400 MHz at 0.5 V */
        static const uint32_t none[] = { 0, 0, 0, 0 };
        static const uint64_t freqs[] = { 400 * MHZ, 333 * MHZ, 800 * MHZ };
        uint64_t ms[] = { 2000, 5000, 1000 };
        struct df_stats_outside o = {};
        struct df_stats s;

        ck_assert_int_eq(df_stats_init(&s, four, 4, 0), 0);
        ck_assert_int_eq(df_stats_outside_update(&o, &s, NULL, NULL, 0, 30), 0);
        ck_assert_double_eq_tol(o.energy, 0, 1e-12);
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0); /* no voltages: none */
        ck_assert_double_eq_tol(o.energy, 0, 1e-12);
        ck_assert_int_eq(df_stats_set_voltages(&s, high), 0);
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0);
        ck_assert_double_eq_tol(o.energy, 0, 1e-12); /* that time was charged (with none) already */
        df_stats_outside_done(&o);
        /* 2 s at half the top's power, 1 s at the top; 333 MHz is no point of the table. */
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0);
        ck_assert_double_eq_tol(o.energy, 2.0, 1e-12);
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0); /* the same reading again */
        ck_assert_double_eq_tol(o.energy, 2.0, 1e-12);

        /* The voltages change: the time after is charged with the new ones. */
        ck_assert_int_eq(df_stats_set_voltages(&s, low), 0);
        ms[0] += 4000; /* 4 s more at 400 MHz, now an eighth of the top's power */
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0);
        ck_assert_double_eq_tol(o.energy, 2.5, 1e-12);
        /* Without voltages nothing more is charged, and nothing is lost. */
        ck_assert_int_eq(df_stats_set_voltages(&s, none), 0);
        ms[2] += 1000;
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0);
        ck_assert_double_eq_tol(o.energy, 2.5, 1e-12);
        /* The counters reset elsewhere: every time of the reading counts whole, also one that has
         * grown past its count before the reset (800 MHz: 2000 ms before, 3000 since), and the next
         * reading charges only what came after it. */
        ck_assert_int_eq(df_stats_set_voltages(&s, high), 0);
        ms[0] = 1000;
        ms[1] = 0;
        ms[2] = 3000;
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0);
        ck_assert_double_eq_tol(o.energy, 2.5 + 0.5 + 3.0, 1e-12);
        ms[0] = 9000;
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 30), 0);
        ck_assert_double_eq_tol(o.energy, 6.0 + 4.0, 1e-12);
        /* A count taken over: it goes on from a given energy, this time in state charged already. */
        /* A reset no time shows (each grew past its count before it): fewer transitions say it,
         * and every time counts whole (9 s at half the top's power, 4 s at the top). */
        ms[2] = 4000;
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 2), 0);
        ck_assert_double_eq_tol(o.energy, 10.0 + 4.5 + 4.0, 1e-12);
        ck_assert_int_eq(df_stats_outside_start(&o, 20.0, freqs, ms, 3, 2), 0);
        ms[2] += 1000;
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 3), 0);
        ck_assert_double_eq_tol(o.energy, 21.0, 1e-12);
        /* A count taken over that could not be read: the next reading only says where it goes on
         * from (the kernel's 14 s are not charged again), the one after charges what came since. */
        df_stats_outside_resume(&o, 30.0);
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 3), 0);
        ck_assert_double_eq_tol(o.energy, 30.0, 1e-12);
        ms[0] += 2000;
        ck_assert_int_eq(df_stats_outside_update(&o, &s, freqs, ms, 3, 4), 0);
        ck_assert_double_eq_tol(o.energy, 31.0, 1e-12);
        df_stats_outside_done(&o);
        ck_assert_double_eq_tol(o.energy, 0, 1e-12);
        df_stats_done(&s);
}
END_TEST

static Suite *stats_suite(void) {
        Suite *s = suite_create("stats");
        TCase *tc;

        tc = tcase_create("format");
        tcase_add_test(tc, test_format_vector);
        tcase_add_test(tc, test_ten_digits);
        tcase_add_test(tc, test_no_marker);
        suite_add_tcase(s, tc);

        tc = tcase_create("accounting");
        tcase_add_test(tc, test_accounting_reaches_vector);
        tcase_add_test(tc, test_time_charged_to_previous);
        tcase_add_test(tc, test_unknown_frequency);
        tcase_add_test(tc, test_reset);
        tcase_add_test(tc, test_init_limits);
        tcase_add_test(tc, test_carry_to_another_table);
        tcase_add_test(tc, test_energy_with_the_voltages_of_the_time);
        tcase_add_test(tc, test_energy_of_a_time_in_state);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(stats_suite());
}
