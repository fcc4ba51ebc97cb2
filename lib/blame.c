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

int df_blame_ring_push(struct df_blame_ring *r, const struct df_blame_entry *e) {
        struct df_blame_entry n = *e;

        n.unit = dup_or_empty(e->unit);
        n.command = dup_or_empty(e->command);
        n.reason = dup_or_empty(e->reason);
        if (!n.unit || !n.command || !n.reason) {
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
        *r = (struct df_blame_ring){};
}
