/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ring of ended requests a device remembers for blame. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blame.h"

static void entry_done(struct df_blame_entry *e) {
        free(e->unit);
        free(e->command);
        free(e->reason);
        *e = (struct df_blame_entry){};
}

static char *dup_or_empty(const char *s) {
        return strdup(s ? s : "");
}

const char *df_blame_owner(const struct df_blame_entry *e) {
        const char *owner = e->daemon_own ? e->command : e->unit;

        return owner ? owner : "";
}

/* The evicted entry's binding time, to its owner's total. */
static int forget(struct df_blame_ring *r, const struct df_blame_entry *e) {
        const char *owner = df_blame_owner(e);
        struct df_blame_total *v;

        for (size_t i = 0; i < r->n_forgotten; i++)
                if (r->forgotten[i].type == e->type && strcmp(r->forgotten[i].owner, owner) == 0) {
                        r->forgotten[i].binding_usec += e->binding_usec;
                        return 0;
                }
        if (r->n_forgotten >= DF_BLAME_FORGOTTEN_MAX)
                return 0;
        v = reallocarray(r->forgotten, r->n_forgotten + 1, sizeof(*v));
        if (!v)
                return -ENOMEM;
        r->forgotten = v;
        v[r->n_forgotten] = (struct df_blame_total){
                .type = e->type,
                .owner = strdup(owner),
                .binding_usec = e->binding_usec,
        };
        if (!v[r->n_forgotten].owner)
                return -ENOMEM;
        r->n_forgotten++;
        return 0;
}

int df_blame_ring_push(struct df_blame_ring *r, const struct df_blame_entry *e) {
        struct df_blame_entry n = *e;

        n.unit = dup_or_empty(e->unit);
        n.command = dup_or_empty(e->command);
        n.reason = dup_or_empty(e->reason);
        /* Nothing is lost when memory is: the oldest stays, the new one is not kept. */
        if (!n.unit || !n.command || !n.reason ||
            (r->n == DF_BLAME_ENDED_MAX && forget(r, &r->entries[r->next]) < 0)) {
                entry_done(&n);
                return -ENOMEM;
        }
        entry_done(&r->entries[r->next]);
        r->entries[r->next] = n;
        r->next = (r->next + 1) % DF_BLAME_ENDED_MAX;
        if (r->n < DF_BLAME_ENDED_MAX)
                r->n++;
        r->ended++;
        return 0;
}

const struct df_blame_entry *df_blame_ring_get(const struct df_blame_ring *r, size_t i) {
        if (!r || i >= r->n)
                return NULL;
        return &r->entries[(r->next + DF_BLAME_ENDED_MAX - r->n + i) % DF_BLAME_ENDED_MAX];
}

void df_blame_ring_done(struct df_blame_ring *r) {
        for (size_t i = 0; i < DF_BLAME_ENDED_MAX; i++)
                entry_done(&r->entries[i]);
        for (size_t i = 0; i < r->n_forgotten; i++)
                free(r->forgotten[i].owner);
        free(r->forgotten);
        *r = (struct df_blame_ring){};
}
