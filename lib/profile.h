/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What one profile sets on one device: its `*` and DEVICE.KEY rules (devfreqd.conf(5), PROFILES)
 * decided from the device's resolved spec, before anything is written. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "governor.h"
#include "node.h"
#include "spec.h"

/* Whether the device's node offers the kernel governor `name` (clamp mode). */
typedef bool (*df_profile_offers_t)(const char *name, void *userdata);

struct df_profile_decision {
        bool governor_set;
        const struct df_governor_ops *governor;  /* govern mode */
        char kernel_governor[DF_ATTR_VALUE_MAX]; /* clamp mode */
        uint32_t tunable_mask;                   /* bit i: tunables[i] of the governor in force is set */
        uint32_t tunables[DF_GOVERNOR_TUNABLES_MAX];
        uint64_t min_freq; /* 0: no floor */
        uint64_t max_freq; /* UINT64_MAX: no ceiling */
};

/* The lines a decision leaves out, said once when it is applied: apart from the decision, which
 * every device keeps while its profile is active. */
struct df_profile_skips {
        char error[256];    /* the first named line that does not apply here (LastError), or "" */
        unsigned n_skipped; /* '*' lines that do not apply here */
        char skipped[256];  /* the first of them, for a debug line */
};

/*
 * Decide what profile `p` (NULL: none) sets on the device of spec `s`, whose governor outside the
 * profile is `base` (govern mode: the configured or persisted one; it carries the profile's
 * tunables when the profile sets no governor). A DEVICE.KEY line names this device; a `*.KEY`
 * line applies where no DEVICE.KEY line of the profile names the key for it, and only where it
 * can. `offers` tells the kernel governors of a clamp-mode node (NULL: none is checked). The lines
 * that do not apply go to `ret_skips`.
 */
void df_profile_decide(
        const struct df_config_profile *p, const struct df_device_spec *s, const struct df_governor_ops *base,
        df_profile_offers_t offers, void *userdata, struct df_profile_decision *ret,
        struct df_profile_skips *ret_skips);

/* Whether the decision sets the governor, or the tunable `name` of `ops` (the governor in force). */
bool df_profile_sets_tunable(
        const struct df_profile_decision *d, const struct df_governor_ops *ops, const char *name);

/* The decision's tunables (for `ops`, the governor it runs) over `base`, into `ret`. */
void df_profile_overlay_tunables(
        const struct df_profile_decision *d, const struct df_governor_ops *ops, const uint32_t *base,
        uint32_t *ret);

/*
 * The tunables `ops` runs with under decision `d`, checked as one set (df_governor_validate): the
 * profile's over `saved`, the values outside the profile with persisted choices (0); where those do
 * not fit together, the profile's over `configured`, the configuration's values or the defaults,
 * which configuration checking judged the profile's against (1: the persisted choices give way
 * while the profile is active). -ERANGE when neither fits (a device the configuration does not
 * name); `ret` is written only on success.
 */
int df_profile_tunables(
        const struct df_profile_decision *d, const struct df_governor_ops *ops, const uint32_t *saved,
        const uint32_t *configured, uint32_t *ret);

/* Whether two decisions set the same things. */
bool df_profile_decision_equal(const struct df_profile_decision *a, const struct df_profile_decision *b);
