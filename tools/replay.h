/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The engine of devfreq-replay: point lists, tunables, and the trace run through a device's
 * evaluation, shared by the tool and its fuzzing harness. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "device.h"
#include "macro.h"

/* Exit status for bad input. */
#define EXIT_BAD_INPUT 2

/* Where replay_bad_input() writes (stderr unless set; the fuzzing harness silences it). */
void replay_set_error_stream(FILE *f);

/* One line on stderr, "devfreq-replay: what"; returns EXIT_BAD_INPUT. */
_printf_(1, 2) int replay_bad_input(const char *fmt, ...);

struct replay {
        struct df_device *dev;
        const char *trace_name;
        uint64_t interval_usec; /* the polling interval, and a sample's duration unless its line gives one */
        bool own_durations;     /* some line gave its duration */
        uint64_t now;
        size_t samples;
        long double energy; /* sum of V^2 * f * t: volts, hertz, seconds */
        bool energy_known;
};

/* A frequency option: 0, or EXIT_BAD_INPUT after saying why. */
int replay_parse_frequency_option(const char *name, const char *value, uint64_t *ret);

/* A duration above 0 and at most `max` µs ("250ms"), for the option `name`, or with `trace_name`
 * for the field `name` of that line: 0, or EXIT_BAD_INPUT after saying it is too large or not a
 * duration (like `example`). */
int replay_parse_duration(
        const char *trace_name, size_t lineno, const char *name, const char *value, uint64_t max,
        const char *example, uint64_t *ret);

/* "--opp" list "FREQ[@VOLTAGE],...": 0, EXIT_BAD_INPUT, or a negative errno. */
int replay_add_opps(struct df_device *d, const char *list);

/* "NAME=VALUE" strings, checked as one set: 0, EXIT_BAD_INPUT, or a negative errno. */
int replay_set_tunables(struct df_device *d, char **tunables, size_t n);

/* Reading a trace, line by line. */
struct replay_reader {
        char *line; /* the current line, without its line end */
        size_t len;
        size_t allocated;
        size_t lineno;  /* its number in the file */
        size_t content; /* how many lines worth reading so far, this one included */
};

/* The next line worth reading (blank lines and '#' comments skipped): 1; 0 at the end; or
 * EXIT_BAD_INPUT, naming file:line, for a NUL byte or a read error. */
int replay_next_line(const char *trace_name, FILE *in, struct replay_reader *rd);

/* The CSV out of the trace `in`: 0, EXIT_BAD_INPUT (naming file:line, or the file for a trace
 * without a sample), or a negative errno. */
int replay_stream(struct replay *rp, FILE *in, FILE *out);

/* Time in state, transitions and energy after the CSV. */
int replay_print_summary(struct replay *rp, FILE *out);
