/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one place that writes a node's attributes, and the error text of the call that failed. The
 * bottom of the node's files: node.c, node-originals.c, node-stats.c and node-drive.c call it. */

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "node-internal.h"

void node_set_error(struct df_node *n, const char *fmt, ...) {
        va_list ap;

        assert(n);

        va_start(ap, fmt);
        vsnprintf(n->error, sizeof(n->error), fmt, ap);
        va_end(ap);
}

/*
 * The one place that writes: the originals are recorded before the first real write (not before
 * writing them back), dry-run only says what it would do, and a failure names the attribute.
 */
int node_write(struct df_node *n, int fd, const char *attr, const char *value, bool restoring) {
        int r;

        assert(n);
        assert(attr);
        assert(value);

        if (n->dry_run) {
                df_logf(&n->log, LOG_INFO, "would write %s to %s/%s", value, n->path, attr);
                return 0;
        }
        if (!restoring && !n->wrote_once) {
                if (n->first_write) {
                        r = n->first_write(n, n->first_write_userdata);
                        if (r < 0) {
                                node_set_error(
                                        n, "not writing %s/%s: recording the original settings failed: %s",
                                        n->path, attr, strerror(-r));
                                return r;
                        }
                }
                n->wrote_once = true;
        }
        r = fd >= 0 ? df_attr_pwrite_on(fd, value, n->on_sysfs) : df_attr_write(n->dirfd, attr, value);
        if (r < 0)
                node_set_error(n, "write %s/%s: %s", n->path, attr, strerror(-r));
        return r;
}
