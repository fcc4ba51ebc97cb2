/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thermal rules: hysteresis between clear and trip, staleness of a dead zone, the lowest cap. */

#include <assert.h>

#include "thermal.h"

void df_thermal_start(struct df_thermal_state *s, uint64_t now_usec) {
        assert(s);

        *s = (struct df_thermal_state){ .good_usec = now_usec };
}

bool df_thermal_plausible(int64_t millicelsius) {
        return millicelsius >= DF_THERMAL_MIN_MILLICELSIUS && millicelsius <= DF_THERMAL_MAX_MILLICELSIUS;
}

static unsigned set_tripped(struct df_thermal_state *s, bool tripped) {
        if (s->tripped == tripped)
                return 0;
        s->tripped = tripped;
        return tripped ? DF_THERMAL_TRIPPED : DF_THERMAL_RELEASED;
}

/* A failed reading keeps the state, until the zone has gone `stale` without a good one. */
static unsigned failed(const struct df_config_thermal *rule, struct df_thermal_state *s, uint64_t now_usec) {
        unsigned events = 0;

        if (!s->failing) {
                s->failing = true;
                events |= DF_THERMAL_FAILING;
        }
        if (!s->stale && now_usec - s->good_usec >= rule->stale_usec) {
                s->stale = true;
                events |= DF_THERMAL_STALE | set_tripped(s, false);
        }
        return events;
}

unsigned df_thermal_update(
        const struct df_config_thermal *rule, struct df_thermal_state *s, int r, int64_t millicelsius,
        uint64_t now_usec) {
        unsigned events = 0;

        assert(rule);
        assert(s);

        if (r < 0 || !df_thermal_plausible(millicelsius))
                return failed(rule, s, now_usec);
        if (s->failing)
                events |= DF_THERMAL_RESUMED;
        s->failing = s->stale = false;
        s->have_temp = true;
        s->temp = millicelsius;
        s->good_usec = now_usec;
        if (millicelsius >= rule->trip)
                events |= set_tripped(s, true);
        else if (millicelsius <= rule->clear)
                events |= set_tripped(s, false);
        return events;
}

uint64_t df_thermal_cap_fold(
        uint64_t cap, const struct df_config_thermal *rule, const struct df_thermal_state *s,
        const char *device) {
        assert(rule);
        assert(s);
        assert(device);

        if (!s->tripped || !df_config_thermal_covers(rule, device))
                return cap;
        return cap == 0 || rule->max_freq < cap ? rule->max_freq : cap;
}
