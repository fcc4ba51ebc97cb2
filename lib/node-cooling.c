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

/* The state of the cooling device in directory `dir` if it is of type `type`. */
static bool read_state(int dir, const char *type, uint64_t *ret) {
        char t[128];

        return df_attr_read(dir, "type", t, sizeof(t)) >= 0 && streq(t, type) &&
                df_attr_read_u64(dir, "cur_state", ret) >= 0;
}

/* The directory of the cooling device of type `type`, its state in *ret; -ENOENT when none has it. */
static int find_device(const struct df_root *root, const char *type, uint64_t *ret) {
        _cleanup_(closedirp) DIR *d = NULL;
        int r;

        r = df_root_opendir(root, CLASS, &d);
        if (r < 0)
                return r;
        for (struct dirent *de; (de = readdir(d));) {
                _cleanup_free_ char *path = NULL;
                _cleanup_close_ int dir = -EBADF;

                if (!strneq(de->d_name, "cooling_device", 14) || asprintf(&path, CLASS "/%s", de->d_name) < 0)
                        continue;
                dir = df_root_open_path(root, path, O_RDONLY | O_DIRECTORY);
                if (dir >= 0 && read_state(dir, type, ret))
                        return TAKE_FD(dir);
        }
        return -ENOENT;
}

/* The state of the node's cooling device, 0 when it has none. Its directory is kept once found and
 * searched for again when it is gone or holds another type (unregistered, and its name reused). */
static uint64_t cooling_state(struct df_node *n) {
        uint64_t state;
        int fd;

        if (n->cooling_fd >= 0) {
                if (read_state(n->cooling_fd, n->cooling_type, &state))
                        return state;
                n->cooling_fd = safe_close(n->cooling_fd);
        }
        fd = find_device(
                &(const struct df_root){ .fd = n->root_fd, .path = (char *) "" }, n->cooling_type, &state);
        if (fd < 0)
                return 0;
        n->cooling_fd = fd;
        return state;
}

bool node_shows_cap(const struct df_node *n, const char *seen, uint64_t cap) {
        uint64_t v;

        return cap > 0 && df_safe_atou64(seen, &v) >= 0 && node_to_hz(n, v) == cap;
}

void node_cooling_uncap(struct df_node *n, char *min, char *max) {
        uint64_t cap = node_cooling_cap(n);

        if (node_shows_cap(n, max, cap) && cap < n->hw_max)
                snprintf(max, DF_ATTR_VALUE_MAX, "%" PRIu64, to_node_units(n, n->hw_max, ROUND_UP));
        if (node_shows_cap(n, min, cap) && cap > n->hw_min)
                snprintf(min, DF_ATTR_VALUE_MAX, "%" PRIu64, to_node_units(n, n->hw_min, ROUND_DOWN));
}

uint64_t node_cooling_cap(struct df_node *n) {
        uint64_t state, cap;

        assert(n);

        if (n->root_fd < 0 || n->n_points == 0)
                return 0;
        state = cooling_state(n);
        if (state == 0)
                return 0;
        cap = n->points[state < n->n_points ? n->n_points - 1 - state : 0];
        /* devfreq_cooling_set_cur_state() asks for a maximum as a devfreq request: 266666666 Hz
         * shows as 266667000. */
        return n->kind == DF_KIND_DEVFREQ ? node_devfreq_shown(cap, true) : cap;
}
