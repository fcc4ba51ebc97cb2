/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thermal rules at run time: each reading of a rule's zone moves it between released and tripped
 * with hysteresis, and a zone that cannot be read, or reads an impossible value, keeps the rule's
 * state for its `stale` time, then releases it, so that a dead sensor never leaves a device stuck
 * at its lowest point (the kernel's own thermal framework stays the safety net). Pure: readings
 * and the time come in as arguments. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

struct df_thermal_state {
        bool tripped;
        bool failing;       /* the last reading failed or was impossible */
        bool stale;         /* failing for longer than `stale`: released, until a good reading */
        bool have_temp;     /* some good reading so far */
        int64_t temp;       /* the last good reading, millidegrees Celsius */
        uint64_t good_usec; /* when the zone was last read well, or the rule began */
};

/* What an update changed (a mask). */
enum {
        DF_THERMAL_TRIPPED = 1u << 0,  /* at or above trip: the cap applies */
        DF_THERMAL_RELEASED = 1u << 1, /* at or below clear, or stale: the cap goes */
        DF_THERMAL_FAILING = 1u << 2,  /* the first failed reading after good ones */
        DF_THERMAL_STALE = 1u << 3,    /* failing for `stale`: released (if it was tripped) */
        DF_THERMAL_RESUMED = 1u << 4,  /* a good reading after failed ones */
};

/* A rule that begins now: released, and stale counts from now. */
void df_thermal_start(struct df_thermal_state *s, uint64_t now_usec);

/* Whether a zone may report this and be believed. */
bool df_thermal_plausible(int64_t millicelsius);

/*
 * One reading of the rule's zone: `r` 0 with `millicelsius`, or the read's negative errno. An
 * impossible value counts as a failed reading. Returns what changed. The state may come from a rule
 * a reload changed (the same zone, other keys): the reading is judged against `rule`'s trip and
 * clear as they are now, and between them the state carried over holds.
 */
unsigned df_thermal_update(
        const struct df_config_thermal *rule, struct df_thermal_state *s, int r, int64_t millicelsius,
        uint64_t now_usec);

/* The lowest cap of tripped rules, one rule at a time: `cap` so far (0: none) with this rule's, when
 * it is tripped and covers `device`. */
uint64_t df_thermal_cap_fold(
        uint64_t cap, const struct df_config_thermal *rule, const struct df_thermal_state *s,
        const char *device);
