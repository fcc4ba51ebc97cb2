/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Resolving a device's spec from its section and its node, building the device from it, and the
 * configuration's values that persisted choices are compared with. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "spec.h"
#include "units.h"

enum df_load_kind df_spec_default_load(enum df_kind kind) {
        /* cpufreq has the CPUs' /proc/stat lines; devfreq exposes no standard load file. */
        return kind == DF_KIND_CPUFREQ ? DF_LOAD_PROC_STAT : DF_LOAD_NONE;
}

/* The load source when the path's spelling tells the kind (the default is the spec's rule);
 * else the node decides when the device is resolved, and this check waits for it. */
bool df_spec_lacks_load(const struct df_config_device *d) {
        assert(d);

        enum df_kind kind = df_config_path_kind(d->path);

        if (d->load_set)
                return d->load == DF_LOAD_NONE;
        return kind >= 0 && df_spec_default_load(kind) == DF_LOAD_NONE;
}

int df_spec_config_check_governor(const struct df_config_device *d, const struct df_governor_ops *ops) {
        assert(d);
        assert(ops);

        if (ops->polls && d->path && df_spec_lacks_load(d))
                return -ENOMEDIUM;
        if (ops == &df_governor_passive && !d->parent)
                return -ENOLINK;
        return 0;
}

int df_spec_check_governor(const struct df_device_spec *s, const struct df_governor_ops *ops) {
        assert(s);
        assert(ops);

        if (ops->polls && s->load == DF_LOAD_NONE)
                return -ENOMEDIUM;
        if (ops == &df_governor_passive && !s->parent)
                return -ENOLINK;
        return 0;
}

struct df_device_spec *df_spec_free(struct df_device_spec *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_config_tunables; i++)
                free(s->config_tunables[i].name);
        free(s->config_tunables);
        free(s->passive_map);
        free(s->parent);
        free(s->points);
        free(s->load_path);
        free(s->kernel_governor);
        free(s->path);
        free(s->name);
        free(s->note);
        free(s);
        return NULL;
}

static int add_point(struct df_device_spec *s, uint64_t freq, uint32_t uv, uint32_t latency) {
        struct df_spec_point *slot = GROW(s->points, s->n_points);

        if (!slot)
                return -ENOMEM;
        *slot = (struct df_spec_point){ freq, uv, latency, true };
        s->n_points++;
        return 0;
}

/* The table: opp = lines, else the node's own list (or its synthetic one); opp-disabled. */
static int resolve_points(
        struct df_device_spec *s, const struct df_config_device *cd, const struct df_node_facts *node,
        struct df_config_errors *e) {
        size_t enabled = 0;
        char f[DF_FREQ_STRING_MAX];
        int r;

        if (cd && cd->n_opps > 0) /* validated and sorted with the configuration */
                for (size_t i = 0; i < cd->n_opps; i++) {
                        r = add_point(s, cd->opps[i].freq, cd->opps[i].microvolt, cd->opps[i].latency_us);
                        if (r < 0)
                                return r;
                }
        else {
                /* A policy without a table: opp-step's points are more than a table holds. */
                if (node->freqs_error == -E2BIG)
                        return df_config_errors_add(
                                e,
                                cd && cd->opp_step_loc.file ? &cd->opp_step_loc :
                                        cd                  ? &cd->path_loc :
                                                              NULL,
                                "%s: the hardware range of %s in steps of opp-step makes more than %d operating "
                                "points; a larger opp-step",
                                s->name, node->path, DF_STATS_MAX_STATES);
                if (node->freqs_error < 0)
                        return df_config_errors_add(
                                e, cd ? &cd->path_loc : NULL, "%s: cannot read the frequencies of %s: %s",
                                s->name, node->path, strerror(-node->freqs_error));
                for (size_t i = 0; i < node->n_freqs; i++)
                        if ((i == 0 || node->freqs[i] != node->freqs[i - 1]) &&
                            (r = add_point(s, node->freqs[i], 0, 0)) < 0)
                                return r;
        }
        for (size_t i = 0; cd && i < cd->n_opp_disabled; i++) {
                bool found = false;
                for (size_t k = 0; k < s->n_points; k++)
                        if (s->points[k].freq == cd->opp_disabled[i].freq) {
                                s->points[k].enabled = false;
                                found = true;
                        }
                if (!found)
                        return df_config_errors_add(
                                e, &cd->opp_disabled[i].loc, "opp-disabled: %s is not a point of %s",
                                df_format_frequency(f, cd->opp_disabled[i].freq), node->path);
        }
        for (size_t k = 0; k < s->n_points; k++)
                enabled += s->points[k].enabled;
        if (s->n_points > 0 && enabled == 0)
                return df_config_errors_add(
                        e, cd ? &cd->loc : NULL, "%s: every operating point is disabled", s->name);
        return s->n_points > 0 ? 0 : -ENODATA;
}

/* Clamp mode: a configured kernel governor must be one the node offers. */
static int resolve_kernel_governor(
        struct df_device_spec *s, const struct df_config_device *cd, const struct df_node_facts *node,
        struct df_config_errors *e) {
        if (!cd || !cd->governor)
                return 0;
        if (!node->governor_offered)
                return df_config_errors_add(
                        e, &cd->governor_loc,
                        "governor: the kernel does not offer '%s' for %s (in clamp mode the governor is the kernel's)",
                        cd->governor, node->path);
        s->kernel_governor = strdup(cd->governor);
        return s->kernel_governor ? 0 : -ENOMEM;
}

/* Govern mode: the governor, its tunables over its defaults (validated with the configuration),
 * and a load source when it polls; an autodiscovered device without one stays in clamp mode. */
static int resolve_governor(
        struct df_device_spec *s, const struct df_config *c, const struct df_config_device *cd,
        struct df_config_errors *e) {
        const char *name = cd ? df_config_device_governor(c, cd) : c->default_governor;
        const struct df_governor_ops *ops = df_governor_find(name);

        if (!ops)
                return df_config_errors_add(
                        e, cd ? &cd->governor_loc : NULL, "governor: unknown governor '%s'", name);
        if (df_spec_check_governor(s, ops) == -ENOMEDIUM) {
                if (cd)
                        return df_config_errors_add(
                                e, cd->governor_loc.file ? &cd->governor_loc : &cd->loc,
                                "governor %s needs a load source: add load = counters:PATH or percent:PATH",
                                ops->name);
                s->mode = DF_MODE_CLAMP;
                return asprintf(
                               &s->note,
                               "staying in clamp mode: governor %s needs a load source and devfreq nodes have "
                               "none by default (configure one in a [device %s] section)",
                               ops->name, s->name) < 0 ?
                        -ENOMEM :
                        0;
        }
        s->governor = ops;
        for (size_t i = 0; i < ops->n_tunables; i++)
                s->tunables[i] = ops->tunables[i].def;
        for (size_t i = 0; cd && i < cd->n_tunables; i++) {
                int k = df_governor_tunable_index(ops, cd->tunables[i].name);
                if (k >= 0)
                        s->tunables[k] = cd->tunables[i].value;
        }
        return 0;
}

static int copy_config(struct df_device_spec *s, const struct df_config_device *cd) {
        if (cd->load_path && !(s->load_path = strdup(cd->load_path)))
                return -ENOMEM;
        if (cd->parent && !(s->parent = strdup(cd->parent)))
                return -ENOMEM;
        if (cd->n_passive_map > 0) {
                s->passive_map = reallocarray(NULL, cd->n_passive_map, sizeof(*s->passive_map));
                if (!s->passive_map)
                        return -ENOMEM;
                memcpy(s->passive_map, cd->passive_map, cd->n_passive_map * sizeof(*s->passive_map));
                s->n_passive_map = cd->n_passive_map;
        }
        s->config_tunables = calloc(cd->n_tunables ? cd->n_tunables : 1, sizeof(*s->config_tunables));
        if (!s->config_tunables)
                return -ENOMEM;
        for (size_t i = 0; i < cd->n_tunables; i++) {
                s->config_tunables[i] = (struct df_config_tunable){ .value = cd->tunables[i].value };
                if (!(s->config_tunables[i].name = strdup(cd->tunables[i].name)))
                        return -ENOMEM;
                s->n_config_tunables++;
        }
        s->min_freq = cd->min_freq;
        s->max_freq = cd->max_freq;
        s->initial_set = cd->initial_set;
        s->initial_freq = cd->initial_freq;
        s->override_limits = cd->override_limits;
        return 0;
}

/* A thermal rule that names a configured device must leave it a point (checked at start when the
 * section lists its points; here for points read from the node). A rule for every device (*)
 * applies where it can: below every point, the lowest stays (df_opp_set_cap()). */
static int check_thermal(
        const struct df_device_spec *s, const struct df_config *c, const struct df_config_device *cd,
        struct df_config_errors *errors) {
        char a[DF_FREQ_STRING_MAX], b[DF_FREQ_STRING_MAX];
        int r = 0;

        if (!cd || s->n_points == 0)
                return 0;
        for (size_t i = 0; i < c->n_thermals; i++) {
                const struct df_config_thermal *t = &c->thermals[i];

                if (!t->all_devices && df_config_thermal_covers(t, s->name) && t->max_freq < s->points[0].freq)
                        r = df_config_errors_add(
                                errors, &t->max_loc,
                                "thermal %s: max-frequency %s is below every point of device '%s' (the lowest is %s)",
                                t->name, df_format_frequency(a, t->max_freq), s->name,
                                df_format_frequency(b, s->points[0].freq));
        }
        return r;
}

int df_spec_resolve(
        const struct df_config *c, const struct df_config_device *cd, const char *name,
        const struct df_node_facts *node, struct df_config_errors *errors, struct df_device_spec **ret) {
        _cleanup_(df_spec_freep) struct df_device_spec *s = calloc(1, sizeof(*s));
        int r;

        assert(c);
        assert(name);
        assert(node);
        assert(ret);

        if (!s || !(s->name = strdup(name)) || !(s->path = strdup(node->path)))
                return -ENOMEM;
        s->configured = cd != NULL;
        s->kind = node->kind;
        s->mode = cd ? df_config_device_mode(c, cd) : c->default_mode;
        s->load = cd && cd->load_set ? cd->load : df_spec_default_load(node->kind);
        s->polling_usec = cd ? df_config_device_polling(c, cd) : c->polling_usec;
        s->max_freq = UINT64_MAX;
        if (cd && (r = copy_config(s, cd)) < 0)
                return r;

        r = resolve_points(s, cd, node, errors);
        if (r >= 0)
                r = check_thermal(s, c, cd, errors);
        if (r >= 0)
                r = s->mode == DF_MODE_CLAMP ? resolve_kernel_governor(s, cd, node, errors) :
                                               resolve_governor(s, c, cd, errors);
        if (r < 0)
                return r == -ENOMEM ? r : -EINVAL;
        *ret = TAKE_PTR(s);
        return 0;
}

int df_spec_make_device(
        const struct df_device_spec *s, uint64_t current, uint64_t now_usec, struct df_device **ret) {
        _cleanup_(df_device_freep) struct df_device *d = NULL;
        int r;

        assert(s);
        assert(ret);

        r = df_device_new(s->name, s->mode, &d);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_points; i++) {
                const struct df_spec_point *p = &s->points[i];
                r = df_opp_add(&d->opps, p->freq, p->microvolt, p->latency_us);
                if (r >= 0 && !p->enabled)
                        r = df_opp_disable(&d->opps, p->freq);
                if (r < 0)
                        return r;
        }
        if (s->governor) {
                r = df_device_set_governor(d, s->governor);
                if (r >= 0)
                        r = df_governor_set_tunables(&d->governor, s->tunables);
                if (r >= 0 && s->n_passive_map > 0)
                        r = df_governor_set_passive_map(&d->governor, s->passive_map, s->n_passive_map);
                if (r < 0)
                        return r;
        }
        df_device_set_admin_range(d, s->min_freq, s->max_freq);
        d->override_limits = s->override_limits;
        d->unit_hz = df_kind_unit_hz(s->kind);
        if (s->initial_set && s->mode == DF_MODE_GOVERN)
                current = s->initial_freq;
        r = df_device_start(d, current, now_usec);
        if (r < 0)
                return r;
        /* Under userspace the configured frequency is the one set, as a write of set_freq would
         * make it: a ceiling that came and went (a request, a thermal trip) gives it back, where
         * "the frequency in force" would stay at the ceiling's. */
        if (s->initial_set && s->mode == DF_MODE_GOVERN && d->governor.ops == &df_governor_userspace)
                df_governor_userspace_set(&d->governor, s->initial_freq);
        *ret = TAKE_PTR(d);
        return 0;
}

void df_spec_range(const struct df_device_spec *s, uint64_t *ret_min, uint64_t *ret_max) {
        uint64_t lo = 0, hi = 0;

        assert(s);
        assert(ret_min);
        assert(ret_max);

        for (size_t i = 0; i < s->n_points; i++)
                if (s->points[i].enabled) {
                        lo = lo ? lo : s->points[i].freq;
                        hi = s->points[i].freq;
                }
        /* The ceiling wins, as in the device's effective range. */
        *ret_max = MIN(MAX(MIN(hi, s->max_freq), lo), hi);
        *ret_min = MIN(MAX(MAX(lo, s->min_freq), lo), *ret_max);
}

void df_spec_config_governor(const struct df_device_spec *s, char *buf, size_t size) {
        assert(s);
        assert(buf);

        snprintf(
                buf, size, "%s:%s", df_mode_to_string(s->mode),
                s->mode == DF_MODE_GOVERN ? s->governor->name : strempty(s->kernel_governor));
}

void df_spec_config_initial(const struct df_device_spec *s, char *buf, size_t size) {
        assert(s);
        assert(buf);

        if (s->initial_set)
                snprintf(buf, size, "%" PRIu64, s->initial_freq);
        else
                snprintf(buf, size, "-");
}

void df_spec_config_tunable(const struct df_device_spec *s, const char *name, char *buf, size_t size) {
        assert(s);
        assert(buf);

        snprintf(buf, size, "-");
        for (size_t i = 0; i < s->n_config_tunables; i++)
                if (streq(s->config_tunables[i].name, name))
                        snprintf(buf, size, "%" PRIu32, s->config_tunables[i].value);
}

const char *df_spec_config_point(const struct df_device_spec *s, uint64_t freq) {
        assert(s);

        for (size_t i = 0; i < s->n_points; i++)
                if (s->points[i].freq == freq && !s->points[i].enabled)
                        return "disabled";
        return "enabled";
}

static bool str_equal(const char *a, const char *b) {
        return a == b || (a && b && streq(a, b));
}

bool df_spec_equal(const struct df_device_spec *a, const struct df_device_spec *b) {
        assert(a);
        assert(b);

        if (!str_equal(a->name, b->name) || !str_equal(a->path, b->path) || a->configured != b->configured ||
            a->kind != b->kind || a->mode != b->mode || a->governor != b->governor ||
            !str_equal(a->kernel_governor, b->kernel_governor) || a->load != b->load ||
            !str_equal(a->load_path, b->load_path) || a->polling_usec != b->polling_usec ||
            a->min_freq != b->min_freq || a->max_freq != b->max_freq || a->initial_set != b->initial_set ||
            a->initial_freq != b->initial_freq || a->override_limits != b->override_limits ||
            !str_equal(a->parent, b->parent) || a->n_points != b->n_points ||
            a->n_passive_map != b->n_passive_map || a->n_config_tunables != b->n_config_tunables)
                return false;
        for (size_t i = 0; i < a->n_config_tunables; i++)
                if (!streq(a->config_tunables[i].name, b->config_tunables[i].name) ||
                    a->config_tunables[i].value != b->config_tunables[i].value)
                        return false;
        for (size_t i = 0; i < a->n_points; i++)
                if (a->points[i].freq != b->points[i].freq || a->points[i].microvolt != b->points[i].microvolt ||
                    a->points[i].latency_us != b->points[i].latency_us ||
                    a->points[i].enabled != b->points[i].enabled)
                        return false;
        for (size_t i = 0; i < a->n_passive_map; i++)
                if (a->passive_map[i].parent != b->passive_map[i].parent ||
                    a->passive_map[i].child != b->passive_map[i].child)
                        return false;
        return memcmp(a->tunables, b->tunables, sizeof(a->tunables)) == 0;
}

void df_spec_print(const struct df_device_spec *s, FILE *out) {
        char a[DF_FREQ_STRING_MAX], b[DF_FREQ_STRING_MAX], v[DF_VOLTAGE_STRING_MAX], t[DF_DURATION_STRING_MAX];
        uint64_t min, max;

        assert(s);
        assert(out);

        df_spec_range(s, &min, &max);
        fprintf(out, "%s\n", s->name);
        fprintf(out, "  kind:     %s%s\n", df_kind_to_string(s->kind),
                s->configured ? "" : " (autodiscovered)");
        fprintf(out, "  mode:     %s\n", df_mode_to_string(s->mode));
        fprintf(out, "  path:     %s\n", s->path);
        if (s->mode == DF_MODE_GOVERN) {
                fprintf(out, "  governor: %s", s->governor->name);
                for (size_t i = 0; i < s->governor->n_tunables; i++)
                        fprintf(out, "%s%s=%" PRIu32, i ? " " : " (", s->governor->tunables[i].name,
                                s->tunables[i]);
                fprintf(out, "%s\n", s->governor->n_tunables ? ")" : "");
                if (s->governor->polls)
                        fprintf(out, "  polling:  %s\n", df_format_duration(t, s->polling_usec));
                if (s->parent)
                        fprintf(out, "  parent:   %s\n", s->parent);
        } else
                fprintf(out, "  governor: %s (the kernel's)\n",
                        s->kernel_governor ? s->kernel_governor : "unchanged");
        fprintf(out, "  range:    %s - %s\n", df_format_frequency(a, min), df_format_frequency(b, max));
        fprintf(out, "  load:     %s%s%s\n", df_load_kind_to_string(s->load), s->load_path ? ":" : "",
                strempty(s->load_path));
        fprintf(out, "  points:  ");
        for (size_t i = 0; i < s->n_points; i++) {
                const struct df_spec_point *p = &s->points[i];
                fprintf(out, "%s %s", i ? "," : "", df_format_frequency(a, p->freq));
                if (p->microvolt)
                        fprintf(out, " %s", df_format_voltage(v, p->microvolt));
                if (p->latency_us)
                        fprintf(out, " latency %s", df_format_duration(t, p->latency_us));
                if (!p->enabled)
                        fprintf(out, " (disabled)");
        }
        fprintf(out, "\n");
}
