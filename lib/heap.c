/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An indexed binary heap of pointers: the ordering and each element's place are the caller's. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "heap.h"
#include "macro.h"

static void place(struct df_heap *h, const struct df_heap_ops *ops, size_t i, void *p) {
        h->items[i] = p;
        *df_heap_slot(ops, p) = i + 1;
}

/* Move the element at i up past every parent it belongs before; the hole moves, not the element. */
static void sift_up(struct df_heap *h, const struct df_heap_ops *ops, size_t i) {
        void *p = h->items[i];

        while (i > 0) {
                size_t parent = (i - 1) / 2;

                if (!ops->before(p, h->items[parent]))
                        break;
                place(h, ops, i, h->items[parent]);
                i = parent;
        }
        place(h, ops, i, p);
}

static void sift_down(struct df_heap *h, const struct df_heap_ops *ops, size_t i) {
        void *p = h->items[i];

        for (;;) {
                size_t child = 2 * i + 1;

                if (child >= h->n)
                        break;
                if (child + 1 < h->n && ops->before(h->items[child + 1], h->items[child]))
                        child++;
                if (!ops->before(h->items[child], p))
                        break;
                place(h, ops, i, h->items[child]);
                i = child;
        }
        place(h, ops, i, p);
}

void df_heap_fix_at(struct df_heap *h, const struct df_heap_ops *ops, size_t i) {
        assert(h && ops);
        if (i >= h->n)
                return;
        if (i > 0 && ops->before(h->items[i], h->items[(i - 1) / 2]))
                sift_up(h, ops, i);
        else
                sift_down(h, ops, i);
}

int df_heap_push(struct df_heap *h, const struct df_heap_ops *ops, void *p) {
        int r;

        assert(h && ops && p);
        assert(*df_heap_slot(ops, p) == 0); /* in no heap yet */

        r = GREEDY_GROW(h->items, h->allocated, h->n + 1);
        if (r < 0)
                return r;
        h->items[h->n++] = p;
        sift_up(h, ops, h->n - 1);
        return 0;
}

void *df_heap_remove_at(struct df_heap *h, const struct df_heap_ops *ops, size_t i) {
        void *p;

        assert(h && ops);
        if (i >= h->n)
                return NULL;
        p = h->items[i];
        *df_heap_slot(ops, p) = 0;
        h->n--;
        if (i < h->n) {
                /* The last element fills the hole and goes whichever way it belongs. */
                place(h, ops, i, h->items[h->n]);
                df_heap_fix_at(h, ops, i);
        }
        return p;
}

void df_heap_done(struct df_heap *h, const struct df_heap_ops *ops) {
        assert(h && ops);
        for (size_t i = 0; i < h->n; i++)
                *df_heap_slot(ops, h->items[i]) = 0;
        free(h->items);
        *h = (struct df_heap){};
}
