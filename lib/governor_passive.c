/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* passive: a device that follows its parent's frequency, by table index or an explicit map. */

#include "governor.h"
#include "macro.h"

/* The child frequency of the entry with the largest parent frequency <= parent; else the first. */
static uint64_t passive_map_lookup(const struct df_governor *g, uint64_t parent) {
        uint64_t child = g->passive_map[0].child;

        for (size_t i = 0; i < g->n_passive_map && g->passive_map[i].parent <= parent; i++)
                child = g->passive_map[i].child;
        return child;
}

/*
 * kernel: devfreq_passive_get_target_freq(), DEVFREQ_PARENT_DEV index mapping. The kernel
 * fails when the parent's frequency is not in its table; devfreqd takes the first entry
 * above it (the parent's ceil), clipped to the parent's last entry, then to the child's.
 */
static uint64_t passive_get_target(struct df_governor *g, const struct df_governor_input *in) {
        size_t i = 0;

        /* No parent (gone, or not attached): nothing to follow, the frequency in force stays,
         * with a map too (its first pair is for a parent below it, not for none). */
        if (in->n_parent_table == 0)
                return in->current;
        if (g->n_passive_map > 0)
                return passive_map_lookup(g, in->parent_current);
        if (in->n_table == 0)
                return in->current;

        while (i < in->n_parent_table - 1 && in->parent_table[i] < in->parent_current)
                i++;
        return in->table[MIN(i, in->n_table - 1)];
}

const struct df_governor_ops df_governor_passive = {
        .name = "passive",
        .get_target = passive_get_target,
};
