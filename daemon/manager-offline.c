/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's work without an event loop: --check-config and --restore. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "units.h"

static void print_rule(const struct df_config_thermal *t, FILE *out) {
        char a[DF_TEMPERATURE_STRING_MAX], b[DF_TEMPERATURE_STRING_MAX], f[DF_FREQ_STRING_MAX],
                p[DF_DURATION_STRING_MAX], s[DF_DURATION_STRING_MAX];

        fprintf(out, "thermal %s\n  zone:     %s\n  devices: ", t->name, t->zone);
        if (t->all_devices)
                fputs(" *", out);
        for (size_t i = 0; i < t->n_devices; i++)
                fprintf(out, " %s", t->devices[i]);
        fprintf(out, "\n  trip:     %s, clear %s\n  cap:      %s\n  poll:     %s, stale after %s\n",
                df_format_temperature(a, t->trip), df_format_temperature(b, t->clear),
                df_format_frequency(f, t->max_freq), df_format_duration(p, t->poll_usec),
                df_format_duration(s, t->stale_usec));
}

int manager_check_config(const struct manager_options *o, FILE *out) {
        struct df_config_errors errors = {};
        struct manager_device **devices = NULL;
        struct df_config *c = NULL;
        struct manager m = { .dry_run = true, .root = { .fd = -EBADF } };
        size_t n = 0;
        int r;

        assert(o);

        r = df_root_open(o->root, &m.root);
        if (r < 0)
                return log_error_errno(r, "Cannot open the root directory %s: %m", o->root);
        r = df_config_load(o->config_file, o->config_dir, &c, &errors);
        if (r >= 0)
                r = build_devices(&m, c, &devices, &n, &errors);
        for (size_t i = 0; i < errors.n; i++)
                log_error("%s", errors.messages[i]);
        if (errors.dropped)
                log_error("... and %zu more errors", errors.dropped);
        if (r >= 0) {
                m.config = c;
                for (size_t i = 0; i < n; i++)
                        df_spec_print(devices[i]->spec, out);
                for (size_t i = 0; i < c->n_thermals; i++)
                        print_rule(&c->thermals[i], out);
                fprintf(out, "%zu device%s, configuration OK\n", n, n == 1 ? "" : "s");
        } else if (r != -EINVAL)
                log_error_errno(r, "Checking the configuration failed: %m");
        free_devices(devices, n);
        df_config_free(c);
        df_config_errors_done(&errors);
        df_root_close(&m.root);
        return r < 0 ? -EINVAL : 0;
}

/*
 * Write one record of the originals file back to its node, saying what happened. 1: restored
 * and -EBADMSG: a record not to be trusted; the caller drops either. 0: the node is absent now
 * (it may come back) and other negative errnos: a failure; the caller keeps the record to retry.
 */
int restore_entry(const struct df_root *root, const struct originals_entry *e, bool dry_run) {
        _cleanup_(df_node_freep) struct df_node *n = NULL;
        int r;

        r = df_node_open(root, e->path, &n);
        if (r == -ENOENT) {
                log_notice("%s: absent; keeping its original settings for when it is back", e->path);
                return 0;
        }
        if (r < 0)
                return log_error_errno(r, "%s: cannot open it to restore its original settings: %m", e->path);
        /* --dry-run writes nothing here either: it shows what would be written. */
        n->dry_run = dry_run;
        n->log = (struct df_log){ .fn = log_from_lib, .userdata = (void *) e->path };
        r = df_node_restore(n, &e->values);
        if (r == -EBADMSG) {
                log_warning("%s: ignoring its record of original settings: %s", e->path, n->error);
                return r;
        }
        if (r < 0) {
                log_error(
                        "%s: restoring the original settings failed, keeping them to retry: %s", e->path,
                        n->error[0] ? n->error : strerror(-r));
                return r;
        }
        return 1;
}

bool restore_entry_done(int r) {
        return r == 1 || r == -EBADMSG;
}

int manager_restore_originals_file(const struct manager_options *o) {
        struct originals *orig = NULL;
        struct df_root root = { .fd = -EBADF };
        size_t failed = 0, kept = 0;
        int r;

        assert(o);

        r = df_root_open(o->root, &root);
        if (r < 0)
                return log_error_errno(r, "Cannot open the root directory %s: %m", o->root);
        r = originals_load(o->runtime_dir, &orig);
        if (r < 0) {
                df_root_close(&root);
                return r;
        }
        if (orig->n == 0)
                log_info("Nothing to restore: no original settings recorded in %s", o->runtime_dir);
        /* Entries kept (failed, absent, or a dry run) stay at the front; the others go. */
        while (orig->n > kept) {
                struct originals_entry *e = &orig->entries[kept];

                r = restore_entry(&root, e, o->dry_run);
                if (!restore_entry_done(r) || o->dry_run) {
                        failed += r < 0 && r != -EBADMSG;
                        kept++;
                        continue;
                }
                if (r > 0)
                        log_info("%s: original settings restored", e->path);
                (void) originals_forget(orig, e->path);
        }
        /* Once for all: each save rewrites the whole file. */
        if (!o->dry_run)
                (void) originals_save(orig);
        originals_free(orig);
        df_root_close(&root);
        return failed ? -EIO : 0;
}
