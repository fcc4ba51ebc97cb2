/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* An indexed binary heap of pointers: the caller orders the elements, each element keeps its place. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * How a heap orders and finds its elements, given with every call (a zeroed struct df_heap is
 * an empty heap, ready for use, whatever it holds): `before(a, b)` is true when a belongs nearer
 * the top than b; `slot_offset` is offsetof() a size_t inside each element where the heap keeps
 * the element's index + 1, and 0 while the element is in no heap (a zeroed element is in none).
 * One element is in at most one heap through one slot.
 */
struct df_heap_ops {
        bool (*before)(const void *a, const void *b);
        size_t slot_offset;
};

struct df_heap {
        void **items; /* the top at [0] */
        size_t n;
        size_t allocated;
};

/* The top element, NULL when the heap is empty. O(1). */
static inline void *df_heap_peek(const struct df_heap *h) {
        return h->n > 0 ? h->items[0] : NULL;
}

static inline size_t *df_heap_slot(const struct df_heap_ops *ops, const void *p) {
        return (size_t *) ((uint8_t *) p + ops->slot_offset);
}

/* The index of an element in its heap, SIZE_MAX while it is in none. */
static inline size_t df_heap_index(const struct df_heap_ops *ops, const void *p) {
        return *df_heap_slot(ops, p) - 1;
}

/* Add an element that is in no heap: 0, or -ENOMEM with the heap unchanged. O(log n). */
int df_heap_push(struct df_heap *h, const struct df_heap_ops *ops, void *p);
/* Take out the element at index i (0: the top) and return it, NULL when i is out of range. O(log n). */
void *df_heap_remove_at(struct df_heap *h, const struct df_heap_ops *ops, size_t i);
/* Restore the order after the element at index i changed, either way. O(log n). */
void df_heap_fix_at(struct df_heap *h, const struct df_heap_ops *ops, size_t i);
/* Empty the heap: every element leaves it (its slot becomes 0) and the array is freed. */
void df_heap_done(struct df_heap *h, const struct df_heap_ops *ops);
