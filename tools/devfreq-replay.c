/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreq-replay: run one governor over a recorded load trace through the core's evaluation
 * path (governor, effective range, clamp, snap, statistics), without a daemon or sysfs. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "macro.h"
#include "units.h"

#define EXIT_BAD_INPUT 2

struct options {
        const char *opp;
        const char *governor;
        char **tunables;
        size_t n_tunables;
        const char *initial;
        char **mins; /* one QoS request each */
        size_t n_mins;
        char **maxs;
        size_t n_maxs;
        const char *interval;
        bool summary;
        const char *trace;
};

static const char *program = "devfreq-replay";

static _printf_(1, 2) int bad_input(const char *fmt, ...) {
        va_list ap;

        fprintf(stderr, "%s: ", program);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        return EXIT_BAD_INPUT;
}

static void help(void) {
        printf("Usage: %s --opp LIST --governor NAME [OPTION...] TRACE\n\n"
               "Run one governor over a load trace and print the decisions as CSV.\n\n"
               "  --opp LIST            points, comma-separated, each FREQ[@VOLTAGE] (200MHz@825mV)\n"
               "  --governor NAME       one of:",
               program);
        for (size_t i = 0; i < df_governors_count; i++)
                printf(" %s", df_governors[i]->name);
        printf("\n"
               "  --tunable NAME=VALUE  set a governor tunable (repeatable)\n"
               "  --initial FREQ        frequency in force before the first sample (default: the highest)\n"
               "  --min FREQ            add a min-frequency QoS request (repeatable)\n"
               "  --max FREQ            add a max-frequency QoS request (repeatable)\n"
               "  --interval DURATION   time one sample stands for in the summary (default 100ms)\n"
               "  --summary             print time in state, transitions and energy after the CSV\n"
               "  -h, --help            show this help\n"
               "  --version             show the version\n\n"
               "TRACE is a file (- for standard input): busy,total[,current] per line, or for the\n"
               "userspace governor one frequency per line. See devfreq-replay(1).\n");
}

static int strv_push(char ***v, size_t *n, char *s) {
        char **nv = realloc(*v, (*n + 1) * sizeof(char *));

        if (!nv) {
                fprintf(stderr, "%s: out of memory\n", program);
                return -ENOMEM;
        }
        nv[(*n)++] = s;
        *v = nv;
        return 0;
}

/* Returns an exit status to stop with, or -1 to carry on. */
static int parse_args(int argc, char **argv, struct options *o) {
        enum {
                ARG_OPP = 0x100,
                ARG_GOVERNOR,
                ARG_TUNABLE,
                ARG_INITIAL,
                ARG_MIN,
                ARG_MAX,
                ARG_INTERVAL,
                ARG_SUMMARY,
                ARG_VERSION
        };
        static const struct option options[] = {
                { "opp", required_argument, NULL, ARG_OPP },
                { "governor", required_argument, NULL, ARG_GOVERNOR },
                { "tunable", required_argument, NULL, ARG_TUNABLE },
                { "initial", required_argument, NULL, ARG_INITIAL },
                { "min", required_argument, NULL, ARG_MIN },
                { "max", required_argument, NULL, ARG_MAX },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "summary", no_argument, NULL, ARG_SUMMARY },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {},
        };
        int c;

        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0) {
                switch (c) {
                case ARG_OPP:
                        o->opp = optarg;
                        break;
                case ARG_GOVERNOR:
                        o->governor = optarg;
                        break;
                case ARG_TUNABLE:
                        if (strv_push(&o->tunables, &o->n_tunables, optarg) < 0)
                                return EXIT_FAILURE;
                        break;
                case ARG_INITIAL:
                        o->initial = optarg;
                        break;
                case ARG_MIN:
                        if (strv_push(&o->mins, &o->n_mins, optarg) < 0)
                                return EXIT_FAILURE;
                        break;
                case ARG_MAX:
                        if (strv_push(&o->maxs, &o->n_maxs, optarg) < 0)
                                return EXIT_FAILURE;
                        break;
                case ARG_INTERVAL:
                        o->interval = optarg;
                        break;
                case ARG_SUMMARY:
                        o->summary = true;
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("%s %s\n", program, PACKAGE_VERSION);
                        return 0;
                case '?':
                        if (optopt)
                                return bad_input("option '-%c' unknown or missing its value", optopt);
                        return bad_input(
                                "option '%s' unknown or missing its value (see --help)", argv[optind - 1]);
                default:
                        return bad_input("unexpected option");
                }
        }
        if (optind != argc - 1)
                return bad_input("expected exactly one TRACE argument (a file, or - for standard input)");
        o->trace = argv[optind];
        if (!o->opp)
                return bad_input("--opp is required (for example --opp 200MHz,400MHz,800MHz)");
        if (!o->governor)
                return bad_input("--governor is required");
        return -1; /* carry on */
}

static int parse_frequency_option(const char *name, const char *value, uint64_t *ret) {
        int r = df_parse_frequency(value, ret);
        if (r == -ERANGE)
                return bad_input("%s: '%s' is too large", name, value);
        if (r < 0)
                return bad_input("%s: '%s' is not a frequency (e.g. 400MHz, 1.2GHz, 800000000)", name, value);
        return 0;
}

static int add_opps(struct df_device *d, const char *list) {
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
                                return bad_input("--opp: '%s' is not a voltage (e.g. 825mV)", at + 1);
                }
                r = parse_frequency_option("--opp", item, &f);
                if (r != 0)
                        return r;
                if (f == 0)
                        return bad_input("--opp: a point needs a frequency above 0 Hz");
                r = df_opp_add(&d->opps, f, uv, 0);
                if (r == 0 || r == -EEXIST)
                        return bad_input("--opp: %s is listed twice", item);
                if (r < 0)
                        return bad_input("--opp: cannot add %s: %s", item, strerror(-r));
                n++;
        }
        if (n == 0)
                return bad_input("--opp: the list of points is empty");
        return 0;
}

static int set_tunables(struct df_device *d, char **tunables, size_t n) {
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
                        return bad_input("--tunable: expected NAME=VALUE, got '%s'", tunables[i]);
                *eq = '\0';
                k = df_governor_tunable_index(ops, name);
                if (k < 0)
                        return bad_input("--tunable: %s has no tunable '%s'", ops->name, name);
                if (df_safe_atou32(eq + 1, &v) < 0)
                        return bad_input("--tunable: %s: '%s' is not a whole number", name, eq + 1);
                if (v < ops->tunables[k].min || v > ops->tunables[k].max)
                        return bad_input(
                                "--tunable: %s=%" PRIu32 " is outside %" PRIu32 "-%" PRIu32, name, v,
                                ops->tunables[k].min, ops->tunables[k].max);
                values[k] = v;
        }
        if (df_governor_set_tunables(&d->governor, values) < 0)
                return bad_input(
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

struct replay {
        struct df_device *dev;
        const char *trace_name;
        uint64_t interval_usec;
        uint64_t now;
        size_t samples;
        long double energy; /* Σ V² · f · t, volts, hertz, seconds */
        bool energy_known;
};

static int
field_error(const struct replay *rp, size_t line, const char *field, const char *s, const char *e, int r) {
        return bad_input(
                "%s:%zu: %s: '%.*s' is %s", rp->trace_name, line, field, (int) (e - s), s,
                r == -ERANGE ? "too large" : "not a whole number");
}

static void account_energy(struct replay *rp, uint64_t freq) {
        int i = df_opp_find(&rp->dev->opps, freq);
        long double v;

        if (i < 0 || rp->dev->opps.opps[i].microvolt == 0) {
                rp->energy_known = false;
                return;
        }
        v = rp->dev->opps.opps[i].microvolt / 1e6L;
        rp->energy += v * v * (long double) freq * ((long double) rp->interval_usec / 1e6L);
}

static int replay_line(struct replay *rp, char *line, size_t len, size_t lineno, FILE *out) {
        const bool userspace = rp->dev->governor.ops == &df_governor_userspace;
        const char *fields[3], *ends[3];
        uint64_t busy = 0, total = 0, cur = 0, seen;
        struct df_evaluation ev;
        char buf[128], *p = buf;
        size_t n = 0;
        int r;

        fields[0] = line;
        for (size_t i = 0; i < len; i++)
                if (line[i] == ',') {
                        if (n == 2)
                                return bad_input(
                                        "%s:%zu: expected %s, got more than three fields", rp->trace_name,
                                        lineno, userspace ? "one frequency" : "busy,total[,current]");
                        ends[n++] = line + i;
                        fields[n] = line + i + 1;
                }
        ends[n++] = line + len;

        if (userspace) {
                _cleanup_free_ char *value = strndup(fields[0], (size_t) (ends[0] - fields[0]));
                if (n != 1)
                        return bad_input(
                                "%s:%zu: expected one frequency for the userspace governor, got %zu fields",
                                rp->trace_name, lineno, n);
                if (!value)
                        return -ENOMEM;
                r = df_parse_frequency(value, &cur);
                if (r < 0)
                        return bad_input(
                                "%s:%zu: '%s' is %s", rp->trace_name, lineno, value,
                                r == -ERANGE ? "too large" : "not a frequency");
                df_governor_userspace_set(&rp->dev->governor, cur);
        } else {
                if (n < 2)
                        return bad_input(
                                "%s:%zu: expected busy,total[,current], got one field", rp->trace_name, lineno);
                r = parse_field(fields[0], ends[0], &busy);
                if (r < 0)
                        return field_error(rp, lineno, "busy", fields[0], ends[0], r);
                r = parse_field(fields[1], ends[1], &total);
                if (r < 0)
                        return field_error(rp, lineno, "total", fields[1], ends[1], r);
                if (n == 3) {
                        r = parse_field(fields[2], ends[2], &cur);
                        if (r < 0)
                                return field_error(rp, lineno, "current", fields[2], ends[2], r);
                        df_device_set_current(rp->dev, cur);
                }
                df_device_set_sample(rp->dev, busy, total);
        }

        seen = rp->dev->current;
        r = df_device_evaluate(rp->dev, rp->now, &ev);
        if (r < 0)
                return bad_input("%s:%zu: evaluation failed: %s", rp->trace_name, lineno, strerror(-r));
        rp->now += rp->interval_usec;
        rp->samples++;
        account_energy(rp, ev.applied);

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
        return streq(line, "busy,total") || streq(line, "busy,total,current") || streq(line, "frequency");
}

static int replay_stream(struct replay *rp, FILE *in, FILE *out) {
        _cleanup_free_ char *line = NULL;
        size_t allocated = 0, lineno = 0;
        ssize_t k;
        int r;

        fputs("busy,total,current,governor,target\n", out);
        while ((k = getline(&line, &allocated, in)) >= 0) {
                size_t len = (size_t) k;
                lineno++;
                while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                        line[--len] = '\0';
                if (len == 0 || line[0] == '#')
                        continue;
                if (lineno == 1 && is_header(line))
                        continue;
                if (memchr(line, '\0', len))
                        return bad_input("%s:%zu: the line holds a NUL byte", rp->trace_name, lineno);
                r = replay_line(rp, line, len, lineno, out);
                if (r != 0)
                        return r;
        }
        if (ferror(in))
                return bad_input("%s: read error: %s", rp->trace_name, strerror(errno));
        return 0;
}

static int print_summary(struct replay *rp, FILE *out) {
        _cleanup_free_ char *text = NULL;
        char a[DF_DURATION_STRING_MAX];
        int r;

        r = df_stats_format(&rp->dev->stats, rp->now, &text);
        if (r < 0)
                return r;
        fprintf(out, "\n# %zu samples of %s\n%s", rp->samples, df_format_duration(a, rp->interval_usec), text);
        if (rp->energy_known && rp->samples > 0)
                fprintf(out, "Relative dynamic energy : %.6Lg V^2*Hz*s\n", rp->energy);
        else
                fprintf(out,
                        "Relative dynamic energy : unknown (give every point a voltage: --opp 200MHz@825mV,...)\n");
        return 0;
}

static int run(int argc, char **argv) {
        struct options o = {};
        struct df_device *dev = NULL;
        struct df_qos_request *requests = NULL;
        size_t n_requests = 0;
        struct replay rp = { .interval_usec = 100000, .energy_known = true };
        const struct df_governor_ops *ops;
        uint64_t initial, f;
        FILE *in = NULL;
        int r;

        r = parse_args(argc, argv, &o);
        if (r != -1)
                goto finish;

        ops = df_governor_find(o.governor);
        if (!ops) {
                r = bad_input("--governor: unknown governor '%s' (see --help for the list)", o.governor);
                goto finish;
        }
        if (ops == &df_governor_passive) {
                r = bad_input("--governor: passive follows a parent device, which a replay does not have");
                goto finish;
        }
        if (o.interval) {
                r = df_parse_duration(o.interval, &rp.interval_usec);
                if (r < 0 || rp.interval_usec == 0) {
                        r = bad_input("--interval: '%s' is not a duration above 0 (e.g. 100ms)", o.interval);
                        goto finish;
                }
        }

        r = df_device_new("replay", DF_MODE_GOVERN, &dev);
        if (r < 0)
                goto finish;
        r = add_opps(dev, o.opp);
        if (r != 0)
                goto finish;
        df_device_set_governor(dev, ops);
        r = set_tunables(dev, o.tunables, o.n_tunables);
        if (r != 0)
                goto finish;

        initial = dev->opps.opps[dev->opps.n - 1].freq;
        if (o.initial && (r = parse_frequency_option("--initial", o.initial, &initial)) != 0)
                goto finish;
        n_requests = o.n_mins + o.n_maxs;
        requests = calloc(n_requests ? n_requests : 1, sizeof(struct df_qos_request));
        if (!requests) {
                r = -ENOMEM;
                goto finish;
        }
        for (size_t i = 0; i < n_requests; i++) {
                bool is_min = i < o.n_mins;
                const char *value = is_min ? o.mins[i] : o.maxs[i - o.n_mins];

                if ((r = parse_frequency_option(is_min ? "--min" : "--max", value, &f)) != 0)
                        goto finish;
                if (!is_min && f == 0) {
                        r = bad_input("--max: 0 Hz would leave no frequency at all");
                        goto finish;
                }
                r = df_qos_add_request(
                        &dev->qos, &requests[i], is_min ? DF_QOS_MIN_FREQUENCY : DF_QOS_MAX_FREQUENCY, f);
                if (r < 0)
                        goto finish;
        }
        r = df_device_start(dev, initial, 0);
        if (r < 0)
                goto finish;

        if (streq(o.trace, "-")) {
                in = stdin;
                rp.trace_name = "<stdin>";
        } else {
                in = fopen(o.trace, "re");
                if (!in) {
                        r = bad_input("%s: %s", o.trace, strerror(errno));
                        goto finish;
                }
                rp.trace_name = o.trace;
        }
        rp.dev = dev;

        r = replay_stream(&rp, in, stdout);
        if (r == 0 && o.summary)
                r = print_summary(&rp, stdout);
        if (r == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
                fprintf(stderr, "%s: write error: %s\n", program, strerror(errno));
                r = EXIT_FAILURE;
        }

finish:
        if (in && in != stdin)
                fclose(in);
        for (size_t i = 0; i < n_requests && requests; i++)
                if (df_qos_request_active(&requests[i]))
                        (void) df_qos_remove_request(&requests[i]);
        free(requests);
        df_device_free(dev);
        free(o.tunables);
        free(o.mins);
        free(o.maxs);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", program, strerror(-r));
                return EXIT_FAILURE;
        }
        return r;
}

int main(int argc, char **argv) {
        static char outbuf[1 << 16];

        setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
        return run(argc, argv);
}
