/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parsing and formatting of frequencies, durations, voltages and latencies, and checked integers. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * Every parser takes the whole string: no leading or trailing space, no sign, no trailing
 * garbage, no empty input. Units are matched case-insensitively and follow the number without
 * a space ("800MHz", "1.2GHz", "200us"). A decimal fraction is allowed when the result is a
 * whole number of the base unit ("1.5kHz" is 1500 Hz, "1.5Hz" is an error). Results that do
 * not fit are -ERANGE, never wrapped. Errors: -EINVAL (malformed), -ERANGE (overflow).
 * Out-parameters are written only on success.
 */

/* Base-10 unsigned integers, no sign, no space, no "0x". */
/* The one integer parser: exactly `len` decimal digits (no sign, no space), -ERANGE past 2^64-1. */
int df_digits_to_u64(const char *s, size_t len, uint64_t *ret);
int df_safe_atou64(const char *s, uint64_t *ret);
int df_safe_atou32(const char *s, uint32_t *ret);

/* Hz, kHz, MHz, GHz; a bare number is Hz. */
int df_parse_frequency(const char *s, uint64_t *ret_hz);

/* us, ms, s (also "usec", "msec", "sec"); a bare number is only accepted for 0. Result in µs. */
int df_parse_duration(const char *s, uint64_t *ret_usec);

/* uV, mV, V; a bare number is only accepted for 0. Result in µV, at most UINT32_MAX. */
int df_parse_voltage(const char *s, uint32_t *ret_microvolt);

/* A temperature: degrees Celsius with a "C" ("85C", "82.5C", "-10C"), or a bare number of
 * millidegrees as sysfs gives them ("85000"); an optional leading '-'. Result in millidegrees. */
int df_parse_temperature(const char *s, int64_t *ret_millicelsius);

/* A duration at most UINT32_MAX µs. */
int df_parse_latency(const char *s, uint32_t *ret_usec);

/* Buffer sizes that hold any formatted value. */
#define DF_FREQ_STRING_MAX 32
#define DF_DURATION_STRING_MAX 32
#define DF_VOLTAGE_STRING_MAX 24
#define DF_TEMPERATURE_STRING_MAX 32

/*
 * For people: "800 MHz", "1.066 GHz", "0 Hz". The largest unit that keeps the integer part
 * non-zero, and exactly as many decimals as the value needs (never rounded).
 */
const char *df_format_frequency(char buf[static DF_FREQ_STRING_MAX], uint64_t hz);

/* The configuration's spelling, no space: "800MHz", "1066MHz", "1Hz". Exact, parses back. */
const char *df_format_frequency_compact(char buf[static DF_FREQ_STRING_MAX], uint64_t hz);

/* "100 ms", "1.5 s", "250 us". */
const char *df_format_duration(char buf[static DF_DURATION_STRING_MAX], uint64_t usec);

/* "825 mV", "1.05 V", "0 uV". */
const char *df_format_voltage(char buf[static DF_VOLTAGE_STRING_MAX], uint32_t microvolt);

/* "85 C", "82.5 C", "-0.125 C": exact. */
const char *df_format_temperature(char buf[static DF_TEMPERATURE_STRING_MAX], int64_t millicelsius);

/* The time of `clock` in µs: the one reading of a clock (lib itself takes time as an argument). */
uint64_t df_now_usec(clockid_t clock);
