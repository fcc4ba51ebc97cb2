/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A devfreq node or cpufreq policy: opening and discovery, its frequencies, the kernel governors.
 * Driving it is node-drive.c, its originals node-originals.c; kHz exists only in lib/node*.c. */

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"
#include "node-internal.h"
#include "node.h"
#include "stats.h"
#include "strv.h"
#include "units.h"

/* The largest attribute read whole (trans_stat and trans_table stop at PAGE_SIZE in the kernel). */
#define TEXT_MAX (1024 * 1024)

static const struct kind_attrs kind_attrs[_DF_KIND_MAX] = {
        [DF_KIND_DEVFREQ] = { "governor", "available_governors", "min_freq", "max_freq", "cur_freq",
                              "userspace/set_freq", "available_frequencies", "governor" },
        [DF_KIND_CPUFREQ] = { "scaling_governor", "scaling_available_governors", "scaling_min_freq",
                              "scaling_max_freq", "scaling_cur_freq", "scaling_setspeed",
                              "scaling_available_frequencies", "scaling_governor" },
};

const struct kind_attrs *node_attrs(const struct df_node *n) {
        assert(n);

        return &kind_attrs[n->kind];
}

static bool has_attr(int dirfd, const char *name) {
        struct stat st;

        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) >= 0;
}

/* A whole attribute of any size (lists, statistics): not for the hot path. */
int node_read_text(int dirfd, const char *name, char **ret) {
        _cleanup_close_ int fd = df_attr_open(dirfd, name, O_RDONLY);

        assert(ret);

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
int node_read_word(int dirfd, const char *name, char *buf, size_t size) {
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

uint64_t node_to_hz(const struct df_node *n, uint64_t v) {
        uint64_t s = df_kind_unit_hz(n->kind);

        return v > UINT64_MAX / s ? UINT64_MAX : v * s;
}

/* kernel: min_freq_store() floors, max_freq_store() rounds up, so the interval never shrinks. */
uint64_t to_node_units(const struct df_node *n, uint64_t hz, enum rounding how) {
        uint64_t s = df_kind_unit_hz(n->kind), q = hz / s, rem = hz % s;

        switch (how) {
        case ROUND_UP:
                return q + (rem != 0);
        case ROUND_NEAREST:
                return q + (rem >= s - s / 2);
        default:
                return q;
        }
}

uint64_t node_devfreq_shown(uint64_t hz, bool is_max) {
        return (hz / 1000 + (is_max && hz % 1000 != 0)) * 1000;
}

void node_close_kept(struct df_node *n) {
        assert(n);

        n->applied_fd = safe_close(n->applied_fd);
        n->min_fd = safe_close(n->min_fd);
        n->max_fd = safe_close(n->max_fd);
}

struct df_node *df_node_free(struct df_node *n) {
        if (!n)
                return NULL;
        node_close_kept(n);
        safe_close(n->dirfd);
        safe_close(n->root_fd);
        safe_close(n->cooling_fd);
        free(n->path);
        free(n->name);
        free(n->cpus);
        free(n->points);
        free(n);
        return NULL;
}

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
                unsigned *slot = GROW(v, n);
                if (!slot)
                        return -ENOMEM;
                *slot = (unsigned) c;
                n++;
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

        if (node_read_text(n->dirfd, "available_governors", &text) >= 0)
                n->has_userspace = df_word_in_list(text, "userspace");
        free(text);
        text = NULL;
        /* An empty or unreadable list is not fatal: df_node_read_frequencies() reports it. */
        if (node_read_text(n->dirfd, "available_frequencies", &text) >= 0 &&
            df_parse_frequency_list(text, 1, &f, &k) >= 0) {
                n->has_table = true;
                n->hw_min = f[0];
                n->hw_max = f[k - 1];
                n->points = TAKE_PTR(f);
                n->n_points = k;
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
        n->hw_min = node_to_hz(n, lo);
        n->hw_max = node_to_hz(n, hi);

        if (node_read_text(n->dirfd, "scaling_available_governors", &text) >= 0)
                n->has_userspace = df_word_in_list(text, "userspace");
        free(text);
        text = NULL;
        if (node_read_text(n->dirfd, "related_cpus", &text) >= 0)
                (void) parse_cpus(text, &n->cpus, &n->n_cpus);
        free(text);
        text = NULL;
        if (node_read_text(n->dirfd, "scaling_available_frequencies", &text) >= 0 &&
            df_parse_frequency_list(text, df_kind_unit_hz(DF_KIND_CPUFREQ), &f, &k) >= 0) {
                n->has_table = true;
                n->points = TAKE_PTR(f);
                n->n_points = k;
        }
        return 0;
}

/*
 * The type the kernel gives the node's cooling device: "devfreq-" and the devfreq device's parent
 * (6.1: of_devfreq_cooling_register_power(); the node is <parent>/devfreq/<name>), or "cpufreq-"
 * and the policy's CPU (cpufreq_cooling: policyN is CPU N's). "" when the path says neither.
 */
static void cooling_type(enum df_kind kind, const char *path, char *buf, size_t size) {
        const char *end, *start;

        buf[0] = '\0';
        if (kind == DF_KIND_CPUFREQ) {
                start = strrchr(path, '/');
                if (start && strneq(start + 1, "policy", 6))
                        snprintf(buf, size, "cpufreq-cpu%s", start + 7);
                return;
        }
        end = strrchr(path, '/');
        if (!end || end - path < 8 || !strneq(end - 8, "/devfreq", 8))
                return;
        end -= 8;
        for (start = end; start > path && start[-1] != '/'; start--)
                ;
        if (end > start && (size_t) (end - start) + 9 <= size)
                snprintf(buf, size, "devfreq-%.*s", (int) (end - start), start);
}

/* The node's cooling device, and the root to look it up in when a limit needs explaining
 * (node-cooling.c). A policy without a frequency table (intel_pstate) has no cpufreq_cooling. */
static int open_cooling(struct df_node *n, const struct df_root *root) {
        cooling_type(n->kind, n->path, n->cooling_type, sizeof(n->cooling_type));
        if (!n->cooling_type[0] || (n->kind == DF_KIND_CPUFREQ && !n->has_table))
                return 0;
        n->root_fd = fcntl(root->fd, F_DUPFD_CLOEXEC, 3);
        return n->root_fd < 0 ? -errno : 0;
}

int df_node_open(const struct df_root *root, const char *path, struct df_node **ret) {
        _cleanup_(df_node_freep) struct df_node *n = NULL;
        _cleanup_free_ char *canonical = NULL;
        const char *slash;
        int r;

        assert(ret);

        r = df_root_resolve(root, path, &canonical);
        if (r < 0)
                return r;
        /* Device nodes live in sysfs: never treat anything under /proc as one. */
        if (!strneq(canonical, "/sys/", 5))
                return -EXDEV;
        n = calloc(1, sizeof(*n));
        if (!n)
                return -ENOMEM;
        n->dirfd = n->applied_fd = n->min_fd = n->max_fd = n->root_fd = n->cooling_fd = -EBADF;
        n->dirfd = df_root_open_path(root, canonical, O_PATH | O_DIRECTORY);
        if (n->dirfd < 0)
                return n->dirfd == -ENOTDIR ? -ENODEV : n->dirfd;
        n->on_sysfs = df_fd_on_sysfs(n->dirfd);

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
        if (r >= 0)
                r = open_cooling(n, root);
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
        if (fstatat(n->dirfd, node_attrs(n)->key, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
            (errno == ENOENT || errno == ENODEV || errno == ENOTDIR))
                return false;
        return true;
}

/* Whether the policy in dirfd has an online CPU. A policy whose CPUs are all offline is inactive:
 * the kernel refuses every read of its attributes with EBUSY (cpufreq.c's show()). Older fakes
 * listed no CPU in affected_cpus. */
static bool policy_online(int dirfd) {
        _cleanup_free_ char *text = NULL;
        int r;

        r = node_read_text(dirfd, "affected_cpus", &text);
        if (r < 0)
                return r != -EBUSY;
        return text[strspn(text, " \t\n")] != '\0';
}

bool df_node_online(const struct df_node *n) {
        assert(n);

        return n->kind != DF_KIND_CPUFREQ || policy_online(n->dirfd);
}

bool df_node_path_offline(const struct df_root *root, const char *path) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        assert(root);
        assert(path);

        /* A devfreq node has no affected_cpus: it is never offline. */
        fd = df_root_open_path(root, path, O_PATH | O_DIRECTORY);
        return fd >= 0 && fstatat(fd, "affected_cpus", &st, AT_SYMLINK_NOFOLLOW) == 0 && !policy_online(fd);
}

/* --- discovery ------------------------------------------------------------------------------ */

static bool policy_number(const char *path, uint64_t *ret) {
        const char *name = strrchr(path, '/') + 1;

        return strneq(name, "policy", 6) && df_safe_atou64(name + 6, ret) >= 0;
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
        int k;

        k = df_root_opendir(root, dir, &d);
        if (k == -ENOENT)
                return 0;
        if (k < 0)
                return k;
        for (struct dirent *de; (de = readdir(d));) {
                uint64_t num;
                char *p;

                if (!df_name_valid(de->d_name) || de->d_type == DT_REG)
                        continue;
                if (policies && !(strneq(de->d_name, "policy", 6) && df_safe_atou64(de->d_name + 6, &num) >= 0))
                        continue;
                if (asprintf(&p, "%s/%s", dir, de->d_name) < 0 || strv_consume(v, n, p) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int df_node_discover(const struct df_root *root, char ***ret, size_t *ret_n) {
        char **v = NULL;
        size_t n = 0;
        int r;

        assert(ret);
        assert(ret_n);

        r = list_dir(root, "/sys/class/devfreq", false, &v, &n);
        if (r >= 0)
                r = list_dir(root, "/sys/devices/system/cpu/cpufreq", true, &v, &n);
        if (r < 0) {
                strv_free(v, n);
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

        assert(n);
        assert(ret);
        assert(ret_n);

        if (n->kind == DF_KIND_CPUFREQ && !n->has_table)
                return synthetic_table(n, step, ret, ret_n);
        r = node_read_text(n->dirfd, node_attrs(n)->frequencies, &text);
        if (r < 0)
                return r;
        return df_parse_frequency_list(text, df_kind_unit_hz(n->kind), ret, ret_n);
}

int df_node_read_current(struct df_node *n, uint64_t *ret) {
        uint64_t v;
        int r;

        assert(n);
        assert(ret);

        r = df_attr_read_u64(n->dirfd, node_attrs(n)->cur, &v);
        if (r < 0)
                return r;
        if (v > UINT64_MAX / df_kind_unit_hz(n->kind))
                return -ERANGE;
        *ret = v * df_kind_unit_hz(n->kind);
        return 0;
}

int df_node_kernel_governor(struct df_node *n, char *buf, size_t size) {
        char gov[DF_ATTR_VALUE_MAX];
        size_t len;
        int r;

        assert(n);
        assert(buf);

        /* The caller's buffer keeps its old contents on failure (the daemon shows it as it is). */
        r = node_read_word(n->dirfd, node_attrs(n)->governor, gov, sizeof(gov));
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

        assert(n);
        assert(ret);
        assert(ret_n);

        r = node_read_text(n->dirfd, node_attrs(n)->governors, &text);
        if (r < 0)
                return r;
        for (char *w = strtok_r(text, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
                if (strv_push(&v, &k, w) < 0) {
                        strv_free(v, k);
                        return -ENOMEM;
                }
        }
        *ret = v;
        *ret_n = k;
        return 0;
}

int df_node_offers_governor(struct df_node *n, const char *name) {
        _cleanup_free_ char *text = NULL;
        int r;

        assert(n);

        if (!df_name_valid(name))
                return 0;
        r = node_read_text(n->dirfd, node_attrs(n)->governors, &text);
        if (r < 0) {
                node_set_error(n, "read %s/%s: %s", n->path, node_attrs(n)->governors, strerror(-r));
                return r;
        }
        return df_word_in_list(text, name);
}
