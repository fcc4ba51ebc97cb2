/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's own thermal cap on a node. A driver may register a cooling device for its devfreq
 * device (devfreq_cooling_register()) or its cpufreq policy (cpufreq_cooling); its state s caps
 * the node at the s-th point from the top, through a max-frequency request of the kernel's own
 * that min_freq and max_freq (scaling_*) show through, as they show any other writer's. Sharing
 * the limits must tell the two apart: a cap is the kernel's, not a value to keep or restore.
 */

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "node-internal.h"
#include "node.h"
#include "units.h"

#define CLASS "/sys/class/thermal"

/*
 * The type the kernel gives the node's cooling device: "devfreq-" and the devfreq device's parent
 * (6.1: of_devfreq_cooling_register_power(); the node is <parent>/devfreq/<name>), or "cpufreq-"
 * and the policy's CPU (cpufreq_cooling: policyN is CPU N's). "" when the path says neither.
 */
static void cooling_type(enum df_kind kind, const char *path, char *buf, size_t size) {
        const char *end, *start;

        buf[0] = '\0';
        if (kind == DF_KIND_CPUFREQ) {
                start = strrchr(path, '/');
                if (start && strneq(start + 1, "policy", 6))
                        snprintf(buf, size, "cpufreq-cpu%s", start + 7);
                return;
        }
        end = strrchr(path, '/');
        if (!end || end - path < 8 || !strneq(end - 8, "/devfreq", 8))
                return;
        end -= 8;
        for (start = end; start > path && start[-1] != '/'; start--)
                ;
        if (end > start && (size_t) (end - start) + 9 <= size)
                snprintf(buf, size, "devfreq-%.*s", (int) (end - start), start);
}

int node_cooling_open(struct df_node *n, const struct df_root *root) {
        assert(n);
        assert(root);

        cooling_type(n->kind, n->path, n->cooling_type, sizeof(n->cooling_type));
        /* A policy without a frequency table (intel_pstate) has no cpufreq_cooling. */
        if (!n->cooling_type[0] || (n->kind == DF_KIND_CPUFREQ && !n->has_table))
                return 0;
        /* The root, to look the class up in when a limit needs explaining. */
        n->root_fd = fcntl(root->fd, F_DUPFD_CLOEXEC, 3);
        return n->root_fd < 0 ? -errno : 0;
}

/* The state of the cooling device of type `type`: 0 when none has it. */
static uint64_t find_state(const struct df_root *root, const char *type) {
        _cleanup_(closedirp) DIR *d = NULL;

        if (df_root_opendir(root, CLASS, &d) < 0)
                return 0;
        for (struct dirent *de; (de = readdir(d));) {
                _cleanup_free_ char *path = NULL;
                _cleanup_close_ int dir = -EBADF;
                char t[128];
                uint64_t state;

                if (!strneq(de->d_name, "cooling_device", 14) || asprintf(&path, CLASS "/%s", de->d_name) < 0)
                        continue;
                dir = df_root_open_path(root, path, O_RDONLY | O_DIRECTORY);
                if (dir >= 0 && df_attr_read(dir, "type", t, sizeof(t)) >= 0 && streq(t, type) &&
                    df_attr_read_u64(dir, "cur_state", &state) >= 0)
                        return state;
        }
        return 0;
}

bool node_shows_cap(const struct df_node *n, const char *seen, uint64_t cap) {
        uint64_t v;

        return cap > 0 && df_safe_atou64(seen, &v) >= 0 && node_to_hz(n, v) == cap;
}

void node_cooling_uncap(struct df_node *n, char *min, char *max) {
        uint64_t cap = node_cooling_cap(n), unit = df_kind_unit_hz(n->kind);

        if (node_shows_cap(n, max, cap) && cap < n->hw_max)
                snprintf(max, DF_ATTR_VALUE_MAX, "%" PRIu64, n->hw_max / unit + (n->hw_max % unit != 0));
        if (node_shows_cap(n, min, cap) && cap > n->hw_min)
                snprintf(min, DF_ATTR_VALUE_MAX, "%" PRIu64, n->hw_min / unit);
}

uint64_t node_cooling_cap(struct df_node *n) {
        _cleanup_free_ uint64_t *points = NULL;
        size_t count = 0;
        uint64_t state;

        assert(n);

        if (n->root_fd < 0)
                return 0;
        state = find_state(&(const struct df_root){ .fd = n->root_fd, .path = (char *) "" }, n->cooling_type);
        if (state == 0 || df_node_read_frequencies(n, 0, &points, &count) < 0 || count == 0)
                return 0;
        return points[state < count ? count - 1 - state : 0];
}
