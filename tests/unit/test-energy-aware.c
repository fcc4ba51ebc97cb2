/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* energy_aware: each rule on a table of cases, its tunables, and properties over random traces
 * and ranges through the device's evaluation. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "governor.h"
#include "macro.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define MAXF DF_FREQ_MAX

static const uint64_t pts[] = { 100 * MHZ, 200 * MHZ, 400 * MHZ, 800 * MHZ };
/* RK3399 GPU: the three lowest points share a voltage. */
static const uint64_t gpu[] = { 200 * MHZ, 297 * MHZ, 400 * MHZ, 500 * MHZ, 600 * MHZ, 800 * MHZ };
static const uint32_t gpu_uv[] = { 825000, 825000, 825000, 875000, 925000, 1100000 };
/* A table whose 400 MHz needs less voltage than 300 MHz. */
static const uint64_t odd[] = { 200 * MHZ, 300 * MHZ, 400 * MHZ };
static const uint32_t odd_uv[] = { 800000, 950000, 900000 };
static const uint32_t odd_partial[] = { 800000, 0, 900000 };

/* One sample: busy out of 100 at `current`. */
struct step {
        uint64_t busy, current, expected;
};

struct rule_case {
        const char *what;
        const uint64_t *points;
        const uint32_t *uv;
        size_t n;
        uint64_t min, max;
        uint32_t tunables[4]; /* target_load, rise, decay, saturated_samples; 0 = default */
        struct step steps[14];
};

#define NONE NULL, 4, 0, UINT64_MAX
#define GPU gpu, gpu_uv, 6, 0, UINT64_MAX

static const struct rule_case cases[] = {
        /* demand 50 % of 400 MHz = 200 MHz; at target_load 90 it needs 222.2 MHz: 400 MHz. */
        { "lowest point that runs the demand at target_load", pts, NONE, {}, { { 50, 400 * MHZ, 400 * MHZ } } },
        /* 90 % of 200 MHz is 180 MHz: at 90 % exactly 200 MHz still runs it. */
        { "a demand exactly at target_load stays", pts, NONE, {}, { { 90, 200 * MHZ, 200 * MHZ } } },
        { "just above target_load goes up", pts, NONE, {}, { { 91, 200 * MHZ, 400 * MHZ } } },
        { "idle goes to the lowest point", pts, NONE, {}, { { 0, 800 * MHZ, 100 * MHZ } } },
        /* rise 70: 40 MHz, then 40 + 196 = 236 MHz, needing 262.2 MHz: 400 MHz. */
        { "rise 70 closes 70 % of the gap",
          pts,
          NONE,
          {},
          { { 10, 400 * MHZ, 100 * MHZ }, { 80, 400 * MHZ, 400 * MHZ } } },
        /* rise 50: 40 MHz, then half-way to 320 MHz = 180 MHz, needing 200 MHz exactly. */
        { "rise 50 closes half the gap",
          pts,
          NONE,
          { 90, 50, 50, 1 },
          { { 10, 400 * MHZ, 100 * MHZ }, { 80, 400 * MHZ, 200 * MHZ } } },
        /* rise 25: 40 MHz, then 40 + 70 = 110 MHz, needing 122.2 MHz: 200 MHz. */
        { "rise 25 closes a quarter",
          pts,
          NONE,
          { 90, 25, 25, 1 },
          { { 10, 400 * MHZ, 100 * MHZ }, { 80, 400 * MHZ, 200 * MHZ } } },
        /* 95 % of 200 MHz, 190 MHz: rise 70 would take the estimate from 40 to 145 MHz (200 MHz
         * point); busier than target_load below the top, it takes 190 MHz (211.1: 400 MHz). */
        { "a sample busier than target_load below the top is taken at once",
          pts,
          NONE,
          {},
          { { 10, 400 * MHZ, 100 * MHZ }, { 95, 200 * MHZ, 400 * MHZ } } },
        /* The range's top is 400 MHz: 95 % of it, 380 MHz, raises the estimate by 70 % only, from
         * 40 to 278 MHz; idle, it falls to 83.4 MHz (92.7: 100 MHz). Taken at once it would
         * fall from 380 to 114 MHz, a 200 MHz point. */
        { "at the top of the range the estimate keeps its pace",
          pts,
          NULL,
          4,
          0,
          400 * MHZ,
          {},
          { { 10, 400 * MHZ, 100 * MHZ }, { 95, 400 * MHZ, 400 * MHZ }, { 0, 400 * MHZ, 100 * MHZ } } },
        /* decay 70: 320 MHz (400), then 320 - 224 = 96 MHz (200: 106.7), then 96 - 67 = 29 MHz. */
        { "decay 70 falls 70 % of the gap, rounded down",
          pts,
          NONE,
          {},
          { { 40, 800 * MHZ, 400 * MHZ }, { 0, 400 * MHZ, 200 * MHZ }, { 0, 200 * MHZ, 100 * MHZ } } },
        /* decay 25: 320, 240 (266.7: 400), 180 (200 exactly), 135 MHz (150: 200). */
        { "decay 25 falls a quarter of the gap each sample",
          pts,
          NONE,
          { 90, 100, 25, 1 },
          { { 40, 800 * MHZ, 400 * MHZ },
            { 0, 400 * MHZ, 400 * MHZ },
            { 0, 400 * MHZ, 200 * MHZ },
            { 0, 200 * MHZ, 200 * MHZ } } },
        { "decay 100 falls at once",
          pts,
          NONE,
          { 90, 100, 100, 1 },
          { { 40, 800 * MHZ, 400 * MHZ }, { 0, 400 * MHZ, 100 * MHZ } } },
        { "a saturated sample goes to the top", pts, NONE, {}, { { 100, 200 * MHZ, MAXF } } },
        /* saturated_samples 3: the first two go up one point each (to 400, then 800 MHz). */
        { "saturated_samples 3 waits for the third",
          pts,
          NONE,
          { 90, 100, 70, 3 },
          { { 100, 200 * MHZ, 400 * MHZ },
            { 100, 400 * MHZ, 800 * MHZ },
            { 100, 800 * MHZ, MAXF },
            { 100, 800 * MHZ, MAXF } } },
        { "an unsaturated sample restarts the count",
          pts,
          NONE,
          { 90, 100, 100, 2 },
          { { 100, 100 * MHZ, 200 * MHZ }, { 50, 200 * MHZ, 200 * MHZ }, { 100, 200 * MHZ, 400 * MHZ } } },
        /* rise 25: the estimate after the saturated sample, 130 MHz, fits 400 MHz at 825 mV; the
         * rule takes it one voltage up, to 500 MHz; the second saturated sample to the top. */
        { "a saturated sample before the top goes one voltage level up",
          GPU,
          { 90, 25, 25, 2 },
          { { 10, 400 * MHZ, 400 * MHZ }, { 100, 400 * MHZ, 500 * MHZ }, { 100, 500 * MHZ, MAXF } } },
        /* 150 MHz of demand fits 200, 297 and 400 MHz alike at 825 mV: the highest, for free. */
        { "equal voltages go to the highest", GPU, {}, { { 50, 297 * MHZ, 400 * MHZ } } },
        { "a dearer voltage only when needed", GPU, {}, { { 91, 400 * MHZ, 500 * MHZ } } },
        /* 255 MHz is run by 400 MHz cheaper than by 300 MHz (950 mV). */
        { "the least voltage, not the lowest frequency",
          odd,
          odd_uv,
          3,
          0,
          UINT64_MAX,
          {},
          { { 85, 300 * MHZ, 400 * MHZ }, { 50, 400 * MHZ, 400 * MHZ } } },
        /* A point without voltage: V taken proportional to f, the lowest point that runs it. */
        { "a missing voltage falls back to the lowest point",
          odd,
          odd_partial,
          3,
          0,
          UINT64_MAX,
          {},
          { { 50, 400 * MHZ, 300 * MHZ } } },
        { "below the range is never chosen", pts, NULL, 4, 200 * MHZ, UINT64_MAX, {}, { { 0, 400 * MHZ, 200 * MHZ } } },
        { "beyond the range: its highest point", pts, NULL, 4, 0, 400 * MHZ, {}, { { 99, 400 * MHZ, 400 * MHZ } } },
        { "equal voltages stay in range", gpu, gpu_uv, 6, 0, 297 * MHZ, {}, { { 10, 297 * MHZ, 297 * MHZ } } },
        /* 80 MHz of demand with a spike of 240 MHz every fourth sample. The estimate after a
         * spike: 194 MHz (400), then 115 (200), 91 (200), 84 MHz (100). The spikes of samples 6
         * and 10 are four apart as those of 2 and 6 were: sample 14 is expected to be one, and
         * sample 13 makes ready for its 240 MHz (266.7: 400 MHz) where 84 MHz would take 100. */
        { "a spike that comes back at a fixed period is met ahead of time",
          pts,
          NONE,
          {},
          { { 20, 400 * MHZ, 100 * MHZ },
            { 60, 400 * MHZ, 400 * MHZ },
            { 20, 400 * MHZ, 200 * MHZ },
            { 20, 400 * MHZ, 200 * MHZ },
            { 20, 400 * MHZ, 100 * MHZ },
            { 60, 400 * MHZ, 400 * MHZ },
            { 20, 400 * MHZ, 200 * MHZ },
            { 20, 400 * MHZ, 200 * MHZ },
            { 20, 400 * MHZ, 100 * MHZ },
            { 60, 400 * MHZ, 400 * MHZ },
            { 20, 400 * MHZ, 200 * MHZ },
            { 20, 400 * MHZ, 200 * MHZ },
            { 20, 400 * MHZ, 400 * MHZ } } },
        /* 80 MHz of demand; every fourth sample saturates 100 MHz and leaves 120 MHz of work,
         * which the next sample shows at 800 MHz: 25 %, 200 MHz. The estimate after it: 170 MHz
         * (200), then 107 (200), 88 MHz (100). From the third spike the rhythm is known, and the
         * spike is sized at the 100 MHz it ran plus the 200 - 88 MHz its next sample showed
         * above the need before it: 212 MHz (235.4: 400 MHz), where the frequency that next
         * sample ran at would have sized it past the top. */
        { "a saturated spike that comes back is met at its own size",
          pts,
          NONE,
          {},
          { { 20, 400 * MHZ, 100 * MHZ },
            { 100, 100 * MHZ, MAXF },
            { 25, 800 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 100 * MHZ },
            { 100, 100 * MHZ, MAXF },
            { 25, 800 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 100 * MHZ },
            { 100, 100 * MHZ, MAXF },
            { 25, 800 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 400 * MHZ } } },
        /* The same with a spike whose leftover saturates the next sample too: its size is
         * unknown, and the rhythm's spike is met at the top of the range. */
        { "a saturated spike of unknown size is met at the top",
          pts,
          NONE,
          {},
          { { 20, 400 * MHZ, 100 * MHZ },
            { 100, 100 * MHZ, MAXF },
            { 25, 800 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 100 * MHZ },
            { 100, 100 * MHZ, MAXF },
            { 25, 800 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 100 * MHZ },
            { 100, 100 * MHZ, MAXF },
            { 100, 200 * MHZ, MAXF },
            { 10, 800 * MHZ, 200 * MHZ },
            { 40, 200 * MHZ, 800 * MHZ } } },
};

static void run_case(const struct rule_case *c) {
        struct df_governor g = {};
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {};

        df_governor_init(&g, &df_governor_energy_aware);
        if (c->tunables[0]) {
                memcpy(values, c->tunables, sizeof(c->tunables));
                ck_assert_int_eq(df_governor_set_tunables(&g, values), 0);
        }
        df_governor_start(&g, c->steps[0].current);
        for (size_t k = 0; k < ELEMENTSOF(c->steps) && c->steps[k].current; k++) {
                struct df_governor_input in = {
                        .has_sample = true,
                        .busy = c->steps[k].busy,
                        .total = 100,
                        .fresh = true,
                        .sample_current = c->steps[k].current,
                        .current = c->steps[k].current,
                        .min = MAX(c->min, c->points[0]),
                        .max = MIN(c->max, c->points[c->n - 1]),
                        .points = c->points,
                        .n_points = c->n,
                        .table = c->points,
                        .table_microvolt = c->uv,
                        .n_table = c->n,
                };
                uint64_t got = df_governor_get_target(&g, &in);
                ck_assert_msg(
                        got == c->steps[k].expected, "%s, sample %zu: %llu, expected %llu", c->what, k,
                        (unsigned long long) got, (unsigned long long) c->steps[k].expected);
        }
        df_governor_done(&g);
}

START_TEST(test_rules) {
        run_case(&cases[_i]);
}
END_TEST

/* No sample yet, at `current` on pts, the whole table in range, no voltages. */
static struct df_governor_input on_pts(uint64_t current) {
        return (struct df_governor_input){
                .current = current,
                .min = pts[0],
                .max = pts[3],
                .points = pts,
                .n_points = 4,
                .table = pts,
                .n_table = 4,
        };
}

START_TEST(test_no_sample) {
        struct df_governor g = {};
        struct df_governor_input in = on_pts(200 * MHZ);

        df_governor_init(&g, &df_governor_energy_aware);
        df_governor_start(&g, 200 * MHZ);
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 200 * MHZ);
        /* A zero-length sample: nothing to learn, the frequency stays. */
        in.has_sample = true;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 200 * MHZ);
        df_governor_done(&g);
}
END_TEST

/* An event reuses the sample: the choice is made again for the range of now, and nothing is
 * learnt from the sample twice (a second saturated sample would send it to the top). */
START_TEST(test_event_reuses_sample) {
        struct df_governor g = {};
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {};
        struct df_governor_input in = on_pts(100 * MHZ);

        df_governor_init(&g, &df_governor_energy_aware);
        memcpy(values, g.tunables, sizeof(values));
        values[df_governor_tunable_index(&df_governor_energy_aware, "saturated_samples")] = 2;
        ck_assert_int_eq(df_governor_set_tunables(&g, values), 0);
        df_governor_start(&g, 100 * MHZ);
        /* A saturated sample at 100 MHz; before any, an event keeps the frequency in force. */
        in.has_sample = true;
        in.busy = in.total = 100;
        in.sample_current = 100 * MHZ;
        in.fresh = false;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 100 * MHZ);
        /* One saturated sample at 100 MHz: one level up. */
        in.fresh = true;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 200 * MHZ);
        ck_assert_uint_eq(g.state.energy_aware.saturated, 1);
        /* Events at 200 MHz, the same sample: still one level above 100 MHz, still one saturation. */
        in.fresh = false;
        in.current = 200 * MHZ;
        for (int k = 0; k < 3; k++) {
                ck_assert_uint_eq(df_governor_get_target(&g, &in), 200 * MHZ);
                ck_assert_uint_eq(g.state.energy_aware.saturated, 1);
                ck_assert_uint_eq(g.state.energy_aware.samples, 1);
        }
        /* A floor of 400 MHz: the choice is made again within the new range. */
        in.min = 400 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), 400 * MHZ);
        /* The next saturated sample is the second in a row: the top. */
        in.min = pts[0];
        in.fresh = true;
        in.sample_current = 200 * MHZ;
        ck_assert_uint_eq(df_governor_get_target(&g, &in), DF_FREQ_MAX);
        df_governor_done(&g);
}
END_TEST

START_TEST(test_tunables) {
        static const struct {
                uint32_t v[4];
                int r;
        } t[] = {
                { { 85, 100, 25, 1 }, 0 },        { { 10, 1, 1, 3 }, 0 },
                { { 100, 100, 100, 2 }, 0 },      { { 9, 100, 25, 1 }, -ERANGE },
                { { 101, 100, 25, 1 }, -ERANGE }, { { 85, 0, 0, 1 }, -ERANGE },
                { { 85, 101, 25, 1 }, -ERANGE },  { { 85, 100, 0, 1 }, -ERANGE },
                { { 85, 50, 51, 1 }, -ERANGE },   { { 85, 100, 25, 0 }, -ERANGE },
                { { 85, 100, 25, 4 }, -ERANGE },
        };
        struct df_governor g = {};
        uint32_t v;

        for (size_t i = 0; i < ELEMENTSOF(t); i++)
                ck_assert_msg(df_governor_validate(&df_governor_energy_aware, t[i].v) == t[i].r, "case %zu", i);

        df_governor_init(&g, &df_governor_energy_aware);
        ck_assert_int_eq(df_governor_get_tunable(&g, "target_load", &v), 0);
        ck_assert_uint_eq(v, 90);
        ck_assert_int_eq(df_governor_get_tunable(&g, "rise", &v), 0);
        ck_assert_uint_eq(v, 70);
        ck_assert_int_eq(df_governor_get_tunable(&g, "decay", &v), 0);
        ck_assert_uint_eq(v, 70);
        ck_assert_int_eq(df_governor_get_tunable(&g, "saturated_samples", &v), 0);
        ck_assert_uint_eq(v, 1);
        /* The decay may not pass the rise, whichever of the two is set. */
        ck_assert_int_eq(df_governor_set_tunable(&g, "rise", 20), -ERANGE);
        ck_assert_int_eq(df_governor_set_tunable(&g, "decay", 20), 0);
        ck_assert_int_eq(df_governor_set_tunable(&g, "rise", 20), 0);
        ck_assert_int_eq(df_governor_set_tunable(&g, "decay", 21), -ERANGE);
        ck_assert_int_eq(df_governor_set_tunable(&g, "boost", 1), -ENOENT);
        df_governor_done(&g);
        ck_assert_ptr_eq(df_governor_find("energy_aware"), &df_governor_energy_aware);
}
END_TEST

/* --- properties over random traces and ranges, through the device --------------------------- */

START_TEST(test_properties) {
        unsigned seed = 4242;

        for (int round = 0; round < 400; round++) {
                struct df_device *d = NULL;
                size_t n = 1 + (size_t) (rand_r(&seed) % 7);
                bool volts = rand_r(&seed) % 2;
                uint64_t f = 0, lo, hi, top = 0;
                uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {
                        10 + (uint32_t) (rand_r(&seed) % 91),
                        100,
                        1 + (uint32_t) (rand_r(&seed) % 100),
                        1 + (uint32_t) (rand_r(&seed) % 3),
                };
                unsigned saturated = 0;

                ck_assert_int_eq(df_device_new("gpu", DF_MODE_GOVERN, &d), 0);
                for (size_t i = 0; i < n; i++) {
                        f += (1 + (uint64_t) (rand_r(&seed) % 300)) * MHZ;
                        ck_assert_int_eq(
                                df_opp_add(
                                        &d->opps, f, volts ? 700000 + (uint32_t) (rand_r(&seed) % 400000) : 0,
                                        0),
                                1);
                }
                ck_assert_int_eq(df_device_set_governor(d, &df_governor_energy_aware), 0);
                values[1] = values[2] + (uint32_t) (rand_r(&seed) % (101 - values[2]));
                ck_assert_int_eq(df_governor_set_tunables(&d->governor, values), 0);
                ck_assert_int_eq(df_device_start(d, d->opps.opps[rand_r(&seed) % n].freq, 0), 0);
                lo = d->opps.opps[rand_r(&seed) % n].freq;
                hi = d->opps.opps[rand_r(&seed) % n].freq;
                df_device_set_admin_range(d, MIN(lo, hi), MAX(lo, hi));
                df_device_get_range(d, &lo, &hi);
                for (size_t i = 0; i < n; i++)
                        if (d->opps.opps[i].freq <= hi)
                                top = d->opps.opps[i].freq;

                for (int k = 0; k < 60; k++) {
                        uint64_t total = 1 + (uint64_t) (rand_r(&seed) % 1000000);
                        uint64_t busy = rand_r(&seed) % 3 == 0 ? total : (uint64_t) rand_r(&seed) % (total + 1);
                        struct df_evaluation ev;

                        saturated = busy == total ? saturated + 1 : 0;
                        df_device_set_sample(d, busy, total);
                        ck_assert_int_ge(df_device_evaluate(d, (uint64_t) k * 1000, &ev), 0);
                        ck_assert_msg(
                                ev.governor == DF_FREQ_MAX || (ev.governor >= lo && ev.governor <= hi),
                                "round %d: governor chose %llu outside %llu-%llu", round,
                                (unsigned long long) ev.governor, (unsigned long long) lo,
                                (unsigned long long) hi);
                        ck_assert(ev.applied >= lo && ev.applied <= hi);
                        /* The saturation rule: the top of the range after saturated_samples. */
                        if (saturated >= values[3])
                                ck_assert_msg(
                                        ev.applied == top, "round %d: %llu after %u saturated samples", round,
                                        (unsigned long long) ev.applied, saturated);
                }
                df_device_free(d);
        }
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("energy_aware");
        TCase *tc = tcase_create("core");

        tcase_add_loop_test(tc, test_rules, 0, (int) ELEMENTSOF(cases));
        tcase_add_test(tc, test_no_sample);
        tcase_add_test(tc, test_event_reuses_sample);
        tcase_add_test(tc, test_tunables);
        tcase_add_test(tc, test_properties);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
