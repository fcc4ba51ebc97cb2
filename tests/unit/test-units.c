/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Units: checked integers, exact unit parsing, exact formatting, and format → parse round trips. */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "macro.h"
#include "test-helpers.h"
#include "units.h"

#define U64_MAX UINT64_C(18446744073709551615)
#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)
#define SENTINEL32 UINT32_C(0x5a5a5a5a)

/* One input and what the parser must make of it; the expected values are written out by hand. */
struct parse_case {
        const char *s;
        int r;
        uint64_t v;
};

/* Parse every case; on failure the out-parameter must be left alone. */
static void check_u64_cases(int (*parse)(const char *, uint64_t *), const struct parse_case *c, size_t n) {
        for (size_t i = 0; i < n; i++) {
                uint64_t v = SENTINEL;
                int r = parse(c[i].s, &v);

                ck_assert_msg(r == c[i].r, "'%s': got %d, expected %d", strempty(c[i].s), r, c[i].r);
                ck_assert_msg(
                        v == (c[i].r == 0 ? c[i].v : SENTINEL),
                        "'%s': got value %" PRIu64 ", expected %" PRIu64, strempty(c[i].s), v,
                        c[i].r == 0 ? c[i].v : SENTINEL);
        }
}

static void check_u32_cases(int (*parse)(const char *, uint32_t *), const struct parse_case *c, size_t n) {
        for (size_t i = 0; i < n; i++) {
                uint32_t v = SENTINEL32;
                int r = parse(c[i].s, &v);

                ck_assert_msg(r == c[i].r, "'%s': got %d, expected %d", strempty(c[i].s), r, c[i].r);
                ck_assert_msg(
                        v == (c[i].r == 0 ? c[i].v : SENTINEL32),
                        "'%s': got value %" PRIu32 ", expected %" PRIu64, strempty(c[i].s), v,
                        c[i].r == 0 ? c[i].v : (uint64_t) SENTINEL32);
        }
}

/* Temperatures: written out by hand, in millidegrees. */
START_TEST(test_parse_temperature) {
        static const struct {
                const char *s;
                int r;
                int64_t v;
        } cases[] = {
                { "85C", 0, 85000 },
                { "85c", 0, 85000 },
                { "82.5C", 0, 82500 },
                { "0.001C", 0, 1 },
                { "-10C", 0, -10000 },
                { "85000", 0, 85000 },
                { "-40000", 0, -40000 },
                { "0", 0, 0 },
                { "-0C", 0, 0 },
                { "0.0001C", -EINVAL, 0 },
                { "85F", -EINVAL, 0 },
                { "85 C", -EINVAL, 0 },
                { " 85C", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "-", -EINVAL, 0 },
                { "--5C", -EINVAL, 0 },
                { "+5C", -EINVAL, 0 },
                { "C", -EINVAL, 0 },
                { "1.5", -EINVAL, 0 },
                { "9223372036854775807", 0, INT64_MAX },
                { "9223372036854775808", -ERANGE, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int64_t v = 12345;
                int r = df_parse_temperature(cases[i].s, &v);

                ck_assert_msg(r == cases[i].r, "'%s': got %d, expected %d", cases[i].s, r, cases[i].r);
                ck_assert_msg(v == (r == 0 ? cases[i].v : 12345), "'%s': got %" PRId64, cases[i].s, v);
        }
        ck_assert_int_eq(df_parse_temperature(NULL, &(int64_t){ 0 }), -EINVAL);
}
END_TEST

START_TEST(test_format_temperature) {
        char buf[DF_TEMPERATURE_STRING_MAX];

        ck_assert_str_eq(df_format_temperature(buf, 85000), "85 C");
        ck_assert_str_eq(df_format_temperature(buf, 82500), "82.5 C");
        ck_assert_str_eq(df_format_temperature(buf, -125), "-0.125 C");
        ck_assert_str_eq(df_format_temperature(buf, 0), "0 C");
        ck_assert_str_eq(df_format_temperature(buf, 1), "0.001 C");
        ck_assert_str_eq(df_format_temperature(buf, INT64_MIN), "-9223372036854775.808 C");
}
END_TEST

START_TEST(test_safe_atou64) {
        static const struct parse_case cases[] = {
                { "0", 0, 0 },
                { "00", 0, 0 },
                { "7", 0, 7 },
                { "0042", 0, 42 },
                { "4294967296", 0, UINT64_C(4294967296) },
                { "18446744073709551614", 0, U64_MAX - 1 },
                { "18446744073709551615", 0, U64_MAX },
                { "000000000000000000000018446744073709551615", 0, U64_MAX },
                { "18446744073709551616", -ERANGE, 0 },
                { "18446744073709551620", -ERANGE, 0 },
                { "99999999999999999999", -ERANGE, 0 },
                { "184467440737095516150", -ERANGE, 0 },
                { NULL, -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "+1", -EINVAL, 0 },
                { "-0", -EINVAL, 0 },
                { " 1", -EINVAL, 0 },
                { "1 ", -EINVAL, 0 },
                { "1\n", -EINVAL, 0 },
                { "0x", -EINVAL, 0 },
                { "0x10", -EINVAL, 0 },
                { "1a", -EINVAL, 0 },
                { "1.0", -EINVAL, 0 },
                { "1e3", -EINVAL, 0 },
                { "1_000", -EINVAL, 0 },
                { "1Hz", -EINVAL, 0 },
        };
        check_u64_cases(df_safe_atou64, cases, ELEMENTSOF(cases));
}
END_TEST

START_TEST(test_safe_atou32) {
        static const struct parse_case cases[] = {
                { "0", 0, 0 },
                { "65536", 0, 65536 },
                { "4294967294", 0, UINT64_C(4294967294) },
                { "4294967295", 0, UINT64_C(4294967295) },
                { "4294967296", -ERANGE, 0 },
                { "18446744073709551615", -ERANGE, 0 },
                { "18446744073709551616", -ERANGE, 0 },
                { NULL, -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "+5", -EINVAL, 0 },
                { " 5", -EINVAL, 0 },
                { "5 ", -EINVAL, 0 },
                { "0x1f", -EINVAL, 0 },
                { "1.5", -EINVAL, 0 },
        };
        check_u32_cases(df_safe_atou32, cases, ELEMENTSOF(cases));
}
END_TEST

START_TEST(test_parse_frequency) {
        static const struct parse_case cases[] = {
                /* bare numbers are Hz */
                { "0", 0, 0 },
                { "1", 0, 1 },
                { "400000001", 0, UINT64_C(400000001) },
                { "18446744073709551615", 0, U64_MAX },
                /* units, any case */
                { "1Hz", 0, 1 },
                { "1hz", 0, 1 },
                { "1HZ", 0, 1 },
                { "999Hz", 0, 999 },
                { "2kHz", 0, 2000 },
                { "2KHZ", 0, 2000 },
                { "800MHz", 0, UINT64_C(800000000) },
                { "800mhz", 0, UINT64_C(800000000) },
                { "800MHZ", 0, UINT64_C(800000000) },
                { "3GHz", 0, UINT64_C(3000000000) },
                { "3ghz", 0, UINT64_C(3000000000) },
                { "007MHz", 0, UINT64_C(7000000) },
                { "0GHz", 0, 0 },
                /* exact decimals */
                { "1.2GHz", 0, UINT64_C(1200000000) },
                { "1.066GHz", 0, UINT64_C(1066000000) },
                { "1.5kHz", 0, 1500 },
                { "1.50kHz", 0, 1500 },
                { "1.001kHz", 0, 1001 },
                { "0.5MHz", 0, UINT64_C(500000) },
                { "227.272727MHz", 0, UINT64_C(227272727) },
                { "0.000000001GHz", 0, 1 },
                { "1.000000001GHz", 0, UINT64_C(1000000001) },
                { "1.0Hz", 0, 1 },
                { "0.0GHz", 0, 0 },
                { "1.000000000000000000000000000GHz", 0, UINT64_C(1000000000) },
                /* the top edge */
                { "18446744073709551615Hz", 0, U64_MAX },
                { "18446744073709551.615kHz", 0, U64_MAX },
                { "18446744073709.551615MHz", 0, U64_MAX },
                { "18446744073.709551615GHz", 0, U64_MAX },
                { "18446744073GHz", 0, UINT64_C(18446744073000000000) },
                { "18446744073709551614Hz", 0, U64_MAX - 1 },
                { "18446744073709551616Hz", -ERANGE, 0 },
                { "18446744073709551616", -ERANGE, 0 },
                { "18446744074GHz", -ERANGE, 0 },
                { "18446744073.709551616GHz", -ERANGE, 0 },
                { "18446744073709552kHz", -ERANGE, 0 },
                { "99999999999999999999999999MHz", -ERANGE, 0 },
                /* fractions that are not whole Hz */
                { "1.5Hz", -EINVAL, 0 },
                { "1.5", -EINVAL, 0 },
                { "0.0001kHz", -EINVAL, 0 },
                { "0.0000000001GHz", -EINVAL, 0 },
                { "1.0000000001GHz", -EINVAL, 0 },
                { "99999999999999999999.5Hz", -EINVAL, 0 },
                /* malformed */
                { NULL, -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "MHz", -EINVAL, 0 },
                { "Hz", -EINVAL, 0 },
                { " 1MHz", -EINVAL, 0 },
                { "1MHz ", -EINVAL, 0 },
                { "1 MHz", -EINVAL, 0 },
                { "+1MHz", -EINVAL, 0 },
                { "-1MHz", -EINVAL, 0 },
                { "-0", -EINVAL, 0 },
                { "0x", -EINVAL, 0 },
                { "0x10", -EINVAL, 0 },
                { "0x10MHz", -EINVAL, 0 },
                { "1.2.3", -EINVAL, 0 },
                { "1.2.3GHz", -EINVAL, 0 },
                { "1.", -EINVAL, 0 },
                { "1.MHz", -EINVAL, 0 },
                { ".5", -EINVAL, 0 },
                { ".5MHz", -EINVAL, 0 },
                { ".", -EINVAL, 0 },
                { "1,5MHz", -EINVAL, 0 },
                { "1e9", -EINVAL, 0 },
                { "1THz", -EINVAL, 0 },
                { "1M", -EINVAL, 0 },
                { "1MHzz", -EINVAL, 0 },
                { "1MHz\n", -EINVAL, 0 },
                { "1mHz5", -EINVAL, 0 },
                { "1ms", -EINVAL, 0 },
                { "1MHz1", -EINVAL, 0 },
        };
        check_u64_cases(df_parse_frequency, cases, ELEMENTSOF(cases));
}
END_TEST

START_TEST(test_parse_duration) {
        static const struct parse_case cases[] = {
                /* a bare number is only a zero */
                { "0", 0, 0 },
                { "00", 0, 0 },
                { "0.0", 0, 0 },
                { "1", -EINVAL, 0 },
                { "100", -EINVAL, 0 },
                { "0.5", -EINVAL, 0 },
                { "0.000001", -EINVAL, 0 },
                /* every spelling, any case */
                { "0us", 0, 0 },
                { "250us", 0, 250 },
                { "250US", 0, 250 },
                { "250usec", 0, 250 },
                { "250USEC", 0, 250 },
                { "100ms", 0, UINT64_C(100000) },
                { "100MS", 0, UINT64_C(100000) },
                { "100msec", 0, UINT64_C(100000) },
                { "100Msec", 0, UINT64_C(100000) },
                { "2s", 0, UINT64_C(2000000) },
                { "2S", 0, UINT64_C(2000000) },
                { "2sec", 0, UINT64_C(2000000) },
                { "2SEC", 0, UINT64_C(2000000) },
                /* exact decimals */
                { "1.5s", 0, UINT64_C(1500000) },
                { "1.5sec", 0, UINT64_C(1500000) },
                { "0.001ms", 0, 1 },
                { "0.000001s", 0, 1 },
                { "2.5ms", 0, 2500 },
                { "1.0us", 0, 1 },
                { "1.5us", -EINVAL, 0 },
                { "0.0001ms", -EINVAL, 0 },
                { "0.0000001s", -EINVAL, 0 },
                /* the top edge */
                { "18446744073709551615us", 0, U64_MAX },
                { "18446744073709551.615ms", 0, U64_MAX },
                { "18446744073709.551615s", 0, U64_MAX },
                { "18446744073709551616us", -ERANGE, 0 },
                { "18446744073709.551616s", -ERANGE, 0 },
                { "18446744073710s", -ERANGE, 0 },
                /* malformed; no µ, no minutes or hours */
                { NULL, -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "s", -EINVAL, 0 },
                { "ms", -EINVAL, 0 },
                { "1µs", -EINVAL, 0 },
                { "1m", -EINVAL, 0 },
                { "1min", -EINVAL, 0 },
                { "1h", -EINVAL, 0 },
                { "1 ms", -EINVAL, 0 },
                { " 1ms", -EINVAL, 0 },
                { "1ms ", -EINVAL, 0 },
                { "-1ms", -EINVAL, 0 },
                { "+1ms", -EINVAL, 0 },
                { "0x1s", -EINVAL, 0 },
                { "1.s", -EINVAL, 0 },
                { ".5s", -EINVAL, 0 },
                { "1.2.3s", -EINVAL, 0 },
                { "1mss", -EINVAL, 0 },
                { "1Hz", -EINVAL, 0 },
        };
        check_u64_cases(df_parse_duration, cases, ELEMENTSOF(cases));
}
END_TEST

START_TEST(test_parse_voltage) {
        static const struct parse_case cases[] = {
                { "0", 0, 0 },
                { "0.0", 0, 0 },
                { "0uV", 0, 0 },
                { "825", -EINVAL, 0 },
                { "1", -EINVAL, 0 },
                { "1uV", 0, 1 },
                { "950000uV", 0, 950000 },
                { "950000UV", 0, 950000 },
                { "825mV", 0, 825000 },
                { "825mv", 0, 825000 },
                { "825MV", 0, 825000 }, /* case-insensitive: there is no megavolt */
                { "825.5mV", 0, 825500 },
                { "1V", 0, 1000000 },
                { "1v", 0, 1000000 },
                { "1.05V", 0, 1050000 },
                { "0.95V", 0, 950000 },
                { "0.000001V", 0, 1 },
                { "4294967295uV", 0, UINT64_C(4294967295) },
                { "4294967.295mV", 0, UINT64_C(4294967295) },
                { "4294.967295V", 0, UINT64_C(4294967295) },
                { "4294967296uV", -ERANGE, 0 },
                { "4294.967296V", -ERANGE, 0 },
                { "4295V", -ERANGE, 0 },
                { "18446744073709551615uV", -ERANGE, 0 },
                { "18446744073709551616uV", -ERANGE, 0 },
                { "1.5uV", -EINVAL, 0 },
                { "0.0000001V", -EINVAL, 0 },
                { NULL, -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "V", -EINVAL, 0 },
                { "mV", -EINVAL, 0 },
                { "1kV", -EINVAL, 0 },
                { "1µV", -EINVAL, 0 },
                { "1 V", -EINVAL, 0 },
                { "-1V", -EINVAL, 0 },
                { "1.V", -EINVAL, 0 },
                { ".5V", -EINVAL, 0 },
                { "1.2.3V", -EINVAL, 0 },
                { "1Vx", -EINVAL, 0 },
        };
        check_u32_cases(df_parse_voltage, cases, ELEMENTSOF(cases));
}
END_TEST

START_TEST(test_parse_latency) {
        static const struct parse_case cases[] = {
                { "0", 0, 0 },
                { "100us", 0, 100 },
                { "5ms", 0, 5000 },
                { "2.5sec", 0, 2500000 },
                { "4294967295us", 0, UINT64_C(4294967295) },
                { "4294967.295ms", 0, UINT64_C(4294967295) },
                { "4294.967295s", 0, UINT64_C(4294967295) },
                { "4294967296us", -ERANGE, 0 },
                { "4294.967296s", -ERANGE, 0 },
                { "4295s", -ERANGE, 0 },
                { "18446744073709551615us", -ERANGE, 0 },
                { "18446744073709551616us", -ERANGE, 0 },
                { "10", -EINVAL, 0 },
                { "1.5us", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { NULL, -EINVAL, 0 },
                { "ms", -EINVAL, 0 },
                { "-1us", -EINVAL, 0 },
        };
        check_u32_cases(df_parse_latency, cases, ELEMENTSOF(cases));
}
END_TEST

struct format_case {
        uint64_t v;
        const char *s;
};

START_TEST(test_format_frequency) {
        static const struct format_case cases[] = {
                { 0, "0 Hz" },
                { 1, "1 Hz" },
                { 999, "999 Hz" },
                { 1000, "1 kHz" },
                { 1001, "1.001 kHz" },
                { 1500, "1.5 kHz" },
                { 999999, "999.999 kHz" },
                { 1000000, "1 MHz" },
                { 1000001, "1.000001 MHz" },
                { 227272727, "227.272727 MHz" },
                { 800000000, "800 MHz" },
                { 999999999, "999.999999 MHz" },
                { 1000000000, "1 GHz" },
                { 1000000001, "1.000000001 GHz" },
                { 1066000000, "1.066 GHz" },
                { 1200000000, "1.2 GHz" },
                { UINT64_C(18446744073000000000), "18446744073 GHz" },
                { U64_MAX, "18446744073.709551615 GHz" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[DF_FREQ_STRING_MAX];
                ck_assert_str_eq(df_format_frequency(buf, cases[i].v), cases[i].s);
        }
}
END_TEST

START_TEST(test_format_frequency_compact) {
        static const struct format_case cases[] = {
                { 0, "0Hz" },
                { 1, "1Hz" },
                { 999, "999Hz" },
                { 1000, "1kHz" },
                { 1500, "1500Hz" },
                { 1000001, "1000001Hz" },
                { 1500000, "1500kHz" },
                { 800000000, "800MHz" },
                { 1066000000, "1066MHz" },
                { 1200000000, "1200MHz" },
                { 1000000000, "1GHz" },
                { 2000000000, "2GHz" },
                { UINT64_C(18446744073000000000), "18446744073GHz" },
                { UINT64_C(18446744073709551000), "18446744073709551kHz" },
                { U64_MAX, "18446744073709551615Hz" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[DF_FREQ_STRING_MAX];
                ck_assert_str_eq(df_format_frequency_compact(buf, cases[i].v), cases[i].s);
        }
}
END_TEST

START_TEST(test_format_duration) {
        static const struct format_case cases[] = {
                { 0, "0 us" },
                { 1, "1 us" },
                { 250, "250 us" },
                { 999, "999 us" },
                { 1000, "1 ms" },
                { 1500, "1.5 ms" },
                { 100000, "100 ms" },
                { 999999, "999.999 ms" },
                { 1000000, "1 s" },
                { 1000001, "1.000001 s" },
                { 1500000, "1.5 s" },
                { 60000000, "60 s" },
                { U64_MAX, "18446744073709.551615 s" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[DF_DURATION_STRING_MAX];
                ck_assert_str_eq(df_format_duration(buf, cases[i].v), cases[i].s);
        }
}
END_TEST

START_TEST(test_format_voltage) {
        static const struct format_case cases[] = {
                { 0, "0 uV" },
                { 1, "1 uV" },
                { 999, "999 uV" },
                { 1000, "1 mV" },
                { 825000, "825 mV" },
                { 825500, "825.5 mV" },
                { 1000000, "1 V" },
                { 1050000, "1.05 V" },
                { 1000001, "1.000001 V" },
                { UINT32_MAX, "4294.967295 V" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[DF_VOLTAGE_STRING_MAX];
                ck_assert_str_eq(df_format_voltage(buf, (uint32_t) cases[i].v), cases[i].s);
        }
}
END_TEST

/* xorshift64*: a fixed sequence, so a failure reproduces. */
static uint64_t next_random(uint64_t *state) {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        return *state * UINT64_C(2685821657736338717);
}

/* "1.5 ms" → "1.5ms": the human form without its space is also a valid configuration value. */
static void strip_space(char *s) {
        char *sp = strchr(s, ' ');

        ck_assert_ptr_nonnull(sp);
        memmove(sp, sp + 1, strlen(sp + 1) + 1);
}

static void check_roundtrip(uint64_t x) {
        char buf[DF_FREQ_STRING_MAX], dbuf[DF_DURATION_STRING_MAX], vbuf[DF_VOLTAGE_STRING_MAX];
        uint64_t back = ~x;
        uint32_t back32;

        df_format_frequency_compact(buf, x);
        ck_assert_msg(df_parse_frequency(buf, &back) == 0 && back == x, "compact %" PRIu64 " → '%s'", x, buf);

        df_format_frequency(buf, x);
        strip_space(buf);
        back = ~x;
        ck_assert_msg(df_parse_frequency(buf, &back) == 0 && back == x, "frequency %" PRIu64 " → '%s'", x, buf);

        df_format_duration(dbuf, x);
        strip_space(dbuf);
        back = ~x;
        ck_assert_msg(df_parse_duration(dbuf, &back) == 0 && back == x, "duration %" PRIu64 " → '%s'", x, dbuf);

        df_format_voltage(vbuf, (uint32_t) x);
        strip_space(vbuf);
        back32 = ~(uint32_t) x;
        ck_assert_msg(
                df_parse_voltage(vbuf, &back32) == 0 && back32 == (uint32_t) x, "voltage %" PRIu32 " → '%s'",
                (uint32_t) x, vbuf);
}

START_TEST(test_roundtrip) {
        uint64_t state = UINT64_C(0x9e3779b97f4a7c15);
        uint64_t p = 1;

        for (uint64_t x = 0; x <= 3000; x++)
                check_roundtrip(x);
        for (uint64_t k = 0; k <= 4096; k++) {
                check_roundtrip(U64_MAX - k);
                check_roundtrip(UINT64_C(0xffffffff) - k);
                check_roundtrip(UINT64_C(0xffffffff) + k);
        }
        /* Around every power of ten, and its multiples that pick each unit. */
        for (int e = 0; e <= 19; e++, p *= 10)
                for (uint64_t m = 1; m <= 9; m++)
                        for (int d = -2; d <= 2; d++) {
                                uint64_t base;

                                if (!__builtin_mul_overflow(p, m, &base))
                                        check_roundtrip(
                                                base + (uint64_t) (int64_t) d); /* may wrap: any value will do */
                        }
        for (int i = 0; i < 50000; i++) {
                uint64_t r = next_random(&state);
                /* Random values, and random values with trailing zeros so every unit is exercised. */
                check_roundtrip(r);
                check_roundtrip(r >> (r & 63));
                check_roundtrip((r >> 34) * UINT64_C(1000));
                check_roundtrip((r >> 34) * UINT64_C(1000000));
                check_roundtrip((r >> 34) * UINT64_C(1000000000));
        }
}
END_TEST

static Suite *units_suite(void) {
        Suite *s = suite_create("units");
        TCase *tc;

        tc = tcase_create("safe_atou");
        tcase_add_test(tc, test_safe_atou64);
        tcase_add_test(tc, test_safe_atou32);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_frequency");
        tcase_add_test(tc, test_parse_frequency);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_duration");
        tcase_add_test(tc, test_parse_duration);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_voltage");
        tcase_add_test(tc, test_parse_voltage);
        suite_add_tcase(s, tc);

        tc = tcase_create("temperature");
        tcase_add_test(tc, test_parse_temperature);
        tcase_add_test(tc, test_format_temperature);
        suite_add_tcase(s, tc);

        tc = tcase_create("parse_latency");
        tcase_add_test(tc, test_parse_latency);
        suite_add_tcase(s, tc);

        tc = tcase_create("format");
        tcase_add_test(tc, test_format_frequency);
        tcase_add_test(tc, test_format_frequency_compact);
        tcase_add_test(tc, test_format_duration);
        tcase_add_test(tc, test_format_voltage);
        suite_add_tcase(s, tc);

        tc = tcase_create("roundtrip");
        tcase_add_test(tc, test_roundtrip);
        tcase_set_timeout(tc, 60);
        suite_add_tcase(s, tc);

        return s;
}

int main(void) {
        return df_test_run(units_suite());
}
