/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thermal rules: [thermal NAME] sections and their file:line errors, the rule's hysteresis and
 * staleness (with a random walk against a model of the rules), the lowest cap, and zones found and
 * read in a fake root. */

#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "macro.h"
#include "test-helpers.h"
#include "thermal-zone.h"
#include "thermal.h"

#define MHZ(x) (UINT64_C(x) * 1000000)
#define SEC(x) (UINT64_C(x) * 1000000)

#define DEVICES                                                                                              \
        "[daemon]\nautodiscover = no\n"                                                                      \
        "[device gpu]\npath = /sys/class/devfreq/gpu\nopp = 200MHz\nopp = 400MHz\nopp = 800MHz\n"            \
        "[device dmc]\npath = /sys/class/devfreq/dmc\n"

static struct df_config *load(const char *text, struct df_config_errors *e) {
        struct df_config *c = NULL;

        (void) df_config_load_string("t.conf", text, strlen(text), &c, e);
        return c;
}

START_TEST(test_model) {
        struct df_config_errors e = {};
        struct df_config *c = load(
                DEVICES "[thermal gpu-hot]\nzone = gpu-thermal\ndevices = gpu dmc\ntrip = 85C\nclear = 80000\n"
                        "max-frequency = 400MHz\npoll = 500ms\nstale = 3s\n"
                        "[thermal all]\nzone = thermal_zone3\ndevices = *\ntrip = 70.5C\nclear = -5C\n"
                        "max-frequency = 1GHz\n"
                        "[thermal gpu-hot]\ndevices = gpu\n",
                &e);
        const struct df_config_thermal *t;

        for (size_t i = 0; i < e.n; i++)
                fprintf(stderr, "# %s\n", e.messages[i]);
        ck_assert_ptr_nonnull(c);
        ck_assert_uint_eq(c->n_thermals, 2);
        t = df_config_find_thermal(c, "gpu-hot");
        ck_assert_str_eq(t->zone, "gpu-thermal");
        /* A later devices line replaces the list. */
        ck_assert_uint_eq(t->n_devices, 1);
        ck_assert_str_eq(t->devices[0], "gpu");
        ck_assert(!t->all_devices);
        ck_assert_int_eq(t->trip, 85000);
        ck_assert_int_eq(t->clear, 80000);
        ck_assert_uint_eq(t->max_freq, MHZ(400));
        ck_assert_uint_eq(t->poll_usec, 500000);
        ck_assert_uint_eq(t->stale_usec, SEC(3));
        ck_assert(df_config_thermal_covers(t, "gpu"));
        ck_assert(!df_config_thermal_covers(t, "dmc"));
        t = df_config_find_thermal(c, "all");
        ck_assert(t->all_devices);
        ck_assert(df_config_thermal_covers(t, "anything"));
        ck_assert_int_eq(t->trip, 70500);
        ck_assert_int_eq(t->clear, -5000);
        ck_assert_uint_eq(t->poll_usec, SEC(1)); /* defaults */
        ck_assert_uint_eq(t->stale_usec, SEC(10));
        ck_assert_ptr_null(df_config_find_thermal(c, "none"));
        df_config_free(c);
        df_config_errors_done(&e);
}
END_TEST

#define H "[daemon]\nautodiscover = yes\n[thermal hot]\n" /* the section's header is line 3 */
#define TEMPS "trip = 85C\nclear = 80C\n"

/* Each text fails with exactly these errors (prefix match), at their file:line. */
static const struct {
        const char *text;
        const char *errors[4];
} bad[] = {
        { "[daemon]\nautodiscover = yes\n[thermal]\n", { "t.conf:3: [thermal] needs a name" } },
        { "[daemon]\nautodiscover = yes\n[thermal a/b]\n", { "t.conf:3: 'a/b' is not a rule name" } },
        { H "zone = z\n",
          { "t.conf:3: thermal hot: no devices", "t.conf:3: thermal hot: no trip",
            "t.conf:3: thermal hot: no clear", "t.conf:3: thermal hot: no max-frequency" } },
        { H "zone = z\ndevices = gpu\n" TEMPS, { "t.conf:3: thermal hot: no max-frequency = FREQUENCY" } },
        /* A refused key is the rule's only error: the rest of it is not judged. */
        { H "zone = z\ndevices = gpu\n" TEMPS "max-frequency = 0\n",
          { "t.conf:8: a frequency of 0 is not allowed here" } },
        { H "zone = z\ndevices = gpu\ntrip = 80C\nclear = 80C\nmax-frequency = 400MHz\n",
          { "t.conf:7: thermal hot: clear = 80 C must be below trip = 80 C" } },
        { H "zone = z\ndevices = gpu\nclear = 90C\ntrip = 85C\nmax-frequency = 400MHz\n",
          { "t.conf:7: thermal hot: clear = 90 C must be below trip = 85 C" } },
        { H "zone = z\ndevices = gpu\ntrip = 300C\nclear = 80C\nmax-frequency = 400MHz\n",
          { "t.conf:6: thermal hot: trip = 300 C is outside what a zone can report (-40 C to 200 C)" } },
        { H "zone = z\ndevices = gpu\ntrip = hot\nclear = 80C\nmax-frequency = 400MHz\n",
          { "t.conf:6: trip: 'hot' is not a temperature" } },
        { H "zone = z\ndevices = gpu\ntrip = 85F\n", { "t.conf:6: trip: '85F' is not a temperature" } },
        { DEVICES "[thermal hot]\nzone = z\ndevices = gpu\n" TEMPS "max-frequency = 100MHz\n",
          { "t.conf:15: thermal hot: max-frequency 100 MHz is below every point of device 'gpu' (the lowest "
            "is 200 MHz)" } },
        { DEVICES "[thermal hot]\nzone = z\ndevices = gpu nosuch\n" TEMPS "max-frequency = 1GHz\n",
          { "t.conf:12: thermal hot: 'nosuch' is not a configured device" } },
        { H "devices = gpu *\n", { "t.conf:4: devices: '*' is not a device name" } },
        { H "zone = a/b\n", { "t.conf:4: zone: 'a/b' is not a zone's type or name" } },
        { H "zone = z\ndevices = gpu\n" TEMPS "max-frequency = 1GHz\npoll = 0\n",
          { "t.conf:9: poll: '0' is not a duration from 1ms to 1h" } },
        { H "fan = on\n", { "t.conf:4: unknown thermal key 'fan'" } },
        { H "zone =\n", { "t.conf:4: zone needs a value" } },
        { H "zone = z # hot\n", { "t.conf:4: '#' starts a comment only at the start" } },
        { "[thermostat]\n", { "t.conf:1: unknown section [thermostat]" } },
};

START_TEST(test_bad) {
        struct df_config_errors e = {};
        struct df_config *c = load(bad[_i].text, &e);
        size_t n = 0;

        ck_assert_ptr_null(c);
        while (n < ELEMENTSOF(bad[_i].errors) && bad[_i].errors[n])
                n++;
        for (size_t k = 0; k < e.n; k++)
                fprintf(stderr, "# %s\n", e.messages[k]);
        ck_assert_uint_eq(e.n, n);
        for (size_t k = 0; k < n; k++)
                ck_assert_msg(
                        strncmp(e.messages[k], bad[_i].errors[k], strlen(bad[_i].errors[k])) == 0,
                        "got '%s', want '%s'", e.messages[k], bad[_i].errors[k]);
        df_config_errors_done(&e);
}
END_TEST

/* With autodiscover, a name no section configures may be a node's: not an error. */
START_TEST(test_autodiscovered_names) {
        struct df_config_errors e = {};
        struct df_config *c = load(
                "[daemon]\nautodiscover = yes\n[thermal hot]\nzone = z\ndevices = ff9a0000.gpu\ntrip = 85C\n"
                "clear = 80C\nmax-frequency = 400MHz\n",
                &e);

        ck_assert_ptr_nonnull(c);
        df_config_free(c);
        df_config_errors_done(&e);
}
END_TEST

static const struct df_config_thermal rule = {
        .name = (char *) "hot",
        .trip = 85000,
        .clear = 80000,
        .max_freq = MHZ(400),
        .poll_usec = SEC(1),
        .stale_usec = SEC(10),
        .all_devices = true,
};

START_TEST(test_hysteresis) {
        struct df_thermal_state s;

        df_thermal_start(&s, 0);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 84999, SEC(1)), 0);
        ck_assert(!s.tripped);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 85000, SEC(2)), DF_THERMAL_TRIPPED);
        ck_assert(s.tripped);
        /* Between clear and trip the state holds, either way. */
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 80001, SEC(3)), 0);
        ck_assert(s.tripped);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 90000, SEC(4)), 0);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 80000, SEC(5)), DF_THERMAL_RELEASED);
        ck_assert(!s.tripped);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 84000, SEC(6)), 0);
        ck_assert(!s.tripped);
        ck_assert(s.have_temp);
        ck_assert_int_eq(s.temp, 84000);
}
END_TEST

START_TEST(test_stale) {
        struct df_thermal_state s;

        df_thermal_start(&s, 0);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 90000, SEC(1)), DF_THERMAL_TRIPPED);
        /* A dead sensor keeps the state for `stale` from the last good reading... */
        ck_assert_uint_eq(df_thermal_update(&rule, &s, -EIO, 0, SEC(2)), DF_THERMAL_FAILING);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 250000, SEC(5)), 0); /* impossible: a failure */
        ck_assert(s.tripped);
        ck_assert_int_eq(s.temp, 90000); /* the last good reading */
        ck_assert_uint_eq(df_thermal_update(&rule, &s, -ENODEV, 0, SEC(11) - 1), 0);
        ck_assert(s.tripped);
        /* ...then releases it, once. */
        ck_assert_uint_eq(
                df_thermal_update(&rule, &s, -ENODEV, 0, SEC(11)), DF_THERMAL_STALE | DF_THERMAL_RELEASED);
        ck_assert(!s.tripped);
        ck_assert(s.stale);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, -ENODEV, 0, SEC(30)), 0);
        /* A zone that comes back resumes, and trips again if it is still hot. */
        ck_assert_uint_eq(
                df_thermal_update(&rule, &s, 0, 86000, SEC(31)), DF_THERMAL_RESUMED | DF_THERMAL_TRIPPED);
        ck_assert(!s.stale);
        /* Never read well from the start: stale counts from the start. */
        df_thermal_start(&s, SEC(100));
        ck_assert_uint_eq(df_thermal_update(&rule, &s, -ENOENT, 0, SEC(105)), DF_THERMAL_FAILING);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, -ENOENT, 0, SEC(110)), DF_THERMAL_STALE);
        ck_assert(df_thermal_plausible(-40000) && df_thermal_plausible(200000));
        ck_assert(!df_thermal_plausible(-40001) && !df_thermal_plausible(200001));
}
END_TEST

/* A reload that changes a rule reading the same zone hands its state to the new rule: the next
 * reading is judged against the new trip and clear, and between them the state carried over holds. */
START_TEST(test_changed_rule) {
        struct df_config_thermal higher = rule, warmer = rule;
        struct df_thermal_state s;

        higher.trip = 95000; /* clear stays 80 C */
        warmer.trip = 95000;
        warmer.clear = 85000;
        df_thermal_start(&s, 0);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 90000, SEC(1)), DF_THERMAL_TRIPPED);
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 82000, SEC(2)), 0);
        /* 82 C under a trip moved to 95 C: between, still tripped, nothing to say. */
        ck_assert_uint_eq(df_thermal_update(&higher, &s, 0, 82000, SEC(3)), 0);
        ck_assert(s.tripped);
        /* 90 C, now under the new trip: still tripped. */
        ck_assert_uint_eq(df_thermal_update(&higher, &s, 0, 90000, SEC(4)), 0);
        ck_assert(s.tripped);
        /* Clear moved above the reading: released. */
        ck_assert_uint_eq(df_thermal_update(&warmer, &s, 0, 84000, SEC(5)), DF_THERMAL_RELEASED);
        ck_assert(!s.tripped);
        /* Released, and the old trip (85 C) passed but not the new one: still released. */
        ck_assert_uint_eq(df_thermal_update(&warmer, &s, 0, 90000, SEC(6)), 0);
        ck_assert(!s.tripped);
        /* Back to the old rule, 90 C is at or above its trip. */
        ck_assert_uint_eq(df_thermal_update(&rule, &s, 0, 90000, SEC(7)), DF_THERMAL_TRIPPED);
}
END_TEST

/*
 * Random walks of the temperature, with failed readings, against a model written from the rules:
 * tripped when the last good reading at or above trip came after the last at or below clear, and no
 * stale release since. Whenever the zone read at or below clear, no cap remains.
 */
START_TEST(test_random_walk) {
        uint64_t seed = 0x2545f4914f6cdd1du;

        for (int walk = 0; walk < 200; walk++) {
                struct df_thermal_state s;
                bool model = false;
                uint64_t now = 0, good = 0;
                int64_t temp = 60000;

                df_thermal_start(&s, 0);
                for (int step = 0; step < 500; step++) {
                        bool fail = df_test_random(&seed) % 10 == 0;
                        unsigned ev;

                        now += SEC(1);
                        temp += (int64_t) (df_test_random(&seed) % 4001) - 2000;
                        temp = MAX(MIN(temp, INT64_C(120000)), INT64_C(40000));
                        ev = df_thermal_update(&rule, &s, fail ? -EIO : 0, temp, now);
                        if (!fail) {
                                good = now;
                                if (temp >= rule.trip)
                                        model = true;
                                else if (temp <= rule.clear)
                                        model = false;
                        } else if (now - good >= rule.stale_usec)
                                model = false;
                        ck_assert_msg(
                                s.tripped == model, "walk %d step %d: %s, model %s", walk, step,
                                s.tripped ? "tripped" : "released", model ? "tripped" : "released");
                        ck_assert(!(ev & DF_THERMAL_TRIPPED) || s.tripped);
                        if (!fail && temp <= rule.clear)
                                ck_assert(!s.tripped);
                }
        }
}
END_TEST

static uint64_t
cap_of(const struct df_config_thermal *rules, const struct df_thermal_state *states, size_t n,
       const char *device) {
        uint64_t cap = 0;

        for (size_t i = 0; i < n; i++)
                cap = df_thermal_cap_fold(cap, &rules[i], &states[i], device);
        return cap;
}

START_TEST(test_lowest_cap) {
        struct df_config_thermal rules[3] = { rule, rule, rule };
        struct df_thermal_state states[3] = {};
        char *gpu_only[] = { (char *) "gpu" };

        rules[0].max_freq = MHZ(600);
        rules[1].max_freq = MHZ(300);
        rules[1].all_devices = false;
        rules[1].devices = gpu_only;
        rules[1].n_devices = 1;
        rules[2].max_freq = MHZ(200);
        ck_assert_uint_eq(cap_of(rules, states, 3, "gpu"), 0);
        states[0].tripped = states[1].tripped = true;
        ck_assert_uint_eq(cap_of(rules, states, 3, "gpu"), MHZ(300));
        ck_assert_uint_eq(cap_of(rules, states, 3, "dmc"), MHZ(600));
        states[2].tripped = true;
        ck_assert_uint_eq(cap_of(rules, states, 3, "dmc"), MHZ(200));
        ck_assert_uint_eq(cap_of(rules, states, 0, "dmc"), 0);
}
END_TEST

/* Zones as a kernel lays them out: the device under /sys/devices/virtual/thermal, a class link. */
static void put_zone(const char *root, unsigned n, const char *type, const char *temp) {
        char rel[128], target[128];

        snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/thermal_zone%u/type", n);
        df_test_put(root, rel, type);
        snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/thermal_zone%u/temp", n);
        df_test_put(root, rel, temp);
        snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%u", n);
        snprintf(target, sizeof(target), "../../devices/virtual/thermal/thermal_zone%u", n);
        df_test_put_link(root, rel, target);
}

START_TEST(test_zone) {
        char *dir = df_test_root_new("thermal");
        struct df_thermal_zone z = DF_THERMAL_ZONE_INIT;
        struct df_root root;
        int64_t t = 0;

        put_zone(dir, 10, "gpu-thermal", "41000\n");
        put_zone(dir, 2, "gpu-thermal", "-5500\n");
        put_zone(dir, 1, "cpu-thermal", "50000\n");
        ck_assert_int_eq(df_root_open(dir, &root), 0);
        ck_assert_int_eq(df_thermal_zone_read(&z, &t), -EBADF);
        /* By type: the lowest number of the zones of that type (2 before 10). */
        ck_assert_int_eq(df_thermal_zone_open(&root, "gpu-thermal", &z), 0);
        ck_assert_str_eq(z.name, "thermal_zone2");
        ck_assert_int_eq(df_thermal_zone_read(&z, &t), 0);
        ck_assert_int_eq(t, -5500);
        /* The attribute changes in place: the kept descriptor reads the new value. */
        df_test_put(dir, "sys/devices/virtual/thermal/thermal_zone2/temp", "85000\n");
        ck_assert_int_eq(df_thermal_zone_read(&z, &t), 0);
        ck_assert_int_eq(t, 85000);
        df_test_put(dir, "sys/devices/virtual/thermal/thermal_zone2/temp", "85C\n");
        ck_assert_int_eq(df_thermal_zone_read(&z, &t), -EINVAL);
        /* By name. */
        ck_assert_int_eq(df_thermal_zone_open(&root, "thermal_zone10", &z), 0);
        ck_assert_int_eq(df_thermal_zone_read(&z, &t), 0);
        ck_assert_int_eq(t, 41000);
        ck_assert_int_eq(df_thermal_zone_open(&root, "fan", &z), -ENOENT);
        ck_assert_ptr_null(z.name);
        df_thermal_zone_close(&z);
        df_root_close(&root);
        df_test_root_free(dir);

        /* No thermal class at all. */
        dir = df_test_root_new("thermal");
        df_test_put(dir, "sys/class/devfreq/.keep", "");
        ck_assert_int_eq(df_root_open(dir, &root), 0);
        ck_assert_int_eq(df_thermal_zone_open(&root, "gpu-thermal", &z), -ENOENT);
        df_root_close(&root);
        df_test_root_free(dir);
}
END_TEST

static Suite *thermal_suite(void) {
        Suite *s = suite_create("thermal");
        TCase *tc = tcase_create("config");

        tcase_add_test(tc, test_model);
        tcase_add_loop_test(tc, test_bad, 0, ELEMENTSOF(bad));
        tcase_add_test(tc, test_autodiscovered_names);
        suite_add_tcase(s, tc);
        tc = tcase_create("rules");
        tcase_add_test(tc, test_hysteresis);
        tcase_add_test(tc, test_stale);
        tcase_add_test(tc, test_changed_rule);
        tcase_add_test(tc, test_random_walk);
        tcase_add_test(tc, test_lowest_cap);
        suite_add_tcase(s, tc);
        tc = tcase_create("zones");
        tcase_add_test(tc, test_zone);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(thermal_suite());
}
