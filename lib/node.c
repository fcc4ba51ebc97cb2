/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A devfreq node or cpufreq policy as a backend: discovery, its frequencies and originals, the
 * kernel governor, and the writes that make a frequency or a range; kHz exists only in here. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "node.h"
#include "stats.h"

/* The largest attribute read whole (trans_stat and trans_table stop at PAGE_SIZE in the kernel). */
#define TEXT_MAX (1024 * 1024)

struct kind_attrs {
        const char *governor, *governors, *min, *max, *cur, *applied, *frequencies, *key;
        uint64_t scale; /* Hz per sysfs unit */
};

static const struct kind_attrs kind_attrs[_DF_KIND_MAX] = {
        [DF_KIND_DEVFREQ] = { "governor", "available_governors", "min_freq", "max_freq", "cur_freq",
                              "userspace/set_freq", "available_frequencies", "governor", 1 },
        [DF_KIND_CPUFREQ] = { "scaling_governor", "scaling_available_governors", "scaling_min_freq",
                              "scaling_max_freq", "scaling_cur_freq", "scaling_setspeed",
                              "scaling_available_frequencies", "scaling_governor", 1000 },
};

static const char *const kind_table[_DF_KIND_MAX] = {
        [DF_KIND_DEVFREQ] = "devfreq",
        [DF_KIND_CPUFREQ] = "cpufreq",
};

const char *df_kind_to_string(enum df_kind k) {
        if (k < 0 || k >= _DF_KIND_MAX)
                return NULL;
        return kind_table[k];
}

enum df_kind df_kind_from_string(const char *s) {
        if (!s)
                return _DF_KIND_INVALID;
        for (int i = 0; i < _DF_KIND_MAX; i++)
                if (streq(kind_table[i], s))
                        return (enum df_kind) i;
        return _DF_KIND_INVALID;
}

static const struct kind_attrs *attrs(const struct df_node *n) {
        return &kind_attrs[n->kind];
}

_printf_(2, 3) static void set_error(struct df_node *n, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(n->error, sizeof(n->error), fmt, ap);
        va_end(ap);
}

static bool has_attr(int dirfd, const char *name) {
        struct stat st;

        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) >= 0;
}

/* A whole attribute of any size (lists, statistics): not for the hot path. */
static int read_text(int dirfd, const char *name, char **ret) {
        _cleanup_close_ int fd = df_attr_open(dirfd, name, O_RDONLY);

        if (fd < 0)
                return fd;
        for (size_t size = 4096;; size *= 2) {
                _cleanup_free_ char *buf = malloc(size);
                ssize_t n;

                if (!buf)
                        return -ENOMEM;
                n = df_attr_pread(fd, buf, size);
                if (n >= 0) {
                        *ret = TAKE_PTR(buf);
                        return 0;
                }
                if (n != -EFBIG || size >= TEXT_MAX)
                        return (int) n;
        }
}

/* A single word (a governor, a number as sysfs shows it), surrounding whitespace removed. */
static int read_word(int dirfd, const char *name, char *buf, size_t size) {
        ssize_t n = df_attr_read(dirfd, name, buf, size);
        size_t start = 0, end;

        if (n < 0)
                return (int) n;
        end = (size_t) n;
        while (end > 0 && (buf[end - 1] == ' ' || buf[end - 1] == '\t' || buf[end - 1] == '\n'))
                end--;
        while (start < end && (buf[start] == ' ' || buf[start] == '\t'))
                start++;
        if (start == end)
                return -ENODATA;
        for (size_t i = start; i < end; i++)
                if ((unsigned char) buf[i] <= ' ' || buf[i] == 0x7f)
                        return -EINVAL;
        memmove(buf, buf + start, end - start);
        buf[end - start] = '\0';
        return 0;
}

static int word_to_u64(const char *s, uint64_t *ret) {
        uint64_t v = 0;

        if (!*s)
                return -EINVAL;
        for (; *s; s++) {
                if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t) (*s - '0')) / 10)
                        return -EINVAL;
                v = v * 10 + (uint64_t) (*s - '0');
        }
        *ret = v;
        return 0;
}

static uint64_t to_hz(const struct df_node *n, uint64_t v) {
        uint64_t s = attrs(n)->scale;

        return v > UINT64_MAX / s ? UINT64_MAX : v * s;
}

enum rounding {
        ROUND_DOWN,
        ROUND_UP,
        ROUND_NEAREST
};

/* kernel: min_freq_store() floors, max_freq_store() rounds up, so the interval never shrinks. */
static uint64_t to_node_units(const struct df_node *n, uint64_t hz, enum rounding how) {
        uint64_t s = attrs(n)->scale, q = hz / s, rem = hz % s;

        switch (how) {
        case ROUND_UP:
                return q + (rem != 0);
        case ROUND_NEAREST:
                return q + (rem >= s - s / 2);
        default:
                return q;
        }
}

static void close_kept(struct df_node *n) {
        n->applied_fd = safe_close(n->applied_fd);
        n->min_fd = safe_close(n->min_fd);
        n->max_fd = safe_close(n->max_fd);
}

struct df_node *df_node_free(struct df_node *n) {
        if (!n)
                return NULL;
        close_kept(n);
        safe_close(n->dirfd);
        free(n->path);
        free(n->name);
        free(n->cpus);
        free(n);
        return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct df_node *, df_node_free);

static int parse_cpus(const char *text, unsigned **ret, size_t *ret_n) {
        _cleanup_free_ unsigned *v = NULL;
        size_t n = 0;

        for (const char *p = text;;) {
                uint64_t c = 0;
                size_t len = 0;

                while (*p == ' ' || *p == '\t' || *p == '\n')
                        p++;
                if (!*p)
                        break;
                for (; p[len] >= '0' && p[len] <= '9'; len++) {
                        c = c * 10 + (uint64_t) (p[len] - '0');
                        if (c > 65535)
                                return -ERANGE;
                }
                if (len == 0 || (p[len] && p[len] != ' ' && p[len] != '\t' && p[len] != '\n'))
                        return -EINVAL;
                unsigned *nv = realloc(v, (n + 1) * sizeof(unsigned));
                if (!nv)
                        return -ENOMEM;
                v = nv;
                v[n++] = (unsigned) c;
                p += len;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

static int open_devfreq(struct df_node *n) {
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ uint64_t *f = NULL;
        size_t k;

        if (read_text(n->dirfd, "available_governors", &text) >= 0)
                n->has_userspace = df_word_in_list(text, "userspace");
        free(text);
        text = NULL;
        /* An empty or unreadable list is not fatal: df_node_read_frequencies() reports it. */
        if (read_text(n->dirfd, "available_frequencies", &text) >= 0 &&
            df_parse_frequency_list(text, 1, &f, &k) >= 0) {
                n->has_table = true;
                n->hw_min = f[0];
                n->hw_max = f[k - 1];
        }
        return 0;
}

static int open_cpufreq(struct df_node *n) {
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ uint64_t *f = NULL;
        uint64_t lo, hi;
        size_t k;
        int r;

        r = df_attr_read_u64(n->dirfd, "cpuinfo_min_freq", &lo);
        if (r >= 0)
                r = df_attr_read_u64(n->dirfd, "cpuinfo_max_freq", &hi);
        if (r < 0)
                return r == -ENOENT ? -ENODEV : r;
        n->hw_min = to_hz(n, lo);
        n->hw_max = to_hz(n, hi);

        if (read_text(n->dirfd, "scaling_available_governors", &text) >= 0)
                n->has_userspace = df_word_in_list(text, "userspace");
        free(text);
        text = NULL;
        if (read_text(n->dirfd, "related_cpus", &text) >= 0)
                (void) parse_cpus(text, &n->cpus, &n->n_cpus);
        free(text);
        text = NULL;
        if (read_text(n->dirfd, "scaling_available_frequencies", &text) >= 0 &&
            df_parse_frequency_list(text, 1000, &f, &k) >= 0)
                n->has_table = true;
        return 0;
}

int df_node_open(const struct df_root *root, const char *path, struct df_node **ret) {
        _cleanup_(df_node_freep) struct df_node *n = NULL;
        _cleanup_free_ char *canonical = NULL;
        const char *slash;
        int r;

        r = df_root_resolve(root, path, &canonical);
        if (r < 0)
                return r;
        n = calloc(1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        n->dirfd = n->applied_fd = n->min_fd = n->max_fd = -EBADF;
        n->dirfd = df_root_open_path(root, canonical, O_PATH | O_DIRECTORY);
        if (n->dirfd < 0)
                return n->dirfd == -ENOTDIR ? -ENODEV : n->dirfd;

        if (has_attr(n->dirfd, "available_frequencies") && has_attr(n->dirfd, "governor"))
                n->kind = DF_KIND_DEVFREQ;
        else if (has_attr(n->dirfd, "scaling_governor"))
                n->kind = DF_KIND_CPUFREQ;
        else
                return -ENODEV;

        slash = strrchr(canonical, '/');
        n->name = strdup(slash + 1);
        if (!n->name)
                return -ENOMEM;
        n->path = TAKE_PTR(canonical);
        r = n->kind == DF_KIND_DEVFREQ ? open_devfreq(n) : open_cpufreq(n);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(n);
        return 0;
}

bool df_node_exists(const struct df_node *n) {
        struct stat st;

        if (!n || n->dirfd < 0)
                return false;
        if (fstat(n->dirfd, &st) < 0 || st.st_nlink == 0)
                return false;
        /* A removed sysfs directory keeps its link count but no longer finds its attributes;
         * one re-created under the same name is another device and needs a new open. */
        if (fstatat(n->dirfd, attrs(n)->key, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
            (errno == ENOENT || errno == ENODEV || errno == ENOTDIR))
                return false;
        return true;
}

/* --- discovery ------------------------------------------------------------------------------ */

static void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

static bool policy_number(const char *path, uint64_t *ret) {
        const char *name = strrchr(path, '/') + 1;

        return strneq(name, "policy", 6) && word_to_u64(name + 6, ret) >= 0;
}

static int cmp_discovered(const void *a, const void *b) {
        const char *x = *(char *const *) a, *y = *(char *const *) b;
        uint64_t i, j;

        if (policy_number(x, &i) && policy_number(y, &j) && i != j)
                return (i > j) - (i < j);
        return strcmp(x, y);
}

static int list_dir(const struct df_root *root, const char *dir, bool policies, char ***v, size_t *n) {
        _cleanup_(closedirp) DIR *d = NULL;
        int fd;

        fd = df_root_open_path(root, dir, O_RDONLY | O_DIRECTORY);
        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return fd;
        d = fdopendir(fd);
        if (!d) {
                safe_close(fd);
                return -errno;
        }
        for (struct dirent *de; (de = readdir(d));) {
                uint64_t num;
                char *p;

                if (!df_name_valid(de->d_name) || de->d_type == DT_REG)
                        continue;
                if (policies && !(strneq(de->d_name, "policy", 6) && word_to_u64(de->d_name + 6, &num) >= 0))
                        continue;
                char **nv = realloc(*v, (*n + 2) * sizeof(char *));
                if (!nv)
                        return -ENOMEM;
                *v = nv;
                if (asprintf(&p, "%s/%s", dir, de->d_name) < 0)
                        return -ENOMEM;
                (*v)[(*n)++] = p;
                (*v)[*n] = NULL;
        }
        return 0;
}

static void free_strv(char **v, size_t n) {
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
}

int df_node_discover(const struct df_root *root, char ***ret, size_t *ret_n) {
        char **v = NULL;
        size_t n = 0;
        int r;

        r = list_dir(root, "/sys/class/devfreq", false, &v, &n);
        if (r >= 0)
                r = list_dir(root, "/sys/devices/system/cpu/cpufreq", true, &v, &n);
        if (r < 0) {
                free_strv(v, n);
                return r;
        }
        if (n > 0)
                qsort(v, n, sizeof(char *), cmp_discovered);
        *ret = v;
        *ret_n = n;
        return 0;
}

/* --- frequencies, originals, governors ----------------------------------------------------- */

static int synthetic_table(const struct df_node *n, uint64_t step, uint64_t **ret, size_t *ret_n) {
        uint64_t span, *v;
        size_t count, i;

        if (step == 0 || n->hw_min == 0 || n->hw_min > n->hw_max)
                return -EINVAL;
        span = n->hw_max - n->hw_min;
        if (span / step >= DF_STATS_MAX_STATES)
                return -E2BIG;
        count = (size_t) (span / step) + 1 + (span % step != 0);
        if (count > DF_STATS_MAX_STATES)
                return -E2BIG;
        v = malloc(count * sizeof(uint64_t));
        if (!v)
                return -ENOMEM;
        for (i = 0; i <= span / step; i++)
                v[i] = n->hw_min + i * step;
        if (i < count)
                v[i] = n->hw_max;
        *ret = v;
        *ret_n = count;
        return 0;
}

int df_node_read_frequencies(struct df_node *n, uint64_t step, uint64_t **ret, size_t *ret_n) {
        _cleanup_free_ char *text = NULL;
        int r;

        if (n->kind == DF_KIND_CPUFREQ && !n->has_table)
                return synthetic_table(n, step, ret, ret_n);
        r = read_text(n->dirfd, attrs(n)->frequencies, &text);
        if (r < 0)
                return r;
        return df_parse_frequency_list(text, attrs(n)->scale, ret, ret_n);
}

int df_node_read_current(struct df_node *n, uint64_t *ret) {
        uint64_t v;
        int r;

        r = df_attr_read_u64(n->dirfd, attrs(n)->cur, &v);
        if (r < 0)
                return r;
        if (v > UINT64_MAX / attrs(n)->scale)
                return -ERANGE;
        *ret = v * attrs(n)->scale;
        return 0;
}

int df_node_read_originals(struct df_node *n, struct df_originals *ret) {
        struct df_originals o = {};
        int r;

        r = read_word(n->dirfd, attrs(n)->governor, o.governor, sizeof(o.governor));
        if (r >= 0)
                r = read_word(n->dirfd, attrs(n)->min, o.min, sizeof(o.min));
        if (r >= 0)
                r = read_word(n->dirfd, attrs(n)->max, o.max, sizeof(o.max));
        if (r >= 0 && n->kind == DF_KIND_CPUFREQ) {
                r = read_word(n->dirfd, "cpuinfo_min_freq", o.hw_min, sizeof(o.hw_min));
                if (r >= 0)
                        r = read_word(n->dirfd, "cpuinfo_max_freq", o.hw_max, sizeof(o.hw_max));
        } else if (r >= 0) {
                snprintf(o.hw_min, sizeof(o.hw_min), "%" PRIu64, n->hw_min);
                snprintf(o.hw_max, sizeof(o.hw_max), "%" PRIu64, n->hw_max);
        }
        if (r < 0)
                return r;
        *ret = o;
        return 0;
}

/*
 * The one place that writes: the originals are recorded before the first real write (not before
 * writing them back), dry-run only says what it would do, and a failure names the attribute.
 */
static int node_write(struct df_node *n, int fd, const char *attr, const char *value, bool restoring) {
        int r;

        if (n->dry_run) {
                df_logf(&n->log, LOG_INFO, "would write %s to %s/%s", value, n->path, attr);
                return 0;
        }
        if (!restoring && !n->wrote_once) {
                if (n->first_write) {
                        r = n->first_write(n, n->first_write_userdata);
                        if (r < 0) {
                                set_error(
                                        n, "not writing %s/%s: recording the original settings failed: %s",
                                        n->path, attr, strerror(-r));
                                return r;
                        }
                }
                n->wrote_once = true;
        }
        r = fd >= 0 ? df_attr_pwrite(fd, value) : df_attr_write(n->dirfd, attr, value);
        if (r < 0)
                set_error(n, "write %s/%s: %s", n->path, attr, strerror(-r));
        return r;
}

static int node_write_u64(struct df_node *n, int fd, const char *attr, uint64_t value) {
        char buf[32];

        snprintf(buf, sizeof(buf), "%" PRIu64, value);
        return node_write(n, fd, attr, buf, false);
}

/* A min at or below the lowest, or a max at or above the highest frequency, limits nothing. */
static bool at_bound(const char *value, const char *bound, bool is_min) {
        uint64_t v, b;

        if (!*bound)
                return false;
        if (word_to_u64(value, &v) < 0 || word_to_u64(bound, &b) < 0)
                return streq(value, bound);
        return is_min ? v <= b : v >= b;
}

int df_node_restore(struct df_node *n, const struct df_originals *o) {
        const struct kind_attrs *a = attrs(n);
        bool devfreq = n->kind == DF_KIND_DEVFREQ;
        const char *min = o->min, *max = o->max;
        uint64_t new_min, cur_max;
        int r = 0, k;

        close_kept(n);
        n->drive = DF_DRIVE_NONE;
        n->has_written = false;
        /* What follows a restore starts over: the originals are recorded again before it writes. */
        n->wrote_once = false;

        if (at_bound(min, o->hw_min, true))
                min = devfreq ? "0" : o->hw_min;
        if (at_bound(max, o->hw_max, false))
                max = devfreq ? "0" : o->hw_max;

        if (o->governor[0])
                r = node_write(n, -EBADF, a->governor, o->governor, true);

        /* Raising the min above the max in force would invert the range for a moment. */
        if (word_to_u64(min, &new_min) < 0)
                new_min = 0;
        if (df_attr_read_u64(n->dirfd, a->max, &cur_max) < 0)
                cur_max = UINT64_MAX;
        if (new_min > cur_max) {
                k = max[0] ? node_write(n, -EBADF, a->max, max, true) : 0;
                r = r < 0 ? r : k;
                k = min[0] ? node_write(n, -EBADF, a->min, min, true) : 0;
        } else {
                k = min[0] ? node_write(n, -EBADF, a->min, min, true) : 0;
                r = r < 0 ? r : k;
                k = max[0] ? node_write(n, -EBADF, a->max, max, true) : 0;
        }
        return r < 0 ? r : k;
}

int df_node_kernel_governor(struct df_node *n, char *buf, size_t size) {
        char gov[DF_ATTR_VALUE_MAX];
        size_t len;
        int r;

        /* The caller's buffer keeps its old contents on failure (the daemon shows it as it is). */
        r = read_word(n->dirfd, attrs(n)->governor, gov, sizeof(gov));
        if (r < 0)
                return r;
        len = strlen(gov);
        if (len >= size)
                return -EFBIG;
        memcpy(buf, gov, len + 1);
        return 0;
}

int df_node_kernel_governors(struct df_node *n, char ***ret, size_t *ret_n) {
        _cleanup_free_ char *text = NULL;
        char **v = NULL, *save = NULL;
        size_t k = 0;
        int r;

        r = read_text(n->dirfd, attrs(n)->governors, &text);
        if (r < 0)
                return r;
        for (char *w = strtok_r(text, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
                char **nv = realloc(v, (k + 2) * sizeof(char *));
                if (!nv || !(nv[k] = strdup(w))) {
                        free_strv(nv ? nv : v, k);
                        return -ENOMEM;
                }
                v = nv;
                v[++k] = NULL;
        }
        *ret = v;
        *ret_n = k;
        return 0;
}

int df_node_set_kernel_governor(struct df_node *n, const char *name) {
        _cleanup_free_ char *text = NULL;
        int r;

        if (!df_name_valid(name))
                return -EINVAL;
        r = read_text(n->dirfd, attrs(n)->governors, &text);
        if (r < 0)
                return r;
        if (!df_word_in_list(text, name))
                return -EINVAL;
        return node_write(n, -EBADF, attrs(n)->governor, name, false);
}

/* --- driving -------------------------------------------------------------------------------- */

static int open_kept(struct df_node *n, const char *attr, int flags, int *ret) {
        int fd;

        /* Dry-run writes nothing, so it keeps nothing open for writing either. */
        if (n->dry_run)
                return 0;
        fd = df_attr_open(n->dirfd, attr, flags);
        if (fd < 0) {
                set_error(n, "open %s/%s: %s", n->path, attr, strerror(-fd));
                return fd;
        }
        safe_close(*ret);
        *ret = fd;
        return 0;
}

static int select_userspace(struct df_node *n) {
        char gov[DF_ATTR_VALUE_MAX];
        int r;

        r = df_node_kernel_governor(n, gov, sizeof(gov));
        if (r < 0) {
                set_error(n, "read %s/%s: %s", n->path, attrs(n)->governor, strerror(-r));
                return r;
        }
        if (streq(gov, "userspace"))
                return 0;
        r = node_write(n, -EBADF, attrs(n)->governor, "userspace", false);
        return r < 0 ? r : 1;
}

int df_node_prepare(struct df_node *n, enum df_mode mode) {
        int r;

        if (mode < 0 || mode >= _DF_MODE_MAX)
                return -EINVAL;
        close_kept(n);
        n->drive = DF_DRIVE_NONE;
        n->has_written = false;
        n->written = n->written_min = n->written_max = 0;

        if (mode == DF_MODE_GOVERN && n->has_userspace) {
                r = select_userspace(n);
                if (r < 0)
                        return r;
                /* devfreq creates userspace/set_freq only while its governor is userspace. */
                r = open_kept(n, attrs(n)->applied, O_RDWR, &n->applied_fd);
                if (r < 0)
                        return r;
                n->drive = DF_DRIVE_USERSPACE;
                return 0;
        }
        r = open_kept(n, attrs(n)->min, O_WRONLY, &n->min_fd);
        if (r >= 0)
                r = open_kept(n, attrs(n)->max, O_WRONLY, &n->max_fd);
        if (r < 0) {
                close_kept(n);
                return r;
        }
        n->drive = mode == DF_MODE_GOVERN ? DF_DRIVE_PINNED : DF_DRIVE_CLAMP;
        return 0;
}

/* Both limits, in the order that keeps min <= max between the two writes. */
static int write_range(struct df_node *n, uint64_t min, uint64_t max, bool max_first) {
        uint64_t lo = to_node_units(n, min, ROUND_DOWN), hi = to_node_units(n, max, ROUND_UP);
        int r;

        n->has_written = false;
        for (int step = 0; step < 2; step++) {
                if ((step == 0) == max_first) {
                        r = node_write_u64(n, n->max_fd, attrs(n)->max, hi);
                        if (r < 0)
                                return r;
                        n->written_max = to_hz(n, hi);
                } else {
                        r = node_write_u64(n, n->min_fd, attrs(n)->min, lo);
                        if (r < 0)
                                return r;
                        n->written_min = to_hz(n, lo);
                }
        }
        n->has_written = true;
        return 0;
}

static int node_set_frequency(void *userdata, uint64_t freq, uint64_t previous) {
        struct df_node *n = userdata;
        uint64_t v;
        int r;

        switch (n->drive) {
        case DF_DRIVE_USERSPACE:
                v = to_node_units(n, freq, ROUND_NEAREST);
                r = node_write_u64(n, n->applied_fd, attrs(n)->applied, v);
                if (r < 0)
                        return r;
                n->written = to_hz(n, v);
                n->has_written = true;
                return 0;
        case DF_DRIVE_PINNED:
                /* Going up, raise max first; going down, lower min first. */
                return write_range(n, freq, freq, freq > previous);
        default:
                return -EOPNOTSUPP;
        }
}

static int node_set_range(void *userdata, uint64_t min, uint64_t max) {
        struct df_node *n = userdata;
        uint64_t old_max;

        if (n->drive != DF_DRIVE_CLAMP)
                return -EOPNOTSUPP;
        if (n->has_written)
                old_max = n->written_max;
        else if (df_attr_read_u64(n->dirfd, attrs(n)->max, &old_max) >= 0)
                old_max = to_hz(n, old_max);
        else
                old_max = UINT64_MAX;
        return write_range(n, min, max, min > old_max);
}

const struct df_backend_ops df_node_backend_ops = {
        .set_frequency = node_set_frequency,
        .set_range = node_set_range,
};

int df_node_check_foreign(struct df_node *n, uint64_t *ret_seen) {
        uint64_t v;
        int r;

        if (n->dry_run || n->drive != DF_DRIVE_USERSPACE || !n->has_written || n->applied_fd < 0)
                return 0;
        r = df_attr_pread_u64(n->applied_fd, &v);
        if (r < 0) {
                set_error(n, "read %s/%s: %s", n->path, attrs(n)->applied, strerror(-r));
                return r;
        }
        v = to_hz(n, v);
        if (v == n->written)
                return 0;
        if (ret_seen)
                *ret_seen = v;
        return 1;
}

int df_node_check_kernel_governor(struct df_node *n) {
        int r;

        if (n->dry_run || n->drive != DF_DRIVE_USERSPACE)
                return 0;
        r = select_userspace(n);
        if (r <= 0)
                return r;
        /* The governor's restart made a new set_freq; the kept descriptor is stale. */
        r = open_kept(n, attrs(n)->applied, O_RDWR, &n->applied_fd);
        if (r < 0)
                return r;
        n->has_written = false;
        return 1;
}

/* --- kernel statistics ---------------------------------------------------------------------- */

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
        return word_to_u64(buf, ret);
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
        return -1;
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

        r = read_text(n->dirfd, "stats/time_in_state", &text);
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
        r = read_text(n->dirfd, "stats/trans_table", &text);
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

        if (n->kind == DF_KIND_DEVFREQ) {
                _cleanup_free_ char *text = NULL;

                r = read_text(n->dirfd, "trans_stat", &text);
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
        if (n->kind == DF_KIND_DEVFREQ)
                return node_write(n, -EBADF, "trans_stat", "0", false);
        return node_write(n, -EBADF, "stats/reset", "1", false);
}
