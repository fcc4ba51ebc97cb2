/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devfreq-replay --work: each trace line is the work of one window, run at the point the
 * governor chose; the window's busy time is the governor's next sample. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay-work.h"
#include "units.h"

/* The loop's state beside the device's: the model, the simulation, the trace for the optimum. */
struct work_run {
        struct replay *rp;
        const struct work_options *o;
        struct work_model model;
        struct work_sim sim;
        struct work_trace trace;
        size_t windows;
        uint64_t drain;
        size_t first; /* the point of the first window, in force before any sample */
};

static char *format_u128(char buf[static 40], work_u128 v) {
        char *p = buf + 39;

        *p = '\0';
        do {
                *--p = (char) ('0' + (unsigned) (v % 10));
                v /= 10;
        } while (v);
        return p;
}

static int parse_line(struct work_run *w, char *line, size_t lineno, uint64_t *cycles, uint64_t *deadline) {
        const char *name = w->rp->trace_name;
        char *comma = strchr(line, ',');
        uint64_t usec;
        int r;

        if (comma) {
                *comma = '\0';
                if (strchr(comma + 1, ','))
                        return replay_bad_input(
                                "%s:%zu: expected cycles[,deadline], got more fields", name, lineno);
                /* In nanoseconds from here, so at most UINT64_MAX / 1000 us. */
                r = replay_parse_duration(
                        name, lineno, "deadline", comma + 1, UINT64_MAX / 1000, "16.6ms", &usec);
                if (r != 0)
                        return r;
                *deadline = usec * 1000;
        } else
                *deadline = w->model.interval_ns;
        r = df_safe_atou64(line, cycles);
        if (r < 0)
                return replay_bad_input(
                        "%s:%zu: cycles: '%s' is %s", name, lineno, line,
                        r == -ERANGE ? "too large" : "not a whole number");
        return 0;
}

/* One window at the frequency in force, then the governor's decision on its sample. */
static int run_window(struct work_run *w, uint64_t cycles, FILE *out) {
        struct df_device *dev = w->rp->dev;
        struct work_window win;
        struct df_evaluation ev;
        char a[40];
        int i, r;

        i = df_opp_find(&dev->opps, dev->current);
        if (i < 0)
                return -EINVAL;
        r = work_sim_window(&w->sim, (size_t) i, &win);
        if (r < 0)
                return r;
        /* The decision comes at the end of the window, and holds for the next one. */
        w->rp->now += w->rp->interval_usec;
        df_device_set_sample(dev, win.busy_ns, win.total_ns);
        r = df_device_evaluate(dev, w->rp->now, &ev);
        if (r < 0)
                return r;
        w->windows++;
        fprintf(out,
                "%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 "\n",
                cycles, win.done, format_u128(a, w->sim.backlog), win.missed, win.busy_ns, win.total_ns,
                w->model.freqs[i], ev.governor, ev.applied);
        return 0;
}

/* Whether the windows' clock, in nanoseconds, holds the end of the next window. */
static bool clock_holds_window(const struct work_run *w) {
        return w->sim.window < UINT64_MAX / w->model.interval_ns;
}

static int feed(struct work_run *w, char *line, size_t lineno, FILE *out) {
        char a[DF_DURATION_STRING_MAX];
        uint64_t cycles = 0, deadline = 0;
        int r;

        r = parse_line(w, line, lineno, &cycles, &deadline);
        if (r != 0)
                return r;
        if (!clock_holds_window(w))
                return replay_bad_input(
                        "%s:%zu: the windows would last longer than %s in all", w->rp->trace_name, lineno,
                        df_format_duration(a, UINT64_MAX / 1000));
        r = work_sim_add(&w->sim, cycles, deadline);
        if (r == -ERANGE)
                return replay_bad_input("%s:%zu: the deadline is too far", w->rp->trace_name, lineno);
        if (r < 0)
                return r;
        if (w->o->summary && w->o->optimum && (r = work_trace_add(&w->trace, cycles, deadline)) < 0)
                return r;
        return run_window(w, cycles, out);
}

static int check_points(struct work_run *w) {
        struct df_device *dev = w->rp->dev;
        char a[DF_FREQ_STRING_MAX], b[DF_DURATION_STRING_MAX], c[DF_DURATION_STRING_MAX];
        int at, r;

        r = work_model_init(&w->model, &dev->opps, w->rp->interval_usec, w->o->static_power);
        if (r == -EINVAL)
                return replay_bad_input(
                        "--work: give every point a voltage or none (V is then proportional to f)");
        if (r == -ERANGE) /* a window is kept in nanoseconds */
                return replay_bad_input(
                        "--interval: %s is too large for --work (at most %s)",
                        df_format_duration(b, w->rp->interval_usec), df_format_duration(c, UINT64_MAX / 1000));
        if (r < 0)
                return r;
        at = df_opp_find(&dev->opps, dev->current);
        if (at < 0)
                return replay_bad_input(
                        "--initial: %s is not one of the points", df_format_frequency(a, dev->current));
        w->first = (size_t) at;
        for (size_t i = 0; i < w->model.n; i++)
                if (work_capacity(&w->model, w->model.freqs[i]) == 0)
                        return replay_bad_input(
                                "--work: a window of %s holds no whole cycle at %s",
                                df_format_duration(b, w->rp->interval_usec),
                                df_format_frequency(a, w->model.freqs[i]));
        return 0;
}

static void print_duration_ns(FILE *out, const char *what, uint64_t ns) {
        fprintf(out, "%-24s: %" PRIu64 ".%06" PRIu64 " ms\n", what, ns / 1000000, ns % 1000000);
}

static int print_summary(struct work_run *w, FILE *out) {
        struct df_device *dev = w->rp->dev;
        _cleanup_free_ size_t *allowed = NULL;
        _cleanup_free_ char *text = NULL;
        char a[DF_DURATION_STRING_MAX], c[40];
        uint64_t lo, hi;
        size_t n = 0;
        long double best;
        int r;

        r = df_stats_format(&dev->stats, w->rp->now, &text);
        if (r < 0)
                return r;
        fprintf(out, "\n# %zu windows of %s (%" PRIu64 " after the trace)\n%s", w->windows,
                df_format_duration(a, w->rp->interval_usec), w->drain, text);
        fprintf(out, "%-24s: %.6Lg\n", "Energy", w->sim.energy);
        fprintf(out, "%-24s: %s\n", "Cycles done", format_u128(c, w->sim.done));
        fprintf(out, "%-24s: %" PRIu64 " of %" PRIu64 " jobs\n", "Misses", w->sim.misses, w->sim.n_jobs);
        print_duration_ns(out, "Completion delay p50", work_sim_delay_percentile(&w->sim, 50));
        print_duration_ns(out, "Completion delay p99", work_sim_delay_percentile(&w->sim, 99));
        fprintf(out, "%-24s: %" PRIu64 "\n", "Transitions", dev->stats.total);
        if (!w->o->optimum)
                return 0;

        /* The optimum may use any point the governor could: usable and in the effective range. */
        allowed = calloc(w->model.n, sizeof(size_t));
        if (!allowed)
                return -ENOMEM;
        df_device_get_range(dev, &lo, &hi);
        for (size_t i = 0; i < w->model.n; i++)
                if (dev->opps.opps[i].enabled && w->model.freqs[i] >= lo && w->model.freqs[i] <= hi)
                        allowed[n++] = i;
        r = work_optimum(&w->model, allowed, n, w->first, &w->trace, w->o->optimum_max_states, &best);
        if (r == -E2BIG)
                fprintf(out,
                        "%-24s: not computed (the exact search would examine more than %" PRIu64
                        " states; see LIMITS in devfreq-replay(1))\n",
                        "Optimum energy", w->o->optimum_max_states ?: WORK_OPTIMUM_MAX_STATES);
        else if (r < 0)
                return r;
        else if (r == 0)
                fprintf(out, "%-24s: none (some deadline is missed even at the highest point)\n",
                        "Optimum energy");
        else
                fprintf(out, "%-24s: %.6Lg (%.4Lf of this run)\n", "Optimum energy", best,
                        w->sim.energy > 0 ? best / w->sim.energy : 1.0L);
        return 0;
}

static bool is_header(const char *line) {
        return streq(line, "cycles") || streq(line, "cycles,deadline");
}

static int work_loop(struct work_run *w, FILE *in, FILE *out) {
        struct replay_reader rd = {};
        char a[DF_DURATION_STRING_MAX];
        int r;

        fputs("cycles,done,backlog,missed,busy,total,current,governor,target\n", out);
        while ((r = replay_next_line(w->rp->trace_name, in, &rd)) == 1) {
                /* The header may follow comment lines (the traces of tests/traces/ name their
                 * window and points in comments first). */
                if (rd.content == 1 && is_header(rd.line))
                        continue;
                r = feed(w, rd.line, rd.lineno, out);
                if (r != 0)
                        break;
        }
        free(rd.line);
        if (r != 0)
                return r;
        if (w->windows == 0) /* as replay_stream() */
                return replay_bad_input("%s: no work lines", w->rp->trace_name);
        /* Empty windows until all work is done: they still count energy and misses. */
        while (w->sim.backlog > 0) {
                if (w->drain >= WORK_DRAIN_MAX_WINDOWS)
                        return replay_bad_input(
                                "%s: work is left after %" PRIu64 " empty windows past the trace; the points "
                                "in use cannot finish it (see LIMITS in devfreq-replay(1))",
                                w->rp->trace_name, WORK_DRAIN_MAX_WINDOWS);
                if (!clock_holds_window(w))
                        return replay_bad_input(
                                "%s: the windows after the trace would last longer than %s in all",
                                w->rp->trace_name, df_format_duration(a, UINT64_MAX / 1000));
                r = run_window(w, 0, out);
                if (r != 0)
                        return r;
                w->drain++;
        }
        return 0;
}

int work_stream(struct replay *rp, const struct work_options *o, FILE *in, FILE *out) {
        struct work_run w = { .rp = rp, .o = o };
        int r;

        work_sim_init(&w.sim, &w.model);
        r = check_points(&w);
        if (r == 0)
                r = work_loop(&w, in, out);
        if (r == 0 && o->summary)
                r = print_summary(&w, out);
        work_sim_done(&w.sim);
        work_trace_done(&w.trace);
        work_model_done(&w.model);
        return r;
}
