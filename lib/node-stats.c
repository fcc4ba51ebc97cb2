/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel's own statistics of a node, devfreq's trans_stat or cpufreq_stats, read into tables
 * in ascending frequency order, and their reset. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "node-internal.h"
#include "node.h"
#include "stats.h"
#include "units.h"

struct kstats {
        size_t n;
        uint64_t *freqs, *time_ms, *trans, total;
};

static void kstats_done(struct kstats *s) {
        free(s->freqs);
        free(s->time_ms);
        free(s->trans);
}

static int kstats_alloc(struct kstats *s, size_t n) {
        if (n == 0)
                return -ENODATA;
        if (n > DF_STATS_MAX_STATES)
                return -E2BIG;
        s->n = n;
        s->freqs = calloc(n, sizeof(uint64_t));
        s->time_ms = calloc(n, sizeof(uint64_t));
        s->trans = calloc(n * n, sizeof(uint64_t));
        return s->freqs && s->time_ms && s->trans ? 0 : -ENOMEM;
}

/* Split in place into lines; blank lines are dropped. */
static size_t split_lines(char *text, char **lines, size_t max) {
        size_t n = 0;
        char *save = NULL;

        for (char *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
                if (l[strspn(l, " \t")])
                        lines[n++] = l;
        return n;
}

static int span_u64(const char *s, size_t len, uint64_t *ret) {
        char buf[32];
        size_t i = 0;

        while (len > 0 && s[len - 1] == ' ')
                len--;
        while (i < len && s[i] == ' ')
                i++;
        if (len - i >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, s + i, len - i);
        buf[len - i] = '\0';
        return df_safe_atou64(buf, ret);
}

/* Whitespace-separated numbers of `s`: exactly n, or -EINVAL. */
static int tokens_u64(const char *s, uint64_t *v, size_t n) {
        size_t k = 0;

        for (;;) {
                size_t len;

                while (*s == ' ' || *s == '\t')
                        s++;
                if (!*s)
                        return k == n ? 0 : -EINVAL;
                len = strcspn(s, " \t");
                if (k == n || span_u64(s, len, &v[k++]) < 0)
                        return -EINVAL;
                s += len;
        }
}

/*
 * kernel: trans_stat_show(). Every number is "%10lu"/"%10u", so ten-digit frequencies touch their
 * neighbours: the header and the counts are cut in fixed fields, the time is what remains.
 */
static int parse_trans_stat(char *text, struct kstats *s) {
        _cleanup_free_ char **lines = NULL;
        const char *hdr, *end;
        size_t nl, n;
        int r;

        if (strneq(text, "Not Supported", 13))
                return -ENODATA;
        lines = calloc(DF_STATS_MAX_STATES + 4, sizeof(char *));
        if (!lines)
                return -ENOMEM;
        nl = split_lines(text, lines, DF_STATS_MAX_STATES + 4);
        if (nl == 0)
                return -EAGAIN; /* the kernel reads 0 bytes while no known frequency is in force */
        if (nl < 4 || !strstr(lines[0], "From") || !strneq(lines[nl - 1], "Total transition", 16))
                return -EINVAL;
        n = nl - 3;
        r = kstats_alloc(s, n);
        if (r < 0)
                return r;
        hdr = strchr(lines[nl - 1], ':');
        if (!hdr || span_u64(hdr + 1, strlen(hdr + 1), &s->total) < 0)
                return -EINVAL;

        hdr = strchr(lines[1], ':');
        end = strstr(lines[1], "time(ms)");
        if (!hdr || !end || end < hdr + 1)
                return -EINVAL;
        hdr++;
        while (end > hdr && end[-1] == ' ')
                end--;
        if ((size_t) (end - hdr) == 10 * n) {
                for (size_t j = 0; j < n; j++)
                        if (span_u64(hdr + 10 * j, 10, &s->freqs[j]) < 0)
                                return -EINVAL;
        } else {
                _cleanup_free_ char *h = strndup(hdr, (size_t) (end - hdr));
                if (!h)
                        return -ENOMEM;
                if (tokens_u64(h, s->freqs, n) < 0)
                        return -EINVAL;
        }

        for (size_t i = 0; i < n; i++) {
                const char *row = lines[2 + i], *colon = strchr(row, ':');
                uint64_t f;

                if ((row[0] != ' ' && row[0] != '*') || !colon ||
                    span_u64(row + 1, (size_t) (colon - row - 1), &f) < 0 || f != s->freqs[i])
                        return -EINVAL;
                colon++;
                if (strlen(colon) < 10 * n + 1)
                        return -EINVAL;
                for (size_t j = 0; j < n; j++)
                        if (span_u64(colon + 10 * j, 10, &s->trans[i * n + j]) < 0)
                                return -EINVAL;
                if (span_u64(colon + 10 * n, strlen(colon + 10 * n), &s->time_ms[i]) < 0)
                        return -EINVAL;
        }
        return 0;
}

static ssize_t index_of(const uint64_t *v, size_t n, uint64_t f) {
        for (size_t i = 0; i < n; i++)
                if (v[i] == f)
                        return (ssize_t) i;
        return -ENOENT;
}

/* kernel: cpufreq_stats show_trans_table(), "%9u: " rows of "%9u " counts, all kHz. */
static int parse_trans_table(char *text, struct kstats *s, const uint64_t *khz) {
        _cleanup_free_ char **lines = NULL;
        _cleanup_free_ uint64_t *cols = NULL, *counts = NULL;
        _cleanup_free_ ssize_t *map = NULL;
        size_t n = s->n, nl;
        const char *hdr;

        lines = calloc(n + 3, sizeof(char *));
        cols = calloc(n, sizeof(uint64_t));
        counts = calloc(n, sizeof(uint64_t));
        map = calloc(n, sizeof(ssize_t));
        if (!lines || !cols || !counts || !map)
                return -ENOMEM;
        nl = split_lines(text, lines, n + 3);
        if (nl != n + 2 || !strstr(lines[0], "From") || !(hdr = strchr(lines[1], ':')))
                return -EINVAL;
        if (tokens_u64(hdr + 1, cols, n) < 0)
                return -EINVAL;
        for (size_t j = 0; j < n; j++)
                if ((map[j] = index_of(khz, n, cols[j])) < 0)
                        return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                const char *colon = strchr(lines[2 + i], ':');
                uint64_t f;
                ssize_t from;

                if (!colon || span_u64(lines[2 + i], (size_t) (colon - lines[2 + i]), &f) < 0 ||
                    (from = index_of(khz, n, f)) < 0 || tokens_u64(colon + 1, counts, n) < 0)
                        return -EINVAL;
                for (size_t j = 0; j < n; j++)
                        s->trans[(size_t) from * n + (size_t) map[j]] = counts[j];
        }
        return 0;
}

/* kernel: cpufreq_stats (time_in_state in USER_HZ ticks, trans_table, total_trans), kHz. */
static int read_cpufreq_stats(struct df_node *n, struct kstats *s) {
        _cleanup_free_ char *text = NULL, **lines = NULL;
        _cleanup_free_ uint64_t *khz = NULL;
        long tck = sysconf(_SC_CLK_TCK);
        size_t nl;
        int r;

        r = node_read_text(n->dirfd, "stats/time_in_state", &text);
        if (r == -ENOENT)
                return -ENODATA;
        if (r < 0)
                return r;
        lines = calloc(DF_STATS_MAX_STATES + 1, sizeof(char *));
        if (!lines)
                return -ENOMEM;
        nl = split_lines(text, lines, DF_STATS_MAX_STATES + 1);
        r = kstats_alloc(s, nl);
        if (r < 0)
                return r;
        khz = calloc(nl, sizeof(uint64_t));
        if (!khz)
                return -ENOMEM;
        for (size_t i = 0; i < nl; i++) {
                uint64_t v[2];

                if (tokens_u64(lines[i], v, 2) < 0)
                        return -EINVAL;
                if (v[0] > UINT64_MAX / 1000)
                        return -ERANGE;
                khz[i] = v[0];
                s->freqs[i] = v[0] * 1000;
                unsigned __int128 ms = (unsigned __int128) v[1] * 1000 / (uint64_t) (tck > 0 ? tck : 100);
                s->time_ms[i] = ms > UINT64_MAX ? UINT64_MAX : (uint64_t) ms;
        }

        free(text);
        text = NULL;
        /* A table too big for a page reads -EFBIG: the times and the total still count. */
        r = node_read_text(n->dirfd, "stats/trans_table", &text);
        if (r >= 0)
                r = parse_trans_table(text, s, khz);
        else if (r == -ENOENT || r == -EFBIG)
                r = 0;
        if (r < 0)
                return r;
        r = df_attr_read_u64(n->dirfd, "stats/total_trans", &s->total);
        if (r == -ENOENT) {
                s->total = 0;
                for (size_t i = 0; i < s->n * s->n; i++)
                        s->total += s->trans[i];
                r = 0;
        }
        return r;
}

struct order {
        uint64_t f;
        size_t i;
};

static int cmp_order(const void *a, const void *b) {
        const struct order *x = a, *y = b;

        return (x->f > y->f) - (x->f < y->f);
}

/* Ascending columns; the matrix is permuted along (the kernel keeps the driver's table order). */
static int kstats_sort(struct kstats *s) {
        _cleanup_free_ struct order *o = calloc(s->n, sizeof(struct order));
        _cleanup_free_ uint64_t *f = calloc(s->n, sizeof(uint64_t)), *t = calloc(s->n, sizeof(uint64_t)),
                                *tr = calloc(s->n * s->n, sizeof(uint64_t));

        if (!o || !f || !t || !tr)
                return -ENOMEM;
        for (size_t i = 0; i < s->n; i++)
                o[i] = (struct order){ s->freqs[i], i };
        qsort(o, s->n, sizeof(struct order), cmp_order);
        for (size_t i = 0; i < s->n; i++) {
                f[i] = s->freqs[o[i].i];
                t[i] = s->time_ms[o[i].i];
                for (size_t j = 0; j < s->n; j++)
                        tr[i * s->n + j] = s->trans[o[i].i * s->n + o[j].i];
        }
        free(s->freqs);
        free(s->time_ms);
        free(s->trans);
        s->freqs = TAKE_PTR(f);
        s->time_ms = TAKE_PTR(t);
        s->trans = TAKE_PTR(tr);
        return 0;
}

int df_node_read_kernel_stats(
        struct df_node *n, uint64_t **ret_freqs, uint64_t **ret_time_ms, uint64_t **ret_trans, size_t *ret_n,
        uint64_t *ret_total) {
        _cleanup_(kstats_done) struct kstats s = {};
        int r;

        assert(n);
        assert(ret_freqs);
        assert(ret_time_ms);
        assert(ret_trans);
        assert(ret_n);
        assert(ret_total);

        if (n->kind == DF_KIND_DEVFREQ) {
                _cleanup_free_ char *text = NULL;

                r = node_read_text(n->dirfd, "trans_stat", &text);
                if (r == -ENOENT)
                        return -ENODATA;
                if (r >= 0)
                        r = parse_trans_stat(text, &s);
        } else
                r = read_cpufreq_stats(n, &s);
        if (r >= 0)
                r = kstats_sort(&s);
        if (r < 0)
                return r;
        *ret_freqs = TAKE_PTR(s.freqs);
        *ret_time_ms = TAKE_PTR(s.time_ms);
        *ret_trans = TAKE_PTR(s.trans);
        *ret_n = s.n;
        *ret_total = s.total;
        return 0;
}

int df_node_reset_kernel_stats(struct df_node *n) {
        assert(n);

        node_clear_error(n);
        if (n->kind == DF_KIND_DEVFREQ)
                return node_write(n, -EBADF, "trans_stat", "0", false);
        return node_write(n, -EBADF, "stats/reset", "1", false);
}
