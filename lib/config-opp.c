/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The point lines of a [device NAME] section: opp, opp-disabled and passive-map. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"
#include "macro.h"
#include "units.h"

/* One token after the frequency of an opp line: a voltage or latency=DURATION, each at most once. */
static int apply_opp_token(struct parser *p, const char *w, struct df_config_opp *opp) {
        uint32_t uv;

        if (config_startswith(w, "latency=")) {
                if (opp->latency_us > 0)
                        return config_refuse(p, "the operating point has two latencies");
                if (df_parse_latency(w + 8, &opp->latency_us) < 0 || opp->latency_us == 0)
                        return config_refuse(
                                p, "'%s' is not a latency (latency=DURATION above 0, e.g. latency=200us)", w);
                return 0;
        }
        if (df_parse_voltage(w, &uv) < 0 || uv == 0)
                return config_refuse(
                        p,
                        "'%s' is neither a voltage (e.g. 825mV, 1.05V) nor latency=DURATION; an operating point "
                        "is 'FREQ [VOLTAGE] [latency=DURATION]'",
                        w);
        if (opp->microvolt > 0)
                return config_refuse(p, "'%s': the operating point already has a voltage", w);
        opp->microvolt = uv;
        return 0;
}

int config_apply_opp(struct parser *p, struct df_config_device *d, const char *value) {
        assert(p);
        assert(d);
        assert(value);

        struct df_config_opp opp = { .loc = config_here(p) }, *slot;
        _cleanup_free_ char *copy = NULL;
        char *save = NULL, *w;
        int r;

        copy = strdup(value);
        if (!copy)
                return config_oom(p);
        w = strtok_r(copy, " \t", &save);
        if (!w) {
                free(d->opps);
                d->opps = NULL;
                d->n_opps = 0;
                return 0;
        }
        r = config_parse_frequency(p, w, false, &opp.freq);
        if (r < 0)
                return r;
        while ((w = strtok_r(NULL, " \t", &save))) {
                r = apply_opp_token(p, w, &opp);
                if (r < 0)
                        return r;
        }
        slot = GROW(d->opps, d->n_opps);
        if (!slot)
                return config_oom(p);
        *slot = opp;
        d->n_opps++;
        return 0;
}

int config_apply_opp_disabled(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ char *copy = NULL;
        char *save = NULL;
        uint64_t f;
        int r;

        assert(p);
        assert(d);
        assert(value);

        if (!*value) {
                free(d->opp_disabled);
                d->opp_disabled = NULL;
                d->n_opp_disabled = 0;
                return 0;
        }
        copy = strdup(value);
        if (!copy)
                return config_oom(p);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                r = config_parse_frequency(p, w, false, &f);
                if (r < 0)
                        return r;
        }
        strcpy(copy, value);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                struct df_config_frequency *slot = GROW(d->opp_disabled, d->n_opp_disabled);

                if (!slot)
                        return config_oom(p);
                (void) df_parse_frequency(w, &slot->freq);
                slot->loc = config_here(p);
                d->n_opp_disabled++;
        }
        return 0;
}

/* "P:C P:C …" on one line; a later line replaces the map, an empty one removes it. */
int config_apply_passive_map(struct parser *p, struct df_config_device *d, const char *value) {
        _cleanup_free_ struct df_passive_pair *map = NULL;
        _cleanup_free_ char *copy = NULL;
        char buf[DF_FREQ_STRING_MAX];
        char *save = NULL;
        size_t n = 0;
        int r;

        assert(p);
        assert(d);
        assert(value);

        copy = strdup(value);
        if (!copy)
                return config_oom(p);
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                char *colon = strchr(w, ':');
                struct df_passive_pair *slot;

                if (!colon || strchr(colon + 1, ':'))
                        return config_refuse(
                                p, "'%s' is not a PARENT:CHILD frequency pair (e.g. 400MHz:200MHz)", w);
                *colon = '\0';
                slot = GROW(map, n);
                if (!slot)
                        return config_oom(p);
                r = config_parse_frequency(p, w, false, &slot->parent);
                if (r < 0)
                        return r;
                r = config_parse_frequency(p, colon + 1, false, &slot->child);
                if (r < 0)
                        return r;
                for (size_t i = 0; i < n; i++)
                        if (map[i].parent == slot->parent)
                                return config_refuse(
                                        p, "passive-map names the parent frequency %s twice",
                                        df_format_frequency(buf, slot->parent));
                n++;
        }
        free(d->passive_map);
        d->passive_map = TAKE_PTR(map);
        d->n_passive_map = n;
        d->passive_map_loc = config_here(p);
        return 0;
}
