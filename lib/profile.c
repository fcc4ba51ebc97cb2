/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profile decision for one device: pure, from the configuration's lines and the device's spec. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "profile.h"

_printf_(3, 4) static void skip(struct df_profile_skips *skips, bool named, const char *fmt, ...) {
        char *dst = named ? skips->error : skips->skipped;
        va_list ap;

        if (!named)
                skips->n_skipped++;
        if (*dst)
                return; /* the first one is kept */
        va_start(ap, fmt);
        vsnprintf(dst, sizeof(skips->error), fmt, ap);
        va_end(ap);
}

/* The line that sets `key` on device `name`: its own, else the profile's '*' line. */
static const struct df_config_profile_line *
line_for(const struct df_config_profile *p, const char *name, const char *key) {
        const struct df_config_profile_line *star = NULL;

        for (size_t i = 0; i < p->n_lines; i++) {
                const struct df_config_profile_line *l = &p->lines[i];

                if (!streq(l->key, key))
                        continue;
                if (!l->device)
                        star = l;
                else if (streq(l->device, name))
                        return l;
        }
        return star;
}

static void decide_governor(
        const struct df_config_profile *p, const struct df_config_profile_line *l,
        const struct df_device_spec *s, df_profile_offers_t offers, void *userdata,
        struct df_profile_decision *d, struct df_profile_skips *skips) {
        bool named = l->device != NULL;

        if (s->mode == DF_MODE_CLAMP) {
                if (strlen(l->value) >= sizeof(d->kernel_governor) || (offers && !offers(l->value, userdata)))
                        return skip(
                                skips, named, "profile %s: the kernel offers no governor %s here", p->name,
                                l->value);
                snprintf(d->kernel_governor, sizeof(d->kernel_governor), "%s", l->value);
                d->governor_set = true;
                return;
        }
        d->governor = df_governor_find(l->value);
        if (!d->governor)
                return skip(skips, named, "profile %s: %s is no governor of devfreqd", p->name, l->value);
        if (df_spec_check_governor(s, d->governor) < 0 || (d->governor == &df_governor_passive && !s->parent)) {
                skip(skips, named, "profile %s: governor %s cannot run on this device", p->name, l->value);
                d->governor = NULL;
                return;
        }
        d->governor_set = true;
}

static void decide_tunable(
        const struct df_config_profile *p, const struct df_config_profile_line *l,
        const struct df_device_spec *s, const struct df_governor_ops *ops, struct df_profile_decision *d,
        struct df_profile_skips *skips) {
        bool named = l->device != NULL;
        int k;

        if (s->mode != DF_MODE_GOVERN || !ops)
                return skip(skips, named, "profile %s: tunable %s applies only in govern mode", p->name, l->key);
        k = df_governor_tunable_index(ops, l->key);
        if (k < 0)
                return skip(
                        skips, named, "profile %s: %s is not a tunable of governor %s", p->name, l->key,
                        ops->name);
        if (l->tunable < ops->tunables[k].min || l->tunable > ops->tunables[k].max)
                return skip(
                        skips, named, "profile %s: %s = %" PRIu32 " is out of range for governor %s", p->name,
                        l->key, l->tunable, ops->name);
        d->tunables[k] = l->tunable;
        d->tunable_mask |= 1u << k;
}

void df_profile_decide(
        const struct df_config_profile *p, const struct df_device_spec *s, const struct df_governor_ops *base,
        df_profile_offers_t offers, void *userdata, struct df_profile_decision *ret,
        struct df_profile_skips *ret_skips) {
        assert(s);
        assert(ret);
        assert(ret_skips);

        struct df_profile_decision *d = ret;
        const struct df_config_profile_line *l;
        const struct df_governor_ops *ops;

        *d = (struct df_profile_decision){ .max_freq = UINT64_MAX };
        *ret_skips = (struct df_profile_skips){};
        if (!p)
                return;
        l = line_for(p, s->name, "governor");
        if (l)
                decide_governor(p, l, s, offers, userdata, d, ret_skips);
        ops = d->governor ?: base;
        for (size_t i = 0; i < p->n_lines; i++) {
                const struct df_config_profile_line *t = &p->lines[i];

                /* Each key once: at its line_for() line, so a named line hides the '*' one. */
                if (t->kind != DF_PROFILE_TUNABLE || line_for(p, s->name, t->key) != t)
                        continue;
                decide_tunable(p, t, s, ops, d, ret_skips);
        }
        l = line_for(p, s->name, "min-frequency");
        if (l)
                d->min_freq = l->freq;
        l = line_for(p, s->name, "max-frequency");
        if (l)
                d->max_freq = l->freq;
}

bool df_profile_sets_tunable(
        const struct df_profile_decision *d, const struct df_governor_ops *ops, const char *name) {
        int k = ops ? df_governor_tunable_index(ops, name) : -1;

        assert(d);

        return k >= 0 && (d->tunable_mask & (1u << k));
}

void df_profile_overlay_tunables(
        const struct df_profile_decision *d, const struct df_governor_ops *ops, const uint32_t *base,
        uint32_t *ret) {
        assert(d);
        assert(ops);
        assert(base || ops->n_tunables == 0);
        assert(ret || ops->n_tunables == 0);

        for (size_t i = 0; i < ops->n_tunables; i++)
                ret[i] = (d->tunable_mask & (1u << i)) ? d->tunables[i] : base[i];
}

int df_profile_tunables(
        const struct df_profile_decision *d, const struct df_governor_ops *ops, const uint32_t *saved,
        const uint32_t *configured, uint32_t *ret) {
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {};
        int r = 0;

        assert(d);
        assert(ops);

        df_profile_overlay_tunables(d, ops, saved, values);
        if (df_governor_validate(ops, values) < 0) {
                df_profile_overlay_tunables(d, ops, configured, values);
                if (df_governor_validate(ops, values) < 0)
                        return -ERANGE;
                r = 1;
        }
        if (ops->n_tunables > 0)
                memcpy(ret, values, ops->n_tunables * sizeof(uint32_t));
        return r;
}

bool df_profile_decision_equal(const struct df_profile_decision *a, const struct df_profile_decision *b) {
        assert(a);
        assert(b);

        return a->governor_set == b->governor_set && a->governor == b->governor &&
                streq(a->kernel_governor, b->kernel_governor) && a->tunable_mask == b->tunable_mask &&
                memcmp(a->tunables, b->tunables, sizeof(a->tunables)) == 0 && a->min_freq == b->min_freq &&
                a->max_freq == b->max_freq;
}
