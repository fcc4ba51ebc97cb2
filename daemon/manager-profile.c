/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Profiles at run time: a switch decides for every device, then applies; a profile's governor and
 * tunables take the place of the configured or persisted ones while it is active, its floors and
 * ceilings are the daemon's own requests (the bus layer holds them), and leaving it restores. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "logging.h"
#include "manager-internal.h"
#include "units.h"

/* The state file's record of a SetProfile choice: "=NAME", "=" for none. */
#define STATE_DEVICE "/"
#define STATE_KEY "profile"

const char *manager_profile_source_to_string(enum manager_profile_source s) {
        switch (s) {
        case PROFILE_SOURCE_DEFAULT:
                return "default";
        case PROFILE_SOURCE_CLIENT:
                return "client";
        case PROFILE_SOURCE_POWER_PROFILES:
                return "power-profiles-daemon";
        default:
                return "";
        }
}

/* Govern mode: the governor outside any profile, the persisted one or the configured one. */
static const struct df_governor_ops *base_governor(const struct manager_device *d) {
        const struct state_choice *c = state_get(d->manager->state, d->name, "governor");
        const struct df_governor_ops *ops = c ? df_governor_find(c->value) : NULL;

        return ops ?: d->spec->governor;
}

/* A tunable outside any profile: persisted (when `saved`; a record of a tunable of that name,
 * chosen under whichever governor has it), configured, or the governor's default. */
static uint32_t
base_tunable(const struct manager_device *d, const struct df_governor_ops *ops, size_t i, bool saved) {
        char key[96];
        const struct state_choice *c;
        uint32_t v;

        snprintf(key, sizeof(key), "tunable:%s", ops->tunables[i].name);
        c = saved ? state_get(d->manager->state, d->name, key) : NULL;
        if (c && df_safe_atou32(c->value, &v) >= 0)
                return v;
        return ops == d->spec->governor ? d->spec->tunables[i] : ops->tunables[i].def;
}

static const char *profile_name(const struct manager_device *d) {
        return d->manager->profile ?: "(none)";
}

/* The decision's governor and tunables do not apply here: the device runs on the ones outside the
 * profile, and a SetGovernor or SetTunable of them persists. */
static void drop_governor(struct df_profile_decision *dec) {
        dec->governor_set = false;
        dec->governor = NULL;
        dec->tunable_mask = 0;
}

/* The tunables of `ops` outside any profile: with the persisted choices, and without. */
static void base_tunables(
        const struct manager_device *d, const struct df_governor_ops *ops, uint32_t *saved,
        uint32_t *configured) {
        for (size_t i = 0; i < ops->n_tunables; i++) {
                saved[i] = base_tunable(d, ops, i, true);
                configured[i] = base_tunable(d, ops, i, false);
        }
}

/* The saved choices gave way to the profile's tunables: the log says which, and what applies. */
static void log_saved_give_way(
        const struct manager_device *d, const struct df_profile_decision *dec,
        const struct df_governor_ops *ops, const uint32_t *saved, const uint32_t *configured) {
        char a[256], b[256], c[256];
        uint32_t mask = 0;

        for (size_t i = 0; i < ops->n_tunables; i++)
                if (!(dec->tunable_mask & (1u << i)) && saved[i] != configured[i])
                        mask |= 1u << i;
        log_notice(
                "%s: profile %s: the saved %s do not fit with the profile's %s (governor %s); %s while the "
                "profile is active",
                d->name, profile_name(d), df_governor_format_tunables(ops, saved, mask, a, sizeof(a)),
                df_governor_format_tunables(ops, dec->tunables, dec->tunable_mask, b, sizeof(b)), ops->name,
                df_governor_format_tunables(ops, configured, mask, c, sizeof(c)));
}

/* The governor and tunables outside any profile, with the persisted choices where they fit (the
 * decision sets neither here any more). */
static const struct df_governor_ops *
fall_back(struct manager_device *d, struct df_profile_decision *dec, uint32_t *values) {
        const struct df_governor_ops *ops = base_governor(d);
        uint32_t saved[DF_GOVERNOR_TUNABLES_MAX] = {}, configured[DF_GOVERNOR_TUNABLES_MAX] = {};

        drop_governor(dec);
        base_tunables(d, ops, saved, configured);
        if (df_profile_tunables(dec, ops, saved, configured, values) < 0)
                memcpy(values, configured, sizeof(configured)); /* checked with the configuration */
        return ops;
}

/* The governor the decision gives and its tunables, as one set (df_profile_tunables()): the
 * profile's over the saved ones, or, where those do not fit together, over the configured ones
 * while the profile is active (the saved choices stay saved). A set that does not fit even so (a
 * device the configuration check did not see) leaves the profile's governor and tunables out on
 * this device, like a line that does not apply, and LastError says why. */
static const struct df_governor_ops *
decide_govern(struct manager_device *d, struct df_profile_decision *dec, uint32_t *values) {
        const struct df_governor_ops *ops = dec->governor_set ? dec->governor : base_governor(d);
        uint32_t saved[DF_GOVERNOR_TUNABLES_MAX] = {}, configured[DF_GOVERNOR_TUNABLES_MAX] = {};
        char list[256];
        int r;

        base_tunables(d, ops, saved, configured);
        r = df_profile_tunables(dec, ops, saved, configured, values);
        if (r == 1)
                log_saved_give_way(d, dec, ops, saved, configured);
        if (r >= 0)
                return ops;

        df_profile_overlay_tunables(dec, ops, configured, values);
        device_set_error(
                d, LOG_WARNING,
                "profile %s: on %s the tunables of governor %s do not fit together (%s); the profile sets "
                "neither governor nor tunables here",
                profile_name(d), d->name, ops->name,
                df_governor_format_tunables(ops, values, DF_GOVERNOR_ALL_TUNABLES, list, sizeof(list)));
        return fall_back(d, dec, values);
}

/* A reload is no switch: where the decision in force (d->profile) and the new one `dec` set a key
 * alike and the device ran something else there (`before`: a SetGovernor or SetTunable over the
 * profile), that override stays, with the governor it ran, as long as the set fits. */
static const struct df_governor_ops *keep_overrides(
        const struct manager_device *d, const struct df_profile_decision *dec,
        const struct df_governor *before, const struct df_governor_ops *target, uint32_t *values) {
        const struct df_profile_decision *old = &d->profile;
        uint32_t kept[DF_GOVERNOR_TUNABLES_MAX];

        if (!before || old->governor_set != dec->governor_set || old->governor != dec->governor)
                return target;
        if (old->governor_set && before->ops != old->governor) {
                memcpy(values, before->tunables, sizeof(before->tunables));
                return before->ops;
        }
        if (before->ops != target)
                return target;
        memcpy(kept, values, sizeof(kept));
        for (size_t i = 0; i < target->n_tunables; i++)
                if ((old->tunable_mask & dec->tunable_mask & (1u << i)) && old->tunables[i] == dec->tunables[i])
                        kept[i] = before->tunables[i];
        if (df_governor_validate(target, kept) >= 0)
                memcpy(values, kept, sizeof(kept));
        return target;
}

/* The switch to *target failed: LastError says why, and the device runs on its governor and
 * tunables outside the profile, as where the tunables do not fit, rather than keep a governor a
 * profile left; false when that one cannot start either (or is the one that failed). */
static bool switch_or_fall_back(
        struct manager_device *d, struct df_profile_decision *dec, const struct df_governor_ops **target,
        uint32_t *values) {
        const struct df_governor_ops *base;
        const char *reason;
        char why[256];
        int r;

        r = device_switch_governor(d, *target);
        if (r >= 0)
                return true;
        reason = manager_device_governor_refusal(d, *target, r, why, sizeof(why));
        if (!reason)
                reason = d->last_error[0] ? d->last_error : strerror(-r);
        device_set_error(
                d, LOG_WARNING, "profile %s: cannot switch to governor %s: %s", profile_name(d),
                (*target)->name, reason);
        base = fall_back(d, dec, values);
        if (base == *target || (base != d->dev->governor.ops && device_switch_governor(d, base) < 0))
                return false;
        *target = base;
        return true;
}

/* Govern mode: decided before anything is written, then applied together or not at all. A reload
 * (`before`: the governor the device ran) keeps the overrides of the profile; a switch does not. */
static void
apply_govern(struct manager_device *d, struct df_profile_decision *dec, const struct df_governor *before) {
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX] = {};
        const struct df_governor_ops *target = decide_govern(d, dec, values);

        target = keep_overrides(d, dec, before, target, values);
        if (target != d->dev->governor.ops) {
                if (!switch_or_fall_back(d, dec, &target, values))
                        return;
                if (target == &df_governor_userspace)
                        device_apply_saved_frequency(d);
        }
        if (memcmp(values, d->dev->governor.tunables, target->n_tunables * sizeof(uint32_t)) != 0)
                (void) df_governor_set_tunables(&d->dev->governor, values); /* fits: decided above */
}

/* Clamp mode: the profile's kernel governor, or the device's own when it sets none. A reload
 * (`reload`) is no switch: while the decision in force and the new one set the same governor, the
 * one the kernel runs stays (a SetGovernor over the profile's included). */
static void apply_clamp(struct manager_device *d, const struct df_profile_decision *dec, bool reload) {
        const struct state_choice *c = state_get(d->manager->state, d->name, "governor");
        char current[DF_ATTR_VALUE_MAX] = "";
        const char *target;

        (void) df_node_kernel_governor(d->node, current, sizeof(current));
        if (dec->governor_set) {
                if (!d->kernel_base[0])
                        snprintf(d->kernel_base, sizeof(d->kernel_base), "%s", current);
                if (reload && d->profile.governor_set && streq(d->profile.kernel_governor, dec->kernel_governor))
                        return;
                target = dec->kernel_governor;
        } else if (d->kernel_base[0]) {
                target = c ? c->value : d->spec->kernel_governor ?: d->kernel_base;
        } else
                return; /* no profile took the governor: nothing to give back */
        if (target[0] && !streq(current, target))
                (void) manager_device_set_governor_kernel(d, target);
        if (!dec->governor_set)
                d->kernel_base[0] = '\0';
}

/* `reload`: the device goes on with the overrides of its profile that the decision still sets. */
static void
apply(struct manager *m, struct manager_device *d, struct df_profile_decision *dec,
      const struct df_profile_skips *skips, bool reload) {
        if (d->vanished)
                return;
        if (skips->error[0])
                device_set_error(d, LOG_WARNING, "%s", skips->error);
        if (d->dev->mode == DF_MODE_GOVERN)
                apply_govern(d, dec, reload ? &d->dev->governor : NULL);
        else
                apply_clamp(d, dec, reload);
        d->profile = *dec; /* what applied: a SetGovernor or SetTunable of the rest persists */
        if (skips->n_skipped > 0)
                log_debug("%s: %u '*' lines do not apply here (%s)", d->name, skips->n_skipped, skips->skipped);
        if (m->listener && m->listener->profile_requests)
                m->listener->profile_requests(m, d, m->listener_userdata);
        device_evaluate(d, true);
}

static bool offers(const char *name, void *userdata) {
        struct manager_device *d = userdata;

        return df_node_offers_governor(d->node, name) > 0;
}

/* A device's decision and the lines it leaves out, from deciding to applying; the device keeps
 * only the decision. */
struct decided {
        struct df_profile_decision dec;
        struct df_profile_skips skips;
};

static void decide(struct manager *m, struct manager_device *d, struct decided *ret) {
        const struct df_config_profile *p = df_config_find_profile(m->config, m->profile);

        df_profile_decide(
                p, d->spec, d->dev->mode == DF_MODE_GOVERN ? base_governor(d) : NULL, offers, d, &ret->dec,
                &ret->skips);
}

void manager_profile_apply_device(struct manager *m, struct manager_device *d) {
        struct decided x;

        assert(m);
        assert(d);

        decide(m, d, &x);
        apply(m, d, &x.dec, &x.skips, true);
}

bool manager_profile_takes_kernel_governor(struct manager *m, struct manager_device *d) {
        struct decided x;

        assert(m);
        assert(d);

        if (!m->profile || d->vanished || d->dev->mode != DF_MODE_CLAMP)
                return false;
        decide(m, d, &x);
        return x.dec.governor_set;
}

void manager_profile_settle(struct manager *m, struct manager_device *d) {
        struct decided x;

        assert(m);
        assert(d);

        if (!m->profile || d->vanished)
                return;
        decide(m, d, &x);
        if (d->dev->mode == DF_MODE_GOVERN)
                apply_govern(d, &x.dec, d->before_reload ?: &d->dev->governor);
        else if (x.dec.governor_set)
                apply_clamp(d, &x.dec, d->before_reload != NULL);
        else
                return;
        d->profile = x.dec;
}

void manager_profile_resync(struct manager *m) {
        assert(m);

        if (!m->listener || !m->listener->profile_requests)
                return;
        for (size_t i = 0; i < m->n_devices; i++) {
                m->listener->profile_requests(m, m->devices[i], m->listener_userdata);
                device_evaluate(m->devices[i], true);
        }
}

/* Decide for every device before writing any, then apply (`reload`: see apply()). */
static void apply_all(struct manager *m, bool reload) {
        _cleanup_free_ struct decided *x = calloc(m->n_devices ?: 1, sizeof(*x));

        if (!x) {
                log_oom();
                return;
        }
        for (size_t i = 0; i < m->n_devices; i++)
                decide(m, m->devices[i], &x[i]);
        for (size_t i = 0; i < m->n_devices; i++)
                apply(m, m->devices[i], &x[i].dec, &x[i].skips, reload);
        manager_detach_vanished_later(m);
}

static void persist(struct manager *m, const char *name) {
        _cleanup_free_ char *value = NULL;
        int r;

        if (asprintf(&value, "=%s", strempty(name)) < 0) {
                log_oom();
                return;
        }
        r = state_set(m->state, STATE_DEVICE, STATE_KEY, value, m->config->default_profile ?: "-");
        if (r < 0)
                log_warning_errno(r, "Cannot remember the profile %s: %m", name ?: "(none)");
}

static void changed(struct manager *m) {
        if (m->listener && m->listener->profile_changed)
                m->listener->profile_changed(m, m->listener_userdata);
}

/* Make `name` the active profile for `source` without applying it (NULL or "": none). -ENOMEM
 * changes nothing. */
static int choose(struct manager *m, const char *name, enum manager_profile_source source) {
        char *copy = NULL;

        if (name && *name && !(copy = strdup(name)))
                return log_oom();
        free(m->profile);
        m->profile = copy;
        m->profile_source = copy ? source : PROFILE_SOURCE_NONE;
        return 0;
}

static int switch_to(struct manager *m, const char *name, enum manager_profile_source source, bool save) {
        if (name && !*name)
                name = NULL;
        if (name && !df_config_find_profile(m->config, name))
                return -ENOENT;
        if (save)
                persist(m, name);
        if (name ? m->profile && streq(m->profile, name) : !m->profile) {
                /* A no-op that keeps the overrides; the desktop's switch naming the profile in force
                 * makes it the source, so that its next change is followed as its own. */
                if (name && source == PROFILE_SOURCE_POWER_PROFILES && m->profile_source != source) {
                        m->profile_source = source;
                        changed(m);
                }
                return 0;
        }
        if (choose(m, name, source) < 0)
                return -ENOMEM;
        log_info(
                "Profile %s is active%s%s%s", name ?: "(none)", name ? " (" : "",
                manager_profile_source_to_string(m->profile_source), name ? ")" : "");
        apply_all(m, false);
        changed(m);
        return 1;
}

int manager_set_profile(struct manager *m, const char *name, enum manager_profile_source source) {
        assert(m);

        return switch_to(m, name, source, source == PROFILE_SOURCE_CLIENT);
}

/* power-profiles-daemon's profile at start: 1 when it decided (a profile, or none for a name with no
 * profile here), 0 when it is not followed or not there. */
static int choose_desktop(struct manager *m) {
        _cleanup_free_ char *name = NULL;

        /* With no profile configured every answer means none: no round trip to wait for. */
        if (!m->config->follow_power_profiles || m->config->n_profiles == 0 || !m->desktop_profile ||
            m->desktop_profile(m->desktop_profile_userdata, &name) <= 0)
                return 0;
        if (df_config_find_profile(m->config, name)) {
                (void) choose(m, name, PROFILE_SOURCE_POWER_PROFILES);
                return 1;
        }
        log_info("power-profiles-daemon's profile is %s, which names no profile here", name);
        (void) choose(m, NULL, PROFILE_SOURCE_NONE);
        return 1;
}

void manager_profile_choose(struct manager *m) {
        const char *config;
        const struct state_choice *c;

        assert(m);

        if (choose_desktop(m) > 0)
                return; /* its switches are not persisted, and leave the saved choice alone */
        config = m->config->default_profile ?: "-";
        c = state_get(m->state, STATE_DEVICE, STATE_KEY);
        if (c && streq(c->config, config) && c->value[0] == '=' &&
            (!c->value[1] || df_config_find_profile(m->config, c->value + 1))) {
                (void) choose(m, c->value + 1, PROFILE_SOURCE_CLIENT);
                return;
        }
        if (c) {
                log_info("The configured default-profile changed; forgetting the saved profile %s", c->value + 1);
                (void) state_forget(m->state, STATE_DEVICE, STATE_KEY);
        }
        (void) choose(m, m->config->default_profile, PROFILE_SOURCE_DEFAULT);
}

void manager_profile_start(struct manager *m) {
        assert(m);

        if (!m->profile)
                return;
        log_info("Profile %s is active (%s)", m->profile, manager_profile_source_to_string(m->profile_source));
        apply_all(m, true); /* its governor settled at activation: kept, with what was saved under it */
        changed(m);
}

void manager_profile_reload(struct manager *m) {
        assert(m);

        if (!m->profile)
                return;
        if (!df_config_find_profile(m->config, m->profile)) {
                log_warning("The active profile %s is no longer configured; no profile is active", m->profile);
                (void) choose(m, NULL, PROFILE_SOURCE_NONE);
                apply_all(m, false);
                changed(m);
                return;
        }
        log_info("Profile %s re-read from the configuration", m->profile);
        apply_all(m, true);
}
