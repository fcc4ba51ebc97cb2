/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [profile NAME] sections: DEVICE.KEY and *.KEY lines parsed into the model, and their validation
 * against the configured devices once every file is read. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "macro.h"
#include "names.h"
#include "spec.h"
#include "units.h"

/* A "[profile NAME]" header: `name` is what follows the word, blanks stripped. */
int config_profile_begin(struct parser *p, const char *name) {
        assert(p);
        assert(name);

        struct df_config *c = p->config;
        struct df_config_profile *pr;

        if (!*name)
                return config_report_line(p, p->line, "[profile] needs a name: [profile NAME]");
        if (!df_name_valid(name) || strpbrk(name, " \t"))
                return config_report_line(
                        p, p->line,
                        "'%s' is not a profile name (printable, no blanks, no '/', not '.' or '..')", name);
        for (size_t i = 0; i < c->n_profiles; i++)
                if (streq(c->profiles[i].name, name)) {
                        p->profile = i;
                        p->section = SECTION_PROFILE;
                        return 0;
                }
        pr = GROW(c->profiles, c->n_profiles);
        if (!pr || !(pr->name = strdup(name)))
                return config_oom(p);
        pr->loc = (struct df_location){ .file = p->file, .line = p->line };
        p->profile = c->n_profiles++;
        p->section = SECTION_PROFILE;
        return 0;
}

/* The key's kind and its parsed value. */
static int parse_setting(struct parser *p, struct df_config_profile_line *l) {
        if (streq(l->key, "governor")) {
                l->kind = DF_PROFILE_GOVERNOR;
                if (!df_governor_find(l->value) && !config_kernel_governor_name_valid(l->value))
                        return config_refuse(p, "'%s' is not a governor name", l->value);
                return 0;
        }
        if (streq(l->key, "min-frequency")) {
                l->kind = DF_PROFILE_MIN_FREQUENCY;
                return config_parse_frequency(p, l->value, true, &l->freq);
        }
        if (streq(l->key, "max-frequency")) {
                l->kind = DF_PROFILE_MAX_FREQUENCY;
                return config_parse_frequency(p, l->value, false, &l->freq);
        }
        if (config_tunable_known(l->key)) {
                l->kind = DF_PROFILE_TUNABLE;
                return config_parse_tunable(p, l->key, l->value, &l->tunable);
        }
        return config_refuse(
                p, "unknown profile key '%s' (governor, min-frequency, max-frequency or a governor's tunable)",
                l->key);
}

static struct df_config_profile_line *find_line(struct df_config_profile *pr, const char *device, const char *key) {
        for (size_t i = 0; i < pr->n_lines; i++) {
                struct df_config_profile_line *l = &pr->lines[i];

                if (streq(l->key, key) && (device ? l->device && streq(l->device, device) : !l->device))
                        return l;
        }
        return NULL;
}

/* "DEVICE.KEY = value" or "*.KEY = value": the key is what follows the last '.', as device names
 * may hold dots (ff9a0000.gpu) and keys never do. */
int config_apply_profile_line(struct parser *p, const char *name, const char *value) {
        assert(p);
        assert(name);
        assert(value);

        struct df_config_profile *pr = &p->config->profiles[p->profile];
        struct df_config_profile_line l = {}, *slot;
        const char *dot = strrchr(name, '.');
        bool star;
        int r;

        if (!dot || dot == name || !dot[1])
                return config_refuse(
                        p, "'%s' is not DEVICE.KEY or *.KEY (e.g. gpu.max-frequency = 400MHz)", name);
        if (!*value)
                return config_refuse(p, "%s needs a value", name);
        star = dot - name == 1 && name[0] == '*';
        l.key = strdup(dot + 1);
        l.value = strdup(value);
        if (!star)
                l.device = strndup(name, (size_t) (dot - name));
        r = !l.key || !l.value || (!star && !l.device) ? config_oom(p) : 0;
        if (r >= 0 && l.device && !df_name_valid(l.device))
                r = config_refuse(p, "'%s' is not a device name", l.device);
        if (r >= 0)
                r = parse_setting(p, &l);
        if (r < 0) {
                free(l.device);
                free(l.key);
                free(l.value);
                return r;
        }
        l.loc = config_here(p);
        slot = find_line(pr, l.device, l.key);
        if (slot) { /* a later value of the same DEVICE.KEY replaces the earlier one */
                free(slot->device);
                free(slot->key);
                free(slot->value);
                *slot = l;
                return 0;
        }
        slot = GROW(pr->lines, pr->n_lines);
        if (!slot) {
                free(l.device);
                free(l.key);
                free(l.value);
                return config_oom(p);
        }
        *slot = l;
        pr->n_lines++;
        return 0;
}

/* The governor a profile runs on a configured govern-mode device, as df_profile_decide() picks it:
 * its own line; else the '*' line where the device can run that governor; else the configured one. */
static const struct df_governor_ops *
profile_governor(const struct df_config *c, struct df_config_profile *pr, const struct df_config_device *d) {
        const struct df_config_profile_line *g = find_line(pr, d->name, "governor"),
                                            *star = find_line(pr, NULL, "governor");
        const struct df_governor_ops *ops = star ? df_governor_find(star->value) : NULL;

        if (g)
                return df_governor_find(g->value);
        if (ops && df_spec_config_check_governor(d, ops) == 0)
                return ops;
        return df_governor_find(df_config_device_governor(c, d));
}

static void validate_governor_line(
        struct parser *p, const struct df_config_device *d, const struct df_config_profile_line *l) {
        const struct df_governor_ops *ops = df_governor_find(l->value);
        char names[256];

        if (df_config_device_mode(p->config, d) == DF_MODE_CLAMP)
                return; /* a kernel governor: the node's list is known only at attach */
        if (!ops)
                config_report_at(
                        p, &l->loc, "unknown governor '%s' for device '%s' in govern mode (one of %s)",
                        l->value, d->name, config_governor_names(names, sizeof(names)));
        else if (df_spec_config_check_governor(d, ops) == -ENOLINK)
                config_report_at(p, &l->loc, "device '%s' cannot run passive: it has no parent = NAME", d->name);
        else if (df_spec_config_check_governor(d, ops) == -ENOMEDIUM)
                config_report_at(
                        p, &l->loc, "device '%s': governor %s needs a load source, and the device has none",
                        d->name, ops->name);
}

static void validate_tunable_line(
        struct parser *p, struct df_config_profile *pr, const struct df_config_device *d,
        const struct df_config_profile_line *l) {
        const struct df_governor_ops *ops;
        int k;

        if (df_config_device_mode(p->config, d) == DF_MODE_CLAMP) {
                config_report_at(
                        p, &l->loc, "tunable '%s' applies only in govern mode; device '%s' is in clamp mode",
                        l->key, d->name);
                return;
        }
        ops = profile_governor(p->config, pr, d);
        if (!ops)
                return; /* reported with the governor */
        k = df_governor_tunable_index(ops, l->key);
        if (k < 0)
                config_report_at(
                        p, &l->loc,
                        "'%s' is not a tunable of governor %s, which device '%s' runs in this profile",
                        l->key, ops->name, d->name);
        else if (l->tunable < ops->tunables[k].min || l->tunable > ops->tunables[k].max)
                config_report_at(
                        p, &l->loc, "%s = %" PRIu32 " is out of range (%" PRIu32 " to %" PRIu32 ")", l->key,
                        l->tunable, ops->tunables[k].min, ops->tunables[k].max);
}

/* The range a profile gives `device` (NULL: the '*' lines alone): its own line of each bound, else
 * the '*' one, as the daemon applies them. */
static void validate_range(struct parser *p, struct df_config_profile *pr, const char *device) {
        const struct df_config_profile_line *lo = find_line(pr, device, "min-frequency"),
                                            *hi = find_line(pr, device, "max-frequency");
        char a[DF_FREQ_STRING_MAX], b[DF_FREQ_STRING_MAX];

        if (device) {
                lo = lo ?: find_line(pr, NULL, "min-frequency");
                hi = hi ?: find_line(pr, NULL, "max-frequency");
        }
        if (lo && hi && lo->freq > hi->freq)
                config_report_at(
                        p, config_loc_before(p->config, &lo->loc, &hi->loc) ? &hi->loc : &lo->loc,
                        "profile %s: min-frequency %s is above max-frequency %s", pr->name,
                        df_format_frequency(a, lo->freq), df_format_frequency(b, hi->freq));
}

/* The tunables a profile gives a configured govern-mode device, checked as the one set the daemon
 * applies: its lines (its own, else the '*' one) over the configured values of the governor it
 * runs, or that governor's defaults when the profile switches to another. Lines that do not apply
 * were reported, or are '*' lines skipped here. */
static void
validate_tunable_set(struct parser *p, struct df_config_profile *pr, const struct df_config_device *d) {
        const struct df_governor_ops *ops = profile_governor(p->config, pr, d);
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {};
        const struct df_config_profile_line *last = NULL;
        char prefix[256];

        if (!ops || df_config_device_mode(p->config, d) != DF_MODE_GOVERN)
                return;
        if (ops == df_governor_find(df_config_device_governor(p->config, d)))
                config_device_tunables(d, ops, values);
        else
                for (size_t i = 0; i < ops->n_tunables; i++)
                        values[i] = ops->tunables[i].def;
        for (size_t i = 0; i < ops->n_tunables; i++) {
                const struct df_config_profile_line *l = find_line(pr, d->name, ops->tunables[i].name) ?:
                        find_line(pr, NULL, ops->tunables[i].name);

                if (!l || l->tunable < ops->tunables[i].min || l->tunable > ops->tunables[i].max)
                        continue;
                values[i] = l->tunable;
                if (!last || config_loc_before(p->config, &last->loc, &l->loc))
                        last = l;
        }
        if (!last)
                return;
        snprintf(prefix, sizeof(prefix), "profile %s, device '%s': ", pr->name, d->name);
        (void) config_check_tunables(p, &last->loc, prefix, ops, values);
}

static bool sets_tunables(const struct df_config_profile *pr) {
        for (size_t i = 0; i < pr->n_lines; i++)
                if (pr->lines[i].kind == DF_PROFILE_TUNABLE)
                        return true;
        return false;
}

static void validate_profile(struct parser *p, struct df_config_profile *pr) {
        const struct df_config *c = p->config;

        validate_range(p, pr, NULL);
        for (size_t i = 0; i < pr->n_lines; i++) {
                const struct df_config_profile_line *l = &pr->lines[i];
                const struct df_config_device *d;

                if (!l->device)
                        continue; /* '*' applies where it can, decided per device */
                /* Once a device, configured or found by its node: at its min line, else its max. */
                if (l->kind == DF_PROFILE_MIN_FREQUENCY ||
                    (l->kind == DF_PROFILE_MAX_FREQUENCY && !find_line(pr, l->device, "min-frequency")))
                        validate_range(p, pr, l->device);
                d = df_config_find_device(c, l->device);
                if (!d) {
                        /* Autodiscovered and hotplugged devices are named by their nodes. */
                        if (!c->autodiscover)
                                config_report_at(
                                        p, &l->loc, "profile %s: '%s' is not a configured device", pr->name,
                                        l->device);
                        continue;
                }
                if (p->device_bad[d - c->devices] || p->defaults_bad)
                        continue;
                if (l->kind == DF_PROFILE_GOVERNOR)
                        validate_governor_line(p, d, l);
                else if (l->kind == DF_PROFILE_TUNABLE)
                        validate_tunable_line(p, pr, d, l);
        }
        if (!sets_tunables(pr) || p->defaults_bad)
                return;
        for (size_t i = 0; i < c->n_devices; i++)
                if (!p->device_bad[i])
                        validate_tunable_set(p, pr, &c->devices[i]);
}

void config_validate_profiles(struct parser *p) {
        assert(p);

        const struct df_config *c = p->config;

        for (size_t i = 0; i < c->n_profiles; i++)
                validate_profile(p, &c->profiles[i]);
        if (c->default_profile && !df_config_find_profile(c, c->default_profile))
                config_report_at(
                        p, &c->default_profile_loc, "default-profile '%s' is not a [profile NAME] section",
                        c->default_profile);
}
