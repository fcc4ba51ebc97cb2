/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The engine of devfreq-replay: the trace parsed line by line, each sample one evaluation of the
 * core's device, the CSV written without printf on the per-sample path. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "units.h"

static FILE *error_stream;

void replay_set_error_stream(FILE *f) {
        error_stream = f;
}

int replay_bad_input(const char *fmt, ...) {
        FILE *f = error_stream ? error_stream : stderr;
        va_list ap;

        fputs("devfreq-replay: ", f);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        fputc('\n', f);
        return EXIT_BAD_INPUT;
}

int replay_parse_frequency_option(const char *name, const char *value, uint64_t *ret) {
        int r = df_parse_frequency(value, ret);
        if (r == -ERANGE)
                return replay_bad_input("%s: '%s' is too large", name, value);
        if (r < 0)
                return replay_bad_input(
                        "%s: '%s' is not a frequency (e.g. 400MHz, 1.2GHz, 800000000)", name, value);
        return 0;
}

int replay_parse_duration(
        const char *trace_name, size_t lineno, const char *name, const char *value, uint64_t max,
        const char *example, uint64_t *ret) {
        char why[96];
        uint64_t v;
        int r;

        r = df_parse_duration(value, &v);
        if (r == 0 && v > max)
                r = -ERANGE;
        if (r == 0 && v > 0) {
                *ret = v;
                return 0;
        }
        if (r == -ERANGE)
                (void) snprintf(why, sizeof(why), "too large");
        else
                (void) snprintf(why, sizeof(why), "not a duration above 0 (e.g. %s)", example);
        if (trace_name)
                return replay_bad_input("%s:%zu: %s: '%s' is %s", trace_name, lineno, name, value, why);
        return replay_bad_input("%s: '%s' is %s", name, value, why);
}

int replay_add_opps(struct df_device *d, const char *list) {
        _cleanup_free_ char *copy = strdup(list);
        char *save = NULL;
        size_t n = 0;

        if (!copy)
                return -ENOMEM;
        for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                char *at = strchr(item, '@');
                uint32_t uv = 0;
                uint64_t f;
                int r;

                if (at) {
                        *at = '\0';
                        r = df_parse_voltage(at + 1, &uv);
                        if (r < 0)
                                return replay_bad_input("--opp: '%s' is not a voltage (e.g. 825mV)", at + 1);
                }
                r = replay_parse_frequency_option("--opp", item, &f);
                if (r != 0)
                        return r;
                if (f == 0)
                        return replay_bad_input("--opp: a point needs a frequency above 0 Hz");
                r = df_opp_add(&d->opps, f, uv, 0);
                if (r == 0 || r == -EEXIST)
                        return replay_bad_input("--opp: %s is listed twice", item);
                if (r < 0)
                        return replay_bad_input("--opp: cannot add %s: %s", item, strerror(-r));
                n++;
        }
        if (n == 0)
                return replay_bad_input("--opp: the list of points is empty");
        return 0;
}

int replay_set_tunables(struct df_device *d, char **tunables, size_t n) {
        const struct df_governor_ops *ops = d->governor.ops;
        uint32_t values[DF_GOVERNOR_TUNABLES_MAX];

        memcpy(values, d->governor.tunables, sizeof(values));
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *name = strdup(tunables[i]);
                char *eq;
                uint32_t v;
                int k;

                if (!name)
                        return -ENOMEM;
                eq = strchr(name, '=');
                if (!eq)
                        return replay_bad_input("--tunable: expected NAME=VALUE, got '%s'", tunables[i]);
                *eq = '\0';
                k = df_governor_tunable_index(ops, name);
                if (k < 0)
                        return replay_bad_input("--tunable: %s has no tunable '%s'", ops->name, name);
                if (df_safe_atou32(eq + 1, &v) < 0)
                        return replay_bad_input("--tunable: %s: '%s' is not a whole number", name, eq + 1);
                if (v < ops->tunables[k].min || v > ops->tunables[k].max)
                        return replay_bad_input(
                                "--tunable: %s=%" PRIu32 " is outside %" PRIu32 "-%" PRIu32, name, v,
                                ops->tunables[k].min, ops->tunables[k].max);
                values[k] = v;
        }
        if (df_governor_set_tunables(&d->governor, values) < 0)
                return replay_bad_input(
                        "--tunable: the values do not fit together (see devfreq-replay(1) for the ranges of %s)",
                        ops->name);
        return 0;
}

/* Output: a small buffer of digits, no printf on the per-sample path. */
static char *put_u64(char *p, uint64_t v) {
        char tmp[20];
        size_t n = 0;

        do {
                tmp[n++] = (char) ('0' + v % 10);
                v /= 10;
        } while (v);
        while (n)
                *p++ = tmp[--n];
        return p;
}

/* Strict base-10 field of a CSV line, [s, e). */
static int parse_field(const char *s, const char *e, uint64_t *ret) {
        uint64_t v = 0;

        if (s == e)
                return -EINVAL;
        for (const char *p = s; p < e; p++) {
                unsigned digit;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                digit = (unsigned) (*p - '0');
                if (v > (UINT64_MAX - digit) / 10)
                        return -ERANGE;
                v = v * 10 + digit;
        }
        *ret = v;
        return 0;
}

static int
field_error(const struct replay *rp, size_t line, const char *field, const char *s, const char *e, int r) {
        return replay_bad_input(
                "%s:%zu: %s: '%.*s' is %s", rp->trace_name, line, field, (int) (e - s), s,
                r == -ERANGE ? "too large" : "not a whole number");
}

static void account_energy(struct replay *rp, uint64_t freq, uint64_t duration_usec) {
        int i = df_opp_find(&rp->dev->opps, freq);
        long double v;

        if (i < 0 || rp->dev->opps.opps[i].microvolt == 0) {
                rp->energy_known = false;
                return;
        }
        v = rp->dev->opps.opps[i].microvolt / 1e6L;
        rp->energy += v * v * (long double) freq * ((long double) duration_usec / 1e6L);
}

/* busy,total[,current[,duration]] of a load governor's line, handed to the device. */
static int sample_line(
        struct replay *rp, const char *const *fields, const char *const *ends, size_t n, size_t lineno,
        uint64_t *busy, uint64_t *total, uint64_t *duration) {
        uint64_t cur;
        int r;

        if (n < 2)
                return replay_bad_input(
                        "%s:%zu: expected busy,total[,current[,duration]], got one field", rp->trace_name,
                        lineno);
        r = parse_field(fields[0], ends[0], busy);
        if (r < 0)
                return field_error(rp, lineno, "busy", fields[0], ends[0], r);
        r = parse_field(fields[1], ends[1], total);
        if (r < 0)
                return field_error(rp, lineno, "total", fields[1], ends[1], r);
        if (n == 4) {
                /* The line is NUL-terminated after its fourth field. */
                r = replay_parse_duration(
                        rp->trace_name, lineno, "duration", fields[3], UINT64_MAX, "250ms", duration);
                if (r != 0)
                        return r;
                rp->own_durations = true;
        }
        /* With a duration, the current field may be empty: not overridden. */
        if (n >= 3 && !(n == 4 && fields[2] == ends[2])) {
                r = parse_field(fields[2], ends[2], &cur);
                if (r < 0)
                        return field_error(rp, lineno, "current", fields[2], ends[2], r);
                df_device_set_current(rp->dev, cur);
        }
        df_device_set_timed_sample(rp->dev, *busy, *total, *duration, rp->interval_usec);
        return 0;
}

static int replay_line(struct replay *rp, char *line, size_t len, size_t lineno, FILE *out) {
        const bool userspace = rp->dev->governor.ops == &df_governor_userspace;
        const char *fields[4], *ends[4];
        uint64_t busy = 0, total = 0, cur = 0, seen, duration = rp->interval_usec;
        struct df_evaluation ev;
        char buf[128], *p = buf;
        size_t n = 0;
        int r;

        fields[0] = line;
        for (size_t i = 0; i < len; i++)
                if (line[i] == ',') {
                        if (n == 3)
                                return replay_bad_input(
                                        "%s:%zu: expected %s, got more than four fields", rp->trace_name,
                                        lineno,
                                        userspace ? "one frequency" : "busy,total[,current[,duration]]");
                        ends[n++] = line + i;
                        fields[n] = line + i + 1;
                }
        ends[n++] = line + len;

        if (userspace) {
                _cleanup_free_ char *value = strndup(fields[0], (size_t) (ends[0] - fields[0]));
                if (n != 1)
                        return replay_bad_input(
                                "%s:%zu: expected one frequency for the userspace governor, got %zu fields",
                                rp->trace_name, lineno, n);
                if (!value)
                        return -ENOMEM;
                r = df_parse_frequency(value, &cur);
                if (r < 0)
                        return replay_bad_input(
                                "%s:%zu: '%s' is %s", rp->trace_name, lineno, value,
                                r == -ERANGE ? "too large" : "not a frequency");
                df_governor_userspace_set(&rp->dev->governor, cur);
        } else {
                r = sample_line(rp, fields, ends, n, lineno, &busy, &total, &duration);
                if (r != 0)
                        return r;
        }

        /* The clock holds the end of every sample, or the trace is refused: time in state and
         * the governors' timing would wrap. */
        if (duration > UINT64_MAX - rp->now)
                return replay_bad_input(
                        "%s:%zu: the samples would last longer than %s in all", rp->trace_name, lineno,
                        df_format_duration(buf, UINT64_MAX));
        seen = rp->dev->current;
        r = df_device_evaluate(rp->dev, rp->now, &ev);
        if (r < 0)
                return replay_bad_input("%s:%zu: evaluation failed: %s", rp->trace_name, lineno, strerror(-r));
        rp->now += duration;
        rp->samples++;
        account_energy(rp, ev.applied, duration);

        if (!userspace) {
                p = put_u64(p, busy);
                *p++ = ',';
                p = put_u64(p, total);
        } else
                *p++ = ',';
        *p++ = ',';
        p = put_u64(p, seen);
        *p++ = ',';
        p = put_u64(p, ev.governor);
        *p++ = ',';
        p = put_u64(p, ev.applied);
        *p++ = '\n';
        fwrite(buf, 1, (size_t) (p - buf), out);
        return 0;
}

static bool is_header(const char *line) {
        return streq(line, "busy,total") || streq(line, "busy,total,current") ||
                streq(line, "busy,total,current,duration") || streq(line, "frequency");
}

int replay_next_line(const char *trace_name, FILE *in, struct replay_reader *rd) {
        ssize_t k;

        while ((k = getline(&rd->line, &rd->allocated, in)) >= 0) {
                rd->len = (size_t) k;
                rd->lineno++;
                while (rd->len > 0 && (rd->line[rd->len - 1] == '\n' || rd->line[rd->len - 1] == '\r'))
                        rd->line[--rd->len] = '\0';
                if (rd->len == 0 || rd->line[0] == '#')
                        continue;
                if (memchr(rd->line, '\0', rd->len))
                        return replay_bad_input("%s:%zu: the line holds a NUL byte", trace_name, rd->lineno);
                rd->content++;
                return 1;
        }
        if (ferror(in))
                return replay_bad_input("%s: read error: %s", trace_name, strerror(errno));
        return 0;
}

int replay_stream(struct replay *rp, FILE *in, FILE *out) {
        struct replay_reader rd = {};
        int r;

        fputs("busy,total,current,governor,target\n", out);
        while ((r = replay_next_line(rp->trace_name, in, &rd)) == 1) {
                if (rd.content == 1 && is_header(rd.line))
                        continue;
                r = replay_line(rp, rd.line, rd.len, rd.lineno, out);
                if (r != 0)
                        break;
        }
        free(rd.line);
        /* A replay of nothing has nothing to report: no decision, and a summary of zeros. */
        if (r == 0 && rp->samples == 0)
                return replay_bad_input("%s: no samples", rp->trace_name);
        return r;
}

int replay_print_summary(struct replay *rp, FILE *out) {
        _cleanup_free_ char *text = NULL;
        char a[DF_DURATION_STRING_MAX];
        int r;

        r = df_stats_format(&rp->dev->stats, rp->now, &text);
        if (r < 0)
                return r;
        if (rp->own_durations)
                fprintf(out, "\n# %zu samples, %s in all\n%s", rp->samples, df_format_duration(a, rp->now),
                        text);
        else
                fprintf(out, "\n# %zu samples of %s\n%s", rp->samples,
                        df_format_duration(a, rp->interval_usec), text);
        if (rp->energy_known)
                fprintf(out, "Relative dynamic energy : %.6Lg V^2*Hz*s\n", rp->energy);
        else
                fprintf(out,
                        "Relative dynamic energy : unknown (give every point a voltage: --opp 200MHz@825mV,...)\n");
        return 0;
}
