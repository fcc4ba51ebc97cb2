/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A node's original settings: reading them before the first write, checking a record against the
 * node before trusting it, and writing them back. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "node-internal.h"
#include "node.h"
#include "units.h"

int df_node_read_originals(struct df_node *n, struct df_originals *ret) {
        assert(n);
        assert(ret);

        const struct kind_attrs *a = node_attrs(n);
        struct df_originals o = {};
        uint64_t v;
        int r;

        r = node_read_word(n->dirfd, a->governor, o.governor, sizeof(o.governor));
        if (r >= 0)
                r = node_read_word(n->dirfd, a->min, o.min, sizeof(o.min));
        if (r >= 0)
                r = node_read_word(n->dirfd, a->max, o.max, sizeof(o.max));
        /* A cap of the kernel's cooling device in force now is not a setting to give back. */
        if (r >= 0)
                node_cooling_uncap(n, o.min, o.max);
        if (r >= 0 && n->kind == DF_KIND_CPUFREQ) {
                r = node_read_word(n->dirfd, "cpuinfo_min_freq", o.hw_min, sizeof(o.hw_min));
                if (r >= 0)
                        r = node_read_word(n->dirfd, "cpuinfo_max_freq", o.hw_max, sizeof(o.hw_max));
        } else if (r >= 0) {
                snprintf(o.hw_min, sizeof(o.hw_min), "%" PRIu64, n->hw_min);
                snprintf(o.hw_max, sizeof(o.hw_max), "%" PRIu64, n->hw_max);
        }
        if (r < 0)
                return r;
        /* Under the kernel's userspace governor the frequency set is a setting too. devfreq shows
         * "undefined" before anything was set, and holds the device where it was: that frequency
         * is the one to give back (nothing else writes "undefined" again). None when unreadable. */
        if (streq(o.governor, "userspace") &&
            (node_read_word(n->dirfd, a->applied, o.freq, sizeof(o.freq)) < 0 ||
             df_safe_atou64(o.freq, &v) < 0) &&
            (node_read_word(n->dirfd, a->cur, o.freq, sizeof(o.freq)) < 0 || df_safe_atou64(o.freq, &v) < 0))
                o.freq[0] = '\0';
        *ret = o;
        return 0;
}

/* A frequency of the record, in the node's units: within the hardware bounds, or devfreq's 0. */
static bool value_fits(const struct df_node *n, const char *value, bool zero_ok) {
        uint64_t v, hz;

        if (df_safe_atou64(value, &v) < 0)
                return false;
        if (v == 0 && zero_ok)
                return true;
        hz = node_to_hz(n, v);
        return n->hw_max == 0 || (hz >= n->hw_min && hz <= n->hw_max);
}

int df_node_check_originals(struct df_node *n, const struct df_originals *o) {
        assert(n);
        assert(o);

        bool devfreq = n->kind == DF_KIND_DEVFREQ;
        const struct {
                const char *what, *value;
                bool zero_ok, empty_ok;
        } values[] = {
                { "min", o->min, devfreq, false },     { "max", o->max, devfreq, false },
                { "hw_min", o->hw_min, false, false }, { "hw_max", o->hw_max, false, false },
                { "frequency", o->freq, false, true },
        };
        int r;

        r = df_node_offers_governor(n, o->governor);
        if (r < 0) {
                node_set_error(n, "read %s/%s: %s", n->path, node_attrs(n)->governors, strerror(-r));
                return r;
        }
        if (r == 0) {
                node_set_error(n, "the recorded governor '%s' is not one %s offers", o->governor, n->path);
                return -EBADMSG;
        }
        for (size_t i = 0; i < ELEMENTSOF(values); i++) {
                if (values[i].empty_ok && !values[i].value[0])
                        continue;
                if (!value_fits(n, values[i].value, values[i].zero_ok)) {
                        node_set_error(
                                n, "the recorded %s '%s' is outside the hardware range of %s", values[i].what,
                                values[i].value, n->path);
                        return -EBADMSG;
                }
        }
        return 0;
}

/* A min at or below the lowest, or a max at or above the highest frequency, limits nothing. */
static bool at_bound(const char *value, const char *bound, bool is_min) {
        uint64_t v, b;

        if (!*bound)
                return false;
        if (df_safe_atou64(value, &v) < 0 || df_safe_atou64(bound, &b) < 0)
                return streq(value, bound);
        return is_min ? v <= b : v >= b;
}

/* "No limit" as a policy says it now: its cpuinfo bound of this moment (turbo switched on or off
 * since the limit was found moves it), else the one recorded. */
static const char *no_limit(struct df_node *n, const char *attr, const char *recorded, char *buf, size_t size) {
        uint64_t v;

        if (node_read_word(n->dirfd, attr, buf, size) >= 0 && df_safe_atou64(buf, &v) >= 0 && v > 0)
                return buf;
        return recorded;
}

int node_write_limits(struct df_node *n, const char *min, const char *max, const char *hw_min, const char *hw_max) {
        assert(n);

        const struct kind_attrs *a = node_attrs(n);
        bool devfreq = n->kind == DF_KIND_DEVFREQ;
        char now_min[32], now_max[32];
        uint64_t new_min, cur_max;
        int r, k;

        if (at_bound(min, hw_min, true))
                min = devfreq ? "0" : no_limit(n, "cpuinfo_min_freq", hw_min, now_min, sizeof(now_min));
        if (at_bound(max, hw_max, false))
                max = devfreq ? "0" : no_limit(n, "cpuinfo_max_freq", hw_max, now_max, sizeof(now_max));
        if (df_safe_atou64(min, &new_min) < 0)
                new_min = 0;
        if (df_attr_read_u64(n->dirfd, a->max, &cur_max) < 0)
                cur_max = UINT64_MAX;
        if (new_min > cur_max) {
                r = node_write(n, -EBADF, a->max, max, true);
                k = node_write(n, -EBADF, a->min, min, true);
        } else {
                r = node_write(n, -EBADF, a->min, min, true);
                k = node_write(n, -EBADF, a->max, max, true);
        }
        return r < 0 ? r : k;
}

int df_node_restore(struct df_node *n, const struct df_originals *o) {
        int r, k;

        assert(n);

        node_clear_error(n);

        r = df_node_check_originals(n, o);
        if (r < 0)
                return r;
        node_close_kept(n);
        n->drive = DF_DRIVE_NONE;
        n->has_written = false;
        /* What follows a restore starts over: the originals are recorded again before it writes,
         * and the limits found are looked at again. */
        n->wrote_once = false;
        n->limits_held = false;
        n->found_min[0] = n->found_max[0] = '\0';

        r = node_write(n, -EBADF, node_attrs(n)->governor, o->governor, true);
        k = node_write_limits(n, o->min, o->max, o->hw_min, o->hw_max);
        r = r < 0 ? r : k;
        /* The userspace governor's frequency last: the kernel clamps it into the limits. */
        if (o->freq[0] && streq(o->governor, "userspace")) {
                k = node_write(n, -EBADF, node_attrs(n)->applied, o->freq, true);
                r = r < 0 ? r : k;
        }
        return r;
}
