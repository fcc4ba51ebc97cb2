/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Values that several sections take: frequencies, governor and tunable names, tunable values and
 * sets of them; each refuses with a message that says what was expected. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config-internal.h"
#include "units.h"

static bool is_lower_alnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int config_parse_frequency(struct parser *p, const char *s, bool zero_ok, uint64_t *ret) {
        uint64_t v;
        int r;

        assert(p);
        assert(ret);

        r = df_parse_frequency(s, &v);
        if (r == -ERANGE)
                return config_refuse(p, "'%s' is too large for a frequency", s);
        if (r < 0)
                return config_refuse(p, "'%s' is not a frequency (e.g. 800MHz, 1.2GHz)", s);
        if (v == 0 && !zero_ok)
                return config_refuse(p, "a frequency of 0 is not allowed here");
        *ret = v;
        return 0;
}

/* "conservative, ondemand, …" for messages. */
const char *config_governor_names(char *buf, size_t size) {
        size_t n = 0;

        assert(buf);
        assert(size > 0);

        buf[0] = '\0';
        for (size_t i = 0; i < df_governors_count && n < size; i++)
                n += (size_t) snprintf(buf + n, size - n, "%s%s", i > 0 ? ", " : "", df_governors[i]->name);
        return buf;
}

bool config_tunable_known(const char *name) {
        for (size_t i = 0; i < df_governors_count; i++)
                if (df_governor_tunable_index(df_governors[i], name) >= 0)
                        return true;
        return false;
}

/* The kernel's list is known only at attach; its names fit DEVFREQ_NAME_LEN/CPUFREQ_NAME_LEN. */
bool config_kernel_governor_name_valid(const char *s) {
        assert(s);

        size_t n = strlen(s);

        if (n == 0 || n > KERNEL_GOVERNOR_LEN_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_lower_alnum(s[i]) && s[i] != '_' && s[i] != '-') /* msm-adreno-tz */
                        return false;
        return true;
}

int config_parse_tunable(struct parser *p, const char *name, const char *value, uint32_t *ret) {
        assert(p);
        assert(ret);

        if (df_safe_atou32(value, ret) < 0)
                return config_refuse(
                        p, "tunable %s: '%s' is not a whole number from 0 to %" PRIu32, name, value,
                        UINT32_MAX);
        return 0;
}

void config_device_tunables(const struct df_config_device *d, const struct df_governor_ops *ops, uint32_t *values) {
        assert(d);
        assert(ops);
        assert(values || ops->n_tunables == 0);

        for (size_t i = 0; i < ops->n_tunables; i++)
                values[i] = ops->tunables[i].def;
        for (size_t i = 0; i < d->n_tunables; i++) {
                int k = df_governor_tunable_index(ops, d->tunables[i].name);

                if (k >= 0)
                        values[k] = d->tunables[i].value;
        }
}

/* The configuration's one check of a governor's cross-tunable rule, so that a device section and a
 * profile are judged, and their errors worded, alike. */
int config_check_tunables(
        struct parser *p, const struct df_location *at, const char *prefix, const struct df_governor_ops *ops,
        const uint32_t *values) {
        char list[256];

        assert(p);
        assert(at);
        assert(prefix);
        assert(ops);

        if (df_governor_validate(ops, values) >= 0)
                return 0;
        return config_report_at(
                p, at, "%sthe tunables of governor %s do not fit together: %s", prefix, ops->name,
                df_governor_format_tunables(ops, values, DF_GOVERNOR_ALL_TUNABLES, list, sizeof(list)));
}
