/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What lib/node.c, node-drive.c, node-originals.c and node-stats.c share: the attribute names of
 * each kind and the helpers that read, convert and write. Private to those files, which call one
 * way: node-write.c at the bottom, then node.c, node-stats.c, node-originals.c, node-drive.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "node.h"

struct kind_attrs {
        const char *governor, *governors, *min, *max, *cur, *applied, *frequencies, *key;
};

/* node.c */
const struct kind_attrs *node_attrs(const struct df_node *n);
int node_read_text(int dirfd, const char *name, char **ret);
/* A single word (a governor, a number as sysfs shows it), surrounding whitespace removed. */
int node_read_word(int dirfd, const char *name, char *buf, size_t size);
uint64_t node_to_hz(const struct df_node *n, uint64_t v);
enum rounding {
        ROUND_DOWN,
        ROUND_UP,
        ROUND_NEAREST
};
/* Hz in the node's units (kHz on cpufreq), rounded as asked. */
uint64_t to_node_units(const struct df_node *n, uint64_t hz, enum rounding how);
/* What devfreq shows for a limit asked at `hz`: its QoS requests are whole kHz, a maximum rounded
 * up (max_freq_store(), the cooling device's DIV_ROUND_UP), a minimum down (min_freq_store()). */
uint64_t node_devfreq_shown(uint64_t hz, bool is_max);
void node_close_kept(struct df_node *n);

/* node-cooling.c */
/* The cap (Hz) the node's cooling device holds now, as the node shows it: its state s is the s-th
 * point from the top (on devfreq rounded up to a whole kHz). 0 when nothing caps it (no such
 * device, state 0, unreadable). */
uint64_t node_cooling_cap(struct df_node *n);
/* Whether a limit read back (node units) is that cap: the kernel's, not a writer's. It lowers the
 * maximum, and a minimum above it. */
bool node_shows_cap(const struct df_node *n, const char *seen, uint64_t cap);
/* Limits read while devfreqd holds none (found, or recorded as originals), `min` and `max` in node
 * units, DF_ATTR_VALUE_MAX each: one at the cap stands for no limit (a writer's own value under
 * it cannot be read, and keeping it would make a passing cap permanent). */
void node_cooling_uncap(struct df_node *n, char *min, char *max);

/* node-originals.c */
/* min and max in an order that never inverts the range in force; a value at the hardware bound
 * is written as "no limit". */
int node_write_limits(struct df_node *n, const char *min, const char *max, const char *hw_min, const char *hw_max);

/* node-write.c */
/* A node's error text belongs to the call that failed: every public call starts without one. */
_printf_(2, 3) void node_set_error(struct df_node *n, const char *fmt, ...);
static inline void node_clear_error(struct df_node *n) {
        n->error[0] = '\0';
}
int node_write(struct df_node *n, int fd, const char *attr, const char *value, bool restoring);
