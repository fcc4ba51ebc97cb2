/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The governor table and what every governor shares: selection, tunables, start and dispatch. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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

const char *df_governor_format_tunables(
        const struct df_governor_ops *ops, const uint32_t *values, uint32_t mask, char *buf, size_t size) {
        size_t n = 0;

        assert(ops);
        assert(values || ops->n_tunables == 0);
        assert(buf);
        assert(size > 0);

        buf[0] = '\0';
        for (size_t i = 0; i < ops->n_tunables && n < size; i++)
                if (mask & (1u << i))
                        n += (size_t) snprintf(
                                buf + n, size - n, "%s%s = %" PRIu32, n ? ", " : "", ops->tunables[i].name,
                                values[i]);
        return buf;
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
