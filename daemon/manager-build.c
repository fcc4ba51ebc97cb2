/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Phase one of attaching: configuration and sysfs reads turned into devices, without a single
 * write, so a broken configuration is refused before anything changes. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "logging.h"
#include "manager-internal.h"
#include "strmap.h"
#include "units.h"

void free_devices(struct manager_device **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                device_free(v[i]);
        free(v);
}

static const char *node_error_text(int r) {
        switch (r) {
        case -ENOENT:
                return "does not exist";
        case -EXDEV:
                return "leads outside the root's /sys";
        case -ENODEV:
                return "is neither a devfreq device nor a cpufreq policy";
        case -EINVAL:
                return "is not an absolute path under /sys";
        default:
                return strerror(-r);
        }
}

int build_device(
        struct manager *m, const struct df_config *c, const struct df_config_device *cd, const char *path,
        const char *name, struct manager_device **ret, struct df_config_errors *errors) {
        struct manager_device *d;
        uint64_t current;
        int r;

        assert(m);
        assert(ret);
        assert(errors);

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->name = strdup(name);
        if (!d->name || sd_bus_path_encode(DEVICE_PREFIX, name, &d->bus.path) < 0) {
                device_free(d);
                return -ENOMEM;
        }
        d->manager = m;
        r = df_node_open(&m->root, path, &d->node);
        if (r == -ENOENT && cd) {
                /* A driver may bind later: the device attaches when its node appears. */
                log_notice("%s: %s does not exist (yet); waiting for it to appear", name, path);
                device_free(d);
                return 0;
        }
        if (r < 0 && df_node_path_offline(&m->root, path)) {
                /* Nothing of it can be read until a CPU is back; the rescan then attaches it. */
                log_notice("%s: every CPU of %s is offline; it is attached when one is back", name, path);
                device_free(d);
                return 0;
        }
        if (r < 0) {
                if (cd)
                        df_config_errors_add(errors, &cd->path_loc, "path: %s %s", path, node_error_text(r));
                else
                        log_warning_errno(r, "%s: skipping %s: %s", name, path, node_error_text(r));
                device_free(d);
                return cd ? -EINVAL : 0;
        }
        r = df_spec_resolve_node(c, cd, name, d->node, errors, &d->spec);
        if (r >= 0 && d->spec->note)
                log_info("%s: %s", name, d->spec->note);
        if (r >= 0 && df_node_read_current(d->node, &current) < 0)
                current = d->spec->points[d->spec->n_points - 1].freq;
        if (r >= 0)
                r = df_spec_make_device(d->spec, current, now_usec(), &d->dev);
        if (r < 0 && r != -ENOMEM && d->spec && d->spec->n_points > DF_STATS_MAX_STATES)
                df_config_errors_add(
                        errors, cd ? &cd->loc : NULL, "%s: %zu operating points; at most %d are supported",
                        name, d->spec->n_points, DF_STATS_MAX_STATES);
        else if (r < 0 && r != -ENOMEM && d->spec)
                df_config_errors_add(errors, cd ? &cd->loc : NULL, "%s: cannot start: %s", name, strerror(-r));
        /* Load sources are opened now, so a missing file is a configuration error, not a surprise. */
        if (r >= 0 && df_device_polls(d->dev) && (r = device_open_load(d)) < 0)
                df_config_errors_add(
                        errors, cd ? &cd->load_loc : NULL, "load: cannot read %s%s%s: %s",
                        df_load_kind_to_string(d->spec->load), d->spec->load_path ? ":" : "",
                        strempty(d->spec->load_path), strerror(-r));
        if (r < 0) {
                device_free(d);
                return r == -ENOMEM ? r : -EINVAL;
        }
        d->node->log = (struct df_log){ .fn = log_from_lib, .userdata = d->name };
        *ret = d;
        return 1;
}

/* The devices built so far, found by path and by name without a scan (thousands of sections). */
struct built {
        struct manager_device **v;
        size_t n;
        struct df_strmap by_path, by_name;
};

static int push(struct built *b, struct manager_device *d) {
        struct manager_device **slot = GROW(b->v, b->n);

        if (!slot || df_strmap_insert(&b->by_path, d->node->path, strlen(d->node->path), b->n) < 0)
                return -ENOMEM;
        /* Names are unique already: sections by the parser, discovered nodes by the check below. */
        if (df_strmap_insert(&b->by_name, d->name, strlen(d->name), b->n) == -ENOMEM)
                return -ENOMEM;
        *slot = d;
        b->n++;
        return 0;
}

static struct manager_device *find_path(const struct built *b, const char *path) {
        size_t i;

        return df_strmap_find(&b->by_path, path, strlen(path), &i) ? b->v[i] : NULL;
}

static bool name_taken(const struct built *b, const char *name) {
        return df_strmap_find(&b->by_name, name, strlen(name), NULL);
}

static int cmp_devices(const void *a, const void *b) {
        return strcmp((*(struct manager_device *const *) a)->name, (*(struct manager_device *const *) b)->name);
}

static int discover_one(struct manager *m, const struct df_config *c, struct built *b, const char *path) {
        _cleanup_free_ char *canonical = NULL;
        struct df_config_errors skipped = {};
        struct manager_device *d = NULL;
        const char *name = strrchr(path, '/') + 1;
        int r;

        if (df_root_resolve(&m->root, path, &canonical) < 0 || find_path(b, canonical))
                return 0; /* a configured section wins */
        /* A section's name is its own even while its node is absent (it may appear later). */
        if (name_taken(b, name) || df_config_find_device(c, name) || !df_name_valid(name)) {
                log_warning("%s: not managing autodiscovered %s: the name is taken or invalid", name, path);
                return 0;
        }
        /* An autodiscovered node that cannot be managed is skipped with a warning, never an error:
         * nobody asked for it. */
        r = build_device(m, c, NULL, path, name, &d, &skipped);
        for (size_t k = 0; k < skipped.n; k++)
                log_warning("%s: not managing autodiscovered %s: %s", name, path, skipped.messages[k]);
        df_config_errors_done(&skipped);
        if (r > 0 && push(b, d) < 0) {
                device_free(d);
                r = -ENOMEM;
        }
        return r == -ENOMEM ? r : 0;
}

static int discover(struct manager *m, const struct df_config *c, struct built *b) {
        char **paths = NULL;
        size_t n_paths = 0;
        int r;

        r = df_node_discover(&m->root, &paths, &n_paths);
        if (r < 0) {
                log_warning_errno(r, "Autodiscovery failed: %m");
                return 0;
        }
        r = 0;
        for (size_t i = 0; i < n_paths && r >= 0; i++)
                r = discover_one(m, c, b, paths[i]);
        for (size_t i = 0; i < n_paths; i++)
                free(paths[i]);
        free(paths);
        return r;
}

static int build_configured(
        struct manager *m, const struct df_config *c, struct built *b, struct df_config_errors *errors) {
        for (size_t i = 0; i < c->n_devices; i++) {
                const struct df_config_device *cd = &c->devices[i];
                struct manager_device *d = NULL, *same;
                int r;

                r = build_device(m, c, cd, cd->path, cd->name, &d, errors);
                if (r == -ENOMEM)
                        return r;
                if (r <= 0)
                        continue;
                same = find_path(b, d->node->path);
                if (same) {
                        const struct df_config_device *other = df_config_find_device(c, same->name);
                        df_config_errors_add(
                                errors, &cd->path_loc, "path: %s is the same device as [device %s] (%s:%u)",
                                cd->path, same->name, other->path_loc.file, other->path_loc.line);
                        device_free(d);
                        continue;
                }
                if (push(b, d) < 0) {
                        device_free(d);
                        return -ENOMEM;
                }
        }
        return 0;
}

int build_devices(
        struct manager *m, const struct df_config *c, struct manager_device ***ret, size_t *ret_n,
        struct df_config_errors *errors) {
        struct built b = {};
        int r;

        assert(m);
        assert(ret);
        assert(errors);

        r = build_configured(m, c, &b, errors);
        if (r >= 0 && errors->n > 0)
                r = -EINVAL;
        if (r >= 0 && c->autodiscover)
                r = discover(m, c, &b);
        df_strmap_done(&b.by_path);
        df_strmap_done(&b.by_name);
        if (r < 0) {
                free_devices(b.v, b.n);
                return r;
        }
        if (b.n > 0) /* qsort() with a NULL array is undefined, even for 0 elements */
                qsort(b.v, b.n, sizeof(*b.v), cmp_devices);
        *ret = b.v;
        *ret_n = b.n;
        return 0;
}
