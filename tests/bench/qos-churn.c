/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The QoS request lists alone (lib/qos.c on lib/heap.c): the cost of an update or a remove and
 * add, the operations under AddRequest, Update and Remove, with 10 to 10,000 requests a device.
 *
 *   qos-churn [OPS]
 *
 * One row per list size, its figure beside the one at 10 requests (the lists are heaps: the cost
 * may grow with the logarithm of their size, not with it). Best of 5 runs, on one core.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "qos.h"
#include "units.h"

/* A 64-bit LCG's high bits: the same operations at every run. */
static uint64_t next_random(uint64_t *state) {
        *state = *state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
        return *state >> 16;
}

/* Two updates for every remove and add, on requests picked at random among all three types. */
static void churn(struct df_qos *q, struct df_qos_request *reqs, size_t n, size_t ops, uint64_t *state) {
        for (size_t k = 0; k < ops; k++) {
                struct df_qos_request *req = &reqs[next_random(state) % n];
                uint64_t value = next_random(state) % 4000000000;

                if (k % 3 == 0) {
                        enum df_qos_type type = req->type;

                        (void) df_qos_remove_request(req);
                        (void) df_qos_add_request(q, req, type, value);
                } else
                        (void) df_qos_update_request(req, value);
        }
}

/* Nanoseconds an operation with `n` requests on the lists, the best of 5 runs of `ops`. */
static double per_op_ns(size_t n, size_t ops) {
        struct df_qos_request *reqs = calloc(n, sizeof(*reqs));
        uint64_t state = UINT64_C(0x9e3779b97f4a7c15);
        struct df_qos q;
        double best = 0;

        if (!reqs) {
                fprintf(stderr, "qos-churn: out of memory\n");
                exit(EXIT_FAILURE);
        }
        df_qos_init(&q);
        for (size_t i = 0; i < n; i++)
                (void) df_qos_add_request(
                        &q, &reqs[i], (enum df_qos_type)(i % _DF_QOS_TYPE_MAX),
                        next_random(&state) % 4000000000);
        for (int run = 0; run < 5; run++) {
                uint64_t t0 = df_now_usec(CLOCK_MONOTONIC);
                double ns;

                churn(&q, reqs, n, ops, &state);
                ns = (double) (df_now_usec(CLOCK_MONOTONIC) - t0) * 1000 / (double) ops;
                if (run == 0 || ns < best)
                        best = ns;
        }
        df_qos_done(&q);
        free(reqs);
        return best;
}

int main(int argc, char *argv[]) {
        static const size_t levels[] = { 10, 100, 1000, 10000 };
        uint64_t ops = 2000000;
        double at10 = 0;

        if (argc > 2 || (argc == 2 && (df_safe_atou64(argv[1], &ops) < 0 || ops == 0))) {
                fprintf(stderr, "usage: qos-churn [OPS]: OPS a positive count of operations\n");
                return EXIT_FAILURE;
        }
        printf("%-44s %14s %14s %8s\n", "figure", "measured", "reference", "ratio");
        for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
                double ns = per_op_ns(levels[i], (size_t) ops);
                char figure[64], measured[32], reference[32];

                if (i == 0)
                        at10 = ns;
                snprintf(figure, sizeof(figure), "QoS list op, %zu requests, ns", levels[i]);
                snprintf(measured, sizeof(measured), "%.1f", ns);
                snprintf(reference, sizeof(reference), "at 10: %.1f", at10);
                printf("%-44s %14s %14s %7.2fx\n", figure, measured, reference, ns / at10);
        }
        return EXIT_SUCCESS;
}
