/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binding time of QoS requests on a fake clock (credited when the top of a list changes: add,
 * update, remove, moves between lists, the end of the lists; on a device, only while the
 * aggregate decides the range) and the ring of ended requests. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blame.h"
#include "device.h"
#include "macro.h"
#include "qos-binding.h"
#include "qos.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)

static uint64_t fake_now;
static unsigned clock_reads;

static uint64_t fake_clock(void) {
        clock_reads++;
        return fake_now;
}

static void setup(struct df_qos *q) {
        fake_now = 1000;
        clock_reads = 0;
        df_qos_init(q);
        df_qos_set_clock(q, fake_clock);
}

START_TEST(test_two_floors) {
        struct df_qos q;
        struct df_qos_request low = {}, high = {};

        setup(&q);
        ck_assert_int_eq(df_qos_add_request(&q, &low, DF_QOS_MIN_FREQUENCY, 400 * MHZ), 1);
        fake_now += 500;
        ck_assert(df_qos_request_binds(&low));
        ck_assert_uint_eq(df_qos_binding_time(&low), 500);
        ck_assert_int_eq(df_qos_add_request(&q, &high, DF_QOS_MIN_FREQUENCY, 600 * MHZ), 1);
        ck_assert(!df_qos_request_binds(&low));
        fake_now += 2000;
        ck_assert_uint_eq(df_qos_binding_time(&low), 500);
        ck_assert_uint_eq(df_qos_binding_time(&high), 2000);
        ck_assert_int_eq(df_qos_remove_request(&high), 1);
        ck_assert_uint_eq(high.bound_usec, 2000); /* final once it ended */
        fake_now += 300;
        ck_assert_uint_eq(df_qos_binding_time(&low), 800);
        ck_assert_uint_eq(df_qos_binding_time(&high), 2000);
        df_qos_done(&q);
        ck_assert_uint_eq(low.bound_usec, 800);
}
END_TEST

START_TEST(test_update_moves_the_top) {
        struct df_qos q;
        struct df_qos_request a = {}, b = {};

        setup(&q);
        ck_assert_int_ge(df_qos_add_request(&q, &a, DF_QOS_MAX_FREQUENCY, 800 * MHZ), 0);
        ck_assert_int_ge(df_qos_add_request(&q, &b, DF_QOS_MAX_FREQUENCY, 600 * MHZ), 0);
        fake_now += 100;
        ck_assert(df_qos_request_binds(&b)); /* the smallest ceiling */
        ck_assert_int_ge(df_qos_update_request(&b, 900 * MHZ), 0);
        fake_now += 40;
        ck_assert_uint_eq(df_qos_binding_time(&b), 100);
        ck_assert_uint_eq(df_qos_binding_time(&a), 40);
        /* Another type is another list: a latency request binds on its own. */
        struct df_qos_request l = {};
        ck_assert_int_ge(df_qos_add_request(&q, &l, DF_QOS_LATENCY, 100), 0);
        fake_now += 10;
        ck_assert_uint_eq(df_qos_binding_time(&l), 10);
        ck_assert_uint_eq(df_qos_binding_time(&a), 50);
        df_qos_done(&q);
}
END_TEST

START_TEST(test_moved_between_lists) {
        struct df_qos from, to;
        struct df_qos_request r = {};

        setup(&from);
        df_qos_init(&to);
        df_qos_set_clock(&to, fake_clock);
        ck_assert_int_ge(df_qos_add_request(&from, &r, DF_QOS_MIN_FREQUENCY, 400 * MHZ), 0);
        fake_now += 70;
        ck_assert_int_ge(df_qos_remove_request(&r), 0);
        ck_assert_int_ge(df_qos_add_request(&to, &r, DF_QOS_MIN_FREQUENCY, 400 * MHZ), 0);
        fake_now += 30;
        ck_assert_uint_eq(df_qos_binding_time(&r), 100);
        df_qos_done(&from);
        df_qos_done(&to);
}
END_TEST

START_TEST(test_no_clock_reads_without_a_change_of_top) {
        struct df_qos q;
        struct df_qos_request top = {}, below = {};

        setup(&q);
        ck_assert_int_ge(df_qos_add_request(&q, &top, DF_QOS_MIN_FREQUENCY, 800 * MHZ), 0);
        clock_reads = 0;
        ck_assert_int_ge(df_qos_add_request(&q, &below, DF_QOS_MIN_FREQUENCY, 200 * MHZ), 0);
        ck_assert_int_ge(df_qos_update_request(&below, 300 * MHZ), 0);
        ck_assert_int_ge(df_qos_remove_request(&below), 0);
        ck_assert_uint_eq(clock_reads, 0);
        df_qos_done(&q);
}
END_TEST

/* 100..500 MHz, latencies 5000, 2000, 1000, 500, 500 µs, on the fake clock. */
static struct df_device *device(void) {
        static const uint32_t lat[] = { 5000, 2000, 1000, 500, 500 };
        struct df_device *d;

        ck_assert_int_eq(df_device_new("gpu", DF_MODE_GOVERN, &d), 0);
        for (unsigned i = 0; i < ELEMENTSOF(lat); i++)
                ck_assert_int_eq(df_opp_add(&d->opps, (i + 1) * 100 * MHZ, 0, lat[i]), 1);
        ck_assert_int_eq(df_device_start(d, 100 * MHZ, 0), 0);
        fake_now = 1000;
        df_qos_set_clock(&d->qos, fake_clock);
        return d;
}

/* A floor binds only while it raises the device's floor: not below the lowest point, not under
 * a higher administrator's floor. */
START_TEST(test_floor_binds_while_it_decides) {
        struct df_device *d = device();
        struct df_qos_request min = {};

        ck_assert_int_eq(df_qos_add_request(&d->qos, &min, DF_QOS_MIN_FREQUENCY, 50 * MHZ), 1);
        fake_now += 100;
        ck_assert(!df_qos_request_binds(&min));
        ck_assert_uint_eq(df_qos_binding_time(&min), 0);
        ck_assert_int_eq(df_qos_update_request(&min, 300 * MHZ), 1);
        fake_now += 100;
        ck_assert_uint_eq(df_qos_binding_time(&min), 100);
        df_device_set_admin_range(d, 400 * MHZ, UINT64_MAX);
        fake_now += 50;
        ck_assert(!df_qos_request_binds(&min));
        ck_assert_uint_eq(df_qos_binding_time(&min), 100);
        df_device_set_admin_range(d, 0, UINT64_MAX);
        fake_now += 20;
        ck_assert_uint_eq(df_qos_binding_time(&min), 120);
        /* Even against a lower ceiling it holds the floor up (at the ceiling). */
        df_device_set_admin_range(d, 0, 200 * MHZ);
        fake_now += 5;
        ck_assert_uint_eq(df_qos_binding_time(&min), 125);
        ck_assert_int_eq(df_qos_remove_request(&min), 1);
        ck_assert_uint_eq(min.bound_usec, 125);
        df_device_free(d);
}
END_TEST

/* A ceiling binds only while it lowers the device's ceiling: not above the highest usable point,
 * which a thermal cap lowers. */
START_TEST(test_ceiling_binds_while_it_decides) {
        struct df_device *d = device();
        struct df_qos_request max = {};

        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 600 * MHZ), 1);
        fake_now += 100;
        ck_assert_uint_eq(df_qos_binding_time(&max), 0);
        ck_assert_int_eq(df_qos_update_request(&max, 400 * MHZ), 1);
        fake_now += 100;
        ck_assert_uint_eq(df_qos_binding_time(&max), 100);
        ck_assert_int_eq(df_device_set_thermal_cap(d, 350 * MHZ), 1); /* 400 and 500 MHz go */
        fake_now += 100;
        ck_assert(!df_qos_request_binds(&max));
        ck_assert_uint_eq(df_qos_binding_time(&max), 100);
        ck_assert_int_eq(df_device_set_thermal_cap(d, 0), 1);
        fake_now += 10;
        ck_assert_uint_eq(df_qos_binding_time(&max), 110);
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        df_device_free(d);
}
END_TEST

/* A latency request binds while it takes points from the range; a ceiling below every point it
 * leaves sets it aside. */
START_TEST(test_latency_binds_while_it_takes_points) {
        struct df_device *d = device();
        struct df_qos_request lat = {}, max = {};

        ck_assert_int_eq(df_qos_add_request(&d->qos, &lat, DF_QOS_LATENCY, 10000), 1);
        fake_now += 100;
        ck_assert_uint_eq(df_qos_binding_time(&lat), 0);       /* every point meets it */
        ck_assert_int_eq(df_qos_update_request(&lat, 600), 1); /* 400 and 500 MHz */
        fake_now += 100;
        ck_assert_uint_eq(df_qos_binding_time(&lat), 100);
        /* A ceiling under both usable points sets the latency aside, but its lowest usable point
         * still raises the floor, to the ceiling: [250, 250] where without it [100, 250]. Both
         * decide. */
        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 250 * MHZ), 1);
        fake_now += 100;
        ck_assert(df_qos_request_binds(&lat));
        ck_assert(df_qos_request_binds(&max));
        ck_assert_uint_eq(df_qos_binding_time(&lat), 200);
        ck_assert_uint_eq(df_qos_binding_time(&max), 100);
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        fake_now += 1;
        ck_assert_uint_eq(df_qos_binding_time(&lat), 201);
        ck_assert_int_eq(df_qos_remove_request(&lat), 1);
        df_device_free(d);
}
END_TEST

/* Each "without it" takes the whole rule. Points 100 and 200 MHz, neither meeting a latency of
 * 500 us: the lower latency's point, 100 MHz, is all that is left ([100, 100]). A ceiling of
 * 50 MHz then sets the latency aside and gives [100, 100] too: without the ceiling the latency
 * holds [100, 100], without the latency the ceiling does. Neither alone decides. */
START_TEST(test_redundant_bounds_do_not_bind) {
        struct df_device *d;
        struct df_qos_request lat = {}, max = {};
        uint64_t min_f, max_f;

        ck_assert_int_eq(df_device_new("gpu", DF_MODE_GOVERN, &d), 0);
        ck_assert_int_eq(df_opp_add(&d->opps, 100 * MHZ, 0, 1000), 1);
        ck_assert_int_eq(df_opp_add(&d->opps, 200 * MHZ, 0, 1500), 1);
        ck_assert_int_eq(df_device_start(d, 100 * MHZ, 0), 0);
        fake_now = 1000;
        df_qos_set_clock(&d->qos, fake_clock);

        ck_assert_int_eq(df_qos_add_request(&d->qos, &lat, DF_QOS_LATENCY, 500), 1);
        fake_now += 100;
        ck_assert(df_qos_request_binds(&lat));
        ck_assert_int_eq(df_qos_add_request(&d->qos, &max, DF_QOS_MAX_FREQUENCY, 50 * MHZ), 1);
        df_device_get_range(d, &min_f, &max_f);
        ck_assert_uint_eq(min_f, 100 * MHZ);
        ck_assert_uint_eq(max_f, 100 * MHZ);
        fake_now += 100;
        ck_assert(!df_qos_request_binds(&lat));
        ck_assert(!df_qos_request_binds(&max));
        ck_assert_uint_eq(df_qos_binding_time(&lat), 100);
        ck_assert_uint_eq(df_qos_binding_time(&max), 0);
        /* The ceiling goes: the latency decides again. */
        ck_assert_int_eq(df_qos_remove_request(&max), 1);
        fake_now += 10;
        ck_assert_uint_eq(df_qos_binding_time(&lat), 110);
        ck_assert_int_eq(df_qos_remove_request(&lat), 1);
        df_device_free(d);
}
END_TEST

/* The binding rule against its definition, on random devices: a request's aggregate decides
 * exactly when a device built without it (the same points, bounds and other requests) has another
 * range, or (latency) other usable points in it. Ranges come from df_device_get_range() of that
 * second device, never from the rule under test. */
struct random_device {
        size_t n;
        uint32_t latency[5];
        bool disabled[5];
        uint64_t admin_min, admin_max, cap, outer_min, outer_max;
        enum df_mode mode;
        bool held[3];
        uint64_t value[3];
};

static uint64_t draw(unsigned n) {
        return (uint64_t) (rand() % (int) n);
}

static void draw_device(struct random_device *c) {
        *c = (struct random_device){ .n = 2 + draw(4), .admin_max = UINT64_MAX, .outer_max = UINT64_MAX };
        for (size_t i = 0; i < c->n; i++) {
                c->latency[i] = (uint32_t) draw(4) * 500;
                c->disabled[i] = draw(5) == 0;
        }
        c->disabled[draw((unsigned) c->n)] = false;
        if (draw(3) == 0)
                c->admin_min = draw(6) * 50 * MHZ;
        if (draw(3) == 0)
                c->admin_max = MAX((draw(12) + 1) * 50 * MHZ, c->admin_min);
        c->cap = draw(4) == 0 ? (draw(12) + 1) * 50 * MHZ : 0;
        c->mode = draw(3) == 0 ? DF_MODE_CLAMP : DF_MODE_GOVERN;
        if (draw(3) == 0)
                c->outer_min = draw(6) * 50 * MHZ;
        if (draw(3) == 0)
                c->outer_max = (draw(12) + 1) * 50 * MHZ;
        for (int t = 0; t < 3; t++)
                c->held[t] = draw(2);
        c->value[DF_QOS_MIN_FREQUENCY] = draw(12) * 50 * MHZ;
        c->value[DF_QOS_MAX_FREQUENCY] = (draw(12) + 1) * 50 * MHZ;
        c->value[DF_QOS_LATENCY] = draw(4) * 500;
}

/* The device of c, without the requests of type `skip` (-1: with all). */
static struct df_device *build_device(const struct random_device *c, int skip, struct df_qos_request *req) {
        struct df_device *d;

        ck_assert_int_eq(df_device_new("gpu", c->mode, &d), 0);
        for (size_t i = 0; i < c->n; i++)
                ck_assert_int_eq(df_opp_add(&d->opps, (i + 1) * 100 * MHZ, 0, c->latency[i]), 1);
        ck_assert_int_eq(df_device_start(d, 100 * MHZ, 0), 0);
        for (size_t i = 0; i < c->n; i++)
                if (c->disabled[i])
                        ck_assert_int_ge(df_device_set_opp_enabled(d, (i + 1) * 100 * MHZ, false), 0);
        ck_assert_int_ge(df_device_set_thermal_cap(d, c->cap), 0);
        df_device_set_admin_range(d, c->admin_min, c->admin_max);
        if (c->mode == DF_MODE_CLAMP)
                df_device_set_outer_range(d, c->outer_min, c->outer_max);
        for (int t = 0; t < 3; t++)
                if (c->held[t] && t != skip)
                        ck_assert_int_ge(
                                df_qos_add_request(&d->qos, &req[t], (enum df_qos_type) t, c->value[t]), 0);
        return d;
}

/* Usable points in the device's range, as a bit set of table indexes. */
static unsigned usable_in_range(struct df_device *d, uint64_t *ret_min, uint64_t *ret_max) {
        const uint64_t *u;
        unsigned set = 0;
        size_t n;

        df_device_get_range(d, ret_min, ret_max);
        df_device_get_usable(d, &u, &n);
        for (size_t i = 0; i < n; i++)
                if (u[i] >= *ret_min && u[i] <= *ret_max)
                        set |= 1u << (u[i] / (100 * MHZ) - 1);
        return set;
}

static bool decides_by_definition(struct df_device *with, const struct random_device *c, int type) {
        struct df_qos_request req[3] = {};
        struct df_device *without = build_device(c, type, req);
        uint64_t min, max, min_w, max_w;
        unsigned points = usable_in_range(with, &min, &max),
                 points_w = usable_in_range(without, &min_w, &max_w);
        bool r = type == DF_QOS_MIN_FREQUENCY ? min > min_w :
                type == DF_QOS_MAX_FREQUENCY  ? max < max_w :
                                                min != min_w || max != max_w || points != points_w;

        for (int t = 0; t < 3; t++)
                if (df_qos_request_active(&req[t]))
                        ck_assert_int_ge(df_qos_remove_request(&req[t]), 0);
        df_device_free(without);
        return r;
}

START_TEST(test_binding_matches_definition) {
        unsigned checked[3] = {};

        srand(38);
        for (unsigned run = 0; run < 8000; run++) {
                struct df_qos_request req[3] = {};
                struct random_device c;
                struct df_device *d;

                draw_device(&c);
                d = build_device(&c, -1, req);
                for (int t = 0; t < 3; t++) {
                        if (!c.held[t])
                                continue;
                        ck_assert_msg(
                                df_qos_request_binds(&req[t]) == decides_by_definition(d, &c, t),
                                "run %u: the %s request %s, but a device without it %s", run,
                                df_qos_type_to_string((enum df_qos_type) t),
                                df_qos_request_binds(&req[t]) ? "binds" : "does not bind",
                                decides_by_definition(d, &c, t) ? "differs" : "is the same");
                        checked[t]++;
                }
                for (int t = 0; t < 3; t++)
                        if (df_qos_request_active(&req[t]))
                                ck_assert_int_ge(df_qos_remove_request(&req[t]), 0);
                df_device_free(d);
        }
        for (int t = 0; t < 3; t++)
                ck_assert_uint_gt(checked[t], 2000);
}
END_TEST

START_TEST(test_ring_keeps_64) {
        struct df_blame_ring r = {};
        char reason[32], command[] = "cmd";

        for (unsigned i = 0; i < 70; i++) {
                snprintf(reason, sizeof(reason), "r%u", i);
                struct df_blame_entry e = {
                        .type = DF_QOS_MIN_FREQUENCY,
                        .uid = i,
                        .command = command,
                        .reason = reason,
                        .value = i,
                        .binding_usec = i,
                };
                ck_assert_int_eq(df_blame_ring_push(&r, &e), 0);
                ck_assert_uint_eq(r.n, MIN(i + 1, (unsigned) DF_BLAME_ENDED_MAX));
        }
        ck_assert_uint_eq(r.n, 64);
        ck_assert_uint_eq(r.ended, 70);
        ck_assert_str_eq(df_blame_ring_get(&r, 0)->reason, "r6");
        ck_assert_str_eq(df_blame_ring_get(&r, 63)->reason, "r69");
        ck_assert_str_eq(df_blame_ring_get(&r, 63)->unit, ""); /* NULL comes back empty */
        ck_assert_ptr_null(df_blame_ring_get(&r, 64));
        df_blame_ring_done(&r);
        ck_assert_uint_eq(r.n, 0);
}
END_TEST

/* What leaves the ring is summed by type and owner: a profile's hold by its name, others by unit. */
START_TEST(test_ring_forgets_into_sums) {
        struct df_blame_ring r = {};
        char unit_a[] = "a.service", unit_b[] = "b.service", profile[] = "profile quiet";

        for (unsigned i = 0; i < DF_BLAME_ENDED_MAX + 4; i++) {
                struct df_blame_entry e = {
                        .type = i == 3 ? DF_QOS_MAX_FREQUENCY : DF_QOS_MIN_FREQUENCY,
                        .unit = i % 2 ? unit_b : unit_a,
                        .command = profile,
                        .binding_usec = 10 + i,
                        .daemon_own = i == 2,
                };
                ck_assert_int_eq(df_blame_ring_push(&r, &e), 0);
                ck_assert_uint_eq(
                        r.n_forgotten, i < DF_BLAME_ENDED_MAX ? 0 : MIN(i - DF_BLAME_ENDED_MAX + 1, 4u));
        }
        ck_assert_uint_eq(r.n_forgotten, 4);
        ck_assert_int_eq(r.forgotten[0].type, DF_QOS_MIN_FREQUENCY);
        ck_assert_str_eq(r.forgotten[0].owner, "a.service");
        ck_assert_uint_eq(r.forgotten[0].binding_usec, 10);
        ck_assert_str_eq(r.forgotten[1].owner, "b.service");
        ck_assert_uint_eq(r.forgotten[1].binding_usec, 11);
        ck_assert_str_eq(r.forgotten[2].owner, "profile quiet");
        ck_assert_uint_eq(r.forgotten[2].binding_usec, 12);
        ck_assert_int_eq(r.forgotten[3].type, DF_QOS_MAX_FREQUENCY);
        ck_assert_str_eq(r.forgotten[3].owner, "b.service");
        ck_assert_uint_eq(r.forgotten[3].binding_usec, 13);

        struct df_blame_entry e = { .type = DF_QOS_MIN_FREQUENCY, .unit = unit_a, .binding_usec = 1 };
        ck_assert_int_eq(df_blame_ring_push(&r, &e), 0); /* the 5th (a.service, 14) joins the first */
        ck_assert_uint_eq(r.n_forgotten, 4);
        ck_assert_uint_eq(r.forgotten[0].binding_usec, 10 + 14);
        df_blame_ring_done(&r);
        ck_assert_uint_eq(r.n_forgotten, 0);
}
END_TEST

static Suite *blame_suite(void) {
        Suite *s = suite_create("blame");
        TCase *tc = tcase_create("binding");

        tcase_add_test(tc, test_two_floors);
        tcase_add_test(tc, test_update_moves_the_top);
        tcase_add_test(tc, test_moved_between_lists);
        tcase_add_test(tc, test_no_clock_reads_without_a_change_of_top);
        suite_add_tcase(s, tc);
        tc = tcase_create("deciding");
        tcase_add_test(tc, test_floor_binds_while_it_decides);
        tcase_add_test(tc, test_ceiling_binds_while_it_decides);
        tcase_add_test(tc, test_latency_binds_while_it_takes_points);
        tcase_add_test(tc, test_redundant_bounds_do_not_bind);
        tcase_add_test(tc, test_binding_matches_definition);
        suite_add_tcase(s, tc);
        tc = tcase_create("ring");
        tcase_add_test(tc, test_ring_keeps_64);
        tcase_add_test(tc, test_ring_forgets_into_sums);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(blame_suite());
}
