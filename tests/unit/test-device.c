/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device evaluation: data flow, effective range with latency, clamp and snap, writes, statistics,
 * through an in-memory backend. */

#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "macro.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define MS UINT64_C(1000)

/* The in-memory backend: records what reached "the hardware" and can fail on demand. */
struct fake {
        unsigned writes;
        uint64_t freq;
        uint64_t previous;
        unsigned range_writes;
        uint64_t min, max;
        unsigned releases; /* release_range calls that gave held limits back */
        bool held;
        int fail;  /* negative errno returned by the next calls */
        bool half; /* a failing set_range lands one of the two limits: the node holds them */
};

static int fake_set_frequency(void *userdata, uint64_t freq, uint64_t previous) {
        struct fake *f = userdata;

        if (f->fail)
                return f->fail;
        f->writes++;
        f->freq = freq;
        f->previous = previous;
        return 0;
}

static int fake_set_range(void *userdata, uint64_t min, uint64_t max) {
        struct fake *f = userdata;

        if (f->fail) {
                f->held = f->held || f->half;
                return f->fail;
        }
        f->range_writes++;
        f->min = min;
        f->max = max;
        f->held = true;
        return 0;
}

static int fake_release_range(void *userdata) {
        struct fake *f = userdata;

        if (f->fail)
                return f->fail;
        if (!f->held)
                return 0;
        f->held = false;
        f->releases++;
        return 1;
}

static const struct df_backend_ops fake_ops = {
        .set_frequency = fake_set_frequency,
        .set_range = fake_set_range,
        .release_range = fake_release_range,
};

static unsigned events;
static void count_event(struct df_device *d, void *userdata) {
        events++;
}

/* 100..500 MHz; latencies 5000, 2000, 1000, 500, 500 µs when `latency`. */
static struct df_device *
make(enum df_mode mode, const struct df_governor_ops *gov, bool latency, struct fake *f, uint64_t initial) {
        static const uint32_t lat[] = { 5000, 2000, 1000, 500, 500 };
        struct df_device *d = NULL;

        ck_assert_int_eq(df_device_new("gpu", mode, &d), 0);
        for (unsigned i = 0; i < 5; i++)
                ck_assert_int_eq(
                        df_opp_add(&d->opps, (i + 1) * 100 * MHZ, 800000 + i * 50000, latency ? lat[i] : 0), 1);
        ck_assert_int_eq(df_device_set_governor(d, gov), 0);
        df_device_set_backend(d, &fake_ops, f);
        df_device_set_event_handler(d, count_event, NULL);
        ck_assert_int_eq(df_device_start(d, initial, 0), 0);
        events = 0;
        return d;
}

START_TEST(test_first_apply_writes_then_skips) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, false, &f, 500 * MHZ);
        struct df_evaluation ev;

        /* Already at 500 MHz, but the first apply after attach always writes. */
        ck_assert_int_eq(df_device_evaluate(d, 10 * MS, &ev), 0);
        ck_assert(ev.wrote);
        ck_assert_uint_eq(f.writes, 1);
        ck_assert_uint_eq(f.freq, 500 * MHZ);
        /* Nothing changed: no write, but the time slice is closed. */
        ck_assert_int_eq(df_device_evaluate(d, 30 * MS, &ev), 0);
        ck_assert(!ev.wrote);
        ck_assert_uint_eq(f.writes, 1);
        ck_assert_uint_eq(d->stats.time_us[4], 30 * MS);
        ck_assert_uint_eq(d->stats.total, 0);
        df_device_free(d);
}
END_TEST

START_TEST(test_powersave_follows_min_request) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_powersave, false, &f, 300 * MHZ);
        struct df_qos_request req = {};
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(f.freq, 100 * MHZ);
        ck_assert_uint_eq(f.previous, 300 * MHZ);
        /* A min request between points raises the floor; the value goes up to the next point. */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &req, DF_QOS_MIN_FREQUENCY, 250 * MHZ), 1);
        ck_assert_uint_eq(events, 1);
        ck_assert_int_eq(df_device_evaluate(d, 5 * MS, &ev), 1);
        ck_assert_uint_eq(ev.min, 250 * MHZ);
        ck_assert_uint_eq(ev.target, 250 * MHZ);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);
        ck_assert_uint_eq(f.freq, 300 * MHZ);
        ck_assert_uint_eq(f.previous, 100 * MHZ);
        /* Removing it goes back down; transitions are counted. */
        ck_assert_int_eq(df_qos_remove_request(&req), 1);
        ck_assert_int_eq(df_device_evaluate(d, 9 * MS, &ev), 1);
        ck_assert_uint_eq(f.freq, 100 * MHZ);
        ck_assert_uint_eq(d->stats.total, 3);
        ck_assert_uint_eq(d->stats.time_us[2], 4 * MS); /* at 300 MHz from 5 to 9 ms */
        df_device_free(d);
}
END_TEST

/* A polling governor decides nothing before its first sample; events only re-clamp. */
START_TEST(test_no_decision_before_first_sample) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_simple_ondemand, false, &f, 400 * MHZ);
        struct df_qos_request req = {};
        struct df_evaluation ev;

        ck_assert(df_device_polls(d));
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 0);
        ck_assert(!ev.decided);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        ck_assert_uint_eq(f.writes, 1);
        ck_assert_int_eq(df_qos_add_request(&d->qos, &req, DF_QOS_MAX_FREQUENCY, 250 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1 * MS, &ev), 1);
        ck_assert(!ev.decided);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&req), 1);
        df_device_free(d);
}
END_TEST

/* An event reuses the last sample: a QoS change must not spike simple_ondemand to the maximum. */
START_TEST(test_event_reuses_last_sample) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_simple_ondemand, false, &f, 400 * MHZ);
        struct df_qos_request req = {};
        struct df_evaluation ev;

        df_device_set_sample(d, 20, 100); /* 20 % of 400 MHz / 0.88 = 90909090 Hz */
        ck_assert_int_eq(df_device_evaluate(d, 100 * MS, &ev), 1);
        ck_assert_uint_eq(ev.governor, 90909090);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);
        ck_assert_int_eq(df_qos_add_request(&d->qos, &req, DF_QOS_MIN_FREQUENCY, 200 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 101 * MS, &ev), 1);
        /* Same sample, taken at 400 MHz: the same 90909090 Hz, although 100 MHz is in force now
         * (its busy time ran at 400 MHz; read against 100 MHz it would be 22727272 Hz). */
        ck_assert_uint_eq(ev.governor, 90909090);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        ck_assert_uint_ne(ev.applied, 500 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&req), 1);
        df_device_free(d);
}
END_TEST

/* Events that change no range leave the frequency where the sample put it: each one reading the
 * sample against the frequency the last one applied would ratchet the device down to its floor. */
START_TEST(test_events_do_not_ratchet) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_simple_ondemand, false, &f, 800 * MHZ);
        struct df_qos_request req[3] = {};
        struct df_evaluation ev;

        df_device_set_sample(d, 30, 100); /* 30 % of 800 MHz / 0.88 = 272727272 Hz: 300 MHz */
        ck_assert_int_eq(df_device_evaluate(d, 100 * MS, &ev), 1);
        ck_assert_uint_eq(ev.governor, 272727272);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);
        for (size_t i = 0; i < ELEMENTSOF(req); i++) {
                ck_assert_int_eq(df_qos_add_request(&d->qos, &req[i], DF_QOS_MIN_FREQUENCY, i + 1), 1);
                ck_assert_int_ge(df_device_evaluate(d, (101 + i) * MS, &ev), 0);
                ck_assert_uint_eq(ev.governor, 272727272);
                ck_assert_uint_eq(d->current, 300 * MHZ);
        }
        for (size_t i = 0; i < ELEMENTSOF(req); i++)
                ck_assert_int_ge(df_qos_remove_request(&req[i]), 0);
        df_device_free(d);
}
END_TEST

/* A poll's duration and interval reach the governor (dbs_update()'s long-idle rule); an event
 * repeats the last decision without taking the sample again. */
START_TEST(test_timed_sample) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_ondemand, false, &f, 500 * MHZ);
        struct df_qos_request req = {};
        struct df_evaluation ev;

        df_device_set_timed_sample(d, 50, 100, 100 * MS, 100 * MS); /* 100 + 50 % of 400 MHz */
        ck_assert_int_eq(df_device_evaluate(d, 100 * MS, &ev), 1);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);
        df_device_set_timed_sample(d, 0, 100, 1000 * MS, 100 * MS); /* 1 s idle: 50 % once more */
        ck_assert_int_eq(df_device_evaluate(d, 1100 * MS, &ev), 0);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);

        ck_assert_int_eq(df_qos_add_request(&d->qos, &req, DF_QOS_MIN_FREQUENCY, 400 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1101 * MS, &ev), 1);
        ck_assert_uint_eq(ev.governor, 300 * MHZ);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&req), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1102 * MS, &ev), 1);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);

        /* The previous load was used once: the same long idle now reads 0 %. */
        df_device_set_timed_sample(d, 0, 100, 1000 * MS, 100 * MS);
        ck_assert_int_eq(df_device_evaluate(d, 2102 * MS, &ev), 1);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);

        /* Without a duration the rule never applies. */
        df_device_set_sample(d, 50, 100);
        ck_assert_int_eq(df_device_evaluate(d, 2202 * MS, &ev), 1);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);
        df_device_set_sample(d, 0, 100);
        ck_assert_int_eq(df_device_evaluate(d, 3202 * MS, &ev), 1);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);
        df_device_free(d);
}
END_TEST

START_TEST(test_latency_usable_points) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_powersave, true, &f, 300 * MHZ);
        struct df_qos_request lat = {};
        const uint64_t *u;
        size_t n;
        uint64_t lo, hi;

        ck_assert(df_device_has_latency_data(d));
        df_device_get_usable(d, &u, &n);
        ck_assert_uint_eq(n, 5);
        /* 1 ms: 300, 400, 500 MHz meet it. */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &lat, DF_QOS_LATENCY, 1000), 1);
        df_device_get_usable(d, &u, &n);
        ck_assert_uint_eq(n, 3);
        ck_assert_uint_eq(u[0], 300 * MHZ);
        df_device_get_range(d, &lo, &hi);
        ck_assert_uint_eq(lo, 300 * MHZ);
        ck_assert_uint_eq(hi, 500 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 0, NULL), 0); /* first write, 300 already in force */
        ck_assert_uint_eq(f.freq, 300 * MHZ);
        /* 0 µs: the lowest-latency point, ties to the highest frequency. */
        ck_assert_int_eq(df_qos_update_request(&lat, 0), 1);
        df_device_get_usable(d, &u, &n);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(u[0], 500 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 1, NULL), 1);
        ck_assert_uint_eq(f.freq, 500 * MHZ);
        /* Disabling 500 MHz leaves 400 MHz as the lowest latency. */
        ck_assert_int_eq(df_device_set_opp_enabled(d, 500 * MHZ, false), 1);
        df_device_get_usable(d, &u, &n);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(u[0], 400 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&lat), 1);
        df_device_get_usable(d, &u, &n);
        ck_assert_uint_eq(n, 4);
        df_device_free(d);
}
END_TEST

/* A ceiling below every usable point wins over latency: the highest enabled point under it. */
START_TEST(test_ceiling_beats_latency) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, true, &f, 300 * MHZ);
        struct df_qos_request lat = {}, max = {};
        struct df_evaluation ev;

        ck_assert_int_eq(df_qos_add_request(&d->qos, &lat, DF_QOS_LATENCY, 600), 1); /* 400, 500 MHz */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 250 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.max, 250 * MHZ);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        df_device_set_admin_range(d, 0, 150 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 1);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&lat), 1);
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        df_device_free(d);
}
END_TEST

/* KERNEL-SEMANTICS.md 1.4, where the mainline clamp form and the old form differ: a ceiling below
 * the lowest point gives [lowest, lowest] (the old form gave [ceiling, ceiling]). */
START_TEST(test_ceiling_below_lowest_point) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, false, &f, 300 * MHZ);
        struct df_qos_request max = {};
        struct df_evaluation ev;

        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 50 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.min, 100 * MHZ);
        ck_assert_uint_eq(ev.max, 100 * MHZ);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);
        /* A ceiling of 0 is a ceiling too, not "no limit". */
        ck_assert_int_eq(df_qos_update_request(&max, 0), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 0);
        ck_assert_uint_eq(ev.min, 100 * MHZ);
        ck_assert_uint_eq(ev.max, 100 * MHZ);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);
        /* The admin ceiling likewise. */
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        df_device_set_admin_range(d, 0, 50 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 2, &ev), 0);
        ck_assert_uint_eq(ev.min, 100 * MHZ);
        ck_assert_uint_eq(ev.max, 100 * MHZ);
        df_device_free(d);
}
END_TEST

/* devfreqd's one difference from devfreq_recommended_opp(): rounding up never passes the ceiling. */
START_TEST(test_snap_respects_ceiling) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_userspace, false, &f, 100 * MHZ);
        struct df_qos_request max = {};
        struct df_evaluation ev;

        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 350 * MHZ), 1);
        df_governor_userspace_set(&d->governor, 340 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.target, 340 * MHZ);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);
        /* Inside the range with room above: rounded up. */
        df_governor_userspace_set(&d->governor, 201 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 0);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);
        df_governor_userspace_set(&d->governor, 150 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 2, &ev), 1);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        df_device_free(d);
}
END_TEST

/* A floor and a ceiling with no point between them (250 and 280 MHz): a value raised to the
 * floor would round up to 300 MHz, past the ceiling, as the kernel's devfreq_recommended_opp()
 * does; the ceiling wins and 200 MHz, under the floor, is applied (devfreqd(8), "rounding up
 * never passes the ceiling"). The range itself reports the requested bounds. */
START_TEST(test_snap_floor_between_points) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_userspace, false, &f, 100 * MHZ);
        struct df_qos_request min = {}, max = {};
        struct df_evaluation ev;

        ck_assert_int_eq(df_qos_add_request(&d->qos, &min, DF_QOS_MIN_FREQUENCY, 250 * MHZ), 1);
        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 280 * MHZ), 1);
        df_governor_userspace_set(&d->governor, 0);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        ck_assert_uint_eq(f.freq, 200 * MHZ);
        ck_assert_uint_eq(d->eff_min, 250 * MHZ);
        ck_assert_uint_eq(d->eff_max, 280 * MHZ);
        /* A value above the ceiling takes the same point, from the other side. */
        df_governor_userspace_set(&d->governor, 450 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 0);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        /* The floor alone: a value under it is rounded up to the next point. */
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        df_governor_userspace_set(&d->governor, 0);
        ck_assert_int_eq(df_device_evaluate(d, 2, &ev), 1);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&min), 1);
        df_device_free(d);
}
END_TEST

START_TEST(test_admin_range_and_conflict) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, false, &f, 100 * MHZ);
        struct df_qos_request min = {};
        struct df_evaluation ev;

        df_device_set_admin_range(d, 200 * MHZ, 400 * MHZ);
        ck_assert_uint_eq(events, 1);
        df_device_set_admin_range(d, 200 * MHZ, 400 * MHZ); /* no change, no event */
        ck_assert_uint_eq(events, 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        /* A QoS floor above the admin ceiling: the ceiling wins. */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &min, DF_QOS_MIN_FREQUENCY, 450 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 0);
        ck_assert_uint_eq(ev.min, 400 * MHZ);
        ck_assert_uint_eq(ev.max, 400 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&min), 1);
        df_device_free(d);
}
END_TEST

/* A failed write: the decision stands, nothing else changes, the next evaluation retries. */
START_TEST(test_write_failure_retried) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_userspace, false, &f, 200 * MHZ);
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 0);
        df_governor_userspace_set(&d->governor, 400 * MHZ);
        f.fail = -EBUSY;
        ck_assert_int_eq(df_device_evaluate(d, 10 * MS, &ev), -EBUSY);
        ck_assert_int_eq(ev.error, -EBUSY);
        ck_assert_int_eq(d->last_error, -EBUSY);
        ck_assert_uint_eq(d->current, 200 * MHZ);
        ck_assert_uint_eq(d->stats.total, 0);
        f.fail = 0;
        ck_assert_int_eq(df_device_evaluate(d, 20 * MS, &ev), 1);
        ck_assert_uint_eq(f.freq, 400 * MHZ);
        ck_assert_int_eq(d->last_error, 0);
        ck_assert_uint_eq(d->stats.total, 1);
        ck_assert_uint_eq(d->stats.time_us[1], 20 * MS); /* the failed attempt did not close the slice */
        df_device_free(d);
}
END_TEST

/* A failed write may have changed part of the node (one limit of a pinned pair): the next
 * evaluation writes, a decision back at the frequency in force included. */
START_TEST(test_write_failure_forces_next_write) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_userspace, false, &f, 200 * MHZ);
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 0);
        ck_assert_uint_eq(f.writes, 1);
        df_governor_userspace_set(&d->governor, 400 * MHZ);
        f.fail = -EBUSY;
        ck_assert_int_eq(df_device_evaluate(d, 10 * MS, &ev), -EBUSY);
        f.fail = 0;
        df_governor_userspace_set(&d->governor, 200 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 20 * MS, &ev), 0); /* 200 MHz was in force: no change */
        ck_assert(ev.wrote);
        ck_assert_uint_eq(f.writes, 2);
        ck_assert_uint_eq(f.freq, 200 * MHZ);
        ck_assert_uint_eq(f.previous, 200 * MHZ);
        ck_assert_int_eq(d->last_error, 0);
        /* Written once, the same decision writes nothing again. */
        ck_assert_int_eq(df_device_evaluate(d, 30 * MS, &ev), 0);
        ck_assert(!ev.wrote);
        ck_assert_uint_eq(f.writes, 2);
        df_device_free(d);
}
END_TEST

/* Clamp mode, the same rule: after a failed range write the next range is written even when it is
 * the one held before, and limits a failed write left half-held are given back. */
START_TEST(test_clamp_failure_forces_next_write) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_CLAMP, &df_governor_performance, false, &f, 300 * MHZ);
        struct df_qos_request max = {}, min = {};

        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 300 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, NULL), 1);
        ck_assert_uint_eq(f.range_writes, 1);
        ck_assert_int_eq(df_qos_update_request(&max, 400 * MHZ), 1);
        f.fail = -EIO;
        ck_assert_int_eq(df_device_evaluate(d, 1, NULL), -EIO);
        f.fail = 0;
        ck_assert_int_eq(df_qos_update_request(&max, 300 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 2, NULL), 1);
        ck_assert_uint_eq(f.range_writes, 2);
        ck_assert_uint_eq(f.max, 300 * MHZ);
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        ck_assert_int_eq(df_device_evaluate(d, 3, NULL), 1);
        ck_assert_uint_eq(f.releases, 1);

        /* Nothing held; a floor's write lands half and fails; the floor ends: given back. */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &min, DF_QOS_MIN_FREQUENCY, 400 * MHZ), 1);
        f.fail = -EIO;
        f.half = true;
        ck_assert_int_eq(df_device_evaluate(d, 4, NULL), -EIO);
        ck_assert(f.held);
        f.fail = 0;
        ck_assert_int_eq(df_qos_remove_request(&min), 1);
        ck_assert_int_eq(df_device_evaluate(d, 5, NULL), 1);
        ck_assert_uint_eq(f.releases, 2);
        ck_assert(!f.held);
        ck_assert_int_eq(df_device_evaluate(d, 6, NULL), 0);
        ck_assert_uint_eq(f.releases, 2);
        df_device_free(d);
}
END_TEST

/* A request at its list's default (no floor, no ceiling, any latency) says nothing: it changes
 * no aggregate, so its coming and going re-evaluates nothing, and it must not keep the limits
 * held once the requests that did say something are gone. */
START_TEST(test_clamp_default_request_says_nothing) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_CLAMP, &df_governor_performance, false, &f, 300 * MHZ);
        struct df_qos_request floor = {}, none[3] = {};

        ck_assert_int_eq(df_qos_add_request(&d->qos, &floor, DF_QOS_MIN_FREQUENCY, 200 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, NULL), 1);
        ck_assert_uint_eq(f.range_writes, 1);
        ck_assert_int_eq(df_qos_add_request(&d->qos, &none[0], DF_QOS_MIN_FREQUENCY, 0), 0);
        ck_assert_int_eq(df_qos_add_request(&d->qos, &none[1], DF_QOS_MAX_FREQUENCY, UINT64_MAX), 0);
        ck_assert_int_eq(df_qos_add_request(&d->qos, &none[2], DF_QOS_LATENCY, DF_QOS_LATENCY_DEFAULT), 0);
        ck_assert(!df_qos_constrains(&d->qos, DF_QOS_LATENCY));
        ck_assert(df_qos_constrains(&d->qos, DF_QOS_MIN_FREQUENCY));

        /* The floor ends: the one evaluation its removal asks for gives the limits back. */
        ck_assert_int_eq(df_qos_remove_request(&floor), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, NULL), 1);
        ck_assert_uint_eq(f.releases, 1);
        ck_assert(!f.held);
        ck_assert_uint_eq(f.range_writes, 1);
        for (size_t i = 0; i < ELEMENTSOF(none); i++)
                ck_assert_int_eq(df_qos_remove_request(&none[i]), 0);
        df_device_free(d);
}
END_TEST

START_TEST(test_clamp_mode_writes_endpoints) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_CLAMP, &df_governor_performance, false, &f, 300 * MHZ);
        struct df_qos_request max = {};

        /* override-limits: the range is written whatever the node held before. */
        d->override_limits = true;
        ck_assert(!df_device_polls(d));
        ck_assert_int_eq(df_device_evaluate(d, 0, NULL), 1);
        ck_assert_uint_eq(f.range_writes, 1);
        ck_assert_uint_eq(f.min, 100 * MHZ);
        ck_assert_uint_eq(f.max, 500 * MHZ);
        ck_assert_uint_eq(f.writes, 0);
        ck_assert_int_eq(df_device_evaluate(d, 1, NULL), 0);
        ck_assert_uint_eq(f.range_writes, 1);
        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 350 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 2, NULL), 1);
        ck_assert_uint_eq(f.max, 350 * MHZ);
        /* Disabling an end point moves the endpoint. */
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, false), 1);
        f.fail = -EIO;
        ck_assert_int_eq(df_device_evaluate(d, 3, NULL), -EIO);
        f.fail = 0;
        ck_assert_int_eq(df_device_evaluate(d, 4, NULL), 1);
        ck_assert_uint_eq(f.min, 200 * MHZ);
        ck_assert_uint_eq(f.range_writes, 3);
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        df_device_free(d);
}
END_TEST

/* Sharing the limits: nothing written without something to say; the limits found bound the range
 * (narrowed, never widened); given back when the last request ends. */
START_TEST(test_clamp_shares_limits) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_CLAMP, &df_governor_performance, false, &f, 300 * MHZ);
        struct df_qos_request max = {}, min = {};
        uint64_t lo, hi;

        df_device_set_outer_range(d, 0, 400 * MHZ); /* another tool's cap */
        ck_assert_int_eq(df_device_evaluate(d, 0, NULL), 0);
        ck_assert_uint_eq(f.range_writes, 0);
        ck_assert_uint_eq(f.releases, 0);
        df_device_get_range(d, &lo, &hi);
        ck_assert_uint_eq(lo, 100 * MHZ);
        ck_assert_uint_eq(hi, 400 * MHZ);

        /* A request below the cap is written; one above it leaves the cap. */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 300 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, NULL), 1);
        ck_assert_uint_eq(f.range_writes, 1);
        ck_assert_uint_eq(f.max, 300 * MHZ);
        ck_assert_int_eq(df_qos_update_request(&max, 450 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 2, NULL), 1);
        ck_assert_uint_eq(f.max, 400 * MHZ);
        /* A floor above the cap is clamped to it: the ceiling wins. */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &min, DF_QOS_MIN_FREQUENCY, 500 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 3, NULL), 1);
        ck_assert_uint_eq(f.min, 400 * MHZ);
        ck_assert_uint_eq(f.max, 400 * MHZ);

        /* The last request ends: the limits are given back, once. */
        ck_assert_int_eq(df_qos_remove_request(&min), 1);
        ck_assert_int_eq(df_device_evaluate(d, 4, NULL), 1);
        ck_assert_uint_eq(f.releases, 0);
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        ck_assert_int_eq(df_device_evaluate(d, 5, NULL), 1);
        ck_assert_uint_eq(f.releases, 1);
        ck_assert_int_eq(df_device_evaluate(d, 6, NULL), 0);
        ck_assert_uint_eq(f.releases, 1);
        ck_assert_uint_eq(f.range_writes, 4);

        /* A disabled point and a configured bound are things to say too. */
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, false), 1);
        ck_assert_int_eq(df_device_evaluate(d, 7, NULL), 1);
        ck_assert_uint_eq(f.min, 200 * MHZ);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, true), 1);
        df_device_set_admin_range(d, 0, 300 * MHZ);
        ck_assert_int_eq(df_device_evaluate(d, 8, NULL), 1);
        ck_assert_uint_eq(f.max, 300 * MHZ);
        ck_assert_uint_eq(f.releases, 1);
        df_device_free(d);
}
END_TEST

START_TEST(test_opp_enable_rules) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, false, &f, 300 * MHZ);
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_set_opp_enabled(d, 123, false), -ENODEV);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 500 * MHZ, false), 1);
        ck_assert_uint_eq(events, 1);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 500 * MHZ, false), 0); /* no change, no event */
        ck_assert_uint_eq(events, 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        for (unsigned i = 1; i <= 3; i++)
                ck_assert_int_eq(df_device_set_opp_enabled(d, i * 100 * MHZ, false), 1);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 400 * MHZ, false), -EBUSY);
        ck_assert_uint_eq(df_opp_count_enabled(&d->opps), 1);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, true), 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 0);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        df_device_free(d);
}
END_TEST

/* The audit's sequence through the device, as the daemon calls it: the cap is set once, when it
 * trips; the administrator's enables and disables come after it. */
START_TEST(test_thermal_cap_and_admin) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, false, &f, 100 * MHZ);
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, false), 1);
        ck_assert_int_eq(df_device_set_thermal_cap(d, 150 * MHZ), 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.applied, 200 * MHZ); /* nothing under the cap: the lowest enabled */

        /* A point under the cap is enabled again: 200 MHz is above the cap and goes. */
        events = 0;
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, true), 1);
        ck_assert_uint_ge(events, 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 1);
        ck_assert_uint_eq(ev.min, 100 * MHZ);
        ck_assert_uint_eq(ev.max, 100 * MHZ);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);
        ck_assert_uint_eq(f.freq, 100 * MHZ);

        /* The only point under the cap can be disabled: the administrator has others enabled. */
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, false), 1);
        ck_assert_int_eq(df_device_evaluate(d, 2, &ev), 1);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        /* Released: every point the administrator has enabled. */
        ck_assert_int_eq(df_device_set_thermal_cap(d, 0), 1);
        ck_assert_int_eq(df_device_evaluate(d, 3, &ev), 1);
        ck_assert_uint_eq(ev.applied, 500 * MHZ);
        df_device_free(d);
}
END_TEST

/* The points of make()'s table, 100 to 500 MHz, one character each: '+' available, 'c' enabled by
 * the administrator but taken by the cap, '-' disabled by the administrator. */
static const char *points(const struct df_device *d) {
        static char buf[8];

        ck_assert_uint_eq(d->opps.n, 5);
        for (size_t i = 0; i < d->opps.n; i++) {
                const struct df_opp *o = &d->opps.opps[i];
                ck_assert(!o->enabled || !o->disabled);
                buf[i] = o->enabled ? '+' : o->disabled ? '-' : 'c';
        }
        buf[d->opps.n] = '\0';
        return buf;
}

/* While capped, the last enabled point is the administrator's last, not the cap's (DBUS-API.md):
 * the only point left under the cap can be disabled while the administrator has others above
 * it; the cap then keeps the lowest of those (devfreqd.conf(5)) and the governor runs again. */
START_TEST(test_thermal_cap_admin_disables) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, false, &f, 500 * MHZ);
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_set_thermal_cap(d, 300 * MHZ), 1);
        ck_assert_str_eq(points(d), "+++cc");
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, false), 1);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 200 * MHZ, false), 1);
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);

        events = 0;
        ck_assert_int_eq(df_device_set_opp_enabled(d, 300 * MHZ, false), 1);
        ck_assert_str_eq(points(d), "---+c");
        ck_assert_uint_ge(events, 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 1);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        ck_assert_uint_eq(f.freq, 400 * MHZ);

        events = 0;
        ck_assert_int_eq(df_device_set_opp_enabled(d, 400 * MHZ, false), 1);
        ck_assert_str_eq(points(d), "----+");
        ck_assert_uint_ge(events, 1);
        ck_assert_int_eq(df_device_evaluate(d, 2, &ev), 1);
        ck_assert_uint_eq(ev.applied, 500 * MHZ);

        /* The administrator's last point stays theirs to keep, capped or not. */
        ck_assert_int_eq(df_device_set_opp_enabled(d, 500 * MHZ, false), -EBUSY);
        ck_assert_str_eq(points(d), "----+");

        /* An enable under the cap takes the kept point back. */
        ck_assert_int_eq(df_device_set_opp_enabled(d, 200 * MHZ, true), 1);
        ck_assert_str_eq(points(d), "-+--c");
        ck_assert_int_eq(df_device_evaluate(d, 3, &ev), 1);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);

        /* Released: exactly the administrator's choices. */
        ck_assert_int_eq(df_device_set_thermal_cap(d, 0), 1);
        ck_assert_str_eq(points(d), "-+--+");
        ck_assert_int_eq(df_device_evaluate(d, 4, &ev), 1);
        ck_assert_uint_eq(ev.applied, 500 * MHZ);
        df_device_free(d);
}
END_TEST

/* A cap below every point (the audit's 1 kHz): the lowest point the administrator has enabled is
 * the one available, and any of their points can be disabled but the last. */
START_TEST(test_thermal_cap_below_every_point) {
        struct fake f = {};
        struct df_device *d = make(DF_MODE_GOVERN, &df_governor_performance, false, &f, 500 * MHZ);
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_set_thermal_cap(d, 1000), 1);
        ck_assert_str_eq(points(d), "+cccc");
        ck_assert_int_eq(df_device_evaluate(d, 0, &ev), 1);
        ck_assert_uint_eq(ev.applied, 100 * MHZ);

        events = 0;
        /* A point the cap takes: nothing available changes, nothing to evaluate. */
        ck_assert_int_eq(df_device_set_opp_enabled(d, 300 * MHZ, false), 1);
        ck_assert_str_eq(points(d), "+c-cc");
        ck_assert_uint_eq(events, 0);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 100 * MHZ, false), 1); /* the kept point */
        ck_assert_str_eq(points(d), "-+-cc");
        ck_assert_uint_ge(events, 1);
        ck_assert_int_eq(df_device_evaluate(d, 1, &ev), 1);
        ck_assert_uint_eq(ev.applied, 200 * MHZ);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 200 * MHZ, false), 1);
        ck_assert_int_eq(df_device_set_opp_enabled(d, 500 * MHZ, false), 1);
        ck_assert_str_eq(points(d), "---+-");
        ck_assert_int_eq(df_device_set_opp_enabled(d, 400 * MHZ, false), -EBUSY);
        ck_assert_str_eq(points(d), "---+-");
        ck_assert_int_eq(df_device_evaluate(d, 2, &ev), 1);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);

        ck_assert_int_eq(df_device_set_opp_enabled(d, 300 * MHZ, true), 1);
        ck_assert_str_eq(points(d), "--+c-");
        ck_assert_int_eq(df_device_evaluate(d, 3, &ev), 1);
        ck_assert_uint_eq(ev.applied, 300 * MHZ);

        /* Released: exactly the administrator's choices. */
        ck_assert_int_eq(df_device_set_thermal_cap(d, 0), 1);
        ck_assert_str_eq(points(d), "--++-");
        ck_assert_int_eq(df_device_evaluate(d, 4, &ev), 1);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        df_device_free(d);
}
END_TEST

START_TEST(test_start_rules) {
        struct df_device *d = NULL;

        ck_assert_int_eq(df_device_new("x", DF_MODE_GOVERN, &d), 0);
        ck_assert_int_eq(df_device_evaluate(d, 0, NULL), -EINVAL);
        ck_assert_int_eq(df_device_start(d, 0, 0), -EINVAL); /* no points */
        ck_assert_int_eq(df_opp_add(&d->opps, 100 * MHZ, 0, 0), 1);
        ck_assert_int_eq(df_opp_disable(&d->opps, 100 * MHZ), 1);
        ck_assert_int_eq(df_device_start(d, 0, 0), -EINVAL); /* nothing enabled */
        ck_assert_int_eq(df_opp_enable(&d->opps, 100 * MHZ), 1);
        ck_assert_int_eq(df_device_start(d, 0, 0), 0);
        ck_assert_int_eq(df_device_start(d, 0, 0), -EALREADY);
        ck_assert(!df_device_has_latency_data(d));
        ck_assert_uint_eq(df_device_load(d), 0);
        df_device_set_sample(d, 30, 40);
        ck_assert_uint_eq(df_device_load(d), 75);
        df_device_free(d);
        ck_assert_int_eq(df_device_new(NULL, DF_MODE_GOVERN, &d), -EINVAL);
        ck_assert_int_eq(df_device_new("x", _DF_MODE_MAX, &d), -EINVAL);
}
END_TEST

START_TEST(test_mode_strings) {
        ck_assert_str_eq(df_mode_to_string(DF_MODE_GOVERN), "govern");
        ck_assert_str_eq(df_mode_to_string(DF_MODE_CLAMP), "clamp");
        ck_assert_ptr_null(df_mode_to_string(_DF_MODE_MAX));
        ck_assert_int_eq(df_mode_from_string("clamp"), DF_MODE_CLAMP);
        ck_assert_int_eq(df_mode_from_string("Clamp"), _DF_MODE_INVALID);
        ck_assert_int_eq(df_mode_from_string(NULL), _DF_MODE_INVALID);
}
END_TEST

/* passive: the child follows its parent's point index, re-evaluated after the parent applies. */
START_TEST(test_passive_follows_parent) {
        struct fake fp = {}, fc = {};
        struct df_device *parent = make(DF_MODE_GOVERN, &df_governor_userspace, false, &fp, 100 * MHZ);
        struct df_device *child = NULL;
        struct df_evaluation ev;

        ck_assert_int_eq(df_device_new("dmc", DF_MODE_GOVERN, &child), 0);
        ck_assert_int_eq(df_opp_add(&child->opps, 200 * MHZ, 0, 0), 1);
        ck_assert_int_eq(df_opp_add(&child->opps, 400 * MHZ, 0, 0), 1);
        ck_assert_int_eq(df_opp_add(&child->opps, 800 * MHZ, 0, 0), 1);
        ck_assert_int_eq(df_device_set_governor(child, &df_governor_passive), 0);
        child->parent = parent;
        df_device_set_backend(child, &fake_ops, &fc);
        ck_assert_int_eq(df_device_start(child, 800 * MHZ, 0), 0);

        df_governor_userspace_set(&parent->governor, 200 * MHZ);
        ck_assert_int_eq(df_device_evaluate(parent, 0, NULL), 1);
        ck_assert_int_eq(df_device_evaluate(child, 0, &ev), 1);
        ck_assert_uint_eq(ev.applied, 400 * MHZ);
        /* Parent index 4 is past the child's table: clipped to its last point. */
        df_governor_userspace_set(&parent->governor, 500 * MHZ);
        ck_assert_int_eq(df_device_evaluate(parent, 1, NULL), 1);
        ck_assert_int_eq(df_device_evaluate(child, 1, &ev), 1);
        ck_assert_uint_eq(ev.applied, 800 * MHZ);
        df_device_free(child);
        df_device_free(parent);
}
END_TEST

static Suite *device_suite(void) {
        Suite *s = suite_create("device");
        TCase *tc;

        tc = tcase_create("data-flow");
        tcase_add_test(tc, test_first_apply_writes_then_skips);
        tcase_add_test(tc, test_powersave_follows_min_request);
        tcase_add_test(tc, test_no_decision_before_first_sample);
        tcase_add_test(tc, test_event_reuses_last_sample);
        tcase_add_test(tc, test_events_do_not_ratchet);
        tcase_add_test(tc, test_timed_sample);
        tcase_add_test(tc, test_write_failure_retried);
        tcase_add_test(tc, test_write_failure_forces_next_write);
        tcase_add_test(tc, test_passive_follows_parent);
        suite_add_tcase(s, tc);

        tc = tcase_create("range");
        tcase_add_test(tc, test_latency_usable_points);
        tcase_add_test(tc, test_ceiling_beats_latency);
        tcase_add_test(tc, test_ceiling_below_lowest_point);
        tcase_add_test(tc, test_snap_respects_ceiling);
        tcase_add_test(tc, test_snap_floor_between_points);
        tcase_add_test(tc, test_admin_range_and_conflict);
        tcase_add_test(tc, test_opp_enable_rules);
        tcase_add_test(tc, test_thermal_cap_and_admin);
        tcase_add_test(tc, test_thermal_cap_admin_disables);
        tcase_add_test(tc, test_thermal_cap_below_every_point);
        suite_add_tcase(s, tc);

        tc = tcase_create("modes");
        tcase_add_test(tc, test_clamp_mode_writes_endpoints);
        tcase_add_test(tc, test_clamp_shares_limits);
        tcase_add_test(tc, test_clamp_failure_forces_next_write);
        tcase_add_test(tc, test_clamp_default_request_says_nothing);
        tcase_add_test(tc, test_start_rules);
        tcase_add_test(tc, test_mode_strings);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(device_suite());
}
