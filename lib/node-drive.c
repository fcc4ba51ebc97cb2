/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Driving a node as a device's backend: the kernel governor, prepare (the userspace governor, or
 * min/max limits), the backend ops, and the re-checks for foreign writers and the governor. */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "node-internal.h"
#include "node.h"
#include "opp.h"
#include "units.h"

static int node_write_u64(struct df_node *n, int fd, const char *attr, uint64_t value) {
        char buf[32];

        snprintf(buf, sizeof(buf), "%" PRIu64, value);
        return node_write(n, fd, attr, buf, false);
}

static int open_kept(struct df_node *n, const char *attr, int flags, int *ret) {
        int fd;

        /* Dry-run writes nothing, so it keeps nothing open for writing either. */
        if (n->dry_run)
                return 0;
        fd = df_attr_open(n->dirfd, attr, flags);
        if (fd < 0) {
                node_set_error(n, "open %s/%s: %s", n->path, attr, strerror(-fd));
                return fd;
        }
        safe_close(*ret);
        *ret = fd;
        return 0;
}

/* The kernel's userspace governor selected: 0 when it was, 1 when another (named in gov) was. */
static int select_userspace(struct df_node *n, char *gov, size_t size) {
        int r;

        r = df_node_kernel_governor(n, gov, size);
        if (r < 0) {
                node_set_error(n, "read %s/%s: %s", n->path, node_attrs(n)->governor, strerror(-r));
                return r;
        }
        if (streq(gov, "userspace"))
                return 0;
        r = node_write(n, -EBADF, node_attrs(n)->governor, "userspace", false);
        return r < 0 ? r : 1;
}

int df_node_set_kernel_governor(struct df_node *n, const char *name) {
        int r;

        assert(n);

        node_clear_error(n);
        r = df_node_offers_governor(n, name);

        if (r <= 0)
                return r < 0 ? r : -EINVAL;
        return node_write(n, -EBADF, node_attrs(n)->governor, name, false);
}

int df_node_prepare(struct df_node *n, enum df_mode mode) {
        int r;

        assert(n);

        node_clear_error(n);

        if (mode < 0 || mode >= _DF_MODE_MAX)
                return -EINVAL;
        node_close_kept(n);
        n->drive = DF_DRIVE_NONE;
        n->has_written = false;
        n->written = 0;
        n->clamped = 0;
        /* Limits devfreqd holds (clamp mode, across a reload) are still the ones it wrote: another
         * writer is told from them, not from a forgotten zero. */
        if (!n->limits_held)
                n->written_min = n->written_max = 0;

        if (mode == DF_MODE_GOVERN && n->has_userspace) {
                char gov[DF_ATTR_VALUE_MAX];

                r = select_userspace(n, gov, sizeof(gov));
                if (r < 0)
                        return r;
                /* devfreq creates userspace/set_freq only while its governor is userspace. */
                r = open_kept(n, node_attrs(n)->applied, O_RDWR, &n->applied_fd);
                if (r < 0)
                        return r;
                n->drive = DF_DRIVE_USERSPACE;
                return 0;
        }
        r = open_kept(n, node_attrs(n)->min, O_WRONLY, &n->min_fd);
        if (r >= 0)
                r = open_kept(n, node_attrs(n)->max, O_WRONLY, &n->max_fd);
        if (r < 0) {
                node_close_kept(n);
                return r;
        }
        n->drive = mode == DF_MODE_GOVERN ? DF_DRIVE_PINNED : DF_DRIVE_CLAMP;
        /* The limits another writer (or nobody) left, unless devfreqd holds them already. */
        if (n->drive == DF_DRIVE_CLAMP && !n->limits_held)
                (void) df_node_check_limits(n, NULL, 0);
        return 0;
}

/* Both limits, in the order that keeps min <= max between the two writes. `ret_landed` (may be
 * NULL) is set on failure too: the first write may have landed when the second failed. */
static int write_range(struct df_node *n, uint64_t min, uint64_t max, bool max_first, bool *ret_landed) {
        uint64_t lo = to_node_units(n, min, ROUND_DOWN), hi = to_node_units(n, max, ROUND_UP);
        bool landed = false;
        int r = 0;

        n->has_written = false;
        for (int step = 0; step < 2 && r >= 0; step++) {
                if ((step == 0) == max_first) {
                        r = node_write_u64(n, n->max_fd, node_attrs(n)->max, hi);
                        if (r >= 0)
                                n->written_max = node_to_hz(n, hi);
                } else {
                        r = node_write_u64(n, n->min_fd, node_attrs(n)->min, lo);
                        if (r >= 0)
                                n->written_min = node_to_hz(n, lo);
                }
                landed = landed || r >= 0;
        }
        if (ret_landed)
                *ret_landed = landed;
        if (r < 0)
                return r;
        n->has_written = true;
        return 0;
}

static int node_set_frequency(void *userdata, uint64_t freq, uint64_t previous) {
        struct df_node *n = userdata;
        uint64_t v;
        int r;

        node_clear_error(n);

        switch (n->drive) {
        case DF_DRIVE_USERSPACE:
                v = to_node_units(n, freq, ROUND_NEAREST);
                r = node_write_u64(n, n->applied_fd, node_attrs(n)->applied, v);
                if (r < 0)
                        return r;
                n->written = node_to_hz(n, v);
                n->has_written = true;
                n->clamped = 0;
                return 0;
        case DF_DRIVE_PINNED:
                /* Going up, raise max first; going down, lower min first. */
                return write_range(n, freq, freq, freq > previous, NULL);
        default:
                return -EOPNOTSUPP;
        }
}

/* A limit as found, in Hz: what the attribute shows while devfreqd has not written it. */
static uint64_t found_hz(const struct df_node *n, const char *found) {
        uint64_t v;

        return df_safe_atou64(found, &v) >= 0 ? node_to_hz(n, v) : 0;
}

static int node_set_range(void *userdata, uint64_t min, uint64_t max) {
        struct df_node *n = userdata;
        bool landed;
        uint64_t old_max;
        int r;

        node_clear_error(n);

        if (n->drive != DF_DRIVE_CLAMP)
                return -EOPNOTSUPP;
        if (n->has_written)
                old_max = n->written_max;
        else if (df_attr_read_u64(n->dirfd, node_attrs(n)->max, &old_max) >= 0)
                old_max = node_to_hz(n, old_max);
        else
                old_max = UINT64_MAX;
        /* Taking the limits, the one not written yet still shows what was found there. */
        if (!n->limits_held) {
                n->written_min = found_hz(n, n->found_min);
                n->written_max = found_hz(n, n->found_max);
        }
        r = write_range(n, min, max, min > old_max, &landed);
        /* Half a pair is held too: devfreqd's own limit is then told from another writer's, given
         * back with the other, and never restored at exit in place of the limit found. */
        if (r >= 0 || landed)
                n->limits_held = true;
        return r;
}

/* Give the attributes back: the limits found there, written as they were found. */
static int node_release_range(void *userdata) {
        struct df_node *n = userdata;
        char hw_min[32], hw_max[32];
        int r;

        node_clear_error(n);

        if (n->drive != DF_DRIVE_CLAMP)
                return -EOPNOTSUPP;
        if (!n->limits_held)
                return 0;
        snprintf(hw_min, sizeof(hw_min), "%" PRIu64, to_node_units(n, n->hw_min, ROUND_DOWN));
        snprintf(hw_max, sizeof(hw_max), "%" PRIu64, to_node_units(n, n->hw_max, ROUND_UP));
        r = node_write_limits(n, n->found_min, n->found_max, hw_min, hw_max);
        if (r < 0)
                return r;
        n->limits_held = false;
        n->has_written = false;
        return 1;
}

const struct df_backend_ops df_node_backend_ops = {
        .set_frequency = node_set_frequency,
        .set_range = node_set_range,
        .release_range = node_release_range,
};

/* kernel: cpufreq_set_policy() since 5.16 resolves a policy's limits to its table, the maximum to
 * the highest point at or under it, the minimum to the lowest at or over it (__resolve_freq()). */
static uint64_t resolved_limit(const struct df_node *n, uint64_t written, bool is_max) {
        int i;

        if (n->n_points == 0)
                return written;
        /* Past either end of the table: the nearest end (cpufreq_frequency_table_target()). */
        i = is_max ? df_freqs_floor(n->points, n->n_points, written) :
                     df_freqs_ceil(n->points, n->n_points, written);
        if (i < 0)
                return is_max ? n->points[0] : n->points[n->n_points - 1];
        return n->points[i];
}

/* Whether a limit read back is the one written: devfreq keeps its limits in kHz (the maximum
 * rounded up, the minimum down) and shows them in Hz; cpufreq shows them resolved to its table
 * (or as written, before 5.16 and with a driver that sets no frequency itself). */
static bool shows_written(struct df_node *n, const char *seen, uint64_t written, bool is_max) {
        uint64_t v;

        if (df_safe_atou64(seen, &v) < 0)
                return false;
        v = node_to_hz(n, v);
        if (v == written)
                return true;
        if (n->kind == DF_KIND_CPUFREQ)
                return v == resolved_limit(n, written, is_max);
        return v == node_devfreq_shown(written, is_max);
}

int df_node_check_limits(struct df_node *n, char *note, size_t note_size) {
        assert(n);

        const struct kind_attrs *a = node_attrs(n);
        char min[DF_ATTR_VALUE_MAX], max[DF_ATTR_VALUE_MAX];
        bool min_ours, max_ours;
        int r;

        node_clear_error(n);

        r = node_read_word(n->dirfd, a->min, min, sizeof(min));
        if (r >= 0)
                r = node_read_word(n->dirfd, a->max, max, sizeof(max));
        if (r < 0) {
                node_set_error(n, "read %s/%s: %s", n->path, a->max, strerror(-r));
                return r;
        }
        /* A dry run writes nothing, so nothing it "holds" shows. */
        if (n->limits_held && n->dry_run)
                return 0;
        if (!n->limits_held) {
                if (streq(min, n->found_min) && streq(max, n->found_max))
                        return 0;
                node_cooling_uncap(n, min, max);
                if (streq(min, n->found_min) && streq(max, n->found_max))
                        return 0;
                memcpy(n->found_min, min, sizeof(min));
                memcpy(n->found_max, max, sizeof(max));
                return 1;
        }
        min_ours = shows_written(n, min, n->written_min, false);
        max_ours = shows_written(n, max, n->written_max, true);
        if (!(min_ours && max_ours)) {
                uint64_t cap = node_cooling_cap(n);

                max_ours = max_ours || (node_shows_cap(n, max, cap) && cap < n->written_max);
                min_ours = min_ours || (node_shows_cap(n, min, cap) && cap < n->written_min);
        }
        if (min_ours && max_ours)
                return 0;
        if (note)
                snprintf(
                        note, note_size, "%s was changed to %s by another writer (devfreqd wrote %" PRIu64 ")",
                        max_ours ? a->min : a->max, max_ours ? min : max,
                        to_node_units(n, max_ours ? n->written_min : n->written_max, ROUND_NEAREST));
        if (!min_ours)
                memcpy(n->found_min, min, sizeof(min));
        if (!max_ours)
                memcpy(n->found_max, max, sizeof(max));
        n->limits_held = false;
        return 2;
}

void df_node_found_range(const struct df_node *n, uint64_t *ret_min, uint64_t *ret_max) {
        uint64_t v;

        assert(n);
        assert(ret_min);
        assert(ret_max);

        *ret_min = 0;
        *ret_max = UINT64_MAX;
        if (df_safe_atou64(n->found_min, &v) >= 0 && v > 0 && node_to_hz(n, v) > n->hw_min)
                *ret_min = node_to_hz(n, v);
        if (df_safe_atou64(n->found_max, &v) >= 0 && v > 0 && (n->hw_max == 0 || node_to_hz(n, v) < n->hw_max))
                *ret_max = node_to_hz(n, v);
}

/* A policy's scaling_setspeed reads back the current frequency, which the policy's limits clamp:
 * what devfreqd wrote above scaling_max_freq runs at that maximum, what it wrote under
 * scaling_min_freq at that minimum (cpufreq_userspace_policy_limits(); the limit resolved to the
 * table where the kernel shows it unresolved). That is the kernel's doing; any other value is
 * another writer's. */
static bool kernel_clamped(struct df_node *n, uint64_t seen) {
        uint64_t min, max, bound;

        if (n->kind != DF_KIND_CPUFREQ)
                return false;
        /* Read at every evaluation while the clamp lasts: kept open, like the applied value (the
         * userspace drive writes neither limit, so min_fd and max_fd are free for it). */
        if (n->min_fd < 0)
                n->min_fd = df_attr_open(n->dirfd, node_attrs(n)->min, O_RDONLY);
        if (n->max_fd < 0)
                n->max_fd = df_attr_open(n->dirfd, node_attrs(n)->max, O_RDONLY);
        if (n->min_fd < 0 || n->max_fd < 0 || df_attr_pread_u64(n->min_fd, &min) < 0 ||
            df_attr_pread_u64(n->max_fd, &max) < 0) {
                n->min_fd = safe_close(n->min_fd);
                n->max_fd = safe_close(n->max_fd);
                return false;
        }
        min = node_to_hz(n, min);
        max = node_to_hz(n, max);
        if (n->written >= min && n->written <= max)
                return false;
        bound = n->written > max ? max : min;
        return seen == bound || seen == resolved_limit(n, bound, n->written > max);
}

int df_node_check_foreign(struct df_node *n, uint64_t *ret_seen) {
        uint64_t v;
        int r;

        assert(n);

        node_clear_error(n);

        if (n->dry_run || n->drive != DF_DRIVE_USERSPACE || !n->has_written || n->applied_fd < 0)
                return 0;
        r = df_attr_pread_u64(n->applied_fd, &v);
        if (r < 0) {
                node_set_error(n, "read %s/%s: %s", n->path, node_attrs(n)->applied, strerror(-r));
                return r;
        }
        v = node_to_hz(n, v);
        n->clamped = 0;
        if (v == n->written)
                return 0;
        if (kernel_clamped(n, v)) {
                n->clamped = v;
                return 0;
        }
        if (ret_seen)
                *ret_seen = v;
        return 1;
}

uint64_t df_node_running(const struct df_node *n, uint64_t applied) {
        assert(n);

        return n->clamped > 0 ? n->clamped : applied;
}

int df_node_check_kernel_governor(struct df_node *n, char *ret_seen, size_t size) {
        char gov[DF_ATTR_VALUE_MAX];
        int r;

        assert(n);

        node_clear_error(n);

        if (n->dry_run || n->drive != DF_DRIVE_USERSPACE)
                return 0;
        r = select_userspace(n, gov, sizeof(gov));
        if (r <= 0)
                return r;
        if (ret_seen)
                snprintf(ret_seen, size, "%s", gov);
        /* The governor's restart made a new set_freq; the kept descriptor is stale. */
        r = open_kept(n, node_attrs(n)->applied, O_RDWR, &n->applied_fd);
        if (r < 0)
                return r;
        n->has_written = false;
        return 1;
}
