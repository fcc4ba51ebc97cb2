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
#include <sys/stat.h>

#include "device.h"
#include "macro.h"
#include "names.h"
#include "replay-work.h"
#include "replay.h"
#include "strv.h"
#include "units.h"

static const char *program = "devfreq-replay";

struct options {
        const char *opp;
        const char *governor;
        const char *kind;
        char **tunables;
        size_t n_tunables;
        const char *initial;
        char **mins; /* one QoS request each */
        size_t n_mins;
        char **maxs;
        size_t n_maxs;
        const char *interval;
        bool summary;
        bool no_optimum;
        const char *optimum_states;
        bool work;
        const char *static_power;
        const char *trace;
};

static void help(void) {
        printf("Usage: %s --opp LIST --governor NAME [OPTION...] TRACE\n\n"
               "Run one governor over a load trace and print the decisions as CSV.\n\n"
               "  --opp LIST            points, comma-separated, each FREQ[@VOLTAGE] (200MHz@825mV)\n"
               "  --governor NAME       one of:",
               program);
        /* Not passive: it follows a parent device, which a replay does not have. */
        for (size_t i = 0; i < df_governors_count; i++)
                if (df_governors[i] != &df_governor_passive)
                        printf(" %s", df_governors[i]->name);
        printf("\n"
               "  --tunable NAME=VALUE  set a governor tunable (repeatable)\n"
               "  --kind KIND           devfreq (default) or cpufreq: a policy's governors count in kHz\n"
               "  --initial FREQ        frequency in force before the first sample (default: the highest)\n"
               "  --min FREQ            add a min-frequency QoS request (repeatable)\n"
               "  --max FREQ            add a max-frequency QoS request (repeatable)\n"
               "  --interval DURATION   the polling interval, and each sample's duration unless its\n"
               "                        line gives one (default 100ms)\n"
               "  --summary             print time in state, transitions and energy after the CSV\n"
               "  --work                closed loop: TRACE lines are cycles[,deadline] arriving per window\n"
               "  --static-power FRAC   --work: static power, a fraction of the top point's (default 0.1)\n"
               "  --no-optimum          --work --summary: leave out the offline optimum (the slow part)\n"
               "  --optimum-states N    --work --summary: the optimum's search examines at most N states\n"
               "                        (default 4000000)\n"
               "  -h, --help            show this help\n"
               "  --version             show the version\n\n"
               "TRACE is a file (- for standard input): busy,total[,current[,duration]] per line, or for the\n"
               "userspace governor one frequency per line. See devfreq-replay(1).\n");
}

/* A repeatable option's value, kept in order: 0, or EXIT_FAILURE after saying so. */
static int push_value(char ***v, size_t *n, const char *value) {
        if (strv_push(v, n, value) < 0) {
                fprintf(stderr, "%s: out of memory\n", program);
                return EXIT_FAILURE;
        }
        return 0;
}

static bool is_pipe(FILE *f) {
        struct stat st;

        return fstat(fileno(f), &st) == 0 && S_ISFIFO(st.st_mode);
}

/* A fraction 0-10, decimal: 0, or EXIT_BAD_INPUT after saying why. */
static int parse_static_power(const char *s, long double *ret) {
        char *end;
        long double v;

        if (!s) {
                *ret = 0.1L;
                return 0;
        }
        errno = 0;
        v = strtold(s, &end);
        if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || !(v >= 0 && v <= 10))
                return replay_bad_input("--static-power: '%s' is not a fraction between 0 and 10 (e.g. 0.1)", s);
        *ret = v;
        return 0;
}

enum {
        ARG_OPP = 0x100,
        ARG_GOVERNOR,
        ARG_KIND,
        ARG_TUNABLE,
        ARG_INITIAL,
        ARG_MIN,
        ARG_MAX,
        ARG_INTERVAL,
        ARG_SUMMARY,
        ARG_WORK,
        ARG_STATIC_POWER,
        ARG_NO_OPTIMUM,
        ARG_OPTIMUM_STATES,
        ARG_VERSION
};

/* One option from getopt_long(): an exit status to stop with, or -1 to carry on. */
static int take_option(int c, char **argv, struct options *o) {
        switch (c) {
        case ARG_OPP:
                o->opp = optarg;
                break;
        case ARG_GOVERNOR:
                o->governor = optarg;
                break;
        case ARG_KIND:
                o->kind = optarg;
                break;
        case ARG_TUNABLE:
                if (push_value(&o->tunables, &o->n_tunables, optarg) != 0)
                        return EXIT_FAILURE;
                break;
        case ARG_INITIAL:
                o->initial = optarg;
                break;
        case ARG_MIN:
                if (push_value(&o->mins, &o->n_mins, optarg) != 0)
                        return EXIT_FAILURE;
                break;
        case ARG_MAX:
                if (push_value(&o->maxs, &o->n_maxs, optarg) != 0)
                        return EXIT_FAILURE;
                break;
        case ARG_INTERVAL:
                o->interval = optarg;
                break;
        case ARG_SUMMARY:
                o->summary = true;
                break;
        case ARG_WORK:
                o->work = true;
                break;
        case ARG_STATIC_POWER:
                o->static_power = optarg;
                break;
        case ARG_NO_OPTIMUM:
                o->no_optimum = true;
                break;
        case ARG_OPTIMUM_STATES:
                o->optimum_states = optarg;
                break;
        case 'h':
                help();
                return 0;
        case ARG_VERSION:
                printf("%s %s\n", program, PACKAGE_VERSION);
                return 0;
        case '?':
                if (optopt)
                        return replay_bad_input("option '-%c' unknown or missing its value", optopt);
                return replay_bad_input(
                        "option '%s' unknown or missing its value (see --help)", argv[optind - 1]);
        default:
                return replay_bad_input("unexpected option");
        }
        return -1;
}

/* Returns an exit status to stop with, or -1 to carry on. */
static int parse_args(int argc, char **argv, struct options *o) {
        static const struct option options[] = {
                { "opp", required_argument, NULL, ARG_OPP },
                { "governor", required_argument, NULL, ARG_GOVERNOR },
                { "kind", required_argument, NULL, ARG_KIND },
                { "tunable", required_argument, NULL, ARG_TUNABLE },
                { "initial", required_argument, NULL, ARG_INITIAL },
                { "min", required_argument, NULL, ARG_MIN },
                { "max", required_argument, NULL, ARG_MAX },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "summary", no_argument, NULL, ARG_SUMMARY },
                { "work", no_argument, NULL, ARG_WORK },
                { "static-power", required_argument, NULL, ARG_STATIC_POWER },
                { "no-optimum", no_argument, NULL, ARG_NO_OPTIMUM },
                { "optimum-states", required_argument, NULL, ARG_OPTIMUM_STATES },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {},
        };
        int c, r;

        opterr = 0;
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                if ((r = take_option(c, argv, o)) != -1)
                        return r;
        if (optind != argc - 1)
                return replay_bad_input("expected exactly one TRACE argument (a file, or - for standard input)");
        o->trace = argv[optind];
        if (!o->opp)
                return replay_bad_input("--opp is required (for example --opp 200MHz,400MHz,800MHz)");
        if (!o->governor)
                return replay_bad_input("--governor is required");
        if (o->static_power && !o->work)
                return replay_bad_input("--static-power only applies to --work");
        if (o->no_optimum && !(o->work && o->summary))
                return replay_bad_input("--no-optimum only applies to --work --summary");
        if (o->optimum_states && (!(o->work && o->summary) || o->no_optimum))
                return replay_bad_input("--optimum-states only applies to --work --summary with the optimum");
        return -1; /* carry on */
}

/*
 * Start the device at --initial. The kernel's governors start with the frequency in force inside
 * the policy's limits, points both (the daemon's first evaluation at attach clamps and snaps it):
 * the governor starts from --initial clamped into the range resolved to points, while the first
 * line still shows --initial in force. With --work the first window runs at that clamped point
 * too, as on a device the daemon attached before any work came: the range holds for every
 * window, and the optimum is taken over the same points.
 */
static int start_in_range(struct df_device *dev, uint64_t initial, bool work) {
        const uint64_t *usable;
        uint64_t lo, hi;
        size_t n;
        int r;

        r = df_device_start(dev, initial, 0);
        if (r < 0)
                return r;
        df_device_get_range(dev, &lo, &hi);
        df_device_get_usable(dev, &usable, &n);
        df_dbs_policy_limits(usable, n, lo, hi, &lo, &hi);
        if (initial < lo || initial > hi) {
                df_governor_start(&dev->governor, initial < lo ? lo : hi);
                if (work)
                        df_device_set_current(dev, initial < lo ? lo : hi);
        }
        return 0;
}

/* The device of the replay: --governor with its --tunable values over the --opp points, and
 * --interval into rp. 0, EXIT_BAD_INPUT, or a negative errno. */
static int new_device(const struct options *o, struct replay *rp, struct df_device **ret) {
        const struct df_governor_ops *ops;
        enum df_kind kind = DF_KIND_DEVFREQ;
        int r;

        if (o->kind && (kind = df_kind_from_string(o->kind)) < 0)
                return replay_bad_input("--kind: '%s' is neither devfreq nor cpufreq", o->kind);
        ops = df_governor_find(o->governor);
        if (!ops)
                return replay_bad_input(
                        "--governor: unknown governor '%s' (see --help for the list)", o->governor);
        if (ops == &df_governor_passive)
                return replay_bad_input(
                        "--governor: passive follows a parent device, which a replay does not have");
        if (o->interval) {
                r = replay_parse_duration(
                        NULL, 0, "--interval", o->interval, UINT64_MAX, "100ms", &rp->interval_usec);
                if (r != 0)
                        return r;
        }

        r = df_device_new("replay", DF_MODE_GOVERN, ret);
        if (r < 0)
                return r;
        (*ret)->unit_hz = df_kind_unit_hz(kind);
        r = replay_add_opps(*ret, o->opp);
        if (r != 0)
                return r;
        df_device_set_governor(*ret, ops);
        return replay_set_tunables(*ret, o->tunables, o->n_tunables);
}

/* The --min and --max requests, in that order, into `requests` (room for all of them). */
static int add_requests(struct df_device *dev, const struct options *o, struct df_qos_request *requests) {
        uint64_t f;
        int r;

        for (size_t i = 0; i < o->n_mins + o->n_maxs; i++) {
                bool is_min = i < o->n_mins;
                const char *value = is_min ? o->mins[i] : o->maxs[i - o->n_mins];

                if ((r = replay_parse_frequency_option(is_min ? "--min" : "--max", value, &f)) != 0)
                        return r;
                if (!is_min && f == 0)
                        return replay_bad_input("--max: 0 Hz would leave no frequency at all");
                r = df_qos_add_request(
                        &dev->qos, &requests[i], is_min ? DF_QOS_MIN_FREQUENCY : DF_QOS_MAX_FREQUENCY, f);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* TRACE, or standard input for "-"; its name into rp. 0, or EXIT_BAD_INPUT. */
static int open_trace(const char *trace, struct replay *rp, FILE **ret) {
        if (streq(trace, "-")) {
                *ret = stdin;
                rp->trace_name = "<stdin>";
                return 0;
        }
        *ret = fopen(trace, "re");
        if (!*ret)
                return replay_bad_input("%s: %s", trace, strerror(errno));
        rp->trace_name = trace;
        return 0;
}

/* The trace through the device, open or closed loop, and the summary: 0, EXIT_BAD_INPUT,
 * EXIT_FAILURE for a write error, or a negative errno. */
static int replay_trace(struct replay *rp, const struct options *o, FILE *in) {
        int r;

        /* A program driving the governor through a pipe sees each line before it writes the next. */
        if (in == stdin && is_pipe(stdin))
                setvbuf(stdout, NULL, _IOLBF, 0);
        if (o->work) {
                struct work_options wo = { .summary = o->summary, .optimum = !o->no_optimum };
                r = parse_static_power(o->static_power, &wo.static_power);
                if (r == 0 && o->optimum_states &&
                    (df_safe_atou64(o->optimum_states, &wo.optimum_max_states) < 0 ||
                     wo.optimum_max_states == 0))
                        r = replay_bad_input(
                                "--optimum-states: '%s' is not a count of states above 0", o->optimum_states);
                if (r == 0)
                        r = work_stream(rp, &wo, in, stdout);
        } else {
                r = replay_stream(rp, in, stdout);
                if (r == 0 && o->summary)
                        r = replay_print_summary(rp, stdout);
        }
        if (r == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
                fprintf(stderr, "%s: write error: %s\n", program, strerror(errno));
                r = EXIT_FAILURE;
        }
        return r;
}

static int run(int argc, char **argv) {
        struct options o = {};
        struct df_device *dev = NULL;
        struct df_qos_request *requests = NULL;
        size_t n_requests = 0;
        struct replay rp = { .interval_usec = 100000, .energy_known = true };
        uint64_t initial;
        FILE *in = NULL;
        int r;

        r = parse_args(argc, argv, &o);
        if (r != -1)
                goto finish;
        r = new_device(&o, &rp, &dev);
        if (r != 0)
                goto finish;

        initial = dev->opps.opps[dev->opps.n - 1].freq;
        if (o.initial && (r = replay_parse_frequency_option("--initial", o.initial, &initial)) != 0)
                goto finish;
        n_requests = o.n_mins + o.n_maxs;
        requests = calloc(n_requests ? n_requests : 1, sizeof(struct df_qos_request));
        if (!requests) {
                r = -ENOMEM;
                goto finish;
        }
        r = add_requests(dev, &o, requests);
        if (r != 0)
                goto finish;
        r = start_in_range(dev, initial, o.work);
        if (r < 0)
                goto finish;
        r = open_trace(o.trace, &rp, &in);
        if (r != 0)
                goto finish;
        rp.dev = dev;
        r = replay_trace(&rp, &o, in);

finish:
        if (in && in != stdin)
                fclose(in);
        for (size_t i = 0; i < n_requests && requests; i++)
                if (df_qos_request_active(&requests[i]))
                        (void) df_qos_remove_request(&requests[i]);
        free(requests);
        df_device_free(dev);
        strv_free(o.tunables, o.n_tunables);
        strv_free(o.mins, o.n_mins);
        strv_free(o.maxs, o.n_maxs);
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
