/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exact parsing and formatting of frequencies, durations, voltages and latencies, and checked integers. */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "units.h"

/* One spelling of a unit: `mult` base units, `digits` = log10(mult). */
struct unit {
        const char *name;
        uint64_t mult;
        unsigned digits;
};

/* Ascending by multiplier; the first spelling of a multiplier is the one formatted. */
static const struct unit frequency_units[] = {
        { "Hz", UINT64_C(1), 0 },
        { "kHz", UINT64_C(1000), 3 },
        { "MHz", UINT64_C(1000000), 6 },
        { "GHz", UINT64_C(1000000000), 9 },
};

static const struct unit duration_units[] = {
        { "us", UINT64_C(1), 0 },      { "usec", UINT64_C(1), 0 },    { "ms", UINT64_C(1000), 3 },
        { "msec", UINT64_C(1000), 3 }, { "s", UINT64_C(1000000), 6 }, { "sec", UINT64_C(1000000), 6 },
};

static const struct unit voltage_units[] = {
        { "uV", UINT64_C(1), 0 },
        { "mV", UINT64_C(1000), 3 },
        { "V", UINT64_C(1000000), 6 },
};

/* Millidegrees Celsius as sysfs gives them (a bare number), or degrees. */
static const struct unit temperature_units[] = {
        { "", UINT64_C(1), 0 },
        { "C", UINT64_C(1000), 3 },
};

/* ASCII only, whatever the locale. */
static bool ascii_caseeq(const char *a, const char *b) {
        for (;; a++, b++) {
                char x = *a, y = *b;

                if (x >= 'A' && x <= 'Z')
                        x = (char) (x - 'A' + 'a');
                if (y >= 'A' && y <= 'Z')
                        y = (char) (y - 'A' + 'a');
                if (x != y)
                        return false;
                if (x == '\0')
                        return true;
        }
}

/* Digits [s, s+len) accumulated with overflow checking. */
int df_digits_to_u64(const char *s, size_t len, uint64_t *ret) {
        uint64_t v = 0;

        assert(s || len == 0);
        assert(ret);

        if (len == 0)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                if (s[i] < '0' || s[i] > '9')
                        return -EINVAL;
                unsigned d = (unsigned) (s[i] - '0');

                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

int df_safe_atou64(const char *s, uint64_t *ret) {
        size_t len;

        assert(ret);

        if (!s)
                return -EINVAL;
        len = strlen(s);
        return df_digits_to_u64(s, len, ret);
}

int df_safe_atou32(const char *s, uint32_t *ret) {
        uint64_t v;
        int r;

        assert(ret);

        r = df_safe_atou64(s, &v);
        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

/*
 * "<digits>[.<digits>]<unit>" with the unit from `units`; an empty unit is the base unit,
 * accepted for any value when `bare_any` and otherwise only for zero in any spelling ("0",
 * "00", "0.0"). Leading zeros are allowed ("007MHz"). Every value starts with a digit (".5" is
 * malformed) and a dot needs a digit after it ("1." is malformed). Units are ASCII only: "µs"
 * is malformed. The fraction's trailing zeros carry no value, so "1.50kHz" is 1500 and "1.0Hz"
 * is 1. Malformed wins over too large: "99999999999999999999.5Hz" is -EINVAL.
 */
static int parse_units(const char *s, const struct unit *units, size_t n_units, bool bare_any, uint64_t *ret) {
        const char *int_part, *frac_part = NULL, *suffix;
        size_t int_len, frac_len = 0;
        const struct unit *u = NULL;
        uint64_t v, frac = 0;
        int r;

        if (!s)
                return -EINVAL;

        int_part = s;
        int_len = strspn(int_part, "0123456789");
        if (int_len == 0)
                return -EINVAL;
        suffix = int_part + int_len;
        if (*suffix == '.') {
                frac_part = suffix + 1;
                frac_len = strspn(frac_part, "0123456789");
                if (frac_len == 0)
                        return -EINVAL;
                suffix = frac_part + frac_len;
        }

        if (*suffix == '\0') {
                if (!bare_any) {
                        /* Only a zero may go without a unit. */
                        if (strspn(int_part, "0") != int_len)
                                return -EINVAL;
                        if (frac_part && strspn(frac_part, "0") != frac_len)
                                return -EINVAL;
                }
                u = &units[0];
        } else {
                for (size_t i = 0; i < n_units; i++)
                        if (ascii_caseeq(suffix, units[i].name)) {
                                u = &units[i];
                                break;
                        }
                if (!u)
                        return -EINVAL;
        }

        /* The fraction must be a whole number of base units: at most u->digits significant digits. */
        while (frac_len > 0 && frac_part[frac_len - 1] == '0')
                frac_len--;
        if (frac_len > u->digits)
                return -EINVAL;
        if (frac_len > 0) {
                r = df_digits_to_u64(frac_part, frac_len, &frac); /* at most 9 digits, cannot overflow */
                if (r < 0)
                        return r;
                for (size_t i = frac_len; i < u->digits; i++)
                        frac *= 10;
        }

        r = df_digits_to_u64(int_part, int_len, &v);
        if (r < 0)
                return r;
        if (v > UINT64_MAX / u->mult)
                return -ERANGE;
        v *= u->mult;
        if (v > UINT64_MAX - frac)
                return -ERANGE;
        *ret = v + frac;
        return 0;
}

int df_parse_frequency(const char *s, uint64_t *ret_hz) {
        assert(ret_hz);

        return parse_units(s, frequency_units, ELEMENTSOF(frequency_units), true, ret_hz);
}

int df_parse_duration(const char *s, uint64_t *ret_usec) {
        assert(ret_usec);

        return parse_units(s, duration_units, ELEMENTSOF(duration_units), false, ret_usec);
}

int df_parse_voltage(const char *s, uint32_t *ret_microvolt) {
        uint64_t v;
        int r;

        assert(ret_microvolt);

        r = parse_units(s, voltage_units, ELEMENTSOF(voltage_units), false, &v);
        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret_microvolt = (uint32_t) v;
        return 0;
}

int df_parse_temperature(const char *s, int64_t *ret_millicelsius) {
        bool negative;
        uint64_t v;
        int r;

        assert(ret_millicelsius);

        if (!s)
                return -EINVAL;
        negative = s[0] == '-';
        r = parse_units(s + negative, temperature_units, ELEMENTSOF(temperature_units), true, &v);
        if (r < 0)
                return r;
        if (v > (uint64_t) INT64_MAX)
                return -ERANGE;
        *ret_millicelsius = negative ? -(int64_t) v : (int64_t) v;
        return 0;
}

int df_parse_latency(const char *s, uint32_t *ret_usec) {
        uint64_t v;
        int r;

        assert(ret_usec);

        r = df_parse_duration(s, &v);
        if (r < 0)
                return r;
        if (v > UINT32_MAX)
                return -ERANGE;
        *ret_usec = (uint32_t) v;
        return 0;
}

/*
 * "<int>[.<frac>] <unit>" in the largest unit whose integer part is non-zero (the
 * smallest for 0), with the fraction's trailing zeros dropped: exact, never rounded.
 */
static const char *format_units(char *buf, size_t size, uint64_t v, const struct unit *units, size_t n_units) {
        const struct unit *u = &units[0];
        unsigned digits;
        uint64_t frac;

        for (size_t i = 0; i < n_units; i++)
                if (v >= units[i].mult && units[i].mult > u->mult)
                        u = &units[i];

        frac = v % u->mult;
        if (frac == 0) {
                (void) snprintf(buf, size, "%" PRIu64 " %s", v / u->mult, u->name);
                return buf;
        }

        digits = u->digits;
        while (frac % 10 == 0) {
                frac /= 10;
                digits--;
        }
        (void) snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64 " %s", v / u->mult, (int) digits, frac, u->name);
        return buf;
}

const char *df_format_frequency(char buf[static DF_FREQ_STRING_MAX], uint64_t hz) {
        assert(buf);

        return format_units(buf, DF_FREQ_STRING_MAX, hz, frequency_units, ELEMENTSOF(frequency_units));
}

const char *df_format_frequency_compact(char buf[static DF_FREQ_STRING_MAX], uint64_t hz) {
        const struct unit *u = &frequency_units[0];

        assert(buf);

        /* The largest unit that keeps the value an integer, so it parses back identically. */
        for (size_t i = 0; i < ELEMENTSOF(frequency_units); i++)
                if (hz != 0 && hz % frequency_units[i].mult == 0)
                        u = &frequency_units[i];
        (void) snprintf(buf, DF_FREQ_STRING_MAX, "%" PRIu64 "%s", hz / u->mult, u->name);
        return buf;
}

const char *df_format_duration(char buf[static DF_DURATION_STRING_MAX], uint64_t usec) {
        assert(buf);

        return format_units(buf, DF_DURATION_STRING_MAX, usec, duration_units, ELEMENTSOF(duration_units));
}

const char *df_format_voltage(char buf[static DF_VOLTAGE_STRING_MAX], uint32_t microvolt) {
        assert(buf);

        return format_units(buf, DF_VOLTAGE_STRING_MAX, microvolt, voltage_units, ELEMENTSOF(voltage_units));
}

uint64_t df_now_usec(clockid_t clock) {
        struct timespec ts;

        if (clock_gettime(clock, &ts) < 0)
                return 0;
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

const char *df_format_temperature(char buf[static DF_TEMPERATURE_STRING_MAX], int64_t millicelsius) {
        uint64_t a = millicelsius < 0 ? -(uint64_t) millicelsius : (uint64_t) millicelsius;
        unsigned frac = (unsigned) (a % 1000), digits = 3;

        while (frac > 0 && frac % 10 == 0) {
                frac /= 10;
                digits--;
        }
        if (frac > 0)
                snprintf(
                        buf, DF_TEMPERATURE_STRING_MAX, "%s%" PRIu64 ".%0*u C", millicelsius < 0 ? "-" : "",
                        a / 1000, (int) digits, frac);
        else
                snprintf(buf, DF_TEMPERATURE_STRING_MAX, "%s%" PRIu64 " C", millicelsius < 0 ? "-" : "", a / 1000);
        return buf;
}
