/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* QoS request lists: aggregates, notifications only on aggregate change, errors, and a long random churn. */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "macro.h"
#include "qos.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define U64_MAX UINT64_C(18446744073709551615)
#define U32_MAX UINT64_C(4294967295)

struct recorder {
        size_t n;
        size_t per_type[_DF_QOS_TYPE_MAX];
        enum df_qos_type type;
        uint64_t aggregate;
        struct df_qos *qos;
        uint64_t read_back; /* df_qos_read_value() from inside the notifier */
};

static void record(struct df_qos *q, enum df_qos_type type, uint64_t aggregate, void *userdata) {
        struct recorder *rec = userdata;

        ck_assert(type >= 0 && type < _DF_QOS_TYPE_MAX);
        rec->n++;
        rec->per_type[type]++;
        rec->type = type;
        rec->aggregate = aggregate;
        rec->qos = q;
        rec->read_back = df_qos_read_value(q, type);
}

static void setup(struct df_qos *q, struct recorder *rec) {
        *rec = (struct recorder){};
        df_qos_init(q);
        df_qos_set_notifier(q, record, rec);
}

START_TEST(test_type_strings) {
        static const struct {
                enum df_qos_type type;
                const char *name;
        } table[] = {
                { DF_QOS_MIN_FREQUENCY, "min-frequency" },
                { DF_QOS_MAX_FREQUENCY, "max-frequency" },
                { DF_QOS_LATENCY, "latency" },
        };

        ck_assert_int_eq(ELEMENTSOF(table), _DF_QOS_TYPE_MAX);
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                ck_assert_str_eq(df_qos_type_to_string(table[i].type), table[i].name);
                ck_assert_int_eq(df_qos_type_from_string(table[i].name), table[i].type);
        }
        ck_assert_ptr_null(df_qos_type_to_string(_DF_QOS_TYPE_MAX));
        ck_assert_ptr_null(df_qos_type_to_string(_DF_QOS_TYPE_INVALID));
        ck_assert_ptr_null(df_qos_type_to_string((enum df_qos_type) - 1));
        ck_assert_int_eq(df_qos_type_from_string(NULL), _DF_QOS_TYPE_INVALID);
        ck_assert_int_eq(df_qos_type_from_string(""), _DF_QOS_TYPE_INVALID);
        ck_assert_int_eq(df_qos_type_from_string("min"), _DF_QOS_TYPE_INVALID);
        ck_assert_int_eq(df_qos_type_from_string("Latency"), _DF_QOS_TYPE_INVALID);
        ck_assert_int_eq(df_qos_type_from_string("latency "), _DF_QOS_TYPE_INVALID);
        ck_assert_int_eq(df_qos_type_from_string("min-frequencyx"), _DF_QOS_TYPE_INVALID);
        ck_assert_int_eq(_DF_QOS_TYPE_INVALID, -EINVAL);
}
END_TEST

START_TEST(test_defaults) {
        struct df_qos q;
        struct recorder rec;

        setup(&q, &rec);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MIN_FREQUENCY), 0);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MAX_FREQUENCY), U64_MAX);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_LATENCY), U32_MAX);
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++)
                ck_assert_uint_eq(df_qos_count(&q, (enum df_qos_type) t), 0);
        /* Without lists (the kernel's NULL qos) the defaults too. */
        ck_assert_uint_eq(df_qos_read_value(NULL, DF_QOS_MIN_FREQUENCY), 0);
        ck_assert_uint_eq(df_qos_read_value(NULL, DF_QOS_MAX_FREQUENCY), U64_MAX);
        ck_assert_uint_eq(df_qos_read_value(NULL, DF_QOS_LATENCY), U32_MAX);
        ck_assert_uint_eq(df_qos_count(NULL, DF_QOS_LATENCY), 0);
        ck_assert_uint_eq(df_qos_count(&q, _DF_QOS_TYPE_MAX), 0);
        ck_assert_uint_eq(df_qos_count(&q, _DF_QOS_TYPE_INVALID), 0);
        ck_assert_uint_eq(rec.n, 0);
        df_qos_done(&q);
}
END_TEST

START_TEST(test_aggregates) {
        struct df_qos_request mins[3] = {}, maxs[3] = {}, lats[3] = {};
        static const uint64_t vals[3] = { 300 * MHZ, 100 * MHZ, 200 * MHZ };
        struct df_qos q;
        struct recorder rec;

        setup(&q, &rec);
        for (size_t i = 0; i < 3; i++) {
                ck_assert_int_ge(df_qos_add_request(&q, &mins[i], DF_QOS_MIN_FREQUENCY, vals[i]), 0);
                ck_assert_int_ge(df_qos_add_request(&q, &maxs[i], DF_QOS_MAX_FREQUENCY, vals[i]), 0);
                ck_assert_int_ge(df_qos_add_request(&q, &lats[i], DF_QOS_LATENCY, vals[i] / 1000), 0);
                ck_assert(df_qos_request_active(&mins[i]));
        }
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MIN_FREQUENCY), 300 * MHZ); /* the largest */
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MAX_FREQUENCY), 100 * MHZ); /* the smallest */
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_LATENCY), 100000);          /* the smallest */
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++)
                ck_assert_uint_eq(df_qos_count(&q, (enum df_qos_type) t), 3);
        /* Each list notified once for its first request, then only when its aggregate moved. */
        ck_assert_uint_eq(rec.per_type[DF_QOS_MIN_FREQUENCY], 1); /* 300 first, the largest */
        ck_assert_uint_eq(rec.per_type[DF_QOS_MAX_FREQUENCY], 2); /* 300, then 100 */
        ck_assert_uint_eq(rec.per_type[DF_QOS_LATENCY], 2);

        /* Lowering the top min request hands the aggregate to the next. */
        ck_assert_int_eq(df_qos_update_request(&mins[0], 50 * MHZ), 1);
        ck_assert_int_eq(rec.type, DF_QOS_MIN_FREQUENCY);
        ck_assert_uint_eq(rec.aggregate, 200 * MHZ);
        ck_assert_uint_eq(rec.read_back, 200 * MHZ); /* already in force when the listener runs */
        ck_assert_ptr_eq(rec.qos, &q);
        /* Raising the bottom max request likewise. */
        ck_assert_int_eq(df_qos_update_request(&maxs[1], 900 * MHZ), 1);
        ck_assert_uint_eq(rec.aggregate, 200 * MHZ);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MAX_FREQUENCY), 200 * MHZ);

        /* Latency requests may be as large as UINT32_MAX. */
        ck_assert_int_eq(df_qos_update_request(&lats[1], U32_MAX), 1);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_LATENCY), 200000);
        ck_assert_int_eq(df_qos_remove_request(&lats[0]), 0);
        ck_assert_int_eq(df_qos_remove_request(&lats[2]), 1);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_LATENCY), U32_MAX);
        ck_assert_int_eq(df_qos_remove_request(&lats[1]), 0); /* the default is the same value */
        ck_assert(!df_qos_request_active(&lats[1]));

        for (size_t i = 0; i < 3; i++) {
                ck_assert_int_ge(df_qos_remove_request(&mins[i]), 0);
                ck_assert_int_ge(df_qos_remove_request(&maxs[i]), 0);
        }
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MIN_FREQUENCY), 0);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MAX_FREQUENCY), U64_MAX);
        ck_assert_uint_eq(rec.aggregate, U64_MAX);
        df_qos_done(&q);
}
END_TEST

/* The README's paragraph, step by step. */
START_TEST(test_readme_notifications) {
        struct df_qos_request a = {}, b = {};
        struct df_qos q;
        struct recorder rec;

        setup(&q, &rec);
        ck_assert_int_eq(df_qos_add_request(&q, &a, DF_QOS_MIN_FREQUENCY, 100 * MHZ), 1);
        ck_assert_uint_eq(rec.n, 1);
        ck_assert_int_eq(rec.type, DF_QOS_MIN_FREQUENCY);
        ck_assert_uint_eq(rec.aggregate, 100 * MHZ);

        /* A min request of 50 MHz beside one of 100 MHz notifies nobody. */
        ck_assert_int_eq(df_qos_add_request(&q, &b, DF_QOS_MIN_FREQUENCY, 50 * MHZ), 0);
        ck_assert_uint_eq(rec.n, 1);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MIN_FREQUENCY), 100 * MHZ);

        /* Updating a request to the value it already has notifies nobody. */
        ck_assert_int_eq(df_qos_update_request(&a, 100 * MHZ), 0);
        ck_assert_int_eq(df_qos_update_request(&b, 50 * MHZ), 0);
        ck_assert_uint_eq(rec.n, 1);

        /* Removing the request that set the aggregate notifies with the new one. */
        ck_assert_int_eq(df_qos_remove_request(&a), 1);
        ck_assert_uint_eq(rec.n, 2);
        ck_assert_int_eq(rec.type, DF_QOS_MIN_FREQUENCY);
        ck_assert_uint_eq(rec.aggregate, 50 * MHZ);

        /* And the last one, back to the default. */
        ck_assert_int_eq(df_qos_remove_request(&b), 1);
        ck_assert_uint_eq(rec.n, 3);
        ck_assert_uint_eq(rec.aggregate, 0);

        /* Other lists were never told. */
        ck_assert_uint_eq(rec.per_type[DF_QOS_MAX_FREQUENCY], 0);
        ck_assert_uint_eq(rec.per_type[DF_QOS_LATENCY], 0);
        df_qos_done(&q);
}
END_TEST

START_TEST(test_update_and_remove_without_change) {
        struct df_qos_request a = {}, b = {}, c = {};
        struct df_qos q;
        struct recorder rec;

        setup(&q, &rec);
        ck_assert_int_eq(df_qos_add_request(&q, &a, DF_QOS_MAX_FREQUENCY, 400 * MHZ), 1);
        ck_assert_int_eq(df_qos_add_request(&q, &b, DF_QOS_MAX_FREQUENCY, 400 * MHZ), 0); /* a tie */
        ck_assert_int_eq(df_qos_add_request(&q, &c, DF_QOS_MAX_FREQUENCY, 600 * MHZ), 0);
        ck_assert_uint_eq(rec.n, 1);
        /* The tie still holds the aggregate. */
        ck_assert_int_eq(df_qos_remove_request(&a), 0);
        ck_assert_int_eq(df_qos_update_request(&c, 700 * MHZ), 0);
        ck_assert_uint_eq(rec.n, 1);
        /* Moving the only holder up hands the aggregate over. */
        ck_assert_int_eq(df_qos_update_request(&b, 800 * MHZ), 1);
        ck_assert_uint_eq(rec.aggregate, 700 * MHZ);
        /* A max request equal to the default on its own changes nothing. */
        ck_assert_int_eq(df_qos_remove_request(&b), 0);
        ck_assert_int_eq(df_qos_update_request(&c, U64_MAX), 1);
        ck_assert_uint_eq(rec.aggregate, U64_MAX);
        ck_assert_int_eq(df_qos_remove_request(&c), 0);
        ck_assert_int_eq(df_qos_add_request(&q, &c, DF_QOS_MAX_FREQUENCY, U64_MAX), 0);
        ck_assert_uint_eq(rec.n, 3);
        df_qos_done(&q);
}
END_TEST

/* Conflicting requests are reported as they are; the device resolves them. */
START_TEST(test_conflict_as_is) {
        struct df_qos_request lo = {}, hi = {};
        struct df_qos q;
        struct recorder rec;

        setup(&q, &rec);
        ck_assert_int_eq(df_qos_add_request(&q, &lo, DF_QOS_MIN_FREQUENCY, 450 * MHZ), 1);
        ck_assert_int_eq(df_qos_add_request(&q, &hi, DF_QOS_MAX_FREQUENCY, 300 * MHZ), 1);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MIN_FREQUENCY), 450 * MHZ);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MAX_FREQUENCY), 300 * MHZ);
        ck_assert_int_eq(df_qos_update_request(&lo, U64_MAX), 1);
        ck_assert_int_eq(df_qos_update_request(&hi, 0), 1);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MIN_FREQUENCY), U64_MAX);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_MAX_FREQUENCY), 0);
        ck_assert_uint_eq(rec.n, 4);
        df_qos_done(&q);
}
END_TEST

START_TEST(test_errors) {
        struct df_qos_request a = {}, b = {};
        struct df_qos q, other;
        struct recorder rec, rec_other;

        setup(&q, &rec);
        setup(&other, &rec_other);

        /* Invalid types leave the request inactive. */
        ck_assert_int_eq(df_qos_add_request(&q, &a, _DF_QOS_TYPE_MAX, 1), -EINVAL);
        ck_assert_int_eq(df_qos_add_request(&q, &a, _DF_QOS_TYPE_INVALID, 1), -EINVAL);
        ck_assert_int_eq(df_qos_add_request(&q, &a, (enum df_qos_type) - 1, 1), -EINVAL);
        ck_assert_int_eq(df_qos_add_request(&q, &a, (enum df_qos_type) 1000, 1), -EINVAL);
        ck_assert(!df_qos_request_active(&a));
        ck_assert_int_eq(df_qos_add_request(NULL, &a, DF_QOS_LATENCY, 1), -EINVAL);
        ck_assert_int_eq(df_qos_add_request(&q, NULL, DF_QOS_LATENCY, 1), -EINVAL);

        /* Latency above UINT32_MAX. */
        ck_assert_int_eq(df_qos_add_request(&q, &a, DF_QOS_LATENCY, U32_MAX + 1), -ERANGE);
        ck_assert_int_eq(df_qos_add_request(&q, &a, DF_QOS_LATENCY, U64_MAX), -ERANGE);
        ck_assert(!df_qos_request_active(&a));
        ck_assert_uint_eq(df_qos_count(&q, DF_QOS_LATENCY), 0);
        /* Frequencies have no such limit. */
        ck_assert_int_eq(df_qos_add_request(&q, &b, DF_QOS_MIN_FREQUENCY, U32_MAX + 1), 1);

        /* Update and remove of an inactive request. */
        ck_assert_int_eq(df_qos_update_request(&a, 5), -EINVAL);
        ck_assert_int_eq(df_qos_remove_request(&a), -EINVAL);
        ck_assert_int_eq(df_qos_update_request(NULL, 5), -EINVAL);
        ck_assert_int_eq(df_qos_remove_request(NULL), -EINVAL);

        ck_assert_int_eq(df_qos_add_request(&q, &a, DF_QOS_LATENCY, 100), 1);
        ck_assert_uint_eq(rec.n, 2);

        /* Adding an active request, to any list of any device, is refused and changes nothing. */
        ck_assert_int_eq(df_qos_add_request(&q, &a, DF_QOS_LATENCY, 50), -EINVAL);
        ck_assert_int_eq(df_qos_add_request(&q, &a, DF_QOS_MAX_FREQUENCY, 50), -EINVAL);
        ck_assert_int_eq(df_qos_add_request(&other, &a, DF_QOS_LATENCY, 50), -EINVAL);
        ck_assert_ptr_eq(a.qos, &q);
        ck_assert_int_eq(a.type, DF_QOS_LATENCY);
        ck_assert_uint_eq(a.value, 100);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_LATENCY), 100);
        ck_assert_uint_eq(df_qos_count(&q, DF_QOS_LATENCY), 1);
        ck_assert_uint_eq(df_qos_count(&other, DF_QOS_LATENCY), 0);

        /* A latency update above UINT32_MAX is refused and changes nothing. */
        ck_assert_int_eq(df_qos_update_request(&a, U32_MAX + 1), -ERANGE);
        ck_assert_uint_eq(a.value, 100);
        ck_assert_uint_eq(rec.n, 2);

        /* Remove twice. */
        ck_assert_int_eq(df_qos_remove_request(&a), 1);
        ck_assert_int_eq(df_qos_remove_request(&a), -EINVAL);
        ck_assert_int_eq(df_qos_update_request(&a, 100), -EINVAL);
        /* Inactive again, it may join another device. */
        ck_assert_int_eq(df_qos_add_request(&other, &a, DF_QOS_LATENCY, 10), 1);
        ck_assert_uint_eq(rec_other.n, 1);
        ck_assert_uint_eq(rec.n, 3);
        ck_assert_uint_eq(rec_other.per_type[DF_QOS_LATENCY], 1);

        df_qos_done(&q);
        df_qos_done(&other);
        ck_assert(!df_qos_request_active(&a));
        ck_assert(!df_qos_request_active(&b));
}
END_TEST

START_TEST(test_done_deactivates) {
        struct df_qos_request reqs[40] = {};
        struct df_qos q;
        struct recorder rec;

        setup(&q, &rec);
        for (size_t i = 0; i < ELEMENTSOF(reqs); i++)
                ck_assert_int_ge(df_qos_add_request(&q, &reqs[i], (enum df_qos_type)(i % 3), i * 1000), 0);
        ck_assert_int_eq(df_qos_remove_request(&reqs[7]), 0);
        size_t before = rec.n;

        df_qos_done(&q);
        ck_assert_uint_eq(rec.n, before); /* tearing down notifies nobody */
        for (size_t i = 0; i < ELEMENTSOF(reqs); i++) {
                ck_assert(!df_qos_request_active(&reqs[i]));
                ck_assert_int_eq(df_qos_remove_request(&reqs[i]), -EINVAL);
        }
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++)
                ck_assert_uint_eq(df_qos_count(&q, (enum df_qos_type) t), 0);

        /* The lists can be used again, and the requests with them. */
        df_qos_init(&q);
        ck_assert_int_eq(df_qos_add_request(&q, &reqs[0], DF_QOS_LATENCY, 5), 1);
        ck_assert_uint_eq(df_qos_read_value(&q, DF_QOS_LATENCY), 5);
        df_qos_done(&q);
        ck_assert(!df_qos_request_active(&reqs[0]));
}
END_TEST

/* --- churn ------------------------------------------------------------------------------------ */

#define CHURN_REQUESTS 10000

/* Mostly spread values, some small ones that tie, and now and then the extremes. */
static uint64_t random_value(uint64_t *state, enum df_qos_type type) {
        uint64_t r = df_test_random(state);

        switch (r % 64) {
        case 0:
                return 0;
        case 1:
                return type == DF_QOS_LATENCY ? U32_MAX : U64_MAX;
        case 2 ... 7:
                return (r >> 8) % 16;
        default:
                return type == DF_QOS_LATENCY ? (r >> 8) % (U32_MAX + 1) : (r >> 8) % 100000 * 1000;
        }
}

struct churn {
        struct df_qos q;
        struct recorder rec;
        struct df_qos_request *reqs;
        uint64_t expect[_DF_QOS_TYPE_MAX];
        size_t ops;
};

/* Aggregates and counts by scanning every request; also checks each active request's heap slot. */
static void churn_check(struct churn *c) {
        uint64_t agg[_DF_QOS_TYPE_MAX] = {
                [DF_QOS_MIN_FREQUENCY] = 0,
                [DF_QOS_MAX_FREQUENCY] = U64_MAX,
                [DF_QOS_LATENCY] = U32_MAX,
        };
        size_t count[_DF_QOS_TYPE_MAX] = {};
        bool slots_ok = true;

        for (size_t i = 0; i < CHURN_REQUESTS; i++) {
                const struct df_qos_request *r = &c->reqs[i];

                if (!df_qos_request_active(r))
                        continue;
                count[r->type]++;
                if (r->type == DF_QOS_MIN_FREQUENCY ? r->value > agg[r->type] : r->value < agg[r->type])
                        agg[r->type] = r->value;
                if (r->heap_index == 0 || r->heap_index > c->q.lists[r->type].n ||
                    c->q.lists[r->type].items[r->heap_index - 1] != r)
                        slots_ok = false;
        }
        ck_assert_msg(slots_ok, "op %zu: a request is not where its heap_index says", c->ops);
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++) {
                ck_assert_msg(
                        df_qos_read_value(&c->q, (enum df_qos_type) t) == agg[t],
                        "op %zu: type %d aggregate %" PRIu64 ", brute force %" PRIu64, c->ops, t,
                        df_qos_read_value(&c->q, (enum df_qos_type) t), agg[t]);
                ck_assert_uint_eq(df_qos_count(&c->q, (enum df_qos_type) t), count[t]);
        }
}

/* After one operation on `type` that returned r: notified exactly when the brute-force aggregate moved. */
static void churn_after(struct churn *c, enum df_qos_type type, int r, size_t notified_before) {
        uint64_t old = c->expect[type];

        c->ops++;
        churn_check(c);
        c->expect[type] = df_qos_read_value(&c->q, type);
        if (c->expect[type] != old) {
                ck_assert_msg(r == 1, "op %zu: aggregate moved, returned %d", c->ops, r);
                ck_assert_uint_eq(c->rec.n, notified_before + 1);
                ck_assert_int_eq(c->rec.type, type);
                ck_assert_uint_eq(c->rec.aggregate, c->expect[type]);
        } else {
                ck_assert_msg(r == 0, "op %zu: aggregate kept, returned %d", c->ops, r);
                ck_assert_msg(c->rec.n == notified_before, "op %zu: notified without a change", c->ops);
        }
}

static void churn_add(struct churn *c, struct df_qos_request *req, uint64_t *state) {
        enum df_qos_type type = (enum df_qos_type)(df_test_random(state) % _DF_QOS_TYPE_MAX);
        size_t before = c->rec.n;
        int r = df_qos_add_request(&c->q, req, type, random_value(state, type));

        ck_assert_int_ge(r, 0);
        churn_after(c, type, r, before);
}

static void churn_update(struct churn *c, struct df_qos_request *req, uint64_t *state) {
        size_t before = c->rec.n;
        /* One update in four repeats the current value. */
        uint64_t v = df_test_random(state) % 4 == 0 ? req->value : random_value(state, req->type);
        int r = df_qos_update_request(req, v);

        ck_assert_int_ge(r, 0);
        ck_assert_uint_eq(req->value, v);
        churn_after(c, req->type, r, before);
}

static void churn_remove(struct churn *c, struct df_qos_request *req) {
        size_t before = c->rec.n;
        int r = df_qos_remove_request(req);

        ck_assert_int_ge(r, 0);
        ck_assert(!df_qos_request_active(req));
        churn_after(c, req->type, r, before);
}

START_TEST(test_churn) {
        uint64_t state = UINT64_C(0x2545f4914f6cdd1d);
        _cleanup_free_ size_t *order = NULL;
        struct churn c = {};

        c.reqs = calloc(CHURN_REQUESTS, sizeof(struct df_qos_request));
        order = malloc(CHURN_REQUESTS * sizeof(size_t));
        ck_assert_ptr_nonnull(c.reqs);
        ck_assert_ptr_nonnull(order);
        setup(&c.q, &c.rec);
        for (int t = 0; t < _DF_QOS_TYPE_MAX; t++)
                c.expect[t] = df_qos_read_value(&c.q, (enum df_qos_type) t);

        /* Add every request in a shuffled order. */
        for (size_t i = 0; i < CHURN_REQUESTS; i++)
                order[i] = i;
        df_test_shuffle(order, CHURN_REQUESTS, &state);
        for (size_t i = 0; i < CHURN_REQUESTS; i++)
                churn_add(&c, &c.reqs[order[i]], &state);

        /*
         * Then random requests: update or remove the active, re-add the inactive. One pick in four
         * is the request at the top of a list, so that aggregates move often with 10,000 requests.
         */
        for (size_t k = 0; k < 3 * CHURN_REQUESTS; k++) {
                uint64_t pick = df_test_random(&state);
                const struct df_heap *l = &c.q.lists[(pick >> 8) % _DF_QOS_TYPE_MAX];
                struct df_qos_request *req = &c.reqs[(pick >> 16) % CHURN_REQUESTS];

                if (pick % 4 == 0 && l->n > 0)
                        req = df_heap_peek(l);

                if (!df_qos_request_active(req))
                        churn_add(&c, req, &state);
                else if (df_test_random(&state) % 3 == 0)
                        churn_remove(&c, req);
                else
                        churn_update(&c, req, &state);
        }

        /* Remove the rest in a random order down to empty lists. */
        df_test_shuffle(order, CHURN_REQUESTS, &state);
        for (size_t i = 0; i < CHURN_REQUESTS; i++)
                if (df_qos_request_active(&c.reqs[order[i]]))
                        churn_remove(&c, &c.reqs[order[i]]);
        ck_assert_uint_eq(df_qos_read_value(&c.q, DF_QOS_MIN_FREQUENCY), 0);
        ck_assert_uint_eq(df_qos_read_value(&c.q, DF_QOS_MAX_FREQUENCY), U64_MAX);
        ck_assert_uint_eq(df_qos_read_value(&c.q, DF_QOS_LATENCY), U32_MAX);
        /* The test exercised both outcomes many times. */
        ck_assert_uint_gt(c.rec.n, 1000);
        ck_assert_uint_gt(c.ops - c.rec.n, 1000);

        df_qos_done(&c.q);
        free(c.reqs);
}
END_TEST

static Suite *qos_suite(void) {
        Suite *s = suite_create("qos");
        TCase *tc;

        tc = tcase_create("type_strings");
        tcase_add_test(tc, test_type_strings);
        suite_add_tcase(s, tc);

        tc = tcase_create("defaults");
        tcase_add_test(tc, test_defaults);
        suite_add_tcase(s, tc);

        tc = tcase_create("aggregates");
        tcase_add_test(tc, test_aggregates);
        suite_add_tcase(s, tc);

        tc = tcase_create("notifications");
        tcase_add_test(tc, test_readme_notifications);
        tcase_add_test(tc, test_update_and_remove_without_change);
        suite_add_tcase(s, tc);

        tc = tcase_create("conflicts");
        tcase_add_test(tc, test_conflict_as_is);
        suite_add_tcase(s, tc);

        tc = tcase_create("errors");
        tcase_add_test(tc, test_errors);
        suite_add_tcase(s, tc);

        tc = tcase_create("done");
        tcase_add_test(tc, test_done_deactivates);
        suite_add_tcase(s, tc);

        tc = tcase_create("churn");
        tcase_add_test(tc, test_churn);
        tcase_set_timeout(tc, 120);
        suite_add_tcase(s, tc);

        return s;
}

int main(void) {
        return df_test_run(qos_suite());
}
