/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The governor table and what every governor shares: selection, tunables, start and dispatch. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "governor.h"
#include "macro.h"

/* Sorted by name: df_governor_find() and the bus's AvailableGovernors list rely on it. */
const struct df_governor_ops *const df_governors[] = {
        &df_governor_conservative,    &df_governor_energy_aware, &df_governor_ondemand,
        &df_governor_passive,         &df_governor_performance,  &df_governor_powersave,
        &df_governor_simple_ondemand, &df_governor_userspace,
};
const size_t df_governors_count = ELEMENTSOF(df_governors);

const struct df_governor_ops *df_governor_find(const char *name) {
        if (!name)
                return NULL;
        for (size_t i = 0; i < df_governors_count; i++)
                if (streq(df_governors[i]->name, name))
                        return df_governors[i];
        return NULL;
}

/* `g` is zeroed memory or a governor initialized before. */
void df_governor_init(struct df_governor *g, const struct df_governor_ops *ops) {
        assert(g);
        assert(ops);

        df_governor_done(g);
        g->ops = ops;
        for (size_t i = 0; i < ops->n_tunables; i++)
                g->tunables[i] = ops->tunables[i].def;
}

void df_governor_done(struct df_governor *g) {
        assert(g);

        free(g->passive_map);
        *g = (struct df_governor){};
}

int df_governor_tunable_index(const struct df_governor_ops *ops, const char *name) {
        assert(ops);

        if (!name)
                return -ENOENT;
        for (size_t i = 0; i < ops->n_tunables; i++)
                if (streq(ops->tunables[i].name, name))
                        return (int) i;
        return -ENOENT;
}

int df_governor_validate(const struct df_governor_ops *ops, const uint32_t *values) {
        assert(ops);
        assert(values || ops->n_tunables == 0);

        for (size_t i = 0; i < ops->n_tunables; i++)
                if (values[i] < ops->tunables[i].min || values[i] > ops->tunables[i].max)
                        return -ERANGE;
        if (ops->validate)
                return ops->validate(values);
        return 0;
}

int df_governor_set_tunable(struct df_governor *g, const char *name, uint32_t value) {
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX];
        int i, r;

        assert(g);

        i = df_governor_tunable_index(g->ops, name);
        if (i < 0)
                return i;

        memcpy(values, g->tunables, sizeof(values));
        values[i] = value;
        r = df_governor_validate(g->ops, values);
        if (r < 0)
                return r;

        g->tunables[i] = value;
        return 0;
}

int df_governor_set_tunables(struct df_governor *g, const uint32_t *values) {
        int r;

        assert(g);

        r = df_governor_validate(g->ops, values);
        if (r < 0)
                return r;
        if (g->ops->n_tunables > 0)
                memcpy(g->tunables, values, g->ops->n_tunables * sizeof(uint32_t));
        return 0;
}

int df_governor_get_tunable(const struct df_governor *g, const char *name, uint32_t *ret) {
        int i;

        assert(g);
        assert(ret);

        i = df_governor_tunable_index(g->ops, name);
        if (i < 0)
                return i;
        *ret = g->tunables[i];
        return 0;
}

static int passive_pair_compare(const void *a, const void *b) {
        const struct df_passive_pair *x = a, *y = b;

        return x->parent < y->parent ? -1 : x->parent > y->parent ? 1 : 0;
}

/* n == 0 removes the map: passive falls back to index mapping. */
int df_governor_set_passive_map(struct df_governor *g, const struct df_passive_pair *pairs, size_t n) {
        _cleanup_free_ struct df_passive_pair *map = NULL;

        assert(g);
        assert(pairs || n == 0);

        if (n > 0) {
                map = malloc(n * sizeof(*map));
                if (!map)
                        return -ENOMEM;
                memcpy(map, pairs, n * sizeof(*map));
                qsort(map, n, sizeof(*map), passive_pair_compare);
                for (size_t i = 1; i < n; i++)
                        if (map[i].parent == map[i - 1].parent)
                                return -EINVAL;
        }

        free(g->passive_map);
        g->passive_map = TAKE_PTR(map);
        g->n_passive_map = n;
        return 0;
}

/* Every governor forgets its history on (re)start; those that need `current` set it in ops->start. */
void df_governor_start(struct df_governor *g, uint64_t current) {
        assert(g);

        memset(&g->state, 0, sizeof(g->state));
        if (g->ops->start)
                g->ops->start(g, current);
}

uint64_t df_governor_get_target(struct df_governor *g, const struct df_governor_input *in) {
        assert(g);
        assert(in);

        return g->ops->get_target(g, in);
}

/* Only the userspace governor owns the userspace state; for any other the value is ignored. */
void df_governor_userspace_set(struct df_governor *g, uint64_t freq) {
        assert(g);

        if (g->ops != &df_governor_userspace)
                return;
        g->state.userspace.freq = freq;
        g->state.userspace.valid = true;
}

/* kernel: dbs_update(), load = 100 * busy / total, floored */
int df_load_percent(uint64_t busy, uint64_t total) {
        if (total == 0)
                return -EINVAL;
        if (busy >= total)
                return 100;
        return (int) ((unsigned __int128) busy * 100 / total);
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
        return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void df_dbs_sample_add(struct df_dbs_sample *a, const struct df_dbs_sample *b) {
        assert(a);
        assert(b);

        a->busy = add_sat(a->busy, b->busy);
        a->total = add_sat(a->total, b->total);
        a->duration_usec = add_sat(a->duration_usec, b->duration_usec);
}

/* The idle share of the sample times its duration, floored; busy above total is no idle. */
static uint64_t idle_usec(const struct df_dbs_sample *s) {
        if (s->total == 0 || s->busy >= s->total)
                return 0;
        return (uint64_t) ((unsigned __int128) (s->total - s->busy) * s->duration_usec / s->total);
}

uint32_t df_dbs_update(
        uint32_t *prev_load, const struct df_dbs_sample *s, uint64_t period_usec, uint64_t *ret_idle_periods) {
        assert(prev_load);
        assert(s);

        uint64_t idle = idle_usec(s);
        bool long_idle = period_usec > 0 && idle > (unsigned __int128) period_usec * 2;
        uint32_t load;

        if (ret_idle_periods)
                *ret_idle_periods = long_idle ? idle / period_usec : DF_DBS_NO_IDLE_PERIODS;

        if (s->total == 0)
                return *prev_load;
        if (long_idle && *prev_load != 0) {
                /* A burst after a long idle: the load before it, once. */
                load = *prev_load;
                *prev_load = 0;
                return load;
        }
        load = (uint32_t) df_load_percent(s->busy, s->total);
        *prev_load = load;
        return load;
}
