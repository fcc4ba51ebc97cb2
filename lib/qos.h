/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-device PM QoS request lists: three types, O(1) aggregates, notifier on aggregate change. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap.h"

enum df_qos_type {
        DF_QOS_MIN_FREQUENCY, /* Hz; aggregate = the largest request */
        DF_QOS_MAX_FREQUENCY, /* Hz; aggregate = the smallest request */
        DF_QOS_LATENCY,       /* µs; aggregate = the smallest request */
        _DF_QOS_TYPE_MAX,
        _DF_QOS_TYPE_INVALID = -22, /* -EINVAL */
};

/* Aggregates of empty lists: no floor, no ceiling, no latency constraint. */
#define DF_QOS_MIN_FREQUENCY_DEFAULT UINT64_C(0)
#define DF_QOS_MAX_FREQUENCY_DEFAULT UINT64_MAX
#define DF_QOS_LATENCY_DEFAULT UINT64_C(0xffffffff)

/* "min-frequency", "max-frequency", "latency". */
const char *df_qos_type_to_string(enum df_qos_type t);
enum df_qos_type df_qos_type_from_string(const char *s);

struct df_qos;

/* A request; the caller owns the memory (embed it), the list only links it. */
struct df_qos_request {
        struct df_qos *qos; /* NULL while inactive */
        enum df_qos_type type;
        uint64_t value;
        size_t heap_index;   /* the list's: its place in the heap + 1, 0 while inactive */
        uint64_t bound_usec; /* binding time credited so far (lib/qos-binding.c), kept across lists */
};

typedef void (*df_qos_notify_t)(struct df_qos *qos, enum df_qos_type type, uint64_t aggregate, void *userdata);

/* Which request of each type binds (its value is the aggregate) since when (lib/qos-binding.c). */
typedef uint64_t (*df_qos_clock_t)(void);
struct df_qos_binding {
        df_qos_clock_t clock; /* µs; NULL: no accounting */
        struct df_qos_request *binder[_DF_QOS_TYPE_MAX];
        uint64_t since[_DF_QOS_TYPE_MAX];
        /* The aggregate decides nothing now (another bound sets the device's range): no binder. */
        bool outranked[_DF_QOS_TYPE_MAX];
};

struct df_qos {
        struct df_heap lists[_DF_QOS_TYPE_MAX]; /* of struct df_qos_request, the aggregate at the top */
        df_qos_notify_t notify;
        void *notify_userdata;
        struct df_qos_binding binding;
};

void df_qos_init(struct df_qos *q);
/* Frees the lists; requests still linked become inactive. */
void df_qos_done(struct df_qos *q);
void df_qos_set_notifier(struct df_qos *q, df_qos_notify_t notify, void *userdata);

/*
 * kernel: freq_qos_add_request() / _update_request() / _remove_request(). Return 1 when the
 * aggregate of that type changed (the notifier has run with the new value), 0 when it did not
 * (no notification), or a negative errno: -EINVAL for an unknown type or a request already
 * active (add) or inactive (update, remove); -ERANGE for a latency above UINT32_MAX; -ENOMEM.
 * An update to the value a request already has returns 0 at once. O(log n).
 */
int df_qos_add_request(struct df_qos *q, struct df_qos_request *req, enum df_qos_type type, uint64_t value);
int df_qos_update_request(struct df_qos_request *req, uint64_t value);
int df_qos_remove_request(struct df_qos_request *req);

static inline bool df_qos_request_active(const struct df_qos_request *req) {
        return req->qos != NULL;
}

/* The aggregate, O(1); the default when the list is empty. */
uint64_t df_qos_read_value(const struct df_qos *q, enum df_qos_type type);
size_t df_qos_count(const struct df_qos *q, enum df_qos_type type);
/* Whether the list's requests constrain anything: the aggregate is not the list's default. A
 * request at the default ("no floor", "no ceiling", "any latency") says nothing, and adding or
 * removing it notifies nobody; so whatever depends on requests asks this, never the count. */
bool df_qos_constrains(const struct df_qos *q, enum df_qos_type type);
