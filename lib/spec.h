/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A device's resolved spec: its configuration section (or nothing, when autodiscovered) and what
 * its node says of itself, turned once into everything the device is built from. The rules about
 * a device live here: the governor for the mode and its tunables, the default load source, the
 * table, the range, the passive parent, the configuration's values for persisted choices. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "device.h"
#include "governor.h"
#include "load-spec.h"
#include "names.h"

struct df_node;

struct df_spec_point {
        uint64_t freq; /* Hz */
        uint32_t microvolt;
        uint32_t latency_us;
        bool enabled; /* not listed in opp-disabled */
};

struct df_device_spec {
        char *name;
        bool configured; /* from a [device] section */
        enum df_kind kind;
        char *path; /* canonical, inside the root */
        enum df_mode mode;

        const struct df_governor_ops *governor; /* govern mode */
        uint32_t tunables[DF_GOVERNOR_TUNABLES_MAX];
        char *kernel_governor; /* clamp mode: the kernel governor to select; NULL keeps the kernel's */

        enum df_load_kind load;
        char *load_path;
        uint64_t polling_usec;

        struct df_spec_point *points; /* ascending */
        size_t n_points;
        uint64_t min_freq; /* configured bounds: 0 and UINT64_MAX when none */
        uint64_t max_freq;
        bool initial_set;
        uint64_t initial_freq;
        bool override_limits;

        char *parent; /* passive */
        struct df_passive_pair *passive_map;
        size_t n_passive_map;

        /* The configured tunables by name, whatever the governor (the persisted-choice rule). */
        struct df_config_tunable *config_tunables;
        size_t n_config_tunables;

        char *note; /* why an autodiscovered device runs in another mode than default-mode, or NULL */
};

/* What a spec takes from the device's node, read before resolving (df_spec_read_node()). */
struct df_node_facts {
        const char *path; /* canonical, inside the root */
        enum df_kind kind;
        uint64_t *freqs; /* the node's frequencies, ascending, when the section lists no points */
        size_t n_freqs;
        int freqs_error;       /* negative errno when they could not be read */
        bool governor_offered; /* clamp mode: the section's governor is one the node offers */
};

/*
 * Resolve the device `name` from its section `cd` (NULL: autodiscovered, under the [daemon]
 * defaults) and what its node says. 0 and the spec; -EINVAL with `errors` filled (file:line for
 * a configured device); -ENOMEM.
 */
int df_spec_resolve(
        const struct df_config *c, const struct df_config_device *cd, const char *name,
        const struct df_node_facts *node, struct df_config_errors *errors, struct df_device_spec **ret);

/* spec-node.c: read the facts of an open node that the section needs, and resolve from them. */
int df_spec_read_node(
        const struct df_config *c, const struct df_config_device *cd, struct df_node *node,
        struct df_node_facts *ret);
void df_node_facts_done(struct df_node_facts *f);
int df_spec_resolve_node(
        const struct df_config *c, const struct df_config_device *cd, const char *name, struct df_node *node,
        struct df_config_errors *errors, struct df_device_spec **ret);
struct df_device_spec *df_spec_free(struct df_device_spec *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(struct df_device_spec *, df_spec_free);

/* Build and start the device the spec describes, from the frequency in force `current` (an
 * initial-frequency of a govern-mode spec wins). -EINVAL when it cannot start. */
int df_spec_make_device(
        const struct df_device_spec *s, uint64_t current, uint64_t now_usec, struct df_device **ret);

bool df_spec_equal(const struct df_device_spec *a, const struct df_device_spec *b);

/* The range the spec alone allows (enabled points within the configured bounds, the ceiling wins). */
void df_spec_range(const struct df_device_spec *s, uint64_t *ret_min, uint64_t *ret_max);

/* The configuration's values for the persisted-choice rule, "-" when it sets none: the governor as
 * "MODE:NAME", initial-frequency in Hz, a tunable by name, and a point ("enabled"/"disabled"). */
void df_spec_config_governor(const struct df_device_spec *s, char *buf, size_t size);
void df_spec_config_initial(const struct df_device_spec *s, char *buf, size_t size);
void df_spec_config_tunable(const struct df_device_spec *s, const char *name, char *buf, size_t size);
const char *df_spec_config_point(const struct df_device_spec *s, uint64_t freq);

/* What --check-config prints for a device. */
void df_spec_print(const struct df_device_spec *s, FILE *out);

/* Whether the device can run governor `ops`: -ENOMEDIUM when it polls a load the device has no
 * source for, -ENOLINK for passive without a parent; 0 when it can. */
int df_spec_check_governor(const struct df_device_spec *s, const struct df_governor_ops *ops);

/* The load source a node of this kind has unless one is configured. */
enum df_load_kind df_spec_default_load(enum df_kind kind);
/* A configured device runs no load source, as far as its path's spelling tells (the node decides
 * the kind otherwise, when the device is resolved). */
bool df_spec_lacks_load(const struct df_config_device *d);
/* df_spec_check_governor() on a configured device, before it is resolved: the load as far as the
 * path's spelling tells. */
int df_spec_config_check_governor(const struct df_config_device *d, const struct df_governor_ops *ops);
