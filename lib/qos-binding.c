/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Binding time of QoS requests: credited when the top of a list changes, or when its aggregate
 * starts or stops deciding the device's range. */

#include <stdbool.h>
#include <time.h>

#include "heap.h"
#include "qos-binding.h"

uint64_t df_qos_binding_clock(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * UINT64_C(1000000) + (uint64_t) ts.tv_nsec / 1000;
}

static void credit(struct df_qos_binding *b, enum df_qos_type t, uint64_t now) {
        if (b->binder[t] && now > b->since[t])
                b->binder[t]->bound_usec += now - b->since[t];
        b->since[t] = now;
}

void df_qos_binding_settle(struct df_qos *q, enum df_qos_type type) {
        struct df_qos_binding *b = &q->binding;
        struct df_qos_request *top;

        if (!b->clock || type < 0 || type >= _DF_QOS_TYPE_MAX)
                return;
        top = b->outranked[type] ? NULL : df_heap_peek(&q->lists[type]);
        if (top == b->binder[type])
                return;
        credit(b, type, b->clock());
        b->binder[type] = top;
}

void df_qos_binding_decides(struct df_qos *q, enum df_qos_type type, bool decides) {
        if (type < 0 || type >= _DF_QOS_TYPE_MAX || q->binding.outranked[type] == !decides)
                return;
        q->binding.outranked[type] = !decides;
        df_qos_binding_settle(q, type);
}

void df_qos_binding_stop(struct df_qos *q) {
        struct df_qos_binding *b = &q->binding;

        if (!b->clock)
                return;
        uint64_t now = b->clock();
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++) {
                credit(b, (enum df_qos_type) t, now);
                b->binder[t] = NULL;
        }
}

void df_qos_set_clock(struct df_qos *q, df_qos_clock_t clock) {
        df_qos_binding_stop(q);
        q->binding.clock = clock;
        if (!clock)
                return;
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++)
                df_qos_binding_settle(q, (enum df_qos_type) t);
}

bool df_qos_request_binds(const struct df_qos_request *req) {
        return req->qos && req->qos->binding.clock && req->qos->binding.binder[req->type] == req;
}

uint64_t df_qos_binding_time(const struct df_qos_request *req) {
        const struct df_qos_binding *b;
        uint64_t now;

        if (!df_qos_request_binds(req))
                return req->bound_usec;
        b = &req->qos->binding;
        now = b->clock();
        return req->bound_usec + (now > b->since[req->type] ? now - b->since[req->type] : 0);
}
