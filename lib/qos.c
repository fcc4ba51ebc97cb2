/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PM QoS request lists: one binary heap a type, the aggregate at the root, notifier on aggregate change. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "macro.h"
#include "qos-binding.h"
#include "qos.h"

static const char *const qos_type_table[_DF_QOS_TYPE_MAX] = {
        [DF_QOS_MIN_FREQUENCY] = "min-frequency",
        [DF_QOS_MAX_FREQUENCY] = "max-frequency",
        [DF_QOS_LATENCY] = "latency",
};

static const uint64_t qos_default[_DF_QOS_TYPE_MAX] = {
        [DF_QOS_MIN_FREQUENCY] = DF_QOS_MIN_FREQUENCY_DEFAULT,
        [DF_QOS_MAX_FREQUENCY] = DF_QOS_MAX_FREQUENCY_DEFAULT,
        [DF_QOS_LATENCY] = DF_QOS_LATENCY_DEFAULT,
};

static bool type_valid(enum df_qos_type t) {
        return t >= 0 && t < _DF_QOS_TYPE_MAX;
}

DEFINE_STRING_TABLE(df_qos_type, enum df_qos_type, qos_type_table, _DF_QOS_TYPE_MAX, _DF_QOS_TYPE_INVALID)

static bool value_above(const void *a, const void *b) {
        return ((const struct df_qos_request *) a)->value > ((const struct df_qos_request *) b)->value;
}

static bool value_below(const void *a, const void *b) {
        return ((const struct df_qos_request *) a)->value < ((const struct df_qos_request *) b)->value;
}

/*
 * kernel: pm_qos_update_target(): the min-frequency list aggregates to its largest request
 * (a max-heap), the max-frequency and latency lists to their smallest (min-heaps).
 */
static const struct df_heap_ops qos_heap_ops[_DF_QOS_TYPE_MAX] = {
        [DF_QOS_MIN_FREQUENCY] = { value_above, offsetof(struct df_qos_request, heap_index) },
        [DF_QOS_MAX_FREQUENCY] = { value_below, offsetof(struct df_qos_request, heap_index) },
        [DF_QOS_LATENCY] = { value_below, offsetof(struct df_qos_request, heap_index) },
};

void df_qos_init(struct df_qos *q) {
        *q = (struct df_qos){};
        q->binding.clock = df_qos_binding_clock;
}

void df_qos_done(struct df_qos *q) {
        df_qos_binding_stop(q);
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++) {
                struct df_heap *l = &q->lists[t];

                for (size_t i = 0; i < l->n; i++)
                        ((struct df_qos_request *) l->items[i])->qos = NULL;
                df_heap_done(l, &qos_heap_ops[t]);
        }
        *q = (struct df_qos){};
}

void df_qos_set_notifier(struct df_qos *q, df_qos_notify_t notify, void *userdata) {
        q->notify = notify;
        q->notify_userdata = userdata;
}

static uint64_t list_value(const struct df_heap *l, enum df_qos_type type) {
        const struct df_qos_request *top = df_heap_peek(l);

        return top ? top->value : qos_default[type];
}

static int check_value(enum df_qos_type type, uint64_t value) {
        if (type == DF_QOS_LATENCY && value > UINT32_MAX)
                return -ERANGE;
        return 0;
}

/* kernel: pm_qos_update_target()'s tail: 1 and the notifier with the new aggregate only on a change. */
static int aggregate_changed(struct df_qos *q, enum df_qos_type type, uint64_t old) {
        uint64_t now = list_value(&q->lists[type], type);

        if (now == old)
                return 0;
        if (q->notify)
                q->notify(q, type, now, q->notify_userdata);
        return 1;
}

/* kernel: freq_qos_add_request() */
int df_qos_add_request(struct df_qos *q, struct df_qos_request *req, enum df_qos_type type, uint64_t value) {
        struct df_qos_request saved;
        struct df_heap *l;
        uint64_t old;
        int r;

        if (!q || !req || !type_valid(type) || df_qos_request_active(req))
                return -EINVAL;
        r = check_value(type, value);
        if (r < 0)
                return r;

        l = &q->lists[type];
        old = list_value(l, type);
        saved = *req;
        req->type = type;
        req->value = value;
        r = df_heap_push(l, &qos_heap_ops[type], req);
        if (r < 0) {
                *req = saved; /* as it was: the caller's, inactive */
                return r;
        }
        req->qos = q;
        df_qos_binding_settle(q, type);
        return aggregate_changed(q, type, old);
}

/* kernel: freq_qos_update_request(): the same value returns 0 before touching the list. */
int df_qos_update_request(struct df_qos_request *req, uint64_t value) {
        const struct df_heap_ops *ops;
        struct df_heap *l;
        uint64_t old;
        int r;

        if (!req || !df_qos_request_active(req))
                return -EINVAL;
        r = check_value(req->type, value);
        if (r < 0)
                return r;
        if (value == req->value)
                return 0;

        l = &req->qos->lists[req->type];
        ops = &qos_heap_ops[req->type];
        old = list_value(l, req->type);
        req->value = value;
        df_heap_fix_at(l, ops, df_heap_index(ops, req));
        df_qos_binding_settle(req->qos, req->type);
        return aggregate_changed(req->qos, req->type, old);
}

/* kernel: freq_qos_remove_request(); the request keeps its type and value for the caller. */
int df_qos_remove_request(struct df_qos_request *req) {
        const struct df_heap_ops *ops;
        struct df_heap *l;
        struct df_qos *q;
        uint64_t old;

        if (!req || !df_qos_request_active(req))
                return -EINVAL;

        q = req->qos;
        l = &q->lists[req->type];
        ops = &qos_heap_ops[req->type];
        old = list_value(l, req->type);
        (void) df_heap_remove_at(l, ops, df_heap_index(ops, req));
        df_qos_binding_settle(q, req->type);
        req->qos = NULL;
        return aggregate_changed(q, req->type, old);
}

uint64_t df_qos_read_value(const struct df_qos *q, enum df_qos_type type) {
        if (!type_valid(type))
                return 0;
        if (!q)
                return qos_default[type];
        return list_value(&q->lists[type], type);
}

bool df_qos_constrains(const struct df_qos *q, enum df_qos_type type) {
        return type_valid(type) && df_qos_read_value(q, type) != qos_default[type];
}

size_t df_qos_count(const struct df_qos *q, enum df_qos_type type) {
        if (!q || !type_valid(type))
                return 0;
        return q->lists[type].n;
}
