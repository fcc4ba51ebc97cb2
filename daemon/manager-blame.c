/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Thermal rules as owners in blame: how long each rule's cap was the one in force on a device
 * (the lowest of its tripped rules; the first in the configuration on a tie), counted when the
 * cap changes, never per reading. Requests count their own (lib/qos-binding.c).
 */

#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "qos-binding.h"

/* The rule whose cap is `cap` on the device, NULL when none. */
static const char *capping_rule(const struct manager *m, const struct manager_device *d, uint64_t cap) {
        for (size_t i = 0; cap > 0 && i < m->n_rules; i++)
                if (df_thermal_cap_fold(0, m->rules[i]->config, &m->rules[i]->state, d->name) == cap)
                        return m->rules[i]->config->name;
        return NULL;
}

static struct thermal_blame *find_or_add(struct manager_device *d, const char *rule) {
        struct thermal_blame *v;

        for (size_t i = 0; i < d->n_thermal_blame; i++)
                if (streq(d->thermal_blame[i].rule, rule))
                        return &d->thermal_blame[i];
        v = reallocarray(d->thermal_blame, d->n_thermal_blame + 1, sizeof(*v));
        if (!v)
                return NULL;
        d->thermal_blame = v;
        v = &v[d->n_thermal_blame];
        *v = (struct thermal_blame){ .rule = strdup(rule) };
        if (!v->rule)
                return NULL;
        d->n_thermal_blame++;
        return v;
}

void manager_blame_thermal(struct manager *m, struct manager_device *d, uint64_t cap) {
        const char *rule = capping_rule(m, d, cap);
        uint64_t now = df_qos_binding_clock();
        struct thermal_blame *t;

        for (size_t i = 0; i < d->n_thermal_blame; i++) {
                t = &d->thermal_blame[i];
                if (!t->capping || (rule && streq(t->rule, rule) && t->cap == cap))
                        continue;
                t->bound_usec += now - t->since;
                t->capping = false;
        }
        if (!rule)
                return;
        t = find_or_add(d, rule);
        if (!t) {
                log_oom();
                return;
        }
        if (!t->capping) {
                t->capping = true;
                t->since = now;
                t->cap = cap;
        }
}

uint64_t manager_blame_thermal_time(const struct thermal_blame *t) {
        return t->bound_usec + (t->capping ? df_qos_binding_clock() - t->since : 0);
}

void manager_blame_free(struct manager_device *d) {
        for (size_t i = 0; i < d->n_thermal_blame; i++)
                free(d->thermal_blame[i].rule);
        free(d->thermal_blame);
        d->thermal_blame = NULL;
        d->n_thermal_blame = 0;
        if (d->ended)
                df_blame_ring_done(d->ended);
        free(d->ended);
        d->ended = NULL;
}
