/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shared test vectors through the library's evaluation path: one check test per row, so a
 * new case is one line in tests/vectors/. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "macro.h"
#include "test-helpers.h"
#include "units.h"

struct vector_file {
        char *text;
        char **lines;
        size_t n;
};

static struct vector_file evaluation, ondemand;

static void load(struct vector_file *v, const char *name) {
        _cleanup_free_ char *path = df_test_vector_path(name);

        v->text = df_test_read_file(path);
        v->n = df_test_lines(v->text, &v->lines);
}

static char *trim(char *s) {
        char *e;

        s += strspn(s, " \t");
        e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
                *--e = '\0';
        return s;
}

static uint64_t freq(const char *s) {
        uint64_t f;

        if (streq(s, "maximum"))
                return UINT64_MAX;
        ck_assert_msg(df_parse_frequency(s, &f) == 0, "bad frequency '%s' in a vector", s);
        return f;
}

/* One request per list item ("-" is none); returns how many. */
static size_t add_requests(struct df_device *d, struct df_qos_request *reqs, enum df_qos_type type, char *list) {
        char *save = NULL;
        size_t n = 0;

        if (streq(list, "-"))
                return 0;
        for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                ck_assert_uint_lt(n, 8);
                ck_assert_int_ge(df_qos_add_request(&d->qos, &reqs[n], type, freq(trim(item))), 0);
                n++;
        }
        return n;
}

/* points | min requests | max requests | governor value | range | applied (the userspace governor's
 * value stands for any governor's raw result) */
START_TEST(test_evaluation_row) {
        _cleanup_free_ char *line = strdup(evaluation.lines[_i]);
        struct df_qos_request mins[8] = {}, maxs[8] = {};
        char *f[6], *save = NULL, *lo, *hi;
        struct df_device *d = NULL;
        struct df_evaluation ev;
        size_t k = 0, n_min, n_max;

        for (char *p = strtok_r(line, "|", &save); p && k < 6; p = strtok_r(NULL, "|", &save))
                f[k++] = trim(p);
        ck_assert_uint_eq(k, 6);

        ck_assert_int_eq(df_device_new("vector", DF_MODE_GOVERN, &d), 0);
        save = NULL;
        for (char *p = strtok_r(f[0], ",", &save); p; p = strtok_r(NULL, ",", &save))
                ck_assert_int_eq(df_opp_add(&d->opps, freq(p), 0, 0), 1);
        ck_assert_int_eq(df_device_set_governor(d, &df_governor_userspace), 0);
        ck_assert_int_eq(df_device_start(d, d->opps.opps[0].freq, 0), 0);
        n_min = add_requests(d, mins, DF_QOS_MIN_FREQUENCY, f[1]);
        n_max = add_requests(d, maxs, DF_QOS_MAX_FREQUENCY, f[2]);
        df_governor_userspace_set(&d->governor, freq(f[3]));

        ck_assert_int_ge(df_device_evaluate(d, 1000, &ev), 0);
        lo = f[4];
        hi = strchr(lo, '-');
        ck_assert_ptr_nonnull(hi);
        *hi++ = '\0';
        ck_assert_uint_eq(ev.governor, freq(f[3]));
        ck_assert_msg(
                ev.min == freq(lo) && ev.max == freq(hi), "range %" PRIu64 "-%" PRIu64 ", expected %s-%s",
                ev.min, ev.max, lo, hi);
        ck_assert_msg(ev.applied == freq(f[5]), "applied %" PRIu64 ", expected %s", ev.applied, f[5]);

        for (size_t j = 0; j < n_min; j++)
                ck_assert_int_ge(df_qos_remove_request(&mins[j]), 0);
        for (size_t j = 0; j < n_max; j++)
                ck_assert_int_ge(df_qos_remove_request(&maxs[j]), 0);
        df_device_free(d);
}
END_TEST

/* busy,total,current,upthreshold,downdifferential,expected: the governor's raw value, through a
 * device whose own table must not matter to it. Row 0 is the header. */
START_TEST(test_simple_ondemand_row) {
        _cleanup_free_ char *line = strdup(ondemand.lines[_i]);
        uint32_t tunables[DF_GOVERNOR_TUNABLES_MAX] = {};
        const struct df_governor_ops *ops = &df_governor_simple_ondemand;
        struct df_device *d = NULL;
        struct df_evaluation ev;
        char *save = NULL;
        uint64_t v[6];
        size_t k = 0;

        for (char *p = strtok_r(line, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
                ck_assert_uint_lt(k, 6);
                ck_assert_int_eq(df_safe_atou64(p, &v[k++]), 0);
        }
        ck_assert_uint_eq(k, 6);

        ck_assert_int_eq(df_device_new("vector", DF_MODE_GOVERN, &d), 0);
        ck_assert_int_eq(df_opp_add(&d->opps, 100000000, 0, 0), 1);
        ck_assert_int_eq(df_opp_add(&d->opps, 800000000, 0, 0), 1);
        ck_assert_int_eq(df_device_set_governor(d, ops), 0);
        tunables[df_governor_tunable_index(ops, "upthreshold")] = (uint32_t) v[3];
        tunables[df_governor_tunable_index(ops, "downdifferential")] = (uint32_t) v[4];
        ck_assert_int_eq(df_governor_set_tunables(&d->governor, tunables), 0);
        ck_assert_int_eq(df_device_start(d, 800000000, 0), 0);
        df_device_set_current(d, v[2]);
        df_device_set_sample(d, v[0], v[1]);
        ck_assert_int_ge(df_device_evaluate(d, 1000, &ev), 0);
        ck_assert(ev.decided);
        ck_assert_uint_eq(ev.governor, v[5]);
        df_device_free(d);
}
END_TEST

START_TEST(test_files_complete) {
        ck_assert_uint_eq(evaluation.n, 11);
        ck_assert_uint_eq(ondemand.n, 16);
        ck_assert_str_eq(ondemand.lines[0], "busy,total,current,upthreshold,downdifferential,expected");
}
END_TEST

static Suite *vectors_suite(void) {
        Suite *s = suite_create("vectors");
        TCase *tc;

        tc = tcase_create("files");
        tcase_add_test(tc, test_files_complete);
        suite_add_tcase(s, tc);

        tc = tcase_create("evaluation");
        tcase_add_loop_test(tc, test_evaluation_row, 0, (int) evaluation.n);
        suite_add_tcase(s, tc);

        tc = tcase_create("simple_ondemand");
        tcase_add_loop_test(tc, test_simple_ondemand_row, 1, (int) ondemand.n);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        int r;

        load(&evaluation, "evaluation.txt");
        load(&ondemand, "simple_ondemand.csv");
        r = df_test_run(vectors_suite());
        free(evaluation.lines);
        free(evaluation.text);
        free(ondemand.lines);
        free(ondemand.text);
        return r;
}
