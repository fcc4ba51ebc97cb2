/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Persisted choices applied to a device at attach and reload: each unless the configuration's
 * value for its key changed since the choice was made (then the configuration wins). */

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "units.h"

/* Forget the choice at *i of a walk over the list: the walk goes on with the one after it. */
static void forget_at(struct state *s, const char *device, const char *key, size_t *i) {
        size_t before = s->n;

        (void) state_forget(s, device, key);
        if (s->n < before)
                (*i)--; /* wraps at 0, and the loop's ++ brings it back */
}

bool device_saved_governor_applies(struct manager_device *d) {
        char config[DF_ATTR_VALUE_MAX + 16];
        const struct state_choice *c;

        assert(d);

        c = state_get(d->manager->state, d->name, "governor");
        if (!c)
                return false;
        df_spec_config_governor(d->spec, config, sizeof(config));
        return streq(c->config, config);
}

/* `write_kernel`: clamp mode writes the saved kernel governor (not while a profile sets one: it
 * stays saved for when the profile is left), or the configured one when the kernel refuses it. */
static void apply_saved_governor(struct manager_device *d, struct state *s, bool write_kernel) {
        const struct state_choice *c = state_get(s, d->name, "governor");

        if (!c)
                return;
        if (!device_saved_governor_applies(d)) {
                log_info("%s: the configured governor changed; forgetting the saved choice %s", d->name, c->value);
                (void) state_forget(s, d->name, "governor");
                (void) state_forget(s, d->name, "tunable:");
                (void) state_forget(s, d->name, "frequency");
        } else if (d->dev->mode == DF_MODE_CLAMP) {
                if (write_kernel && df_node_set_kernel_governor(d->node, c->value) < 0) {
                        log_warning("%s: cannot restore the saved kernel governor %s", d->name, c->value);
                        if (d->spec->kernel_governor)
                                (void) manager_device_set_governor_kernel(d, d->spec->kernel_governor);
                }
        } else {
                const struct df_governor_ops *ops = df_governor_find(c->value);
                if (!ops || (ops != d->dev->governor.ops && device_switch_governor(d, ops) < 0))
                        log_warning("%s: cannot restore the saved governor %s", d->name, c->value);
        }
}

/* The tunables of records in `mask` (bit i: tunable i of `ops`) leave the state file. */
static void
forget_tunables(struct manager_device *d, struct state *s, const struct df_governor_ops *ops, uint32_t mask) {
        char key[96];

        for (size_t i = 0; i < ops->n_tunables; i++)
                if (mask & (1u << i)) {
                        snprintf(key, sizeof(key), "tunable:%s", ops->tunables[i].name);
                        (void) state_forget(s, d->name, key);
                }
}

/* Whether some governor has a tunable `name`: a record of one that is not in force now (a
 * profile's, chosen while it ran) is kept for when it runs. */
static bool some_governor_has(const char *name) {
        for (size_t i = 0; i < df_governors_count; i++)
                if (df_governor_tunable_index(df_governors[i], name) >= 0)
                        return true;
        return false;
}

/* A device's saved tunables apply as one set over the ones in force: each was checked with the
 * values of its moment, so one at a time in file order could refuse a pair that fits (a saved
 * downdifferential 95 before its upthreshold 100, against a configured upthreshold 90). A record
 * is forgotten alone when its configuration changed or its value is not one the tunable takes; the
 * rest only as a whole, when together they break the governor's cross rule. A record of another
 * governor's tunable stays, unapplied: the profile that runs that governor applies it. */
static void apply_saved_tunables(struct manager_device *d, struct state *s) {
        const struct df_governor_ops *ops = d->dev->governor.ops;
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX], mask = 0, v;
        char buf[16], saved[256], all[256];

        memcpy(values, d->dev->governor.tunables, sizeof(values));
        for (size_t i = 0; i < s->n; i++) {
                const struct state_choice *t = &s->choices[i];
                const char *name;
                int k;

                if (!streq(t->device, d->name) || strncmp(t->key, "tunable:", 8) != 0)
                        continue;
                name = t->key + 8;
                k = d->dev->mode == DF_MODE_GOVERN ? df_governor_tunable_index(ops, name) : -1;
                df_spec_config_tunable(d->spec, name, buf, sizeof(buf));
                if (k >= 0 && streq(t->config, buf) && df_safe_atou32(t->value, &v) >= 0 &&
                    v >= ops->tunables[k].min && v <= ops->tunables[k].max) {
                        values[k] = v;
                        mask |= 1u << k;
                        continue;
                }
                if (k < 0 && d->dev->mode == DF_MODE_GOVERN && streq(t->config, buf) && some_governor_has(name))
                        continue;
                log_info("%s: forgetting the saved tunable %s=%s", d->name, name, t->value);
                forget_at(s, d->name, t->key, &i);
        }
        if (mask == 0 || df_governor_set_tunables(&d->dev->governor, values) >= 0)
                return;
        log_warning(
                "%s: forgetting the saved tunables %s: governor %s's tunables would be %s, which do not fit "
                "together",
                d->name, df_governor_format_tunables(ops, values, mask, saved, sizeof(saved)), ops->name,
                df_governor_format_tunables(ops, values, DF_GOVERNOR_ALL_TUNABLES, all, sizeof(all)));
        forget_tunables(d, s, ops, mask);
}

void device_apply_saved_frequency(struct manager_device *d) {
        struct state *s = d->manager->state;
        const struct state_choice *c = state_get(s, d->name, "frequency");
        char config[32];
        uint64_t f;

        if (!c)
                return;
        df_spec_config_initial(d->spec, config, sizeof(config));
        if (!streq(c->config, config) || df_safe_atou64(c->value, &f) < 0 || d->dev->mode != DF_MODE_GOVERN)
                (void) state_forget(s, d->name, "frequency");
        else if (d->dev->governor.ops == &df_governor_userspace)
                df_governor_userspace_set(&d->dev->governor, f);
}

static void apply_saved_points(struct manager_device *d, struct state *s) {
        uint64_t f;

        for (size_t i = 0; i < s->n; i++) {
                const struct state_choice *o = &s->choices[i];

                if (!streq(o->device, d->name) || strncmp(o->key, "opp:", 4) != 0)
                        continue;
                if (df_safe_atou64(o->key + 4, &f) >= 0 && streq(o->config, df_spec_config_point(d->spec, f)) &&
                    df_device_set_opp_enabled(d->dev, f, streq(o->value, "enabled")) >= 0)
                        continue;
                forget_at(s, d->name, o->key, &i);
        }
}

/* Persisted choices: applied unless the configuration's value for the key changed since. */
int device_apply_state(struct manager_device *d, bool kernel_governor) {
        struct state *s = d->manager->state;

        assert(d);

        apply_saved_governor(d, s, kernel_governor);
        apply_saved_tunables(d, s);
        device_apply_saved_frequency(d);
        apply_saved_points(d, s);
        return 0;
}
