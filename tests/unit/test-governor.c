/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The governor table, tunables, and each governor's rules (simple_ondemand has its own suite). */

#include <errno.h>
#include <string.h>

#include "governor.h"
#include "macro.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define SENTINEL 0x5a5a5a5au

static const uint64_t points4[] = { 100 * MHZ, 200 * MHZ, 400 * MHZ, 800 * MHZ };

/* A sample of busy/total at `current` on `points`, the whole table usable and in range. */
static struct df_governor_input
sample_on(const uint64_t *points, size_t n, uint64_t busy, uint64_t total, uint64_t current) {
        return (struct df_governor_input){
                .has_sample = true,
                .busy = busy,
                .total = total,
                .fresh = true,
                .sample_current = current,
                .current = current,
                .min = points[0],
                .max = points[n - 1],
                .points = points,
                .n_points = n,
                .table = points,
                .n_table = n,
        };
}

static struct df_governor_input sample(uint64_t load, uint64_t current) {
        return sample_on(points4, ELEMENTSOF(points4), load, 100, current);
}

static void init_with(struct df_governor *g, const struct df_governor_ops *ops, uint64_t current) {
        *g = (struct df_governor){};
        df_governor_init(g, ops);
        df_governor_start(g, current);
}

static void set(struct df_governor *g, const char *name, uint32_t value) {
        ck_assert_int_eq(df_governor_set_tunable(g, name, value), 0);
}

/* --- the table ------------------------------------------------------------------------------ */

START_TEST(test_table) {
        static const char *const names[] = {
                "conservative", "energy_aware", "ondemand",        "passive",
                "performance",  "powersave",    "simple_ondemand", "userspace",
        };

        ck_assert_uint_eq(df_governors_count, ELEMENTSOF(names));
        for (size_t i = 0; i < df_governors_count; i++) {
                ck_assert_str_eq(df_governors[i]->name, names[i]);
                ck_assert_ptr_eq(df_governor_find(names[i]), df_governors[i]);
                ck_assert_uint_le(df_governors[i]->n_tunables, DF_GOVERNOR_TUNABLES_MAX);
                ck_assert_ptr_nonnull(df_governors[i]->get_target);
                if (i > 0)
                        ck_assert_int_lt(strcmp(df_governors[i - 1]->name, df_governors[i]->name), 0);
        }
        ck_assert_ptr_null(df_governor_find("Performance"));
        ck_assert_ptr_null(df_governor_find("simple"));
        ck_assert_ptr_null(df_governor_find(""));
        ck_assert_ptr_null(df_governor_find(NULL));

        /* Exactly the load-driven governors poll. */
        ck_assert(df_governor_simple_ondemand.polls);
        ck_assert(df_governor_ondemand.polls);
        ck_assert(df_governor_conservative.polls);
        ck_assert(!df_governor_performance.polls);
        ck_assert(!df_governor_powersave.polls);
        ck_assert(!df_governor_userspace.polls);
        ck_assert(!df_governor_passive.polls);
}
END_TEST

START_TEST(test_init_done) {
        static const struct df_passive_pair map[] = { { 100 * MHZ, 50 * MHZ } };
        struct df_governor g = {};

        for (size_t i = 0; i < df_governors_count; i++) {
                const struct df_governor_ops *ops = df_governors[i];

                memset(&g.state, 0xff, sizeof(g.state));
                df_governor_init(&g, ops);
                ck_assert_ptr_eq(g.ops, ops);
                for (size_t k = 0; k < ops->n_tunables; k++)
                        ck_assert_uint_eq(g.tunables[k], ops->tunables[k].def);
                ck_assert_uint_eq(g.state.conservative.requested, 0);
                ck_assert_uint_eq(g.state.conservative.down_skip, 0);
                ck_assert_uint_eq(g.state.conservative.prev_load, 0);
        }

        /* Selecting another governor frees the map (valgrind sees a leak otherwise). */
        df_governor_init(&g, &df_governor_passive);
        ck_assert_int_eq(df_governor_set_passive_map(&g, map, ELEMENTSOF(map)), 0);
        df_governor_init(&g, &df_governor_performance);
        ck_assert_ptr_null(g.passive_map);
        ck_assert_uint_eq(g.n_passive_map, 0);

        df_governor_init(&g, &df_governor_passive);
        ck_assert_int_eq(df_governor_set_passive_map(&g, map, ELEMENTSOF(map)), 0);
        df_governor_done(&g);
        ck_assert_ptr_null(g.passive_map);
        ck_assert_ptr_null(g.ops);
        df_governor_done(&g); /* twice is harmless */
}
END_TEST

/* --- tunables ------------------------------------------------------------------------------- */

/* Setting `name` to `value` from the defaults (plus `other` = `other_value`): the result. */
static int
try_set(const struct df_governor_ops *ops, const char *other, uint32_t other_value, const char *name,
        uint32_t value) {
        struct df_governor g = {};
        uint32_t before, after;
        int r;

        df_governor_init(&g, ops);
        if (other)
                set(&g, other, other_value);
        ck_assert_int_eq(df_governor_get_tunable(&g, name, &before), 0);
        r = df_governor_set_tunable(&g, name, value);
        ck_assert_int_eq(df_governor_get_tunable(&g, name, &after), 0);
        ck_assert_uint_eq(after, r == 0 ? value : before); /* nothing changes on error */
        df_governor_done(&g);
        return r;
}

START_TEST(test_tunables_simple_ondemand) {
        const struct df_governor_ops *so = &df_governor_simple_ondemand;

        ck_assert_int_eq(df_governor_tunable_index(so, "upthreshold"), 0);
        ck_assert_int_eq(df_governor_tunable_index(so, "downdifferential"), 1);
        ck_assert_int_eq(try_set(so, "downdifferential", 0, "upthreshold", 0), -ERANGE);
        ck_assert_int_eq(try_set(so, "downdifferential", 0, "upthreshold", 1), 0);
        ck_assert_int_eq(try_set(so, NULL, 0, "upthreshold", 100), 0);
        ck_assert_int_eq(try_set(so, NULL, 0, "upthreshold", 101), -ERANGE);
        ck_assert_int_eq(try_set(so, NULL, 0, "downdifferential", 0), 0);
        /* Cross rule both ways: dd <= up, checked against the value in force. */
        ck_assert_int_eq(try_set(so, NULL, 0, "upthreshold", 5), 0);
        ck_assert_int_eq(try_set(so, NULL, 0, "upthreshold", 4), -ERANGE);
        ck_assert_int_eq(try_set(so, NULL, 0, "downdifferential", 90), 0);
        ck_assert_int_eq(try_set(so, NULL, 0, "downdifferential", 91), -ERANGE);
        ck_assert_int_eq(try_set(so, "upthreshold", 100, "downdifferential", 100), 0);
        ck_assert_int_eq(try_set(so, "upthreshold", 100, "downdifferential", 101), -ERANGE);
}
END_TEST

START_TEST(test_tunables_ondemand) {
        const struct df_governor_ops *od = &df_governor_ondemand;

        ck_assert_int_eq(try_set(od, NULL, 0, "up_threshold", 10), -ERANGE);
        ck_assert_int_eq(try_set(od, NULL, 0, "up_threshold", 11), 0);
        ck_assert_int_eq(try_set(od, NULL, 0, "up_threshold", 100), 0);
        ck_assert_int_eq(try_set(od, NULL, 0, "up_threshold", 101), -ERANGE);
        ck_assert_int_eq(try_set(od, NULL, 0, "sampling_down_factor", 0), -ERANGE);
        ck_assert_int_eq(try_set(od, NULL, 0, "sampling_down_factor", 1), 0);
        ck_assert_int_eq(try_set(od, NULL, 0, "sampling_down_factor", 100000), 0);
        ck_assert_int_eq(try_set(od, NULL, 0, "sampling_down_factor", 100001), -ERANGE);
        ck_assert_int_eq(df_governor_tunable_index(od, "powersave_bias"), -ENOENT); /* not implemented */
}
END_TEST

START_TEST(test_tunables_conservative) {
        const struct df_governor_ops *cs = &df_governor_conservative;

        ck_assert_int_eq(try_set(cs, "down_threshold", 1, "up_threshold", 1), -ERANGE);
        ck_assert_int_eq(try_set(cs, "down_threshold", 1, "up_threshold", 2), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "up_threshold", 100), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "up_threshold", 101), -ERANGE);
        ck_assert_int_eq(try_set(cs, NULL, 0, "down_threshold", 0), -ERANGE);
        ck_assert_int_eq(try_set(cs, NULL, 0, "down_threshold", 1), 0);
        ck_assert_int_eq(try_set(cs, "up_threshold", 100, "down_threshold", 99), 0);
        ck_assert_int_eq(try_set(cs, "up_threshold", 100, "down_threshold", 100), -ERANGE);
        /* Cross rule both ways: down < up, against the value in force (defaults 80/20). */
        ck_assert_int_eq(try_set(cs, NULL, 0, "up_threshold", 21), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "up_threshold", 20), -ERANGE);
        ck_assert_int_eq(try_set(cs, NULL, 0, "down_threshold", 79), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "down_threshold", 80), -ERANGE);
        ck_assert_int_eq(try_set(cs, NULL, 0, "freq_step", 0), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "freq_step", 100), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "freq_step", 101), -ERANGE);
        ck_assert_int_eq(try_set(cs, NULL, 0, "sampling_down_factor", 0), -ERANGE);
        ck_assert_int_eq(try_set(cs, NULL, 0, "sampling_down_factor", 1), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "sampling_down_factor", 10), 0);
        ck_assert_int_eq(try_set(cs, NULL, 0, "sampling_down_factor", 11), -ERANGE);
}
END_TEST

START_TEST(test_tunables_none) {
        static const struct df_governor_ops *const plain[] = {
                &df_governor_performance,
                &df_governor_powersave,
                &df_governor_userspace,
                &df_governor_passive,
        };

        for (size_t i = 0; i < ELEMENTSOF(plain); i++) {
                struct df_governor g = {};
                uint32_t v = SENTINEL;

                ck_assert_uint_eq(plain[i]->n_tunables, 0);
                df_governor_init(&g, plain[i]);
                ck_assert_int_eq(df_governor_set_tunable(&g, "upthreshold", 90), -ENOENT);
                ck_assert_int_eq(df_governor_get_tunable(&g, "upthreshold", &v), -ENOENT);
                ck_assert_uint_eq(v, SENTINEL);
                ck_assert_int_eq(df_governor_set_tunables(&g, NULL), 0);
                ck_assert_int_eq(df_governor_validate(plain[i], NULL), 0);
                df_governor_done(&g);
        }
}
END_TEST

START_TEST(test_tunables_unknown) {
        struct df_governor g = {};
        uint32_t v = SENTINEL;

        df_governor_init(&g, &df_governor_simple_ondemand);
        ck_assert_int_eq(df_governor_tunable_index(g.ops, "up_threshold"), -ENOENT);
        ck_assert_int_eq(df_governor_tunable_index(g.ops, "UPTHRESHOLD"), -ENOENT);
        ck_assert_int_eq(df_governor_tunable_index(g.ops, ""), -ENOENT);
        ck_assert_int_eq(df_governor_set_tunable(&g, "up_threshold", 90), -ENOENT);
        ck_assert_int_eq(df_governor_get_tunable(&g, "nope", &v), -ENOENT);
        ck_assert_uint_eq(v, SENTINEL);
        ck_assert_int_eq(df_governor_get_tunable(&g, "upthreshold", &v), 0);
        ck_assert_uint_eq(v, 90);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_set_tunables) {
        struct df_governor g = {};
        const uint32_t good[] = { 60, 30, 10, 2 }, cross[] = { 60, 60, 10, 2 }, range[] = { 60, 30, 10, 11 };
        const uint32_t defaults[] = { 80, 20, 5, 1 };

        df_governor_init(&g, &df_governor_conservative);
        /* All or nothing: one bad value (static or cross) leaves every tunable as it was. */
        ck_assert_int_eq(df_governor_set_tunables(&g, cross), -ERANGE);
        ck_assert_mem_eq(g.tunables, defaults, sizeof(defaults));
        ck_assert_int_eq(df_governor_set_tunables(&g, range), -ERANGE);
        ck_assert_mem_eq(g.tunables, defaults, sizeof(defaults));
        ck_assert_int_eq(df_governor_set_tunables(&g, good), 0);
        ck_assert_mem_eq(g.tunables, good, sizeof(good));

        /* Checked as a whole: a set that is only valid together is accepted (up 15 < old down 20). */
        const uint32_t together[] = { 15, 10, 5, 1 };
        df_governor_init(&g, &df_governor_conservative);
        ck_assert_int_eq(df_governor_set_tunables(&g, together), 0);
        ck_assert_mem_eq(g.tunables, together, sizeof(together));

        ck_assert_int_eq(df_governor_validate(&df_governor_conservative, good), 0);
        ck_assert_int_eq(df_governor_validate(&df_governor_conservative, cross), -ERANGE);
        df_governor_done(&g);
}
END_TEST

/* The text that names a set in messages: the tunables of the mask, in table order, cut at the size. */
START_TEST(test_format_tunables) {
        const uint32_t values[] = { 15, 20, 5, 1 };
        char buf[128], small[20];

        ck_assert_str_eq(
                df_governor_format_tunables(
                        &df_governor_conservative, values, DF_GOVERNOR_ALL_TUNABLES, buf, sizeof(buf)),
                "up_threshold = 15, down_threshold = 20, freq_step = 5, sampling_down_factor = 1");
        ck_assert_str_eq(
                df_governor_format_tunables(&df_governor_conservative, values, 0x2 | 0x1, buf, sizeof(buf)),
                "up_threshold = 15, down_threshold = 20");
        ck_assert_str_eq(
                df_governor_format_tunables(&df_governor_conservative, values, 0x2, buf, sizeof(buf)),
                "down_threshold = 20");
        ck_assert_str_eq(
                df_governor_format_tunables(&df_governor_conservative, values, 0, buf, sizeof(buf)), "");
        ck_assert_str_eq(
                df_governor_format_tunables(
                        &df_governor_performance, NULL, DF_GOVERNOR_ALL_TUNABLES, buf, sizeof(buf)),
                "");
        ck_assert_str_eq(
                df_governor_format_tunables(
                        &df_governor_conservative, values, DF_GOVERNOR_ALL_TUNABLES, small, sizeof(small)),
                "up_threshold = 15, ");
}
END_TEST

/* --- performance, powersave, userspace ------------------------------------------------------ */

START_TEST(test_performance_powersave) {
        struct df_governor g;
        struct df_governor_input in = sample(50, 200 * MHZ);

        init_with(&g, &df_governor_performance, 200 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        in.has_sample = false;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);

        init_with(&g, &df_governor_powersave, 200 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 0);
        in = sample(100, 800 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 0);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_userspace) {
        struct df_governor g;
        struct df_governor_input in = sample(0, 200 * MHZ);

        init_with(&g, &df_governor_userspace, 200 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 200 * MHZ); /* before any: current */
        in.current = 400 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 400 * MHZ);

        /* The raw value, even outside every point; clamping is the device's job. */
        df_governor_userspace_set(&g, 123);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 123);
        df_governor_userspace_set(&g, 0);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 0);
        df_governor_userspace_set(&g, UINT64_MAX);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), UINT64_MAX);

        /* A restart forgets it. */
        df_governor_start(&g, 400 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 400 * MHZ);

        /* Another governor's state is not touched. */
        init_with(&g, &df_governor_conservative, 400 * MHZ);
        df_governor_userspace_set(&g, 123);
        ck_assert_uint_eq(g.state.conservative.requested, 400 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_load_percent) {
        ck_assert_int_eq(df_load_percent(0, 0), -EINVAL);
        ck_assert_int_eq(df_load_percent(5, 0), -EINVAL);
        ck_assert_int_eq(df_load_percent(0, 7), 0);
        ck_assert_int_eq(df_load_percent(2, 3), 66); /* floored */
        ck_assert_int_eq(df_load_percent(3, 3), 100);
        ck_assert_int_eq(df_load_percent(4, 3), 100);
        ck_assert_int_eq(df_load_percent(UINT64_MAX, UINT64_MAX), 100);
        ck_assert_int_eq(df_load_percent(UINT64_MAX - 1, UINT64_MAX), 99); /* busy * 100 needs 71 bits */
        ck_assert_int_eq(df_load_percent(UINT64_C(1) << 63, UINT64_MAX), 50);
}
END_TEST

/* --- ondemand ------------------------------------------------------------------------------- */

/* Spaced so that lowest + load % of the span (100 MHz + load * 10 MHz) can fall on a midpoint. */
static const uint64_t od_points[] = { 100 * MHZ, 300 * MHZ, 500 * MHZ, 1100 * MHZ };

static uint64_t od(struct df_governor *g, uint64_t busy, uint64_t total, uint64_t current) {
        struct df_governor_input in = sample_on(od_points, ELEMENTSOF(od_points), busy, total, current);
        return df_governor_get_target(g, &in);
}

START_TEST(test_ondemand_above_threshold) {
        struct df_governor g;

        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        ck_assert_uint_eq(od(&g, 96, 100, 100 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(od(&g, 100, 100, 300 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(od(&g, 150, 100, 300 * MHZ), DF_FREQ_MAX); /* busy above total */
        set(&g, "up_threshold", 50);
        ck_assert_uint_eq(od(&g, 51, 100, 300 * MHZ), DF_FREQ_MAX);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_ondemand_at_threshold) {
        struct df_governor g;

        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        set(&g, "up_threshold", 50);
        /* Exactly 50 % is proportional: 100 + 50 * 10 = 600 MHz, nearest 500 MHz. */
        ck_assert_uint_eq(od(&g, 50, 100, 300 * MHZ), 500 * MHZ);
        /* The default, 95 %: 1050 MHz, nearest 1100 MHz, a point rather than DF_FREQ_MAX. */
        set(&g, "up_threshold", 95);
        ck_assert_uint_eq(od(&g, 95, 100, 300 * MHZ), 1100 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_ondemand_proportional) {
        struct df_governor g;

        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        ck_assert_uint_eq(od(&g, 0, 100, 300 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(od(&g, 29, 100, 300 * MHZ), 300 * MHZ); /* 390 MHz */
        ck_assert_uint_eq(od(&g, 30, 100, 300 * MHZ), 300 * MHZ); /* 400 MHz: tie, goes down */
        ck_assert_uint_eq(od(&g, 31, 100, 300 * MHZ), 500 * MHZ); /* 410 MHz */
        ck_assert_uint_eq(od(&g, 10, 100, 300 * MHZ), 100 * MHZ); /* 200 MHz: tie, goes down */
        ck_assert_uint_eq(od(&g, 70, 100, 300 * MHZ), 500 * MHZ); /* 800 MHz: tie, goes down */
        ck_assert_uint_eq(od(&g, 71, 100, 300 * MHZ), 1100 * MHZ);
        /* The span is taken from the usable points, whatever the current frequency. */
        ck_assert_uint_eq(od(&g, 31, 100, 500 * MHZ), 500 * MHZ);

        /* 128-bit: 90 % of a span near 2^64 Hz. (2^64 - 2) * 90 / 100 + 1 = 16602069666338596453. */
        static const uint64_t wide[] = { 1, UINT64_MAX - 1, UINT64_MAX };
        struct df_governor_input in = sample_on(wide, ELEMENTSOF(wide), 90, 100, 1);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), UINT64_MAX - 1);
        in.busy = 40; /* 7378697629483820646: below the midpoint, nearest is 1 */
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 1);

        /* Without a sample, the frequency in force. */
        in = sample_on(od_points, ELEMENTSOF(od_points), 0, 100, 300 * MHZ);
        in.has_sample = false;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 300 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* On a cpufreq policy the kernel computes in kHz: freq_next = min + load * (max - min) / 100 as an
 * unsigned int. Points 100000, 500000, 600000 and 1000001 kHz; load 50:
 * 100000 + 50 * 900001 / 100 = 100000 + 450000 = 550000 kHz (450000.5 truncated), an exact tie
 * between 500000 and 600000 kHz, which goes to the lower. In Hz the half kHz survives
 * (550000500 Hz) and the nearest point is 600000 kHz: so it stays on devfreq, whose unit is Hz. */
START_TEST(test_ondemand_khz) {
        static const uint64_t khz_points[] = { 100000000, 500000000, 600000000, 1000001000 };
        struct df_governor g;
        struct df_governor_input in = sample_on(khz_points, ELEMENTSOF(khz_points), 50, 100, 100000000);

        init_with(&g, &df_governor_ondemand, 100000000);
        in.unit_hz = 1000;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 500000000);
        in.unit_hz = 1;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 600000000);
        in.unit_hz = 0; /* counts as 1 */
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 600000000);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_ondemand_zero_total) {
        struct df_governor g;

        /* Right after start there is no previous load: 0. */
        init_with(&g, &df_governor_ondemand, 300 * MHZ);
        ck_assert_uint_eq(od(&g, 0, 0, 300 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(od(&g, 30, 100, 300 * MHZ), 300 * MHZ);
        ck_assert_uint_eq(od(&g, 0, 0, 300 * MHZ), 300 * MHZ); /* 30 % again */
        ck_assert_uint_eq(od(&g, 5, 0, 300 * MHZ), 300 * MHZ); /* busy does not matter */
        ck_assert_uint_eq(od(&g, 99, 100, 300 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(od(&g, 0, 0, 500 * MHZ), DF_FREQ_MAX); /* 99 % again */
        /* A restart forgets it. */
        df_governor_start(&g, 300 * MHZ);
        ck_assert_uint_eq(od(&g, 0, 0, 300 * MHZ), 100 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* One ondemand decision on points4 at `current`, the whole table in range. */
static uint64_t od4(struct df_governor *g, uint64_t busy, uint64_t current) {
        struct df_governor_input in = sample(busy, current);
        return df_governor_get_target(g, &in);
}

/*
 * kernel: cpufreq_ondemand.c od_update() and od_dbs_update(): sampling_down_factor is rate_mult,
 * set only on a jump to the top from below; the next sampling period is that many polls and
 * its load is the one over the whole period; only the proportional branch resets it.
 */
START_TEST(test_ondemand_sampling_down_factor) {
        struct df_governor g;
        struct df_governor_input in;

        /* Already at the top: nothing stretched, 0 % goes to the lowest point at once. */
        init_with(&g, &df_governor_ondemand, 800 * MHZ);
        set(&g, "sampling_down_factor", 2);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(od4(&g, 0, 100 * MHZ), 100 * MHZ);

        /* From 100 MHz: the jump stretches the next period to two polls; the second of them
         * decides on 100 busy of 200, 50 %: 100 + 350 = 450 MHz, nearest 400 MHz. */
        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        set(&g, "sampling_down_factor", 2);
        ck_assert_uint_eq(od4(&g, 100, 100 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 2);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 800 * MHZ); /* inside the period: no decision */
        ck_assert_uint_eq(od4(&g, 100, 800 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 1);
        ck_assert_uint_eq(od4(&g, 0, 400 * MHZ), 100 * MHZ); /* one poll again */

        /* Busy while already at the top leaves the stretch as it is. */
        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        set(&g, "sampling_down_factor", 3);
        ck_assert_uint_eq(od4(&g, 100, 100 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(od4(&g, 100, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(od4(&g, 100, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(od4(&g, 100, 800 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 3);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 1);

        /* The top is the highest point the range allows (the kernel's policy->max): a busy
         * sample at 400 MHz with a 400 MHz ceiling is not a jump from below. */
        init_with(&g, &df_governor_ondemand, 400 * MHZ);
        set(&g, "sampling_down_factor", 3);
        in = sample(100, 400 * MHZ);
        in.max = 400 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 1);
        in.current = 200 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 3);

        /* A restart forgets the stretch. */
        df_governor_start(&g, 800 * MHZ);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 1);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 100 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* An event reusing the sample repeats the last decision and advances nothing. */
START_TEST(test_ondemand_reevaluation) {
        struct df_governor g;
        struct df_governor_input in;

        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        set(&g, "sampling_down_factor", 2);
        in = sample(100, 100 * MHZ);
        in.fresh = false;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 100 * MHZ); /* nothing decided yet */
        in.fresh = true;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        in.fresh = false;
        in.current = 800 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.polls, 0);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 800 * MHZ);
        in.busy = 0;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.polls, 1);
        ck_assert_uint_eq(od4(&g, 0, 800 * MHZ), 100 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* A sample of busy/100 lasting `duration` of a 100 ms polling interval, on points4. */
static struct df_governor_input timed(uint64_t busy, uint64_t duration, uint64_t current) {
        struct df_governor_input in = sample(busy, current);
        in.duration_usec = duration;
        in.interval_usec = 100000;
        return in;
}

static uint64_t od_timed(struct df_governor *g, uint64_t busy, uint64_t duration, uint64_t current) {
        struct df_governor_input in = timed(busy, duration, current);
        return df_governor_get_target(g, &in);
}

/* kernel: cpufreq_governor.c dbs_update()'s long-idle rule. */
START_TEST(test_ondemand_long_idle) {
        struct df_governor g;

        /* 50 %: 450 MHz, nearest 400 MHz. Then idle for 1 s, ten periods: 50 % once more. */
        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 50, 100000, 100 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 0, 1000000, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(g.state.ondemand.prev_load, 0);
        ck_assert_uint_eq(od_timed(&g, 0, 1000000, 400 * MHZ), 100 * MHZ); /* cleared: 0 % */

        /* Exactly twice the period is not long. */
        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 50, 100000, 100 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 0, 200000, 400 * MHZ), 100 * MHZ);
        /* The idle share counts, not the duration: 70 % idle of 300 ms is 210 ms. */
        ck_assert_uint_eq(od_timed(&g, 50, 100000, 100 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 30, 300000, 400 * MHZ), 400 * MHZ);
        /* Unknown duration or interval: never long. */
        ck_assert_uint_eq(od_timed(&g, 50, 0, 400 * MHZ), 400 * MHZ);
        struct df_governor_input in = timed(0, 1000000, 400 * MHZ);
        in.interval_usec = 0;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 100 * MHZ);

        /* The period is stretched by rate_mult: two polls of 150 ms, 300 ms idle, are not more
         * than 2 x 200 ms; two of 250 ms are, and the 100 % before the jump is used again. */
        init_with(&g, &df_governor_ondemand, 100 * MHZ);
        set(&g, "sampling_down_factor", 2);
        ck_assert_uint_eq(od_timed(&g, 100, 100000, 100 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(od_timed(&g, 0, 150000, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 0, 150000, 800 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 100, 100000, 100 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(od_timed(&g, 0, 250000, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(od_timed(&g, 0, 250000, 800 * MHZ), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 2); /* busy at the top: unchanged */
        ck_assert_uint_eq(g.state.ondemand.prev_load, 0);
        df_governor_done(&g);
}
END_TEST

/* kernel: cpufreq_set_policy()'s limits, resolved to points (the maximum down, the minimum up and
 * not above the maximum), and __resolve_freq()'s fallbacks past the ends. */
START_TEST(test_policy_limits) {
        static const struct {
                uint64_t min, max, want_min, want_max;
        } rows[] = {
                { 100, 800, 100, 800 }, { 100, 300, 100, 200 }, { 250, 800, 400, 800 },
                { 250, 300, 200, 200 }, /* no point in [250, 300]: the maximum wins */
                { 10, 1000, 100, 800 }, { 50, 50, 100, 100 },   { 900, 900, 800, 800 },
        };
        uint64_t min, max;

        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                df_dbs_policy_limits(
                        points4, ELEMENTSOF(points4), rows[i].min * MHZ, rows[i].max * MHZ, &min, &max);
                ck_assert_uint_eq(min, rows[i].want_min * MHZ);
                ck_assert_uint_eq(max, rows[i].want_max * MHZ);
        }
        ck_assert_uint_eq(df_dbs_point_at_or_below(points4, ELEMENTSOF(points4), 99 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(df_dbs_point_at_or_below(points4, ELEMENTSOF(points4), 399 * MHZ), 200 * MHZ);
        ck_assert_uint_eq(df_dbs_point_at_or_above(points4, ELEMENTSOF(points4), 401 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(df_dbs_point_at_or_above(points4, ELEMENTSOF(points4), 801 * MHZ), 800 * MHZ);
}
END_TEST

/* A ceiling between points (300 MHz on 100/200/400/800 MHz): policy->max is 200 MHz, so a busy
 * sample at 200 MHz is no jump from below and does not stretch the period; at 100 MHz it does. */
START_TEST(test_ondemand_ceiling_between_points) {
        struct df_governor g;
        struct df_governor_input in;

        init_with(&g, &df_governor_ondemand, 200 * MHZ);
        set(&g, "sampling_down_factor", 3);
        in = sample(100, 200 * MHZ);
        in.max = 300 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 1);
        in.current = 100 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        ck_assert_uint_eq(g.state.ondemand.rate_mult, 3);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_dbs_update) {
        struct df_dbs_sample s = { .busy = 25, .total = 100, .duration_usec = 1000000 };
        uint32_t prev = 0;
        uint64_t periods;

        /* 750 ms idle: 7 whole periods of 100 ms; prev_load 0, so the load is computed. */
        ck_assert_uint_eq(df_dbs_update(&prev, &s, 100000, &periods), 25);
        ck_assert_uint_eq(periods, 7);
        ck_assert_uint_eq(prev, 25);
        ck_assert_uint_eq(df_dbs_update(&prev, &s, 100000, &periods), 25); /* used once */
        ck_assert_uint_eq(prev, 0);
        ck_assert_uint_eq(df_dbs_update(&prev, &s, 375000, &periods), 25); /* 750 = 2 x 375 */
        ck_assert_uint_eq(periods, DF_DBS_NO_IDLE_PERIODS);
        ck_assert_uint_eq(df_dbs_update(&prev, &s, 0, &periods), 25);
        ck_assert_uint_eq(periods, DF_DBS_NO_IDLE_PERIODS);

        /* No time elapsed: the previous load, kept. */
        s = (struct df_dbs_sample){ .busy = 3, .total = 0, .duration_usec = 1000000 };
        ck_assert_uint_eq(df_dbs_update(&prev, &s, 100000, &periods), 25);
        ck_assert_uint_eq(prev, 25);
        ck_assert_uint_eq(periods, DF_DBS_NO_IDLE_PERIODS);
        /* Busy above total: 100 %, no idle. */
        s = (struct df_dbs_sample){ .busy = 7, .total = 5, .duration_usec = 1000000 };
        ck_assert_uint_eq(df_dbs_update(&prev, &s, 100000, NULL), 100);

        /* Sums saturate. */
        struct df_dbs_sample a = { UINT64_MAX - 1, 5, 7 }, b = { 5, 6, UINT64_MAX };
        df_dbs_sample_add(&a, &b);
        ck_assert_uint_eq(a.busy, UINT64_MAX);
        ck_assert_uint_eq(a.total, 11);
        ck_assert_uint_eq(a.duration_usec, UINT64_MAX);
}
END_TEST

/* --- conservative --------------------------------------------------------------------------- */

/* One conservative decision on points4 at `current`, range 100-800 MHz. */
static uint64_t cs(struct df_governor *g, uint64_t load, uint64_t current) {
        struct df_governor_input in = sample(load, current);
        return df_governor_get_target(g, &in);
}

START_TEST(test_conservative_step_up) {
        struct df_governor g;

        init_with(&g, &df_governor_conservative, 400 * MHZ);
        set(&g, "freq_step", 30);                            /* 240 MHz */
        ck_assert_uint_eq(cs(&g, 81, 400 * MHZ), 400 * MHZ); /* 640 MHz: highest point below */
        ck_assert_uint_eq(g.state.conservative.requested, 640 * MHZ);
        ck_assert_uint_eq(cs(&g, 81, 400 * MHZ), 800 * MHZ); /* 880 MHz capped at 800 */
        ck_assert_uint_eq(g.state.conservative.requested, 800 * MHZ);
        ck_assert_uint_eq(cs(&g, 100, 800 * MHZ), 800 * MHZ); /* at the ceiling: stays */
        ck_assert_uint_eq(g.state.conservative.requested, 800 * MHZ);
        /* The frequency in force moved behind the governor's back: the kernel returns early
         * (requested is the maximum already), so it stays where it was put. */
        ck_assert_uint_eq(cs(&g, 100, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 800 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* On a cpufreq policy the step is whole kHz: freq_step 1 of a 1000099 kHz top is 10000 kHz
 * (10000.99 truncated). Points 500000, 520001 and 1000099 kHz, from 500000 kHz, two loads above
 * up_threshold: requested 510000, then 520000 kHz, and the highest point at or below it is
 * still 500000 kHz; the third reaches 520001 kHz. With the step in Hz (10000990 Hz, devfreq's
 * unit) the second request is 520001980 Hz, already past 520001 kHz. */
START_TEST(test_conservative_khz) {
        static const uint64_t khz_points[] = { 500000000, 520001000, 1000099000 };
        struct df_governor g;
        struct df_governor_input in = sample_on(khz_points, ELEMENTSOF(khz_points), 81, 100, 500000000);

        init_with(&g, &df_governor_conservative, 500000000);
        set(&g, "freq_step", 1);
        in.unit_hz = 1000;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 500000000);
        ck_assert_uint_eq(g.state.conservative.requested, 510000000);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 500000000);
        ck_assert_uint_eq(g.state.conservative.requested, 520000000);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 520001000);
        ck_assert_uint_eq(g.state.conservative.requested, 530000000);
        df_governor_done(&g);

        init_with(&g, &df_governor_conservative, 500000000);
        set(&g, "freq_step", 1);
        in.unit_hz = 1;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 500000000);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 520001000);
        ck_assert_uint_eq(g.state.conservative.requested, 520001980);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_step_down) {
        struct df_governor g;

        init_with(&g, &df_governor_conservative, 800 * MHZ);
        set(&g, "freq_step", 30);                            /* 240 MHz */
        ck_assert_uint_eq(cs(&g, 19, 800 * MHZ), 800 * MHZ); /* 560 MHz: lowest point above */
        ck_assert_uint_eq(g.state.conservative.requested, 560 * MHZ);
        ck_assert_uint_eq(cs(&g, 19, 800 * MHZ), 400 * MHZ); /* 320 MHz */
        /* 80 MHz, kept below the minimum as the kernel does; the target is clamped to 100. */
        ck_assert_uint_eq(cs(&g, 19, 400 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 80 * MHZ);
        /* Out of range: back to the frequency in force, which is the floor: stays. */
        ck_assert_uint_eq(cs(&g, 0, 100 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 100 * MHZ);
        /* At the floor already: the kernel returns early, whatever is in force. */
        ck_assert_uint_eq(cs(&g, 0, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 100 * MHZ);
        /* Just above the floor and no farther than a step above 0: the floor itself. */
        g.state.conservative.requested = 200 * MHZ;
        ck_assert_uint_eq(cs(&g, 0, 200 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 100 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_down_skip) {
        struct df_governor g;

        init_with(&g, &df_governor_conservative, 800 * MHZ);
        set(&g, "freq_step", 50); /* 400 MHz */
        set(&g, "sampling_down_factor", 3);
        ck_assert_uint_eq(cs(&g, 0, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(cs(&g, 0, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 800 * MHZ);
        ck_assert_uint_eq(cs(&g, 0, 800 * MHZ), 400 * MHZ);
        /* A busy sample resets the count; dead-band samples count. */
        ck_assert_uint_eq(cs(&g, 0, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(cs(&g, 90, 400 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(g.state.conservative.down_skip, 0);
        ck_assert_uint_eq(cs(&g, 50, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(cs(&g, 0, 800 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(cs(&g, 0, 800 * MHZ), 400 * MHZ);
        /* Increases are never delayed. */
        ck_assert_uint_eq(cs(&g, 90, 400 * MHZ), 800 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_dead_band) {
        struct df_governor g;

        init_with(&g, &df_governor_conservative, 400 * MHZ);
        set(&g, "freq_step", 50);
        /* Loads in [down_threshold, up_threshold] keep: the thresholds are strict. */
        ck_assert_uint_eq(cs(&g, 20, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(cs(&g, 50, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(cs(&g, 80, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 400 * MHZ);
        ck_assert_uint_eq(cs(&g, 81, 400 * MHZ), 800 * MHZ);
        ck_assert_uint_eq(cs(&g, 19, 800 * MHZ), 400 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_freeze) {
        struct df_governor g;

        init_with(&g, &df_governor_conservative, 400 * MHZ);
        set(&g, "freq_step", 0);
        ck_assert_uint_eq(cs(&g, 100, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(cs(&g, 0, 400 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(cs(&g, 0, 200 * MHZ), 200 * MHZ); /* follows whatever is in force */
        ck_assert_uint_eq(g.state.conservative.requested, 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.down_skip, 0);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_range_reset) {
        struct df_governor g;
        struct df_governor_input in;

        /* requested 800 MHz above a new ceiling of 400 MHz: restart from 400 MHz, less 5 % of
         * the new ceiling, 380 -> 400 MHz. */
        init_with(&g, &df_governor_conservative, 800 * MHZ);
        in = sample(0, 400 * MHZ);
        in.max = 400 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 380 * MHZ);

        /* requested 100 MHz below a new floor of 400 MHz: restart from 400 MHz, 440 -> 400 MHz. */
        init_with(&g, &df_governor_conservative, 100 * MHZ);
        in = sample(100, 400 * MHZ);
        in.min = 400 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 440 * MHZ);

        /* Even in the dead band the reset is kept. */
        init_with(&g, &df_governor_conservative, 800 * MHZ);
        in = sample(50, 200 * MHZ);
        in.max = 200 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 200 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 200 * MHZ);

        /* start resets requested and down_skip. */
        g.state.conservative.down_skip = 7;
        df_governor_start(&g, 100 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 100 * MHZ);
        ck_assert_uint_eq(g.state.conservative.down_skip, 0);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_min_step) {
        static const uint64_t tiny[] = { 10, 50, 99 };
        struct df_governor g;
        struct df_governor_input in;

        /* 1 % of 99 Hz rounds to 0: the kernel's 5 kHz instead (get_freq_step()). */
        init_with(&g, &df_governor_conservative, 10);
        set(&g, "freq_step", 1);
        in = sample_on(tiny, ELEMENTSOF(tiny), 100, 100, 10);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 99);
        ck_assert_uint_eq(g.state.conservative.requested, 99); /* capped at the maximum */
        in.busy = 0;
        in.current = 99;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 10);
        ck_assert_uint_eq(g.state.conservative.requested, 10); /* not above a step: the floor */

        /* 2 % of a 99 Hz maximum is 1 Hz: no substitute. */
        set(&g, "freq_step", 2);
        in.busy = 100;
        in.current = 10;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 10);
        ck_assert_uint_eq(g.state.conservative.requested, 11);
        df_governor_done(&g);
}
END_TEST

static const uint64_t points10[] = { 100 * MHZ, 200 * MHZ, 300 * MHZ, 400 * MHZ, 500 * MHZ,
                                     600 * MHZ, 700 * MHZ, 800 * MHZ, 900 * MHZ, 1000 * MHZ };

/* kernel: cpufreq_conservative.c get_freq_step(): freq_step % of policy->max, under the ceiling. */
START_TEST(test_conservative_step_of_effective_max) {
        static const uint64_t expect[] = { 100 * MHZ, 100 * MHZ, 100 * MHZ, 200 * MHZ };
        struct df_governor g;
        uint64_t current = 100 * MHZ;

        /* Points 100-1000 MHz, a 500 MHz ceiling: 25 MHz steps, not 50. */
        init_with(&g, &df_governor_conservative, current);
        for (size_t i = 0; i < ELEMENTSOF(expect); i++) {
                struct df_governor_input in = sample_on(points10, ELEMENTSOF(points10), 100, 100, current);
                in.max = 500 * MHZ;
                current = df_governor_get_target(&g, &in);
                ck_assert_uint_eq(current, expect[i]);
                ck_assert_uint_eq(g.state.conservative.requested, (125 + 25 * i) * MHZ);
        }
        df_governor_done(&g);
}
END_TEST

/*
 * A ceiling between points: policy->max is the highest point under it (cpufreq_set_policy()),
 * and the step is a share of that. Points 100-1000 MHz, a 350 MHz ceiling: policy->max 300 MHz,
 * steps of 15 MHz (not 17.5), from 300 MHz. Nine idle samples take requested to 285, 270, 255,
 * 240, 225, 210 (lowest point at or above: 300 MHz), 195, 180, 165 (200 MHz); three busy ones to
 * 180, 195 (highest point at or below: 100 MHz) and 210 (200 MHz).
 */
START_TEST(test_conservative_ceiling_between_points) {
        static const uint64_t expect[] = { 300, 300, 300, 300, 300, 300, 200, 200, 200, 100, 100, 200 };
        static const uint64_t requested[] = { 285, 270, 255, 240, 225, 210, 195, 180, 165, 180, 195, 210 };
        struct df_governor g;
        uint64_t current = 300 * MHZ;

        init_with(&g, &df_governor_conservative, current);
        for (size_t i = 0; i < ELEMENTSOF(expect); i++) {
                struct df_governor_input in = sample_on(
                        points10, ELEMENTSOF(points10), i < 9 ? 0 : 100, 100, current);
                in.max = 350 * MHZ;
                current = df_governor_get_target(&g, &in);
                ck_assert_uint_eq(current, expect[i] * MHZ);
                ck_assert_uint_eq(g.state.conservative.requested, requested[i] * MHZ);
        }
        df_governor_done(&g);
}
END_TEST

/*
 * A floor between points: policy->min is the lowest point over it. Points 100-1000 MHz, a
 * 250 MHz floor: policy->min 300 MHz, steps of 50 MHz, from 400 MHz. Idle: 350 (400 MHz), 300
 * (300 MHz), then requested is policy->min and nothing changes; busy: 350 (300 MHz), 400
 * (400 MHz).
 */
START_TEST(test_conservative_floor_between_points) {
        static const uint64_t load[] = { 0, 0, 0, 100, 100 };
        static const uint64_t expect[] = { 400, 300, 300, 300, 400 };
        static const uint64_t requested[] = { 350, 300, 300, 350, 400 };
        struct df_governor g;
        uint64_t current = 400 * MHZ;

        init_with(&g, &df_governor_conservative, current);
        for (size_t i = 0; i < ELEMENTSOF(expect); i++) {
                struct df_governor_input in = sample_on(points10, ELEMENTSOF(points10), load[i], 100, current);
                in.min = 250 * MHZ;
                current = df_governor_get_target(&g, &in);
                ck_assert_uint_eq(current, expect[i] * MHZ);
                ck_assert_uint_eq(g.state.conservative.requested, requested[i] * MHZ);
        }
        df_governor_done(&g);
}
END_TEST

/* kernel: cs_dbs_update()'s early returns at the top and the bottom of the range. */
START_TEST(test_conservative_early_returns) {
        struct df_governor g;
        struct df_governor_input in;

        init_with(&g, &df_governor_conservative, 1000 * MHZ);
        in = sample_on(points10, ELEMENTSOF(points10), 100, 100, 1000 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 1000 * MHZ);
        in.current = 500 * MHZ; /* forced behind the governor's back */
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 500 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 1000 * MHZ);

        init_with(&g, &df_governor_conservative, 100 * MHZ);
        in = sample_on(points10, ELEMENTSOF(points10), 0, 100, 100 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 100 * MHZ);
        in.current = 300 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 300 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 100 * MHZ);
        df_governor_done(&g);
}
END_TEST

static uint64_t cs_timed(struct df_governor *g, uint64_t busy, uint64_t duration, uint64_t current) {
        struct df_governor_input in = sample_on(points10, ELEMENTSOF(points10), busy, 100, current);
        in.duration_usec = duration;
        in.interval_usec = 100000;
        return df_governor_get_target(g, &in);
}

/* kernel: dbs_update()'s idle_periods, which cs_dbs_update() takes one step off each. */
START_TEST(test_conservative_idle_periods) {
        struct df_governor g;

        init_with(&g, &df_governor_conservative, 800 * MHZ);
        set(&g, "freq_step", 10); /* 100 MHz */
        ck_assert_uint_eq(cs_timed(&g, 90, 100000, 800 * MHZ), 900 * MHZ);
        /* 900 ms idle: nine periods down to the floor, and 90 % again (long idle): one up. */
        ck_assert_uint_eq(cs_timed(&g, 10, 1000000, 900 * MHZ), 200 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 200 * MHZ);
        /* 500 ms idle in the dead band: no target, so the lowered request is dropped. */
        ck_assert_uint_eq(cs_timed(&g, 50, 1000000, 200 * MHZ), 200 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 200 * MHZ);
        ck_assert_uint_eq(cs_timed(&g, 0, 100000, 200 * MHZ), 100 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 100 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* An event reusing the sample repeats the last decision and steps no further. */
START_TEST(test_conservative_reevaluation) {
        struct df_governor g;
        struct df_governor_input in;

        init_with(&g, &df_governor_conservative, 400 * MHZ);
        set(&g, "freq_step", 50);
        in = sample(100, 400 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 800 * MHZ);
        in.fresh = false;
        in.current = 800 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 800 * MHZ);
        in.busy = 0;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 800 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 800 * MHZ);
        ck_assert_uint_eq(g.state.conservative.down_skip, 0);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_relations) {
        struct df_governor g;

        /* 5 % of 800 MHz = 40 MHz, smaller than the gaps: requested accumulates unrounded. */
        init_with(&g, &df_governor_conservative, 200 * MHZ);
        for (uint64_t r = 240; r < 400; r += 40) {
                ck_assert_uint_eq(cs(&g, 100, 200 * MHZ), 200 * MHZ); /* highest <= requested */
                ck_assert_uint_eq(g.state.conservative.requested, r * MHZ);
        }
        ck_assert_uint_eq(cs(&g, 100, 200 * MHZ), 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 400 * MHZ);

        for (uint64_t r = 360; r > 200; r -= 40) {
                ck_assert_uint_eq(cs(&g, 0, 400 * MHZ), 400 * MHZ); /* lowest >= requested */
                ck_assert_uint_eq(g.state.conservative.requested, r * MHZ);
        }
        ck_assert_uint_eq(cs(&g, 0, 400 * MHZ), 200 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 200 * MHZ);

        /* Limits beyond the points are the end points (cpufreq_set_policy()): under a 10 MHz
         * floor, policy->min is 100 MHz, so a request of 50 MHz is outside and restarts from the
         * frequency in force, 100 + 40 = 140 MHz -> 100 MHz. */
        struct df_governor_input in = sample(100, 100 * MHZ);
        g.state.conservative.requested = 50 * MHZ;
        in.min = 10 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 100 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 140 * MHZ);
        /* Under a 1000 MHz ceiling policy->max is 800 MHz: a request of 1000 MHz restarts from
         * 800 MHz, less 40 MHz (5 % of 800, not of 1000) = 760 MHz -> 800 MHz. */
        in = sample(0, 800 * MHZ);
        in.max = 1000 * MHZ;
        g.state.conservative.requested = 1000 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 800 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 760 * MHZ);

        /* Without a sample, the frequency in force and no state change. */
        in = sample(100, 400 * MHZ);
        in.has_sample = false;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 400 * MHZ);
        ck_assert_uint_eq(g.state.conservative.requested, 760 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_conservative_zero_total) {
        struct df_governor g;

        init_with(&g, &df_governor_conservative, 400 * MHZ);
        set(&g, "freq_step", 50);
        ck_assert_uint_eq(cs(&g, 90, 400 * MHZ), 800 * MHZ);
        struct df_governor_input in = sample(0, 800 * MHZ);
        in.total = 0; /* 90 % again, not 0 % */
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 800 * MHZ);
        ck_assert_uint_eq(cs(&g, 10, 800 * MHZ), 400 * MHZ);
        in.current = 400 * MHZ; /* 10 % again */
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 100 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* --- passive -------------------------------------------------------------------------------- */

static const uint64_t parent_points[] = { 100 * MHZ, 200 * MHZ, 400 * MHZ, 800 * MHZ };

static uint64_t follow(struct df_governor *g, const uint64_t *child, size_t n_child, uint64_t parent) {
        struct df_governor_input in = {
                .current = child[0],
                .min = child[0],
                .max = child[n_child - 1],
                .points = child,
                .n_points = n_child,
                .table = child,
                .n_table = n_child,
                .parent_current = parent,
                .parent_table = parent_points,
                .n_parent_table = ELEMENTSOF(parent_points),
        };
        return df_governor_get_target(g, &in);
}

START_TEST(test_passive_index) {
        static const uint64_t child[] = { 50 * MHZ, 150 * MHZ, 300 * MHZ, 600 * MHZ };
        struct df_governor g;

        init_with(&g, &df_governor_passive, 50 * MHZ);
        for (size_t i = 0; i < ELEMENTSOF(parent_points); i++)
                ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), parent_points[i]), child[i]);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_passive_clip) {
        static const uint64_t child[] = { 50 * MHZ, 150 * MHZ };
        struct df_governor g;

        init_with(&g, &df_governor_passive, 50 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 100 * MHZ), 50 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 200 * MHZ), 150 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 400 * MHZ), 150 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 800 * MHZ), 150 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_passive_off_table) {
        static const uint64_t child[] = { 50 * MHZ, 150 * MHZ, 300 * MHZ, 600 * MHZ };
        struct df_governor g;

        init_with(&g, &df_governor_passive, 50 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 0), 50 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 100 * MHZ + 1), 150 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 250 * MHZ), 300 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 800 * MHZ + 1), 600 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), UINT64_MAX), 600 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_passive_map) {
        static const uint64_t child[] = { 50 * MHZ, 150 * MHZ };
        struct df_passive_pair pairs[] = {
                { 400 * MHZ, 222 * MHZ },
                { 200 * MHZ, 111 * MHZ },
                { 800 * MHZ, 333 * MHZ },
        };
        struct df_governor g;

        init_with(&g, &df_governor_passive, 50 * MHZ);
        ck_assert_int_eq(df_governor_set_passive_map(&g, pairs, ELEMENTSOF(pairs)), 0);
        pairs[1].child = 1; /* copied: the caller's array is not kept */
        ck_assert_uint_eq(g.n_passive_map, 3);
        ck_assert_uint_eq(g.passive_map[0].parent, 200 * MHZ);
        ck_assert_uint_eq(g.passive_map[2].parent, 800 * MHZ);

        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 0), 111 * MHZ); /* below the first */
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 100 * MHZ), 111 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 200 * MHZ), 111 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 400 * MHZ - 1), 111 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 400 * MHZ), 222 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 800 * MHZ), 333 * MHZ);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), UINT64_MAX), 333 * MHZ);

        /* No parent (gone, or not attached): the frequency in force stays, not the first pair. */
        ck_assert_uint_eq(
                df_governor_get_target(
                        &g,
                        &(struct df_governor_input){ .current = 150 * MHZ,
                                                     .min = 50 * MHZ,
                                                     .max = 150 * MHZ,
                                                     .points = child,
                                                     .n_points = ELEMENTSOF(child),
                                                     .table = child,
                                                     .n_table = ELEMENTSOF(child) }),
                150 * MHZ);

        /* An empty map goes back to index mapping. */
        ck_assert_int_eq(df_governor_set_passive_map(&g, NULL, 0), 0);
        ck_assert_ptr_null(g.passive_map);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 200 * MHZ), 150 * MHZ);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_passive_map_duplicates) {
        static const uint64_t child[] = { 50 * MHZ, 150 * MHZ };
        static const struct df_passive_pair good[] = { { 200 * MHZ, 111 * MHZ } };
        static const struct df_passive_pair dup[] = {
                { 400 * MHZ, 1 * MHZ },
                { 200 * MHZ, 2 * MHZ },
                { 400 * MHZ, 3 * MHZ },
        };
        struct df_governor g;

        init_with(&g, &df_governor_passive, 50 * MHZ);
        ck_assert_int_eq(df_governor_set_passive_map(&g, good, ELEMENTSOF(good)), 0);
        /* Refused, even with another pair between them, and the map in force stays. */
        ck_assert_int_eq(df_governor_set_passive_map(&g, dup, ELEMENTSOF(dup)), -EINVAL);
        ck_assert_uint_eq(g.n_passive_map, 1);
        ck_assert_uint_eq(follow(&g, child, ELEMENTSOF(child), 400 * MHZ), 111 * MHZ);
        df_governor_done(&g);
}
END_TEST

static void add(Suite *s, const char *name, const TTest *test) {
        TCase *tc = tcase_create(name);

        tcase_add_test(tc, test);
        suite_add_tcase(s, tc);
}

static Suite *suite(void) {
        Suite *s = suite_create("governor");

        add(s, "table", test_table);
        add(s, "init_done", test_init_done);
        add(s, "tunables_simple_ondemand", test_tunables_simple_ondemand);
        add(s, "tunables_ondemand", test_tunables_ondemand);
        add(s, "tunables_conservative", test_tunables_conservative);
        add(s, "tunables_none", test_tunables_none);
        add(s, "tunables_unknown", test_tunables_unknown);
        add(s, "set_tunables", test_set_tunables);
        add(s, "format_tunables", test_format_tunables);
        add(s, "performance_powersave", test_performance_powersave);
        add(s, "userspace", test_userspace);
        add(s, "load_percent", test_load_percent);
        add(s, "ondemand_above_threshold", test_ondemand_above_threshold);
        add(s, "ondemand_at_threshold", test_ondemand_at_threshold);
        add(s, "ondemand_proportional", test_ondemand_proportional);
        add(s, "ondemand_khz", test_ondemand_khz);
        add(s, "ondemand_zero_total", test_ondemand_zero_total);
        add(s, "ondemand_sampling_down_factor", test_ondemand_sampling_down_factor);
        add(s, "ondemand_reevaluation", test_ondemand_reevaluation);
        add(s, "ondemand_long_idle", test_ondemand_long_idle);
        add(s, "ondemand_ceiling_between_points", test_ondemand_ceiling_between_points);
        add(s, "policy_limits", test_policy_limits);
        add(s, "dbs_update", test_dbs_update);
        add(s, "conservative_step_up", test_conservative_step_up);
        add(s, "conservative_khz", test_conservative_khz);
        add(s, "conservative_step_down", test_conservative_step_down);
        add(s, "conservative_down_skip", test_conservative_down_skip);
        add(s, "conservative_dead_band", test_conservative_dead_band);
        add(s, "conservative_freeze", test_conservative_freeze);
        add(s, "conservative_range_reset", test_conservative_range_reset);
        add(s, "conservative_min_step", test_conservative_min_step);
        add(s, "conservative_relations", test_conservative_relations);
        add(s, "conservative_zero_total", test_conservative_zero_total);
        add(s, "conservative_step_of_effective_max", test_conservative_step_of_effective_max);
        add(s, "conservative_ceiling_between_points", test_conservative_ceiling_between_points);
        add(s, "conservative_floor_between_points", test_conservative_floor_between_points);
        add(s, "conservative_early_returns", test_conservative_early_returns);
        add(s, "conservative_idle_periods", test_conservative_idle_periods);
        add(s, "conservative_reevaluation", test_conservative_reevaluation);
        add(s, "passive_index", test_passive_index);
        add(s, "passive_clip", test_passive_clip);
        add(s, "passive_off_table", test_passive_off_table);
        add(s, "passive_map", test_passive_map);
        add(s, "passive_map_duplicates", test_passive_map_duplicates);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
