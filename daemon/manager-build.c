/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Phase one of attaching: configuration and sysfs reads turned into devices, without a single
 * write, so a broken configuration is refused before anything changes. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "logging.h"
#include "manager-internal.h"
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
        if (r < 0) {
                if (cd)
                        df_config_errors_add(errors, &cd->path_loc, "path: %s %s", path, node_error_text(r));
                else
                        log_warning_errno(r, "%s: skipping %s: %s", name, path, node_error_text(r));
                device_free(d);
                return cd ? -EINVAL : 0;
        }
        r = df_spec_resolve(c, cd, name, d->node, errors, &d->spec);
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

static int push(struct manager_device ***v, size_t *n, struct manager_device *d) {
        struct manager_device **slot = GROW(*v, *n);

        if (!slot)
                return -ENOMEM;
        *slot = d;
        (*n)++;
        return 0;
}

static int cmp_devices(const void *a, const void *b) {
        return strcmp((*(struct manager_device *const *) a)->name, (*(struct manager_device *const *) b)->name);
}

static struct manager_device *find_path(struct manager_device **v, size_t n, const char *path) {
        for (size_t i = 0; i < n; i++)
                if (streq(v[i]->node->path, path))
                        return v[i];
        return NULL;
}

static struct manager_device *find_name(struct manager_device **v, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                if (streq(v[i]->name, name))
                        return v[i];
        return NULL;
}

static int discover(struct manager *m, const struct df_config *c, struct manager_device ***v, size_t *n) {
        char **paths = NULL;
        size_t n_paths = 0;
        int r;

        r = df_node_discover(&m->root, &paths, &n_paths);
        if (r < 0) {
                log_warning_errno(r, "Autodiscovery failed: %m");
                return 0;
        }
        for (size_t i = 0; i < n_paths; i++) {
                _cleanup_free_ char *canonical = NULL;
                struct manager_device *d = NULL;
                const char *name = strrchr(paths[i], '/') + 1;

                if (df_root_resolve(&m->root, paths[i], &canonical) < 0 || find_path(*v, *n, canonical))
                        continue; /* a configured section wins */
                if (find_name(*v, *n, name) || !df_name_valid(name)) {
                        log_warning(
                                "%s: not managing autodiscovered %s: the name is taken or invalid", name,
                                paths[i]);
                        continue;
                }
                /* An autodiscovered node that cannot be managed is skipped with a warning, never an
                 * error: nobody asked for it. */
                struct df_config_errors skipped = {};
                r = build_device(m, c, NULL, paths[i], name, &d, &skipped);
                for (size_t k = 0; k < skipped.n; k++)
                        log_warning(
                                "%s: not managing autodiscovered %s: %s", name, paths[i], skipped.messages[k]);
                df_config_errors_done(&skipped);
                if (r > 0 && push(v, n, d) < 0) {
                        device_free(d);
                        r = -ENOMEM;
                }
                if (r == -ENOMEM)
                        break;
        }
        for (size_t i = 0; i < n_paths; i++)
                free(paths[i]);
        free(paths);
        return r == -ENOMEM ? r : 0;
}

int build_devices(
        struct manager *m, const struct df_config *c, struct manager_device ***ret, size_t *ret_n,
        struct df_config_errors *errors) {
        struct manager_device **v = NULL;
        size_t n = 0;
        int r = 0;

        for (size_t i = 0; i < c->n_devices; i++) {
                const struct df_config_device *cd = &c->devices[i];
                struct manager_device *d = NULL, *same;

                r = build_device(m, c, cd, cd->path, cd->name, &d, errors);
                if (r == -ENOMEM)
                        goto fail;
                if (r <= 0)
                        continue;
                same = find_path(v, n, d->node->path);
                if (same) {
                        const struct df_config_device *other = df_config_find_device(c, same->name);
                        df_config_errors_add(
                                errors, &cd->path_loc, "path: %s is the same device as [device %s] (%s:%u)",
                                cd->path, same->name, other->path_loc.file, other->path_loc.line);
                        device_free(d);
                        continue;
                }
                if (push(&v, &n, d) < 0) {
                        device_free(d);
                        r = -ENOMEM;
                        goto fail;
                }
        }
        if (errors->n > 0) {
                r = -EINVAL;
                goto fail;
        }
        if (c->autodiscover) {
                r = discover(m, c, &v, &n);
                if (r < 0)
                        goto fail;
        }
        if (n > 0) /* qsort() with a NULL array is undefined, even for 0 elements */
                qsort(v, n, sizeof(*v), cmp_devices);
        *ret = v;
        *ret_n = n;
        return 0;

fail:
        free_devices(v, n);
        return r < 0 ? r : -EINVAL;
}
