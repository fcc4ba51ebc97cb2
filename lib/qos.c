/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PM QoS request lists: one binary heap a type, the aggregate at the root, notifier on aggregate change. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
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

void df_qos_init(struct df_qos *q) {
        *q = (struct df_qos){};
}

void df_qos_done(struct df_qos *q) {
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++) {
                struct df_qos_list *l = &q->lists[t];

                for (size_t i = 0; i < l->n; i++) {
                        l->heap[i]->qos = NULL;
                        l->heap[i]->heap_index = 0;
                }
                free(l->heap);
        }
        *q = (struct df_qos){};
}

void df_qos_set_notifier(struct df_qos *q, df_qos_notify_t notify, void *userdata) {
        q->notify = notify;
        q->notify_userdata = userdata;
}

/*
 * kernel: pm_qos_update_target(): the min-frequency list aggregates to its largest request
 * (a max-heap), the max-frequency and latency lists to their smallest (min-heaps).
 */
static bool heap_before(enum df_qos_type type, uint64_t a, uint64_t b) {
        return type == DF_QOS_MIN_FREQUENCY ? a > b : a < b;
}

static void heap_place(struct df_qos_list *l, size_t i, struct df_qos_request *req) {
        l->heap[i] = req;
        req->heap_index = i;
}

static void heap_sift_up(struct df_qos_list *l, enum df_qos_type type, size_t i) {
        struct df_qos_request *req = l->heap[i];

        while (i > 0) {
                size_t parent = (i - 1) / 2;

                if (!heap_before(type, req->value, l->heap[parent]->value))
                        break;
                heap_place(l, i, l->heap[parent]);
                i = parent;
        }
        heap_place(l, i, req);
}

static void heap_sift_down(struct df_qos_list *l, enum df_qos_type type, size_t i) {
        struct df_qos_request *req = l->heap[i];

        for (;;) {
                size_t child = 2 * i + 1;

                if (child >= l->n)
                        break;
                if (child + 1 < l->n && heap_before(type, l->heap[child + 1]->value, l->heap[child]->value))
                        child++;
                if (!heap_before(type, l->heap[child]->value, req->value))
                        break;
                heap_place(l, i, l->heap[child]);
                i = child;
        }
        heap_place(l, i, req);
}

/* Restore the heap around position i after its value changed in either direction. */
static void heap_fix(struct df_qos_list *l, enum df_qos_type type, size_t i) {
        if (i > 0 && heap_before(type, l->heap[i]->value, l->heap[(i - 1) / 2]->value))
                heap_sift_up(l, type, i);
        else
                heap_sift_down(l, type, i);
}

static uint64_t list_value(const struct df_qos_list *l, enum df_qos_type type) {
        return l->n > 0 ? l->heap[0]->value : qos_default[type];
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
        struct df_qos_list *l;
        uint64_t old;
        int r;

        if (!q || !req || !type_valid(type) || df_qos_request_active(req))
                return -EINVAL;
        r = check_value(type, value);
        if (r < 0)
                return r;

        l = &q->lists[type];
        r = GREEDY_GROW(l->heap, l->allocated, l->n + 1);
        if (r < 0)
                return r;

        old = list_value(l, type);
        req->qos = q;
        req->type = type;
        req->value = value;
        l->heap[l->n++] = req;
        heap_sift_up(l, type, l->n - 1);
        return aggregate_changed(q, type, old);
}

/* kernel: freq_qos_update_request(): the same value returns 0 before touching the list. */
int df_qos_update_request(struct df_qos_request *req, uint64_t value) {
        struct df_qos_list *l;
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
        old = list_value(l, req->type);
        req->value = value;
        heap_fix(l, req->type, req->heap_index);
        return aggregate_changed(req->qos, req->type, old);
}

/* kernel: freq_qos_remove_request(); the request keeps its type and value for the caller. */
int df_qos_remove_request(struct df_qos_request *req) {
        struct df_qos_list *l;
        struct df_qos *q;
        size_t i;
        uint64_t old;

        if (!req || !df_qos_request_active(req))
                return -EINVAL;

        q = req->qos;
        l = &q->lists[req->type];
        old = list_value(l, req->type);
        i = req->heap_index;
        l->n--;
        if (i < l->n) {
                heap_place(l, i, l->heap[l->n]);
                heap_fix(l, req->type, i);
        }
        req->qos = NULL;
        req->heap_index = 0;
        return aggregate_changed(q, req->type, old);
}

uint64_t df_qos_read_value(const struct df_qos *q, enum df_qos_type type) {
        if (!type_valid(type))
                return 0;
        if (!q)
                return qos_default[type];
        return list_value(&q->lists[type], type);
}

size_t df_qos_count(const struct df_qos *q, enum df_qos_type type) {
        if (!q || !type_valid(type))
                return 0;
        return q->lists[type].n;
}
