/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* simple_ondemand: the shared vectors, then every branch of the kernel algorithm at its edges. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "governor.h"
#include "macro.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

/* The result of a call that must succeed. */
static uint64_t so(uint64_t busy, uint64_t total, uint64_t current, uint32_t up, uint32_t dd) {
        uint64_t ret = SENTINEL;

        ck_assert_int_eq(df_simple_ondemand_target(busy, total, current, up, dd, &ret), 0);
        return ret;
}

/* One CSV field: a decimal uint64 and nothing else. */
static uint64_t parse_field(char **p, const char *line) {
        char *end;
        uint64_t v;

        ck_assert_msg(**p >= '0' && **p <= '9', "bad field in '%s'", line);
        errno = 0;
        v = strtoull(*p, &end, 10);
        ck_assert_msg(errno == 0 && (*end == ',' || *end == '\0' || *end == '\r'), "bad field in '%s'", line);
        *p = *end == ',' ? end + 1 : end;
        return v;
}

START_TEST(test_vectors) {
        _cleanup_free_ char *path = df_test_vector_path("simple_ondemand.csv");
        _cleanup_free_ char *text = df_test_read_file(path);
        _cleanup_free_ char **lines = NULL;
        size_t n, rows = 0;

        n = df_test_lines(text, &lines);
        for (size_t i = 0; i < n; i++) {
                char *p = lines[i], *line = strdupa(lines[i]);
                uint64_t f[6];

                if (strneq(p, "busy,", 5)) /* the header */
                        continue;
                for (size_t k = 0; k < ELEMENTSOF(f); k++)
                        f[k] = parse_field(&p, line);
                ck_assert_msg(*p == '\0' || *p == '\r', "trailing data in '%s'", line);
                ck_assert_msg(f[3] <= 100 && f[4] <= 100, "bad tunables in '%s'", line);

                ck_assert_msg(
                        so(f[0], f[1], f[2], (uint32_t) f[3], (uint32_t) f[4]) == f[5],
                        "row '%s': got %" PRIu64, line, so(f[0], f[1], f[2], (uint32_t) f[3], (uint32_t) f[4]));
                rows++;
        }
        /* The file holds 15 rows today; a truncated or unreadable file must not pass quietly. */
        ck_assert_uint_ge(rows, 15);
}
END_TEST

START_TEST(test_zero_total) {
        ck_assert_uint_eq(so(0, 0, 400 * MHZ, 90, 5), DF_FREQ_MAX);
        ck_assert_uint_eq(so(5, 0, 400 * MHZ, 90, 5), DF_FREQ_MAX);
        ck_assert_uint_eq(so(0, 0, 0, 90, 5), DF_FREQ_MAX);
        ck_assert_uint_eq(so(UINT64_MAX, 0, 400 * MHZ, 100, 100), DF_FREQ_MAX);
}
END_TEST

START_TEST(test_thresholds) {
        /* Strict '>': load exactly upthreshold is not busy enough, it is kept. */
        ck_assert_uint_eq(so(900, 1000, 400 * MHZ, 90, 5), 400 * MHZ);
        ck_assert_uint_eq(so(901, 1000, 400 * MHZ, 90, 5), DF_FREQ_MAX);
        /* Just above up - dd is kept; exactly up - dd goes proportional: 850*4e8/1000 = 3.4e8, *100/88. */
        ck_assert_uint_eq(so(851, 1000, 400 * MHZ, 90, 5), 400 * MHZ);
        ck_assert_uint_eq(so(850, 1000, 400 * MHZ, 90, 5), 386363636);
        /* up 70, dd 10: 60 % is exactly up - dd; 2.4e8 * 100 / (70 - 5) = 369230769. */
        ck_assert_uint_eq(so(60, 100, 400 * MHZ, 70, 10), 369230769);
        ck_assert_uint_eq(so(61, 100, 400 * MHZ, 70, 10), 400 * MHZ);
        ck_assert_uint_eq(so(70, 100, 400 * MHZ, 70, 10), 400 * MHZ);
        ck_assert_uint_eq(so(71, 100, 400 * MHZ, 70, 10), DF_FREQ_MAX);
}
END_TEST

START_TEST(test_shift_total) {
        /*
         * total 2^24 - 1: no shift. 8388607 * 4e8 / 16777215 = 199999988 (floored),
         * * 100 / 88 = 227272713.
         */
        ck_assert_uint_eq(so(8388607, (UINT64_C(1) << 24) - 1, 400 * MHZ, 90, 5), 227272713);
        /*
         * total 2^24: both shift by 7, busy 65535, total 131072. 65535 * 4e8 / 131072 = 199996948,
         * * 100 / 88 = 227269259 (unshifted it would be 227272700).
         */
        ck_assert_uint_eq(so(8388607, UINT64_C(1) << 24, 400 * MHZ, 90, 5), 227269259);
}
END_TEST

START_TEST(test_shift_busy) {
        /*
         * busy alone at 2^24 cannot change the kernel's answer (busy > total stays so after one
         * shift of both), but it must shift both together: shifting busy alone would make this a
         * load of 0.78 % and a proportional answer.
         * 2^24 - 1 of 2^24 - 1, up 100 dd 0: no shift, load 100 % is not > 100, proportional: current.
         */
        ck_assert_uint_eq(so((UINT64_C(1) << 24) - 1, (UINT64_C(1) << 24) - 1, 400 * MHZ, 100, 0), 400 * MHZ);
        /* 2^24 of 2^24 - 1: both shift, 131072 > 131071: maximum. */
        ck_assert_uint_eq(so(UINT64_C(1) << 24, (UINT64_C(1) << 24) - 1, 400 * MHZ, 100, 0), DF_FREQ_MAX);
        /* 2^24 of 100: total shifts to 0, 131072 * 100 > 0: maximum, no division by zero. */
        ck_assert_uint_eq(so(UINT64_C(1) << 24, 100, 400 * MHZ, 90, 5), DF_FREQ_MAX);
}
END_TEST

START_TEST(test_busy_above_total) {
        ck_assert_uint_eq(so(101, 100, 400 * MHZ, 90, 5), DF_FREQ_MAX);
        ck_assert_uint_eq(so(101, 100, 400 * MHZ, 100, 0), DF_FREQ_MAX);
        /* The shift makes 2^24 + 1 and 2^24 both 131072: with up 100 that is "keep"... */
        ck_assert_uint_eq(so((UINT64_C(1) << 24) + 1, UINT64_C(1) << 24, 400 * MHZ, 100, 5), 400 * MHZ);
        /* ...and with up 90 still the maximum. */
        ck_assert_uint_eq(so((UINT64_C(1) << 24) + 1, UINT64_C(1) << 24, 400 * MHZ, 90, 5), DF_FREQ_MAX);
}
END_TEST

START_TEST(test_current_zero) {
        /* The kernel answers the maximum for a current of 0 whenever the load is not above up. */
        ck_assert_uint_eq(so(50, 100, 0, 90, 5), DF_FREQ_MAX);
        ck_assert_uint_eq(so(0, 100, 0, 90, 5), DF_FREQ_MAX);
        ck_assert_uint_eq(so(88, 100, 0, 90, 5), DF_FREQ_MAX);
        /* The current frequency is only consulted below upthreshold; a tiny one works normally. */
        ck_assert_uint_eq(so(50, 100, 1, 90, 5), 0);
        ck_assert_uint_eq(so(88, 100, 1, 90, 5), 1);
}
END_TEST

START_TEST(test_huge_counters) {
        /* 2^64 - 1 of 2^64 - 1: shifted both to 2^57 - 1, load 100 %. */
        ck_assert_uint_eq(so(UINT64_MAX, UINT64_MAX, 400 * MHZ, 90, 5), DF_FREQ_MAX);
        ck_assert_uint_eq(so(UINT64_MAX, UINT64_MAX, 400 * MHZ, 100, 0), 400 * MHZ);
        /*
         * busy 2^63, total 2^64 - 1: shifted 2^56 and 2^57 - 1 (>= 2^32). devfreqd:
         * 2^56 * 4e8 / (2^57 - 1) = 200000000.0000000014 -> 2e8, * 100 / 88 = 227272727.
         * The kernel wraps 2^56 * 4e8 = 2^66 * 390625 to 0 and answers 0.
         */
        ck_assert_uint_eq(so(UINT64_C(1) << 63, UINT64_MAX, 400 * MHZ, 90, 5), 227272727);
        /*
         * Shifted total 2^32 + 100 (raw 2^39 + 12800), shifted busy 2^31 (raw 2^38). devfreqd:
         * 2^31 * 4e8 / (2^32 + 100) = 199999995.3 -> 199999995, * 100 / 88 = 227272721.
         * The kernel divides by (u32) total = 100: 9761289309090909.
         */
        ck_assert_uint_eq(so(UINT64_C(1) << 38, (UINT64_C(1) << 39) + 12800, 400 * MHZ, 90, 5), 227272721);
}
END_TEST

START_TEST(test_wide_product) {
        /*
         * Shifted busy 2^30 and total 3 * 2^30 (raw 2^37, 3 * 2^37), current 2^35 Hz: the product
         * is 2^65, which the kernel wraps to 0 (answer 0). With 128 bits: 2^65 / (3 * 2^30) =
         * 2^35 / 3 = 11453246122.67 -> 11453246122, * 100 = 1145324612200, / 88 = 13015052411.
         */
        ck_assert_uint_eq(so(UINT64_C(1) << 37, UINT64_C(3) << 37, UINT64_C(1) << 35, 90, 5), 13015052411);
        /* The largest current: (2^64 - 1) / 3 = 6148914691236517205, * 100 / 88 (no wrap in either). */
        ck_assert_uint_eq(so(1, 3, UINT64_MAX, 90, 5), UINT64_C(6987403058223315005));
}
END_TEST

START_TEST(test_tunable_errors) {
        uint64_t ret = SENTINEL;

        ck_assert_int_eq(df_simple_ondemand_target(50, 100, 400 * MHZ, 0, 0, &ret), -EINVAL);
        ck_assert_int_eq(df_simple_ondemand_target(50, 100, 400 * MHZ, 101, 5, &ret), -EINVAL);
        ck_assert_int_eq(df_simple_ondemand_target(50, 100, 400 * MHZ, 50, 51, &ret), -EINVAL);
        /* Checked before the zero-total shortcut, as in the kernel. */
        ck_assert_int_eq(df_simple_ondemand_target(0, 0, 400 * MHZ, 101, 5, &ret), -EINVAL);
        ck_assert_uint_eq(ret, SENTINEL);

        /* up == dd is allowed: every non-zero load is kept, no load goes proportional to 0. */
        ck_assert_uint_eq(so(1, 100, 400 * MHZ, 50, 50), 400 * MHZ);
        ck_assert_uint_eq(so(0, 100, 400 * MHZ, 50, 50), 0);
        ck_assert_uint_eq(so(51, 100, 400 * MHZ, 50, 50), DF_FREQ_MAX);
        /* The lowest valid upthreshold: 1 % goes proportional (4e6 * 100 / 1), 2 % is the maximum. */
        ck_assert_uint_eq(so(1, 100, 400 * MHZ, 1, 0), 400 * MHZ);
        ck_assert_uint_eq(so(2, 100, 400 * MHZ, 1, 0), DF_FREQ_MAX);
}
END_TEST

START_TEST(test_up100_dd0) {
        /* 0 is taken literally (the kernel would read dd 0 as 5): divisor 100, no keep band. */
        ck_assert_uint_eq(so(100, 100, 400 * MHZ, 100, 0), 400 * MHZ);
        ck_assert_uint_eq(so(101, 100, 400 * MHZ, 100, 0), DF_FREQ_MAX);
        ck_assert_uint_eq(so(99, 100, 400 * MHZ, 100, 0), 396 * MHZ);
        ck_assert_uint_eq(so(50, 100, 400 * MHZ, 100, 0), 200 * MHZ);
}
END_TEST

START_TEST(test_dd_half) {
        /* 50 % of 400 MHz = 2e8, * 100 / (up - dd / 2) with integer dd / 2. */
        ck_assert_uint_eq(so(50, 100, 400 * MHZ, 90, 5), 227272727); /* 90 - 2 = 88 */
        ck_assert_uint_eq(so(50, 100, 400 * MHZ, 90, 4), 227272727); /* 90 - 2 = 88 */
        ck_assert_uint_eq(so(50, 100, 400 * MHZ, 90, 3), 224719101); /* 90 - 1 = 89 */
        ck_assert_uint_eq(so(50, 100, 400 * MHZ, 90, 1), 222222222); /* 90 - 0 = 90 */
        /* The floor after the division by total comes first: 1 * 1e8 / 3 = 33333333, * 100 / 88. */
        ck_assert_uint_eq(so(1, 3, 100 * MHZ, 90, 5), 37878787);
}
END_TEST

START_TEST(test_governor) {
        struct df_governor g = {};
        struct df_governor_input in = {
                .has_sample = true,
                .busy = 50,
                .total = 100,
                .sample_current = 400 * MHZ,
                .current = 400 * MHZ,
        };

        df_governor_init(&g, &df_governor_simple_ondemand);
        ck_assert(g.ops->polls);
        df_governor_start(&g, 400 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 227272727);
        /* An event reusing the sample after 300 MHz was applied: the same answer, the busy time
         * having run at 400 MHz (the kernel's stat.current_frequency). */
        in.current = 300 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 227272727);
        in.current = 400 * MHZ;

        /* The tunables in force are used. */
        ck_assert_int_eq(df_governor_set_tunable(&g, "downdifferential", 0), 0);
        ck_assert_int_eq(df_governor_set_tunable(&g, "upthreshold", 100), 0);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 200 * MHZ);

        /* Without a sample the frequency in force stays. */
        in.has_sample = false;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 400 * MHZ);
        df_governor_done(&g);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("simple_ondemand");
        struct {
                const char *name;
                const TTest *test;
        } cases[] = {
                { "vectors", test_vectors },           { "zero_total", test_zero_total },
                { "thresholds", test_thresholds },     { "shift_total", test_shift_total },
                { "shift_busy", test_shift_busy },     { "busy_above_total", test_busy_above_total },
                { "current_zero", test_current_zero }, { "huge_counters", test_huge_counters },
                { "wide_product", test_wide_product }, { "tunable_errors", test_tunable_errors },
                { "up100_dd0", test_up100_dd0 },       { "dd_half", test_dd_half },
                { "governor", test_governor },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                TCase *tc = tcase_create(cases[i].name);
                tcase_add_test(tc, cases[i].test);
                suite_add_tcase(s, tc);
        }
        return s;
}

int main(void) {
        return df_test_run(suite());
}
