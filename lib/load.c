/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Load sources: busy and total time since the previous reading, from /proc/stat (the busiest of
 * a policy's CPUs), a file of cumulative counters, or a busy percentage. Read every tick. */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load.h"
#include "macro.h"

/* prev_total of a CPU not seen yet: a real cumulative total never gets there. */
#define UNSEEN UINT64_MAX
/* /proc/stat of a few thousand CPUs is well below this. */
#define PROC_STAT_MAX (16 * 1024 * 1024)

struct df_load_source *df_load_source_free(struct df_load_source *s) {
        if (!s)
                return NULL;
        safe_close(s->fd);
        free(s->cpus);
        free(s->prev_busy);
        free(s->prev_total);
        free(s->buf);
        free(s);
        return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct df_load_source *, df_load_source_free);

static int alloc_prev(struct df_load_source *s, size_t n) {
        s->prev_busy = calloc(n, sizeof(uint64_t));
        s->prev_total = calloc(n, sizeof(uint64_t));
        if (!s->prev_busy || !s->prev_total)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                s->prev_total[i] = UNSEEN;
        return 0;
}

int df_load_source_open(
        const struct df_root *root, enum df_load_kind kind, const char *path, const unsigned *cpus,
        size_t n_cpus, struct df_load_source **ret) {
        _cleanup_(df_load_source_freep) struct df_load_source *s = NULL;
        int r;

        assert(ret);

        if (kind < 0 || kind >= _DF_LOAD_KIND_MAX)
                return -EINVAL;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->kind = kind;
        s->fd = -EBADF;

        switch (kind) {
        case DF_LOAD_NONE:
                break;
        case DF_LOAD_PROC_STAT:
                if (!cpus || n_cpus == 0)
                        return -EINVAL;
                s->cpus = malloc(n_cpus * sizeof(unsigned));
                s->buf_size = 4096;
                s->buf = malloc(s->buf_size);
                if (!s->cpus || !s->buf)
                        return -ENOMEM;
                memcpy(s->cpus, cpus, n_cpus * sizeof(unsigned));
                s->n_cpus = n_cpus;
                r = alloc_prev(s, n_cpus);
                if (r < 0)
                        return r;
                s->fd = df_root_open_path(root, "/proc/stat", O_RDONLY);
                break;
        default:
                if (!path)
                        return -EINVAL;
                if (kind == DF_LOAD_COUNTERS && (r = alloc_prev(s, 1)) < 0)
                        return r;
                s->fd = df_root_open_path(root, path, O_RDONLY);
                break;
        }
        if (kind != DF_LOAD_NONE && s->fd < 0)
                return s->fd;
        *ret = TAKE_PTR(s);
        return 0;
}

/* One unsigned decimal after optional blanks; *p moves past it. */
static int next_u64(const char **p, uint64_t *ret) {
        const char *s = *p;
        uint64_t v = 0;

        while (*s == ' ' || *s == '\t')
                s++;
        if (*s < '0' || *s > '9')
                return -EINVAL;
        for (; *s >= '0' && *s <= '9'; s++) {
                unsigned d = (unsigned) (*s - '0');

                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *p = s;
        *ret = v;
        return 0;
}

static bool at_end(const char *s) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
                s++;
        return *s == '\0';
}

static ssize_t read_grow(struct df_load_source *s) {
        for (;;) {
                ssize_t n = df_attr_pread(s->fd, s->buf, s->buf_size);
                char *nb;

                if (n != -EFBIG)
                        return n;
                if (s->buf_size >= PROC_STAT_MAX)
                        return -EFBIG;
                nb = realloc(s->buf, s->buf_size * 2);
                if (!nb)
                        return -ENOMEM;
                s->buf = nb;
                s->buf_size *= 2;
        }
}

static ssize_t cpu_index(const struct df_load_source *s, uint64_t cpu) {
        for (size_t i = 0; i < s->n_cpus; i++)
                if (s->cpus[i] == cpu)
                        return (ssize_t) i;
        return -ENOENT;
}

/* "cpuN user nice system idle iowait irq softirq steal guest guest_nice": busy and total. */
static int parse_cpu_line(const char *p, uint64_t *ret_cpu, uint64_t *ret_busy, uint64_t *ret_total) {
        uint64_t cpu, f[8] = {}, busy, idle;
        int r;

        p += 3;
        r = next_u64(&p, &cpu);
        if (r < 0)
                return r;
        /* Older kernels print fewer columns; guest and guest_nice are already in user and nice. */
        for (size_t i = 0; i < ELEMENTSOF(f); i++) {
                r = next_u64(&p, &f[i]);
                if (r == -EINVAL && i >= 4 && (p[strspn(p, " \t")] == '\n' || p[strspn(p, " \t")] == '\0'))
                        break;
                if (r < 0)
                        return -EINVAL;
        }
        busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
        idle = f[3] + f[4]; /* iowait is idle time */
        *ret_cpu = cpu;
        *ret_busy = busy;
        *ret_total = busy + idle;
        return 0;
}

/* kernel: dbs_update() picks the highest load of the policy's CPUs; so does this. */
static int sample_proc_stat(struct df_load_source *s, uint64_t *ret_busy, uint64_t *ret_total) {
        uint64_t best_busy = 0, best_total = 0;
        bool found = false, was_primed = s->primed;
        ssize_t len;

        len = read_grow(s);
        if (len < 0)
                return (int) len;
        for (const char *p = s->buf; *p; p = strchrnul(p, '\n'), p += *p == '\n') {
                uint64_t cpu, busy, total, db, dt;
                ssize_t i;
                int r;

                /* The cpu lines come first; nothing after them is needed. */
                if (!strneq(p, "cpu", 3))
                        break;
                if (p[3] < '0' || p[3] > '9')
                        continue; /* the "cpu" sum line */
                r = parse_cpu_line(p, &cpu, &busy, &total);
                if (r < 0)
                        return r;
                i = cpu_index(s, cpu);
                if (i < 0)
                        continue;

                /* A CPU missing from a reading (offline) keeps its counters until it returns. */
                uint64_t pb = s->prev_busy[i], pt = s->prev_total[i];
                s->prev_busy[i] = busy;
                s->prev_total[i] = total;
                if (pt == UNSEEN || busy < pb || total < pt || total - busy < pt - pb)
                        continue;
                db = busy - pb;
                dt = total - pt;
                if (dt == 0)
                        continue;
                if (!found || (unsigned __int128) db * best_total > (unsigned __int128) best_busy * dt) {
                        best_busy = db;
                        best_total = dt;
                        found = true;
                }
        }
        s->primed = true;
        if (!was_primed || !found)
                return 0;
        *ret_busy = best_busy;
        *ret_total = best_total;
        return 1;
}

static int sample_counters(struct df_load_source *s, uint64_t *ret_busy, uint64_t *ret_total) {
        char buf[128];
        const char *p = buf;
        uint64_t busy, total, pb, pt;
        ssize_t n;
        int r;

        n = df_attr_pread(s->fd, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        r = next_u64(&p, &busy);
        if (r >= 0)
                r = next_u64(&p, &total);
        if (r < 0 || !at_end(p))
                return r == -ERANGE ? -ERANGE : -EINVAL;

        pb = s->prev_busy[0];
        pt = s->prev_total[0];
        s->prev_busy[0] = busy;
        s->prev_total[0] = total;
        if (!s->primed) {
                s->primed = true;
                return 0;
        }
        if (busy < pb || total < pt || total == pt)
                return 0;
        *ret_busy = busy - pb;
        *ret_total = total - pt;
        return 1;
}

static int sample_percent(struct df_load_source *s, uint64_t *ret_busy, uint64_t *ret_total) {
        char buf[64];
        const char *p = buf;
        uint64_t v;
        ssize_t n;
        int r;

        n = df_attr_pread(s->fd, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        while (*p == '\n' || *p == ' ' || *p == '\t')
                p++;
        r = next_u64(&p, &v);
        if (r == -ERANGE)
                return 0; /* a number, just far above 100 */
        if (r < 0 || !at_end(p))
                return -EINVAL;
        if (v > 100)
                return 0;
        *ret_busy = v;
        *ret_total = 100;
        return 1;
}

static int sample_kind(struct df_load_source *s, uint64_t *ret_busy, uint64_t *ret_total) {
        switch (s->kind) {
        case DF_LOAD_PROC_STAT:
                return sample_proc_stat(s, ret_busy, ret_total);
        case DF_LOAD_COUNTERS:
                return sample_counters(s, ret_busy, ret_total);
        case DF_LOAD_PERCENT:
                return sample_percent(s, ret_busy, ret_total);
        default:
                return 0;
        }
}

int df_load_source_sample(
        struct df_load_source *s, uint64_t now_usec, uint64_t *ret_busy, uint64_t *ret_total,
        uint64_t *ret_duration_usec) {
        assert(s);
        assert(ret_busy);
        assert(ret_total);
        assert(ret_duration_usec);

        uint64_t prev = s->prev_usec;
        int r = sample_kind(s, ret_busy, ret_total);

        if (r < 0)
                return r;
        s->prev_usec = now_usec;
        if (r > 0)
                *ret_duration_usec = prev > 0 && now_usec > prev ? now_usec - prev : 0;
        return r;
}
