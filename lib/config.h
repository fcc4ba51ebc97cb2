/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration model and its parser: /etc/devfreqd.conf and the drop-ins of devfreqd.conf.d,
 * read with libinih, merged by the drop-in rules, validated as a whole, errors as "file:line: what". */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "governor.h"
#include "load-spec.h"
#include "macro.h"
#include "names.h"

/* Where a value was set. `file` points into df_config.files. */
struct df_location {
        const char *file;
        unsigned line;
};

struct df_config_tunable {
        char *name;
        uint32_t value;
        struct df_location loc;
};

struct df_config_opp {
        uint64_t freq;       /* Hz */
        uint32_t microvolt;  /* 0 = not given */
        uint32_t latency_us; /* 0 = not given */
        struct df_location loc;
};

struct df_config_frequency {
        uint64_t freq;
        struct df_location loc;
};

/* One [device NAME] section, merged over every file. Unset values take the defaults. */
struct df_config_device {
        char *name;
        struct df_location loc; /* the first section header naming it */

        char *path; /* as written, inside the root */
        struct df_location path_loc;

        bool mode_set;
        enum df_mode mode;
        struct df_location mode_loc;

        char *governor; /* NULL: default-governor (govern), the kernel's own (clamp) */
        struct df_location governor_loc;

        bool polling_set;
        uint64_t polling_usec;
        struct df_location polling_loc;

        bool initial_set;
        uint64_t initial_freq;
        struct df_location initial_loc;

        uint64_t min_freq; /* 0 = none */
        struct df_location min_loc;
        uint64_t max_freq; /* UINT64_MAX = none */
        struct df_location max_loc;

        bool load_set; /* unset: proc-stat for cpufreq paths, none for devfreq */
        enum df_load_kind load;
        char *load_path;
        struct df_location load_loc;

        struct df_config_tunable *tunables; /* in file order, a later value of a name replaces it */
        size_t n_tunables;

        struct df_config_opp *opps; /* ascending after validation; empty: read the node's table */
        size_t n_opps;
        struct df_config_frequency *opp_disabled;
        size_t n_opp_disabled;

        bool opp_step_set;
        uint64_t opp_step; /* Hz, default 100 MHz */
        struct df_location opp_step_loc;

        bool override_limits; /* clamp: replace the limits found instead of staying inside them */

        char *parent; /* passive: the device followed */
        struct df_location parent_loc;
        struct df_passive_pair *passive_map;
        size_t n_passive_map;
        struct df_location passive_map_loc;
};

/* One line of a [profile NAME] section: DEVICE.KEY or *.KEY. */
enum df_profile_key {
        DF_PROFILE_GOVERNOR,
        DF_PROFILE_MIN_FREQUENCY,
        DF_PROFILE_MAX_FREQUENCY,
        DF_PROFILE_TUNABLE,
};

struct df_config_profile_line {
        char *device; /* NULL for '*' */
        char *key;    /* as written: governor, min-frequency, max-frequency or a tunable's name */
        char *value;  /* as written */
        enum df_profile_key kind;
        uint64_t freq;    /* min-frequency, max-frequency: Hz */
        uint32_t tunable; /* a tunable's value */
        struct df_location loc;
};

/* One [profile NAME] section, merged over every file: a later line of the same DEVICE.KEY replaces
 * the value of the earlier one in its place. */
struct df_config_profile {
        char *name;
        struct df_location loc;
        struct df_config_profile_line *lines; /* in file order */
        size_t n_lines;
};

/* One [thermal NAME] section, merged over every file: a later value of a key replaces it. */
struct df_config_thermal {
        char *name;
        struct df_location loc;
        char *zone; /* a zone's type (thermal_zoneN/type) or name (thermal_zoneN) */
        struct df_location zone_loc;
        char **devices; /* device names; NULL with all_devices */
        size_t n_devices;
        bool all_devices; /* devices = * */
        struct df_location devices_loc;
        bool trip_set, clear_set;
        int64_t trip, clear; /* millidegrees Celsius: cap at or above trip, release at or below clear */
        struct df_location trip_loc, clear_loc;
        uint64_t max_freq; /* Hz: while tripped, the points above it are disabled; 0 = unset */
        struct df_location max_loc;
        uint64_t poll_usec;  /* how often the zone is read (1 s) */
        uint64_t stale_usec; /* how long an unreadable zone keeps the state (10 s) */
        struct df_location poll_loc, stale_loc;
};

#define DF_CONFIG_DEFAULT_THERMAL_POLL_USEC UINT64_C(1000000)
#define DF_CONFIG_DEFAULT_THERMAL_STALE_USEC UINT64_C(10000000)
/* What a zone may report and be believed: outside, the reading is impossible (a dead sensor). */
#define DF_THERMAL_MIN_MILLICELSIUS INT64_C(-40000)
#define DF_THERMAL_MAX_MILLICELSIUS INT64_C(200000)

#define DF_CONFIG_DEFAULT_POLLING_USEC UINT64_C(100000)
#define DF_CONFIG_DEFAULT_OPP_STEP UINT64_C(100000000)

struct df_config {
        char **files; /* every file read, in order; locations point at these strings */
        size_t n_files;

        bool autodiscover;         /* yes */
        enum df_mode default_mode; /* clamp */
        char *default_governor;    /* simple_ondemand */
        uint64_t polling_usec;     /* 100 ms */
        char **allow_groups;       /* none */
        size_t n_allow_groups;
        char **request_groups; /* none */
        size_t n_request_groups;
        uint32_t max_requests_per_client;     /* 64 */
        uint32_t max_requests_per_user;       /* 256, over all of a uid's connections; root exempt */
        uint32_t max_requests;                /* 4096 */
        uint32_t max_clients;                 /* 256 */
        uint32_t max_pending_checks_per_user; /* 8 polkit checks in flight per uid */
        char **profile_groups; /* none: groups allowed to switch profiles when polkit is absent */
        size_t n_profile_groups;
        char *default_profile; /* NULL: none */
        struct df_location default_profile_loc;
        bool follow_power_profiles; /* yes */

        struct df_config_profile *profiles; /* in order of first appearance */
        size_t n_profiles;

        struct df_config_thermal *thermals; /* in order of first appearance */
        size_t n_thermals;

        struct df_config_device *devices; /* in order of first appearance */
        size_t n_devices;
};

/* Error messages, each "file:line: what is wrong" (at most DF_CONFIG_ERRORS_MAX are kept). */
#define DF_CONFIG_ERRORS_MAX 32
struct df_config_errors {
        char *messages[DF_CONFIG_ERRORS_MAX];
        size_t n;
        size_t dropped; /* errors beyond the cap */
};

void df_config_errors_done(struct df_config_errors *e);
/* Add "file:line: what" (just "what" without a location); returns -EINVAL for the caller to pass on. */
_printf_(3, 4) int df_config_errors_add(
        struct df_config_errors *e, const struct df_location *loc, const char *fmt, ...);

/*
 * Read `file` (a missing file means all defaults), then every regular "*.conf" file of
 * `dropin_dir` (may be NULL or missing) in lexical order, merging by the drop-in rules: a later
 * value replaces a single value of the same section; a list key (opp, opp-disabled, allow-groups,
 * request-groups, profile-groups) appends one line each, and an empty assignment clears the list so far.
 * An empty value of a single key removes it in [device NAME] and restores its built-in default in
 * [daemon]. Then validate the merged whole. Returns 0 and the model, or -EINVAL with `errors`
 * filled (the model is not returned: nothing is half-applied), or another negative errno (e.g.
 * -ENOMEM).
 */
int df_config_load(
        const char *file, const char *dropin_dir, struct df_config **ret, struct df_config_errors *errors);

/* The same for an explicit list of files (tests, fuzzing). A missing file is an error here. */
int df_config_load_files(
        const char *const *files, size_t n_files, struct df_config **ret, struct df_config_errors *errors);

/* Parse one in-memory text as if it were file `name` (fuzzing). */
int df_config_load_string(
        const char *name, const char *text, size_t size, struct df_config **ret,
        struct df_config_errors *errors);

struct df_config *df_config_free(struct df_config *c);

const struct df_config_device *df_config_find_device(const struct df_config *c, const char *name);
const struct df_config_profile *df_config_find_profile(const struct df_config *c, const char *name);
const struct df_config_thermal *df_config_find_thermal(const struct df_config *c, const char *name);
/* The rule caps the device of that name (listed, or devices = *). */
bool df_config_thermal_covers(const struct df_config_thermal *t, const char *device);

/* Values after defaults. */
enum df_mode df_config_device_mode(const struct df_config *c, const struct df_config_device *d);
/* govern: the governor or default-governor; clamp: the configured kernel governor or NULL. */
const char *df_config_device_governor(const struct df_config *c, const struct df_config_device *d);
uint64_t df_config_device_polling(const struct df_config *c, const struct df_config_device *d);
uint64_t df_config_device_opp_step(const struct df_config_device *d);
/* The path's kind by its spelling: cpufreq under /sys/devices/system/cpu/, devfreq otherwise. */
bool df_config_path_is_cpufreq(const char *path);
/* The kind when the spelling tells it for sure (/sys/devices/system/cpu/..., /sys/class/devfreq/...
 * or a .../devfreq/NODE path), else _DF_KIND_INVALID: only the node can tell (df_spec_resolve()). */
enum df_kind df_config_path_kind(const char *path);
