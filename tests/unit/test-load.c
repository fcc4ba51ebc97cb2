/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Load sources against a fake root: /proc/stat's busiest CPU, cumulative counters, percentages. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "macro.h"
#include "test-helpers.h"

/* --- a root in a temporary directory (test-helpers.h) ------------------------------------------ */
/* df_test_put() rewrites a file in place (same inode): the source keeps its descriptor open. */

struct fixture {
        char *root;
        struct df_root r;
        struct df_load_source *s;
};

static struct fixture *fixture_new(void) {
        struct fixture *f = calloc(1, sizeof(*f));

        ck_assert_ptr_nonnull(f);
        f->root = df_test_root_new("load");
        ck_assert_int_eq(df_root_open(f->root, &f->r), 0);
        return f;
}

static void fixture_free(struct fixture *f) {
        df_load_source_free(f->s);
        df_root_close(&f->r);
        df_test_root_free(f->root);
        free(f);
}

/* A sample's result, out-parameters untouched unless it is 1. */
struct sample {
        int r;
        uint64_t busy, total;
};

static struct sample take(struct fixture *f) {
        struct sample x = { .busy = 777, .total = 777 };
        uint64_t duration;

        x.r = df_load_source_sample(f->s, 0, &x.busy, &x.total, &duration);
        if (x.r != 1)
                ck_assert_msg(x.busy == 777 && x.total == 777, "out-parameters written on %d", x.r);
        return x;
}

#define assert_sample(f, busy_, total_)                                                                      \
        do {                                                                                                 \
                struct sample _x = take(f);                                                                  \
                ck_assert_int_eq(_x.r, 1);                                                                   \
                ck_assert_uint_eq(_x.busy, busy_);                                                           \
                ck_assert_uint_eq(_x.total, total_);                                                         \
        } while (0)

#define assert_no_sample(f) ck_assert_int_eq(take(f).r, 0)

/* --- specifications ----------------------------------------------------------------------------- */

START_TEST(test_spec_parse) {
        static const struct {
                const char *spec;
                int r;
                enum df_load_kind kind;
                const char *path;
        } cases[] = {
                { "none", 0, DF_LOAD_NONE, NULL },
                { "proc-stat", 0, DF_LOAD_PROC_STAT, NULL },
                { "counters:/sys/devices/platform/ff9a0000.gpu/busy", 0, DF_LOAD_COUNTERS,
                  "/sys/devices/platform/ff9a0000.gpu/busy" },
                { "percent:/sys/class/drm/card0/device/gpu_busy_percent", 0, DF_LOAD_PERCENT,
                  "/sys/class/drm/card0/device/gpu_busy_percent" },
                { "percent:/proc/gpu_load", 0, DF_LOAD_PERCENT, "/proc/gpu_load" },
                { "counters:", -EINVAL, 0, NULL },
                { "counters:/etc/busy", -EINVAL, 0, NULL },
                { "counters:sys/busy", -EINVAL, 0, NULL },
                { "percent:/sys/../etc/x", -EINVAL, 0, NULL },
                { "percent:/sys/a//b", -EINVAL, 0, NULL },
                { "counters", -EINVAL, 0, NULL },
                { "proc-stat:/proc/stat", -EINVAL, 0, NULL },
                { "None", -EINVAL, 0, NULL },
                { "", -EINVAL, 0, NULL },
                { "load", -EINVAL, 0, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                enum df_load_kind kind = _DF_LOAD_KIND_INVALID;
                char *path = (char *) "untouched";
                int r = df_load_spec_parse(cases[i].spec, &kind, &path);

                ck_assert_msg(r == cases[i].r, "\"%s\": %d", cases[i].spec, r);
                if (r < 0) {
                        ck_assert_int_eq(kind, _DF_LOAD_KIND_INVALID);
                        ck_assert_str_eq(path, "untouched");
                        continue;
                }
                ck_assert_int_eq(kind, cases[i].kind);
                if (cases[i].path)
                        ck_assert_str_eq(path, cases[i].path);
                else
                        ck_assert_ptr_null(path);
                free(path);
        }
        ck_assert_int_eq(df_load_spec_parse(NULL, &(enum df_load_kind){ 0 }, NULL), -EINVAL);
}
END_TEST

START_TEST(test_kind_names) {
        ck_assert_str_eq(df_load_kind_to_string(DF_LOAD_NONE), "none");
        ck_assert_str_eq(df_load_kind_to_string(DF_LOAD_PROC_STAT), "proc-stat");
        ck_assert_str_eq(df_load_kind_to_string(DF_LOAD_COUNTERS), "counters");
        ck_assert_str_eq(df_load_kind_to_string(DF_LOAD_PERCENT), "percent");
        ck_assert_ptr_null(df_load_kind_to_string(_DF_LOAD_KIND_MAX));
        ck_assert_ptr_null(df_load_kind_to_string(_DF_LOAD_KIND_INVALID));
}
END_TEST

/* --- /proc/stat ------------------------------------------------------------------------------ */

/* user nice system idle iowait irq softirq steal guest guest_nice */
struct cpu_times {
        uint64_t v[10];
};

static void put_proc_stat(struct fixture *f, const struct cpu_times *cpus, size_t n) {
        char buf[8192];
        size_t len = 0;
        struct cpu_times sum = {};

        for (size_t i = 0; i < n; i++)
                for (int j = 0; j < 10; j++)
                        sum.v[j] += cpus[i].v[j];
        for (size_t i = 0; i <= n; i++) {
                const struct cpu_times *c = i == 0 ? &sum : &cpus[i - 1];
                char name[32];

                if (i == 0)
                        snprintf(name, sizeof(name), "cpu ");
                else
                        snprintf(name, sizeof(name), "cpu%zu", i - 1);
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%s", name);
                for (int j = 0; j < 10; j++)
                        len += (size_t) snprintf(buf + len, sizeof(buf) - len, " %" PRIu64, c->v[j]);
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "\n");
        }
        len += (size_t) snprintf(
                buf + len, sizeof(buf) - len,
                "intr 123 0 9 0\nctxt 4567\nbtime 1700000000\nprocesses 89\nprocs_running 1\n"
                "procs_blocked 0\nsoftirq 1 2 3\n");
        ck_assert_uint_lt(len, sizeof(buf));
        df_test_put(f->root, "proc/stat", buf);
}

enum {
        USER,
        NICE,
        SYSTEM,
        IDLE,
        IOWAIT,
        IRQ,
        SOFTIRQ,
        STEAL,
        GUEST,
        GUEST_NICE
};

static struct fixture *proc_stat_fixture(struct cpu_times *c, size_t n, const unsigned *cpus, size_t n_cpus) {
        struct fixture *f = fixture_new();

        for (size_t i = 0; i < n; i++)
                c[i] = (struct cpu_times){ .v = { 1000, 10, 500, 90000, 300, 20, 30, 0, 0, 0 } };
        put_proc_stat(f, c, n);
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PROC_STAT, NULL, cpus, n_cpus, &f->s), 0);
        return f;
}

START_TEST(test_proc_stat_busiest) {
        static const unsigned cpus[] = { 0, 1 };
        struct cpu_times c[3];
        struct fixture *f = proc_stat_fixture(c, 3, cpus, 2);

        assert_no_sample(f); /* the first reading only primes */

        /* cpu0 30% busy, cpu1 50%: cpu1 wins. cpu2 is busier but not the policy's. */
        c[0].v[USER] += 30;
        c[0].v[IDLE] += 70;
        c[1].v[SYSTEM] += 50;
        c[1].v[IDLE] += 50;
        c[2].v[USER] += 100;
        put_proc_stat(f, c, 3);
        assert_sample(f, 50, 100);

        /* Every busy column counts: user nice system irq softirq steal. */
        c[0].v[USER] += 1;
        c[0].v[NICE] += 2;
        c[0].v[SYSTEM] += 3;
        c[0].v[IRQ] += 4;
        c[0].v[SOFTIRQ] += 5;
        c[0].v[STEAL] += 6;
        c[0].v[IDLE] += 19;
        c[1].v[IDLE] += 100;
        put_proc_stat(f, c, 3);
        assert_sample(f, 21, 40);

        /* iowait is idle time: counted in the total, not in busy. */
        c[0].v[USER] += 10;
        c[0].v[IOWAIT] += 90;
        c[1].v[USER] += 5;
        c[1].v[IDLE] += 95;
        put_proc_stat(f, c, 3);
        assert_sample(f, 10, 100);

        /* guest time is already part of user: not added again. */
        c[0].v[USER] += 20;
        c[0].v[GUEST] += 20;
        c[0].v[GUEST_NICE] += 5;
        c[0].v[IDLE] += 80;
        put_proc_stat(f, c, 3);
        assert_sample(f, 20, 100);
        fixture_free(f);
}
END_TEST

START_TEST(test_proc_stat_skipped_cpus) {
        static const unsigned cpus[] = { 0, 1 };
        struct cpu_times c[2];
        struct fixture *f = proc_stat_fixture(c, 2, cpus, 2);

        assert_no_sample(f);
        /* Nothing moved: every CPU has a zero total, none is left. */
        assert_no_sample(f);

        /* cpu1 went backwards (busier on paper, but skipped); cpu0 counts. */
        c[0].v[USER] += 10;
        c[0].v[IDLE] += 90;
        c[1].v[USER] -= 500;
        c[1].v[IDLE] += 1000;
        put_proc_stat(f, c, 2);
        assert_sample(f, 10, 100);

        /* cpu1 was re-primed from the backward values: its next delta counts from there. */
        c[0].v[IDLE] += 100;
        c[1].v[USER] += 60;
        c[1].v[IDLE] += 40;
        put_proc_stat(f, c, 2);
        assert_sample(f, 60, 100);

        /* An idle count falling (iowait is unreliable) is backwards too. */
        c[1].v[IOWAIT] -= 200;
        c[1].v[USER] += 300;
        c[0].v[USER] += 1;
        c[0].v[IDLE] += 9;
        put_proc_stat(f, c, 2);
        assert_sample(f, 1, 10);

        /* Both backwards: no sample. */
        c[0].v[USER] -= 1;
        c[1].v[USER] -= 1;
        put_proc_stat(f, c, 2);
        assert_no_sample(f);
        fixture_free(f);
}
END_TEST

/* A ratio compared by cross multiplication: these deltas overflow 64 bits when multiplied. */
START_TEST(test_proc_stat_wide) {
        static const unsigned cpus[] = { 0, 1 };
        struct cpu_times c[2];
        struct fixture *f = proc_stat_fixture(c, 2, cpus, 2);

        assert_no_sample(f);
        c[0].v[USER] += UINT64_C(1) << 61; /* 2^61 / 2^62 = 0.5 */
        c[0].v[IDLE] += UINT64_C(1) << 61;
        c[1].v[USER] += (UINT64_C(3) << 59); /* 3*2^59 / 2^61 = 0.75 */
        c[1].v[IDLE] += (UINT64_C(1) << 59);
        put_proc_stat(f, c, 2);
        assert_sample(f, UINT64_C(3) << 59, UINT64_C(1) << 61);
        fixture_free(f);
}
END_TEST

START_TEST(test_proc_stat_offline_cpu) {
        static const unsigned cpus[] = { 0, 1 };
        struct cpu_times c[2];
        struct fixture *f = fixture_new();

        /* cpu1 is offline at first: /proc/stat lists only cpu0. */
        c[0] = c[1] = (struct cpu_times){ .v = { 100, 0, 100, 1000, 0, 0, 0, 0, 0, 0 } };
        put_proc_stat(f, c, 1);
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PROC_STAT, NULL, cpus, 2, &f->s), 0);
        assert_no_sample(f);
        c[0].v[USER] += 10;
        c[0].v[IDLE] += 90;
        put_proc_stat(f, c, 1);
        assert_sample(f, 10, 100);
        /* cpu1 comes online: its first reading primes it, cpu0 still answers. */
        c[0].v[USER] += 20;
        c[0].v[IDLE] += 80;
        put_proc_stat(f, c, 2);
        assert_sample(f, 20, 100);
        c[0].v[IDLE] += 100;
        c[1].v[USER] += 90;
        c[1].v[IDLE] += 10;
        put_proc_stat(f, c, 2);
        assert_sample(f, 90, 100);
        fixture_free(f);
}
END_TEST

START_TEST(test_proc_stat_format) {
        static const unsigned one[] = { 1 }, far[] = { 300 };
        struct fixture *f = fixture_new();
        char *big;
        size_t len = 0, size = 64 * 1024;

        /* Old kernels print four to seven columns. */
        df_test_put(f->root, "proc/stat", "cpu  10 0 10 100\ncpu0 5 0 5 50\ncpu1 5 0 5 50\n");
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PROC_STAT, NULL, one, 1, &f->s), 0);
        assert_no_sample(f);
        df_test_put(f->root, "proc/stat", "cpu  10 0 10 100\ncpu0 5 0 5 50\ncpu1 15 0 5 140\n");
        assert_sample(f, 10, 100);
        df_test_put(f->root, "proc/stat", "cpu  10 0 10 100\ncpu0 5 0 5 50\ncpu1 15 x 5 140\n");
        ck_assert_int_eq(take(f).r, -EINVAL);
        df_test_put(f->root, "proc/stat", "cpu  10 0 10 100\ncpu0 5 0 5 50\ncpu1 15 0\n");
        ck_assert_int_eq(take(f).r, -EINVAL);
        f->s = df_load_source_free(f->s);

        /* Hundreds of CPUs: the buffer grows past its first size. */
        big = malloc(size);
        ck_assert_ptr_nonnull(big);
        for (int pass = 0; pass < 2; pass++) {
                len = 0;
                for (unsigned cpu = 0; cpu < 400; cpu++) {
                        unsigned busy = cpu == 300 && pass == 1 ? 1070 : 1000;
                        unsigned idle = cpu == 300 && pass == 1 ? 90030 : 90000;
                        len += (size_t) snprintf(
                                big + len, size - len, "cpu%u %u 0 0 %u 0 0 0 0 0 0\n", cpu, busy, idle);
                }
                ck_assert_uint_lt(len, size);
                df_test_put(f->root, "proc/stat", big);
                if (pass == 0) {
                        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PROC_STAT, NULL, far, 1, &f->s), 0);
                        assert_no_sample(f);
                } else
                        assert_sample(f, 70, 100);
        }
        ck_assert_uint_gt(f->s->buf_size, 4096);
        free(big);
        fixture_free(f);
}
END_TEST

/* --- counters and percentages --------------------------------------------------------------- */

START_TEST(test_counters) {
        struct fixture *f = fixture_new();

        df_test_put(f->root, "sys/devices/platform/gpu/busy", "100 1000\n");
        ck_assert_int_eq(
                df_load_source_open(&f->r, DF_LOAD_COUNTERS, "/sys/devices/platform/gpu/busy", NULL, 0, &f->s),
                0);
        assert_no_sample(f); /* primes */
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "150 1100\n");
        assert_sample(f, 50, 100);
        assert_no_sample(f); /* zero total */
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "160 1100\n");
        assert_no_sample(f); /* still a zero total: re-primed at 160 */
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "170 1200");
        assert_sample(f, 10, 100);
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "100 1300\n");
        assert_no_sample(f); /* busy went backwards: re-primed */
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "130 1400\n");
        assert_sample(f, 30, 100);
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "140 10\n");
        assert_no_sample(f); /* total went backwards (a reset) */
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "  145\t20 \n");
        assert_sample(f, 5, 10);

        static const char *const bad[] = { "abc\n", "1\n", "1 2 3\n", "1 x\n", "-1 5\n", "", "1,2\n" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                df_test_put(f->root, "sys/devices/platform/gpu/busy", bad[i]);
                ck_assert_msg(take(f).r == -EINVAL, "\"%s\"", bad[i]);
        }
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "1 18446744073709551616\n");
        ck_assert_int_eq(take(f).r, -ERANGE);
        /* Garbage did not disturb the last good reading. */
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "150 30\n");
        assert_sample(f, 5, 10);
        fixture_free(f);
}
END_TEST

/* A sample's duration is the time since the reading before it, dropped readings included. */
START_TEST(test_duration) {
        struct fixture *f = fixture_new();
        uint64_t busy, total, duration = 777;

        df_test_put(f->root, "sys/devices/platform/gpu/busy", "100 1000\n");
        ck_assert_int_eq(
                df_load_source_open(&f->r, DF_LOAD_COUNTERS, "/sys/devices/platform/gpu/busy", NULL, 0, &f->s),
                0);
        ck_assert_int_eq(df_load_source_sample(f->s, 5000000, &busy, &total, &duration), 0);
        ck_assert_uint_eq(duration, 777);
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "150 1100\n");
        ck_assert_int_eq(df_load_source_sample(f->s, 5100000, &busy, &total, &duration), 1);
        ck_assert_uint_eq(duration, 100000);
        ck_assert_int_eq(df_load_source_sample(f->s, 5300000, &busy, &total, &duration), 0); /* zero total */
        df_test_put(f->root, "sys/devices/platform/gpu/busy", "160 1200\n");
        ck_assert_int_eq(df_load_source_sample(f->s, 6300000, &busy, &total, &duration), 1);
        ck_assert_uint_eq(duration, 1000000);
        fixture_free(f);

        /* A percentage's first reading has no reading before it: unknown. */
        f = fixture_new();
        df_test_put(f->root, "sys/devices/platform/gpu/load", "40\n");
        ck_assert_int_eq(
                df_load_source_open(&f->r, DF_LOAD_PERCENT, "/sys/devices/platform/gpu/load", NULL, 0, &f->s),
                0);
        ck_assert_int_eq(df_load_source_sample(f->s, 5000000, &busy, &total, &duration), 1);
        ck_assert_uint_eq(duration, 0);
        ck_assert_int_eq(df_load_source_sample(f->s, 5250000, &busy, &total, &duration), 1);
        ck_assert_uint_eq(duration, 250000);
        fixture_free(f);
}
END_TEST

START_TEST(test_percent) {
        static const struct {
                const char *text;
                int r;
                uint64_t busy;
        } cases[] = {
                { "0\n", 1, 0 },
                { "100\n", 1, 100 },
                { "42", 1, 42 },
                { "  42 \n", 1, 42 },
                { "101\n", 0, 0 },
                { "4294967296\n", 0, 0 },
                { "99999999999999999999999\n", 0, 0 },
                { "abc\n", -EINVAL, 0 },
                { "-1\n", -EINVAL, 0 },
                { "42%\n", -EINVAL, 0 },
                { "4 2\n", -EINVAL, 0 },
                { "\n", -EINVAL, 0 },
                { "", -EINVAL, 0 },
        };
        struct fixture *f = fixture_new();

        df_test_put(f->root, "sys/class/drm/card0/device/gpu_busy_percent", "0\n");
        ck_assert_int_eq(
                df_load_source_open(
                        &f->r, DF_LOAD_PERCENT, "/sys/class/drm/card0/device/gpu_busy_percent", NULL, 0, &f->s),
                0);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct sample x;

                df_test_put(f->root, "sys/class/drm/card0/device/gpu_busy_percent", cases[i].text);
                x = take(f);
                ck_assert_msg(x.r == cases[i].r, "\"%s\": %d", cases[i].text, x.r);
                if (x.r == 1) {
                        ck_assert_uint_eq(x.busy, cases[i].busy);
                        ck_assert_uint_eq(x.total, 100);
                }
        }
        fixture_free(f);
}
END_TEST

START_TEST(test_open_errors) {
        static const unsigned cpus[] = { 0 };
        struct fixture *f = fixture_new();
        struct df_load_source *s = NULL;

        df_test_put(f->root, "etc/busy", "1 2\n");
        df_test_put(f->root, "proc/stat", "cpu0 1 2 3 4\n");
        df_test_put_link(f->root, "proc/busy", "/etc/busy");

        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_COUNTERS, "/sys/missing", NULL, 0, &s), -ENOENT);
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_COUNTERS, "/proc/busy", NULL, 0, &s), -EXDEV);
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PERCENT, "/etc/busy", NULL, 0, &s), -EINVAL);
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PERCENT, NULL, NULL, 0, &s), -EINVAL);
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PROC_STAT, NULL, cpus, 0, &s), -EINVAL);
        ck_assert_int_eq(df_load_source_open(&f->r, _DF_LOAD_KIND_MAX, NULL, NULL, 0, &s), -EINVAL);
        ck_assert_ptr_null(s);

        /* "none" opens nothing and never has a sample. */
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_NONE, NULL, NULL, 0, &f->s), 0);
        assert_no_sample(f);
        f->s = df_load_source_free(f->s);
        /* A read error is returned as it is. */
        ck_assert_int_eq(df_load_source_open(&f->r, DF_LOAD_PROC_STAT, NULL, cpus, 1, &f->s), 0);
        f->s->fd = safe_close(f->s->fd);
        ck_assert_int_eq(take(f).r, -EBADF);
        fixture_free(f);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("load");
        TCase *tc;

        tc = tcase_create("spec");
        tcase_add_test(tc, test_spec_parse);
        tcase_add_test(tc, test_kind_names);
        suite_add_tcase(s, tc);

        tc = tcase_create("proc-stat");
        tcase_add_test(tc, test_proc_stat_busiest);
        tcase_add_test(tc, test_proc_stat_skipped_cpus);
        tcase_add_test(tc, test_proc_stat_wide);
        tcase_add_test(tc, test_proc_stat_offline_cpu);
        tcase_add_test(tc, test_proc_stat_format);
        suite_add_tcase(s, tc);

        tc = tcase_create("counters");
        tcase_add_test(tc, test_counters);
        tcase_add_test(tc, test_duration);
        suite_add_tcase(s, tc);

        tc = tcase_create("percent");
        tcase_add_test(tc, test_percent);
        suite_add_tcase(s, tc);

        tc = tcase_create("open");
        tcase_add_test(tc, test_open_errors);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
