/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Phase one of attaching: configuration and sysfs reads turned into devices, without a single
 * write, so a broken configuration is refused before anything changes. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "units.h"

void errors_add(struct df_config_errors *e, const struct df_location *loc, const char *fmt, ...) {
        char message[512];
        char *text = NULL;
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(message, sizeof(message), fmt, ap);
        va_end(ap);
        if (e->n >= DF_CONFIG_ERRORS_MAX) {
                e->dropped++;
                return;
        }
        if (loc && loc->file) {
                if (asprintf(&text, "%s:%u: %s", loc->file, loc->line, message) < 0)
                        text = NULL;
        } else
                text = strdup(message);
        if (!text) {
                e->dropped++;
                return;
        }
        e->messages[e->n++] = text;
}

void config_value_for_governor(const struct manager_device *d, char *buf, size_t size) {
        snprintf(buf, size, "%s", d->config_governor ? d->config_governor : "-");
}

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

static int
add_points(struct manager_device *d, const struct df_config_device *cd, struct df_config_errors *errors) {
        _cleanup_free_ uint64_t *freqs = NULL;
        size_t n = 0;
        int r;

        if (cd && cd->n_opps > 0) {
                for (size_t i = 0; i < cd->n_opps; i++) {
                        r = df_opp_add(
                                &d->dev->opps, cd->opps[i].freq, cd->opps[i].microvolt, cd->opps[i].latency_us);
                        if (r < 0)
                                errors_add(
                                        errors, &cd->opps[i].loc, "opp: cannot add this point: %s",
                                        strerror(-r));
                }
        } else {
                r = df_node_read_frequencies(
                        d->node, cd ? df_config_device_opp_step(cd) : DF_CONFIG_DEFAULT_OPP_STEP, &freqs, &n);
                if (r < 0) {
                        errors_add(
                                errors, cd ? &cd->path_loc : NULL, "%s: cannot read the frequencies of %s: %s",
                                d->name, d->node->path, strerror(-r));
                        return r;
                }
                for (size_t i = 0; i < n; i++)
                        (void) df_opp_add(&d->dev->opps, freqs[i], 0, 0);
        }
        for (size_t i = 0; cd && i < cd->n_opp_disabled; i++) {
                char f[DF_FREQ_STRING_MAX];
                r = df_opp_disable(&d->dev->opps, cd->opp_disabled[i].freq);
                if (r < 0)
                        errors_add(
                                errors, &cd->opp_disabled[i].loc, "opp-disabled: %s is not a point of %s",
                                df_format_frequency(f, cd->opp_disabled[i].freq), d->node->path);
        }
        if (d->dev->opps.n > 0 && df_opp_count_enabled(&d->dev->opps) == 0) {
                errors_add(errors, cd ? &cd->loc : NULL, "%s: every operating point is disabled", d->name);
                return -EINVAL;
        }
        return d->dev->opps.n > 0 ? 0 : -ENODATA;
}

static int set_governor(
        struct manager_device *d, const struct df_config *c, const struct df_config_device *cd,
        struct df_config_errors *errors) {
        const char *name = cd ? df_config_device_governor(c, cd) : c->default_governor;
        const struct df_governor_ops *ops;
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX];

        if (d->dev->mode == DF_MODE_CLAMP) {
                if (cd && cd->governor) {
                        char **v = NULL;
                        size_t n = 0;
                        bool offered = false;

                        if (df_node_kernel_governors(d->node, &v, &n) >= 0) {
                                for (size_t i = 0; i < n; i++) {
                                        offered = offered || streq(v[i], cd->governor);
                                        free(v[i]);
                                }
                                free(v);
                        }
                        if (!offered) {
                                errors_add(
                                        errors, &cd->governor_loc,
                                        "governor: the kernel does not offer '%s' for %s (in clamp mode the "
                                        "governor is the kernel's)",
                                        cd->governor, d->node->path);
                                return -EINVAL;
                        }
                        d->clamp_governor = strdup(cd->governor);
                        if (!d->clamp_governor)
                                return -ENOMEM;
                }
                return 0;
        }

        ops = df_governor_find(name);
        if (!ops) {
                errors_add(errors, cd ? &cd->governor_loc : NULL, "governor: unknown governor '%s'", name);
                return -EINVAL;
        }
        if (ops->polls && d->load_kind == DF_LOAD_NONE) {
                if (cd) {
                        errors_add(
                                errors, cd->governor_loc.file ? &cd->governor_loc : &cd->loc,
                                "governor %s needs a load source: add load = counters:PATH or percent:PATH",
                                ops->name);
                        return -EINVAL;
                }
                log_info(
                        "%s: staying in clamp mode: governor %s needs a load source and devfreq nodes have none "
                        "by default (configure one in a [device %s] section)",
                        d->name, ops->name, d->name);
                d->dev->mode = DF_MODE_CLAMP;
                return 0;
        }
        (void) df_device_set_governor(d->dev, ops);
        memcpy(values, d->dev->governor.tunables, sizeof(values));
        for (size_t i = 0; cd && i < cd->n_tunables; i++) {
                int k = df_governor_tunable_index(ops, cd->tunables[i].name);
                if (k < 0) {
                        errors_add(
                                errors, &cd->tunables[i].loc, "%s has no tunable '%s'", ops->name,
                                cd->tunables[i].name);
                        return -EINVAL;
                }
                values[k] = cd->tunables[i].value;
        }
        if (df_governor_set_tunables(&d->dev->governor, values) < 0) {
                errors_add(
                        errors, cd && cd->n_tunables ? &cd->tunables[0].loc : NULL,
                        "the tunables of %s do not fit together", ops->name);
                return -EINVAL;
        }
        return 0;
}

/* Start from initial-frequency (govern mode) or what sysfs reports. */
static int
start_device(struct manager_device *d, const struct df_config_device *cd, struct df_config_errors *errors) {
        uint64_t initial;
        int r;

        if (df_node_read_current(d->node, &initial) < 0)
                initial = d->dev->opps.opps[d->dev->opps.n - 1].freq;
        if (cd && cd->initial_set && d->dev->mode == DF_MODE_GOVERN)
                initial = cd->initial_freq;
        r = df_device_start(d->dev, initial, now_usec());
        if (r < 0 && d->dev->opps.n > DF_STATS_MAX_STATES)
                errors_add(
                        errors, cd ? &cd->loc : NULL, "%s: %zu operating points; at most %d are supported",
                        d->name, d->dev->opps.n, DF_STATS_MAX_STATES);
        else if (r < 0)
                errors_add(errors, cd ? &cd->loc : NULL, "%s: cannot start: %s", d->name, strerror(-r));
        return r;
}

/* The configuration's values in force for the persisted-choice rule ("-" when unset). */
static int remember_config_values(struct manager_device *d, const struct df_config_device *cd) {
        char buf[DF_ATTR_VALUE_MAX + 16];

        snprintf(
                buf, sizeof(buf), "%s:%s", df_mode_to_string(d->dev->mode),
                d->dev->mode == DF_MODE_GOVERN ? d->dev->governor.ops->name : strempty(d->clamp_governor));
        d->config_governor = strdup(buf);
        if (cd && cd->initial_set)
                snprintf(buf, sizeof(buf), "%" PRIu64, cd->initial_freq);
        else
                snprintf(buf, sizeof(buf), "-");
        d->config_initial = strdup(buf);
        return d->config_governor && d->config_initial ? 0 : -ENOMEM;
}

static int build_one(
        struct manager *m, const struct df_config *c, const struct df_config_device *cd, const char *path,
        const char *name, struct manager_device **ret, struct df_config_errors *errors) {
        struct manager_device *d;
        int r;

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->manager = m;
        d->configured = cd != NULL;
        d->name = strdup(name);
        if (!d->name)
                goto oom;

        r = df_node_open(&m->root, path, &d->node);
        if (r < 0) {
                if (cd)
                        errors_add(errors, &cd->path_loc, "path: %s %s", path, node_error_text(r));
                else
                        log_warning_errno(r, "%s: skipping %s: %s", name, path, node_error_text(r));
                device_free(d);
                return cd ? -EINVAL : 0;
        }
        r = df_device_new(name, cd ? df_config_device_mode(c, cd) : c->default_mode, &d->dev);
        if (r < 0)
                goto fail;

        if (cd && cd->load_set) {
                d->load_kind = cd->load;
                if (cd->load_path && !(d->load_path = strdup(cd->load_path)))
                        goto oom;
        } else
                d->load_kind = d->node->kind == DF_KIND_CPUFREQ ? DF_LOAD_PROC_STAT : DF_LOAD_NONE;
        d->polling_usec = cd ? df_config_device_polling(c, cd) : c->polling_usec;

        r = add_points(d, cd, errors);
        if (r < 0)
                goto fail;
        r = set_governor(d, c, cd, errors);
        if (r < 0)
                goto fail;
        if (cd && cd->parent && !(d->parent_name = strdup(cd->parent)))
                goto oom;
        if (cd && cd->n_passive_map > 0 &&
            df_governor_set_passive_map(&d->dev->governor, cd->passive_map, cd->n_passive_map) < 0) {
                errors_add(errors, &cd->passive_map_loc, "passive-map: a parent frequency is listed twice");
                goto fail;
        }
        if (cd) {
                df_device_set_admin_range(d->dev, cd->min_freq, cd->max_freq);
                d->dev->override_limits = cd->override_limits;
        }

        r = start_device(d, cd, errors);
        if (r < 0)
                goto fail;

        if (remember_config_values(d, cd) < 0)
                goto oom;
        d->node->log = (struct df_log){ .fn = log_from_lib, .userdata = d->name };
        *ret = d;
        return 1;

oom:
        device_free(d);
        return -ENOMEM;
fail:
        device_free(d);
        return r == -ENOMEM ? r : -EINVAL;
}

static int push(struct manager_device ***v, size_t *n, struct manager_device *d) {
        struct manager_device **nv = realloc(*v, (*n + 1) * sizeof(*nv));

        if (!nv)
                return -ENOMEM;
        nv[(*n)++] = d;
        *v = nv;
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
                r = build_one(m, c, NULL, paths[i], name, &d, &skipped);
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

                r = build_one(m, c, cd, cd->path, cd->name, &d, errors);
                if (r == -ENOMEM)
                        goto fail;
                if (r <= 0)
                        continue;
                same = find_path(v, n, d->node->path);
                if (same) {
                        const struct df_config_device *other = df_config_find_device(c, same->name);
                        errors_add(
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
