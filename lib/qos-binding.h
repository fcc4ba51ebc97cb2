/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Binding time: how long a request's value was the aggregate of its list (the top of the heap)
 * while that aggregate set the device's floor (min-frequency) or ceiling (max-frequency,
 * latency): the device says when it does (df_qos_binding_decides(), lib/device.c). Accounted
 * when the top of a list changes (add, update, remove) or the aggregate starts or stops
 * deciding, never per tick.
 */
#pragma once

#include <stdint.h>

#include "qos.h"

/* CLOCK_MONOTONIC in µs: the clock df_qos_init() sets. */
uint64_t df_qos_binding_clock(void);
/* Another clock (tests), or NULL to stop accounting; binders are credited up to now first. */
void df_qos_set_clock(struct df_qos *q, df_qos_clock_t clock);
/* After a change of the list of `type`: the old binder credited, the new top binds from now. */
void df_qos_binding_settle(struct df_qos *q, enum df_qos_type type);
/* Whether the aggregate of `type` decides the device's range now (true until told otherwise):
 * while it does not, no request of that list binds. */
void df_qos_binding_decides(struct df_qos *q, enum df_qos_type type, bool decides);
/* Credit every binder up to now and forget them (the lists go). */
void df_qos_binding_stop(struct df_qos *q);
/* The binding time of a request up to now: credited plus the running stretch when it binds. */
uint64_t df_qos_binding_time(const struct df_qos_request *req);
/* Whether it binds now. */
bool df_qos_request_binds(const struct df_qos_request *req);
