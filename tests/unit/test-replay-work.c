/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreq-replay --work: the window arithmetic and the energy model on hand-computed cases, and
 * the offline optimum by hand and against a search over every sequence of points. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "replay-work.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define MSEC UINT64_C(1000000) /* in ns */

/* A model over `n` points "freq@microvolt" (microvolt 0: none), interval in µs. */
static void
model(struct work_model *m, struct df_opp_table *t, const uint64_t *freqs, const uint32_t *uv, size_t n,
      uint64_t interval_usec, long double static_power) {
        df_opp_table_init(t);
        for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(df_opp_add(t, freqs[i], uv ? uv[i] : 0, 0), 1);
        ck_assert_int_eq(work_model_init(m, t, interval_usec, static_power), 0);
}

static void done(struct work_model *m, struct df_opp_table *t) {
        work_model_done(m);
        df_opp_table_done(t);
}

static bool close_to(long double a, long double b) {
        return fabsl(a - b) <= 1e-12L * fmaxl(1.0L, fabsl(b));
}

START_TEST(test_capacity) {
        static const uint64_t f[] = { 100 * MHZ, 333333333 };
        struct df_opp_table t;
        struct work_model m;

        model(&m, &t, f, NULL, 2, 10000, 0);
        ck_assert_uint_eq(work_capacity(&m, 100 * MHZ), 1000000);
        /* 333333333 Hz x 10 ms = 3333333.33: floor. */
        ck_assert_uint_eq(work_capacity(&m, 333333333), 3333333);
        done(&m, &t);
}
END_TEST

START_TEST(test_carry_over) {
        static const uint64_t f[] = { 100 * MHZ };
        struct df_opp_table t;
        struct work_model m;
        struct work_sim s;
        struct work_window w;

        /* 1,000,000 cycles a window; 2,500,000 arrive with a deadline of 30 ms. */
        model(&m, &t, f, NULL, 1, 10000, 0);
        work_sim_init(&s, &m);
        ck_assert_int_eq(work_sim_add(&s, 2500000, 30 * MSEC), 0);
        ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        ck_assert_uint_eq(w.done, 1000000);
        ck_assert_uint_eq(w.busy_ns, 10 * MSEC);
        ck_assert_uint_eq(w.total_ns, 10 * MSEC);
        ck_assert(s.backlog == 1500000);
        /* 300,000 more arrive behind: first in, first out. */
        ck_assert_int_eq(work_sim_add(&s, 300000, 10 * MSEC), 0);
        ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        ck_assert_uint_eq(w.done, 1000000);
        ck_assert(s.backlog == 800000);
        ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        /* 500,000 end the first job at 25 ms (in time), 300,000 the second at 28 ms: due at 20 ms. */
        ck_assert_uint_eq(w.done, 800000);
        ck_assert_uint_eq(w.busy_ns, 8 * MSEC);
        ck_assert_uint_eq(w.missed, 1);
        ck_assert(s.backlog == 0);
        ck_assert_uint_eq(s.n_delays, 2);
        ck_assert_uint_eq(s.delays[0], 25 * MSEC);
        ck_assert_uint_eq(s.delays[1], 18 * MSEC);
        ck_assert(s.done == 2800000);
        ck_assert_uint_eq(s.misses, 1);
        work_sim_done(&s);
        done(&m, &t);
}
END_TEST

/* `cycles` due `deadline` after the window starts, at 100 MHz for 10 ms windows: misses. */
static uint64_t misses_of(uint64_t cycles, uint64_t deadline) {
        static const uint64_t f[] = { 100 * MHZ };
        struct df_opp_table t;
        struct work_model m;
        struct work_sim s;
        struct work_window w;
        uint64_t n;

        model(&m, &t, f, NULL, 1, 10000, 0);
        work_sim_init(&s, &m);
        ck_assert_int_eq(work_sim_add(&s, cycles, deadline), 0);
        while (s.backlog > 0)
                ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        n = s.misses;
        work_sim_done(&s);
        done(&m, &t);
        return n;
}

START_TEST(test_deadline_by_one_cycle) {
        /* The end of the window: 1,000,000 cycles end at exactly 10 ms; one more carries over. */
        ck_assert_uint_eq(misses_of(1000000, 10 * MSEC), 0);
        ck_assert_uint_eq(misses_of(1000001, 10 * MSEC), 1);
        /* Inside the window: 400,000 cycles take 4 ms exactly; 400,001 take 4.00001 ms. */
        ck_assert_uint_eq(misses_of(400000, 4 * MSEC), 0);
        ck_assert_uint_eq(misses_of(400001, 4 * MSEC), 1);
        /* Beyond the window: 1,600,000 cycles end 6 ms into the second window, due at 16 ms. */
        ck_assert_uint_eq(misses_of(1600000, 16 * MSEC), 0);
        ck_assert_uint_eq(misses_of(1600001, 16 * MSEC), 1);
}
END_TEST

START_TEST(test_static_power) {
        static const uint64_t f[] = { 100 * MHZ, 200 * MHZ };
        static const uint32_t uv[] = { 500000, 1000000 };
        struct df_opp_table t;
        struct work_model m;
        struct work_sim s;
        struct work_window w;

        /* Static: 0.1 x 200 MHz x (1 V)^2 x (0.5 V / 1 V) x 1 s = 10,000,000 at the low point. */
        model(&m, &t, f, uv, 2, 1000000, 0.1L);
        ck_assert(close_to(work_window_energy(&m, 0, 0), 10000000.0L));
        ck_assert(close_to(work_window_energy(&m, 1, 0), 20000000.0L));
        /* Dynamic: V^2 per cycle, 0.25 at 0.5 V. */
        ck_assert(close_to(work_window_energy(&m, 0, 1000000), 10250000.0L));
        work_sim_init(&s, &m);
        ck_assert_int_eq(work_sim_add(&s, 1000000, 1000 * MSEC), 0);
        ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        ck_assert_int_eq(work_sim_window(&s, 1, &w), 0); /* an empty window pays static power */
        ck_assert(close_to(s.energy, 10250000.0L + 20000000.0L));
        work_sim_done(&s);
        done(&m, &t);

        model(&m, &t, f, uv, 2, 1000000, 0);
        ck_assert(close_to(work_window_energy(&m, 1, 3), 3.0L));
        done(&m, &t);
}
END_TEST

START_TEST(test_volts_proportional) {
        static const uint64_t f[] = { 100 * MHZ, 400 * MHZ };
        static const uint32_t mixed[] = { 0, 1000000 };
        struct df_opp_table t;
        struct work_model m;

        /* Without voltages V = f / f_top: 0.25 and 1. */
        model(&m, &t, f, NULL, 2, 10000, 0.1L);
        ck_assert(close_to(m.volts[0], 0.25L));
        ck_assert(close_to(m.volts[1], 1.0L));
        /* 1000 cycles at 0.25: 62.5; static 0.1 x 400 MHz x 1 x 0.25 x 10 ms = 100,000. */
        ck_assert(close_to(work_window_energy(&m, 0, 1000), 62.5L + 100000.0L));
        done(&m, &t);

        /* Some points with a voltage and some without: refused. */
        df_opp_table_init(&t);
        ck_assert_int_eq(df_opp_add(&t, f[0], mixed[0], 0), 1);
        ck_assert_int_eq(df_opp_add(&t, f[1], mixed[1], 0), 1);
        ck_assert_int_eq(work_model_init(&m, &t, 10000, 0.1L), -EINVAL);
        df_opp_table_done(&t);
}
END_TEST

START_TEST(test_64bit_cycles) {
        /* 2^63 Hz for 2 s holds 2^64 cycles: the capacity saturates at 2^64 - 1. */
        static const uint64_t f[] = { UINT64_C(1) << 63 };
        struct df_opp_table t;
        struct work_model m;
        struct work_sim s;
        struct work_window w;

        model(&m, &t, f, NULL, 1, 2000000, 0);
        ck_assert_uint_eq(work_capacity(&m, f[0]), UINT64_MAX);
        work_sim_init(&s, &m);
        ck_assert_int_eq(work_sim_add(&s, UINT64_MAX, 2000 * MSEC), 0);
        ck_assert_int_eq(work_sim_add(&s, UINT64_MAX, 4000 * MSEC), 0);
        ck_assert(s.backlog == (work_u128) UINT64_MAX * 2);
        ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        ck_assert_uint_eq(w.done, UINT64_MAX);
        /* (2^64 - 1) / 2^63 s = 1.99999999999999999989 s: 2,000,000,000 ns rounded up. */
        ck_assert_uint_eq(w.busy_ns, 2000000000);
        ck_assert_uint_eq(w.missed, 0);
        ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        ck_assert_uint_eq(w.done, UINT64_MAX);
        ck_assert(s.backlog == 0);
        ck_assert(s.done == (work_u128) UINT64_MAX * 2);
        ck_assert_uint_eq(s.misses, 0);
        /* V is 1 at the only point: the energy is the cycles done. */
        ck_assert(close_to(s.energy, 2.0L * (long double) UINT64_MAX));
        work_sim_done(&s);
        done(&m, &t);
}
END_TEST

START_TEST(test_percentile) {
        static const uint64_t f[] = { 100 * MHZ };
        struct df_opp_table t;
        struct work_model m;
        struct work_sim s;
        struct work_window w;

        model(&m, &t, f, NULL, 1, 10000, 0);
        work_sim_init(&s, &m);
        ck_assert_uint_eq(work_sim_delay_percentile(&s, 50), 0);
        /* Jobs of 1..4 ms, one a window: nearest rank 50 % is the 2nd, 99 % the 4th. */
        for (uint64_t k = 4; k >= 1; k--) {
                ck_assert_int_eq(work_sim_add(&s, k * 100000, 10 * MSEC), 0);
                ck_assert_int_eq(work_sim_window(&s, 0, &w), 0);
        }
        ck_assert_uint_eq(work_sim_delay_percentile(&s, 50), 2 * MSEC);
        ck_assert_uint_eq(work_sim_delay_percentile(&s, 99), 4 * MSEC);
        work_sim_done(&s);
        done(&m, &t);
}
END_TEST

/* --- the optimum ------------------------------------------------------------------------------ */

static void trace_of(struct work_trace *tr, const uint64_t *cycles, const uint64_t *deadlines, size_t n) {
        *tr = (struct work_trace){};
        for (size_t i = 0; i < n; i++)
                ck_assert_int_eq(work_trace_add(tr, cycles[i], deadlines[i]), 0);
}

START_TEST(test_optimum_by_hand) {
        /* 100 MHz and 200 MHz without voltages (V 0.5 and 1), 10 ms windows: 1 and 2 Mcycles. */
        static const uint64_t f[] = { 100 * MHZ, 200 * MHZ };
        static const size_t both[] = { 0, 1 };
        static const uint64_t cycles[] = { 1500000, 500000, 1000000 };
        static const uint64_t due_window[] = { 10 * MSEC, 10 * MSEC, 10 * MSEC };
        static const uint64_t due_later[] = { 20 * MSEC, 10 * MSEC, 10 * MSEC };
        static const uint64_t too_much[] = { 2000001 };
        struct df_opp_table t;
        struct work_model m;
        struct work_trace tr;
        long double e;

        model(&m, &t, f, NULL, 2, 10000, 0);
        /* Each window's work by its end: 200 MHz for the first (1.5 M x 1), then 100 MHz
         * (0.5 M x 0.25 + 1 M x 0.25) = 1,875,000. */
        trace_of(&tr, cycles, due_window, 3);
        ck_assert_int_eq(work_optimum(&m, both, 2, SIZE_MAX, &tr, 0, &e), 1);
        ck_assert(close_to(e, 1875000.0L));
        /* Only the slow point allowed: the first window cannot finish in time. */
        ck_assert_int_eq(work_optimum(&m, both, 1, SIZE_MAX, &tr, 0, &e), 0);
        work_trace_done(&tr);

        /* The first job due at 20 ms: 100 MHz throughout carries 0.5 M over and still meets every
         * deadline (the first job ends at 15 ms, the second at 20 ms): 3 M x 0.25 = 750,000. */
        trace_of(&tr, cycles, due_later, 3);
        ck_assert_int_eq(work_optimum(&m, both, 2, SIZE_MAX, &tr, 0, &e), 1);
        ck_assert(close_to(e, 750000.0L));
        /* A governor's first window runs where the device started. From 200 MHz: 1.5 M x 1 there,
         * then 100 MHz (0.5 M x 0.25 + 1 M x 0.25) = 1,875,000; from 100 MHz, as free. */
        ck_assert_int_eq(work_optimum(&m, both, 2, 1, &tr, 0, &e), 1);
        ck_assert(close_to(e, 1875000.0L));
        ck_assert_int_eq(work_optimum(&m, both, 2, 0, &tr, 0, &e), 1);
        ck_assert(close_to(e, 750000.0L));
        work_trace_done(&tr);

        /* Work due within the first window: a start at 100 MHz misses it, whatever follows. */
        trace_of(&tr, cycles, due_window, 3);
        ck_assert_int_eq(work_optimum(&m, both, 2, 0, &tr, 0, &e), 0);
        ck_assert_int_eq(work_optimum(&m, both, 2, 1, &tr, 0, &e), 1);
        ck_assert(close_to(e, 1875000.0L));
        work_trace_done(&tr);

        trace_of(&tr, too_much, due_window, 1);
        ck_assert_int_eq(work_optimum(&m, both, 2, SIZE_MAX, &tr, 0, &e), 0);
        work_trace_done(&tr);

        /* Past the states it may examine (2 for the first window, up to 4 for the second), the search
         * stops: -E2BIG, and *ret untouched. */
        trace_of(&tr, cycles, due_later, 3);
        e = -1.0L;
        ck_assert_int_eq(work_optimum(&m, both, 2, SIZE_MAX, &tr, 3, &e), -E2BIG);
        ck_assert(e == -1.0L);
        ck_assert_int_eq(work_optimum(&m, both, 2, SIZE_MAX, &tr, 100, &e), 1);
        ck_assert(close_to(e, 750000.0L));
        work_trace_done(&tr);
        done(&m, &t);

        /* Static power 0.1 of 200 MHz x 1 V^2 for 10 ms: 200,000 x V a window. */
        model(&m, &t, f, NULL, 2, 10000, 0.1L);
        trace_of(&tr, cycles, due_window, 3);
        ck_assert_int_eq(work_optimum(&m, both, 2, SIZE_MAX, &tr, 0, &e), 1);
        ck_assert(close_to(e, 1875000.0L + 200000.0L + 100000.0L + 100000.0L));
        work_trace_done(&tr);
        done(&m, &t);
}
END_TEST

/* The least energy over every sequence of `len` points whose first is `first` (SIZE_MAX: any);
 * windows after the trace only while work is left. Returns whether any sequence had no miss. */
static bool brute_force(
        const struct work_model *m, const struct work_trace *tr, size_t first, size_t len, long double *best) {
        size_t n_seq = 1;
        bool found = false;

        for (size_t i = 0; i < len; i++)
                n_seq *= m->n;
        for (size_t code = 0; code < n_seq; code++) {
                struct work_sim s;
                struct work_window w;
                size_t c = code;
                bool valid = first >= m->n || code % m->n == first;

                work_sim_init(&s, m);
                for (size_t k = 0; k < len && valid; k++) {
                        if (k < tr->n)
                                ck_assert_int_eq(work_sim_add(&s, tr->cycles[k], tr->deadline_ns[k]), 0);
                        else if (s.backlog == 0)
                                valid = false; /* the run would have ended */
                        if (valid)
                                ck_assert_int_eq(work_sim_window(&s, c % m->n, &w), 0);
                        c /= m->n;
                }
                if (valid && s.backlog == 0 && s.misses == 0 && (!found || s.energy < *best)) {
                        *best = s.energy;
                        found = true;
                }
                work_sim_done(&s);
        }
        return found;
}

START_TEST(test_optimum_brute_force) {
        static const uint64_t deadlines[] = { 5 * MSEC, 10 * MSEC, 15 * MSEC, 25 * MSEC };
        unsigned seed = 12345;
        int feasible = 0;

        for (int round = 0; round < 400; round++) {
                uint64_t f[4];
                uint32_t uv[4];
                size_t n_points = 2 + (size_t) (rand_r(&seed) % 3), all[4] = { 0, 1, 2, 3 }, first;
                bool volts = rand_r(&seed) % 2, found = false;
                struct df_opp_table t;
                struct work_model m;
                struct work_trace tr = {};
                long double opt = 0, best = 0;
                int r;

                for (size_t i = 0; i < n_points; i++) {
                        f[i] = (uint64_t) (50 + 100 * i + (size_t) (rand_r(&seed) % 90)) * MHZ;
                        /* Rising voltages, or shared ones, or a faster point at a lower one: the
                         * optimum's pruning must hold for any table. */
                        uv[i] = rand_r(&seed) % 2 ?
                                700000 + 100000 * (uint32_t) i + (uint32_t) (rand_r(&seed) % 50000) :
                                700000 + 100000 * (uint32_t) (rand_r(&seed) % 3);
                }
                model(&m, &t, f, volts ? uv : NULL, n_points, 10000, (rand_r(&seed) % 3) * 0.1L);
                for (size_t k = 0, n = 1 + (size_t) (rand_r(&seed) % (n_points == 4 ? 3 : 4)); k < n; k++)
                        ck_assert_int_eq(
                                work_trace_add(
                                        &tr, (uint64_t) (rand_r(&seed) % 3000000),
                                        deadlines[rand_r(&seed) % ELEMENTSOF(deadlines)]),
                                0);
                /* The first window at any point, or at a given one as under a governor. */
                first = rand_r(&seed) % 2 ? SIZE_MAX : (size_t) (rand_r(&seed) % n_points);
                r = work_optimum(&m, all, n_points, first, &tr, 0, &opt);
                ck_assert_int_ge(r, 0);
                /* Deadlines reach at most 25 ms past the last window's start: two windows more. */
                for (size_t len = tr.n; len <= tr.n + 2; len++) {
                        long double e = 0;
                        if (brute_force(&m, &tr, first, len, &e) && (!found || e < best)) {
                                best = e;
                                found = true;
                        }
                }
                ck_assert_msg(
                        r == found, "round %d (first %zu): optimum says %d, brute force %d", round, first, r,
                        found);
                feasible += found;
                if (found)
                        ck_assert_msg(
                                close_to(opt, best), "round %d: optimum %.6Lg, brute force %.6Lg", round, opt,
                                best);
                work_trace_done(&tr);
                done(&m, &t);
        }
        /* Both outcomes are exercised. */
        ck_assert_msg(feasible > 50 && feasible < 350, "%d of 400 traces feasible", feasible);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("replay-work");
        TCase *tc = tcase_create("core");

        tcase_add_test(tc, test_capacity);
        tcase_add_test(tc, test_carry_over);
        tcase_add_test(tc, test_deadline_by_one_cycle);
        tcase_add_test(tc, test_static_power);
        tcase_add_test(tc, test_volts_proportional);
        tcase_add_test(tc, test_64bit_cycles);
        tcase_add_test(tc, test_percentile);
        tcase_add_test(tc, test_optimum_by_hand);
        tcase_add_test(tc, test_optimum_brute_force);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
