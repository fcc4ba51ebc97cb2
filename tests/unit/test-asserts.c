/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Programmer errors stop at the top of the public function with an assertion (SIGABRT), not a
 * crash further in (SIGSEGV) nor an error code: the build keeps assert() live. Each case runs in
 * a child process (df_test_run_forked).
 */

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>

#include "config.h"
#include "device.h"
#include "governor.h"
#include "node.h"
#include "opp.h"
#include "test-helpers.h"
#include "units.h"

/* The same calls with valid arguments work: what aborts below is the missing pointer alone. */
START_TEST(test_valid_calls) {
        struct df_opp_table t;
        struct df_device *d = NULL;
        struct df_config *c = NULL;
        uint64_t min, max, hz;

        df_opp_table_init(&t);
        ck_assert_int_eq(df_opp_add(&t, 100000000, 0, 0), 1);
        df_opp_table_done(&t);

        ck_assert_int_eq(df_device_new("gpu", DF_MODE_GOVERN, &d), 0);
        ck_assert_int_eq(df_device_evaluate(d, 0, NULL), -EINVAL); /* not started: an error, no abort */
        ck_assert_int_eq(df_opp_add(&d->opps, 100000000, 0, 0), 1);
        ck_assert_int_eq(df_device_start(d, 100000000, 0), 0);
        df_device_get_range(d, &min, &max);
        ck_assert_uint_eq(min, 100000000);
        ck_assert_uint_eq(max, 100000000);
        df_device_free(d);

        ck_assert_int_eq(df_config_load_string("x.conf", "[daemon]\n", 9, &c, NULL), 0);
        df_config_free(c);

        ck_assert_int_eq(df_parse_frequency("400MHz", &hz), 0);
        ck_assert_uint_eq(hz, 400000000);
        ck_assert_int_eq(df_freqs_ceil(NULL, 0, 1), -ERANGE);
}
END_TEST

START_TEST(test_opp_add_null_table) {
        (void) df_opp_add(NULL, 100000000, 0, 0);
}
END_TEST

START_TEST(test_opp_find_ceil_null_freq) {
        struct df_opp_table t;

        df_opp_table_init(&t);
        (void) df_opp_find_ceil(&t, NULL);
}
END_TEST

START_TEST(test_freqs_ceil_null_array) {
        (void) df_freqs_ceil(NULL, 3, 100);
}
END_TEST

START_TEST(test_device_evaluate_null) {
        (void) df_device_evaluate(NULL, 0, NULL);
}
END_TEST

START_TEST(test_device_get_range_null_out) {
        struct df_device *d = NULL;
        uint64_t max;

        ck_assert_int_eq(df_device_new("gpu", DF_MODE_GOVERN, &d), 0);
        df_device_get_range(d, NULL, &max);
}
END_TEST

START_TEST(test_device_set_governor_null) {
        struct df_device *d = NULL;

        ck_assert_int_eq(df_device_new("gpu", DF_MODE_GOVERN, &d), 0);
        (void) df_device_set_governor(d, NULL);
}
END_TEST

START_TEST(test_governor_validate_null_values) {
        /* simple_ondemand has tunables, so the values are required. */
        ck_assert_uint_gt(df_governor_simple_ondemand.n_tunables, 0);
        (void) df_governor_validate(&df_governor_simple_ondemand, NULL);
}
END_TEST

START_TEST(test_config_load_string_null_ret) {
        (void) df_config_load_string("x.conf", "[daemon]\n", 9, NULL, NULL);
}
END_TEST

START_TEST(test_config_load_files_null_array) {
        struct df_config *c = NULL;

        (void) df_config_load_files(NULL, 2, &c, NULL);
}
END_TEST

START_TEST(test_parse_frequency_null_ret) {
        (void) df_parse_frequency("400MHz", NULL);
}
END_TEST

START_TEST(test_node_read_current_null) {
        uint64_t v;

        (void) df_node_read_current(NULL, &v);
}
END_TEST

static Suite *asserts_suite(void) {
        Suite *s = suite_create("asserts");
        TCase *tc;

        tc = tcase_create("valid");
        tcase_add_test(tc, test_valid_calls);
        suite_add_tcase(s, tc);

        tc = tcase_create("abort");
        tcase_add_test_raise_signal(tc, test_opp_add_null_table, SIGABRT);
        tcase_add_test_raise_signal(tc, test_opp_find_ceil_null_freq, SIGABRT);
        tcase_add_test_raise_signal(tc, test_freqs_ceil_null_array, SIGABRT);
        tcase_add_test_raise_signal(tc, test_device_evaluate_null, SIGABRT);
        tcase_add_test_raise_signal(tc, test_device_get_range_null_out, SIGABRT);
        tcase_add_test_raise_signal(tc, test_device_set_governor_null, SIGABRT);
        tcase_add_test_raise_signal(tc, test_governor_validate_null_values, SIGABRT);
        tcase_add_test_raise_signal(tc, test_config_load_string_null_ret, SIGABRT);
        tcase_add_test_raise_signal(tc, test_config_load_files_null_array, SIGABRT);
        tcase_add_test_raise_signal(tc, test_parse_frequency_null_ret, SIGABRT);
        tcase_add_test_raise_signal(tc, test_node_read_current_null, SIGABRT);
        suite_add_tcase(s, tc);

        return s;
}

int main(void) {
        /* The aborts are expected: no core files from them. */
        (void) setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
        return df_test_run_forked(asserts_suite());
}
