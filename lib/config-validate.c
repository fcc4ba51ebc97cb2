/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Validation of the merged configuration as a whole, once every file is read: paths, governors and
 * their tunables, passive parents, operating points and frequency ranges. */

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "macro.h"
#include "spec.h"
#include "units.h"

static const struct df_config_device *passive_parent(const struct df_config *c, const struct df_config_device *d) {
        if (df_config_device_mode(c, d) != DF_MODE_GOVERN || !d->parent ||
            df_governor_find(df_config_device_governor(c, d)) != &df_governor_passive)
                return NULL;
        return df_config_find_device(c, d->parent);
}

static bool opps_contain(const struct df_config_device *d, uint64_t f) {
        for (size_t i = 0; i < d->n_opps; i++)
                if (d->opps[i].freq == f)
                        return true;
        return false;
}

static int validate_passive(struct parser *p, const struct df_config_device *d) {
        const struct df_config *c = p->config;
        const struct df_config_device *parent, *cur = d;
        size_t self = (size_t) (d - c->devices), lowest = self;
        char buf[DF_FREQ_STRING_MAX];

        if (!d->parent)
                return config_report_at(
                        p, d->governor ? &d->governor_loc : &d->loc,
                        "device '%s': governor passive needs parent = NAME, the device it follows", d->name);
        parent = df_config_find_device(c, d->parent);
        if (!parent)
                return config_report_at(p, &d->parent_loc, "parent '%s' is not a configured device", d->parent);
        if (parent == d)
                return config_report_at(p, &d->parent_loc, "device '%s' cannot follow itself", d->name);

        /* A cycle is reported once, at the member configured first. */
        for (size_t steps = 0; steps < c->n_devices && (cur = passive_parent(c, cur)); steps++) {
                lowest = MIN(lowest, (size_t) (cur - c->devices));
                if (cur == d)
                        return lowest == self ?
                                config_report_at(
                                        p, &d->parent_loc, "the parents of device '%s' form a cycle", d->name) :
                                0;
        }

        for (size_t i = 0; i < d->n_passive_map; i++) {
                if (parent->n_opps > 0 && !opps_contain(parent, d->passive_map[i].parent))
                        return config_report_at(
                                p, &d->passive_map_loc,
                                "passive-map: %s is not an operating point of parent '%s'",
                                df_format_frequency(buf, d->passive_map[i].parent), parent->name);
                if (d->n_opps > 0 && !opps_contain(d, d->passive_map[i].child))
                        return config_report_at(
                                p, &d->passive_map_loc,
                                "passive-map: %s is not an operating point of device '%s'",
                                df_format_frequency(buf, d->passive_map[i].child), d->name);
        }
        return 0;
}

/* Checked as one set after defaults, so the order of the lines does not matter. */
static int
validate_tunables(struct parser *p, const struct df_config_device *d, const struct df_governor_ops *ops) {
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {};
        const struct df_config_tunable *last = NULL;
        char list[256] = "";
        size_t n = 0;
        int r = 0;

        for (size_t i = 0; i < ops->n_tunables; i++)
                n += (size_t) snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", ops->tunables[i].name);
        for (size_t i = 0; i < d->n_tunables; i++) {
                const struct df_config_tunable *t = &d->tunables[i];
                int k = df_governor_tunable_index(ops, t->name);

                if (k < 0)
                        r = config_report_at(
                                p, &t->loc, "'%s' is not a tunable of governor %s (%s%s)", t->name, ops->name,
                                ops->n_tunables ? "its tunables: " : "it has none", list);
                else if (t->value < ops->tunables[k].min || t->value > ops->tunables[k].max)
                        r = config_report_at(
                                p, &t->loc, "%s = %" PRIu32 " is out of range (%" PRIu32 " to %" PRIu32 ")",
                                t->name, t->value, ops->tunables[k].min, ops->tunables[k].max);
                if (!last || config_loc_before(p->config, &last->loc, &t->loc))
                        last = t;
        }
        if (r < 0 || !last)
                return r;
        config_device_tunables(d, ops, values);
        return config_check_tunables(p, &last->loc, "", ops, values);
}

static void validate_clamp(struct parser *p, const struct df_config_device *d) {
        if (d->governor && !config_kernel_governor_name_valid(d->governor))
                config_report_at(
                        p, &d->governor_loc, "'%s' is not a kernel governor name (1 to %u of a-z, 0-9, _, -)",
                        d->governor, KERNEL_GOVERNOR_LEN_MAX);
        for (size_t i = 0; i < d->n_tunables; i++)
                config_report_at(
                        p, &d->tunables[i].loc,
                        "tunable '%s' applies only in govern mode; device '%s' is in clamp mode",
                        d->tunables[i].name, d->name);
        if (d->parent)
                config_report_at(
                        p, &d->parent_loc, "parent applies only to the passive governor in govern mode");
        if (d->n_passive_map > 0)
                config_report_at(
                        p, &d->passive_map_loc,
                        "passive-map applies only to the passive governor in govern mode");
}

static void validate_governor(struct parser *p, const struct df_config_device *d) {
        const struct df_config *c = p->config;
        const struct df_governor_ops *ops;
        const char *name;
        char names[256];

        if (df_config_device_mode(c, d) == DF_MODE_CLAMP)
                return validate_clamp(p, d);

        name = df_config_device_governor(c, d);
        ops = df_governor_find(name);
        if (!ops) {
                config_report_at(
                        p, &d->governor_loc, "unknown governor '%s' (one of %s)", name,
                        config_governor_names(names, sizeof(names)));
                return;
        }
        if (df_spec_config_check_governor(d, ops) == -ENOMEDIUM)
                config_report_at(
                        p,
                        d->load_set         ? &d->load_loc :
                                d->governor ? &d->governor_loc :
                                              &d->loc,
                        "device '%s': governor %s needs a load source; set load = counters:PATH, percent:PATH or "
                        "proc-stat",
                        d->name, ops->name);
        (void) validate_tunables(p, d, ops);
        if (ops == &df_governor_passive) {
                (void) validate_passive(p, d);
                return;
        }
        if (d->parent)
                config_report_at(
                        p, &d->parent_loc, "parent applies only to the passive governor; device '%s' uses %s",
                        d->name, ops->name);
        if (d->n_passive_map > 0)
                config_report_at(
                        p, &d->passive_map_loc,
                        "passive-map applies only to the passive governor; device '%s' uses %s", d->name,
                        ops->name);
}

static int opp_cmp(const void *a, const void *b, void *userdata) {
        const struct df_config_opp *x = a, *y = b;

        if (x->freq != y->freq)
                return x->freq < y->freq ? -1 : 1;
        if (config_loc_before(userdata, &x->loc, &y->loc))
                return -1;
        return config_loc_before(userdata, &y->loc, &x->loc) ? 1 : 0;
}

/* Sorts the points ascending, as the model promises. */
static int validate_opps(struct parser *p, struct df_config_device *d) {
        char buf[DF_FREQ_STRING_MAX];
        size_t disabled = 0;

        if (d->n_opps == 0)
                return 0;
        qsort_r(d->opps, d->n_opps, sizeof(*d->opps), opp_cmp, p->config);
        for (size_t i = 1; i < d->n_opps; i++)
                if (d->opps[i].freq == d->opps[i - 1].freq)
                        return config_report_at(
                                p, &d->opps[i].loc, "operating point %s is listed twice (first at %s:%u)",
                                df_format_frequency(buf, d->opps[i].freq), d->opps[i - 1].loc.file,
                                d->opps[i - 1].loc.line);

        for (size_t i = 0; i < d->n_opp_disabled; i++)
                if (!opps_contain(d, d->opp_disabled[i].freq))
                        return config_report_at(
                                p, &d->opp_disabled[i].loc, "opp-disabled: %s is not one of the opp = points",
                                df_format_frequency(buf, d->opp_disabled[i].freq));
        for (size_t i = 0; i < d->n_opps; i++)
                for (size_t k = 0; k < d->n_opp_disabled; k++)
                        if (d->opp_disabled[k].freq == d->opps[i].freq) {
                                disabled++;
                                break;
                        }
        if (disabled == d->n_opps)
                return config_report_at(
                        p, &d->opp_disabled[d->n_opp_disabled - 1].loc,
                        "opp-disabled disables every operating point of device '%s'", d->name);
        return 0;
}

static int validate_range(struct parser *p, const struct df_config_device *d) {
        char a[DF_FREQ_STRING_MAX], b[DF_FREQ_STRING_MAX], x[DF_FREQ_STRING_MAX];

        if (d->min_freq > d->max_freq)
                return config_report_at(
                        p, config_loc_before(p->config, &d->min_loc, &d->max_loc) ? &d->max_loc : &d->min_loc,
                        "min-frequency %s is above max-frequency %s", df_format_frequency(a, d->min_freq),
                        df_format_frequency(b, d->max_freq));
        if (d->initial_set && (d->initial_freq < d->min_freq || d->initial_freq > d->max_freq))
                return config_report_at(
                        p, &d->initial_loc,
                        "initial-frequency %s is outside min-frequency %s to max-frequency %s",
                        df_format_frequency(x, d->initial_freq), df_format_frequency(a, d->min_freq),
                        d->max_freq == UINT64_MAX ? "(none)" : df_format_frequency(b, d->max_freq));
        return 0;
}

/* A device is known by its path as written, without a trailing '/'. */
static size_t path_key_len(const char *path) {
        size_t n = strlen(path);

        return n > 1 && path[n - 1] == '/' ? n - 1 : n;
}

/* `paths` maps each path seen so far to its first device (a table: ten thousand sections must not
 * cost a scan of the earlier ones each). */
static void validate_path(struct parser *p, size_t i, bool judge, struct df_strmap *paths) {
        const struct df_config *c = p->config;
        const struct df_config_device *d = &c->devices[i], *o;
        size_t first;
        int r;

        if (!d->path) {
                if (judge)
                        config_report_at(
                                p, &d->loc, "device '%s' has no path (e.g. path = /sys/class/devfreq/NODE)",
                                d->name);
                return;
        }
        if (df_strmap_find(paths, d->path, path_key_len(d->path), &first)) {
                o = &c->devices[first];
                if (judge)
                        config_report_at(
                                p, &d->path_loc, "device '%s' has the same path as device '%s' (%s:%u)",
                                d->name, o->name, o->path_loc.file, o->path_loc.line);
                return;
        }
        r = df_strmap_insert(paths, d->path, path_key_len(d->path), i);
        if (r < 0)
                (void) config_oom(p);
}

/* Devices with a refused key were reported already; judging their remains would only add noise. */
void config_validate(struct parser *p) {
        struct df_strmap paths = {};

        assert(p);

        for (size_t i = 0; i < p->config->n_devices; i++) {
                struct df_config_device *d = &p->config->devices[i];

                /* A refused device's path still counts as taken for the ones after it. */
                validate_path(p, i, !p->device_bad[i], &paths);
                if (p->device_bad[i])
                        continue;
                if (!p->defaults_bad)
                        validate_governor(p, d);
                (void) validate_opps(p, d);
                (void) validate_range(p, d);
        }
        df_strmap_done(&paths);
        config_validate_profiles(p);
        config_validate_thermals(p);
}
