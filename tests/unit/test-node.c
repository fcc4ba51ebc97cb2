/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Nodes against a fake root: opening and discovery, tables, originals and restore, the three ways
 * of driving a node, dry-run, foreign writers, errors and the kernel's statistics. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "node.h"
#include "stats.h"
#include "test-helpers.h"

#define MHZ UINT64_C(1000000)
#define GPU "sys/devices/platform/ff9a0000.gpu/devfreq/ff9a0000.gpu"
#define GPU_PATH "/" GPU
#define POLICY "sys/devices/system/cpu/cpufreq/policy"

/* --- a root in a temporary directory (test-helpers.h) ------------------------------------------ */
/* df_test_put() rewrites a file in place (same inode), as a kernel attribute changes under a kept
 * descriptor. */

/*
 * Replace an attribute with a FIFO and hold its read end: opens for writing succeed at once, but
 * every pwrite() fails with ESPIPE, even for root. Returns the read end (close it afterwards).
 */
static int put_failing(const char *root, const char *rel) {
        char path[PATH_MAX];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        (void) unlink(path);
        ck_assert_msg(mkfifo(path, 0644) == 0, "mkfifo %s: %m", path);
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        return fd;
}

#define assert_file(root, rel, expected)                                                                     \
        do {                                                                                                 \
                char *_t = df_test_get(root, rel);                                                           \
                ck_assert_str_eq(_t, expected);                                                              \
                free(_t);                                                                                    \
        } while (0)

/* Every name, type, size, content, link target and timestamp below `path`, in a fixed order. */
static void dump_tree(const char *path, FILE *out) {
        struct dirent **names;
        int n = scandir(path, &names, NULL, alphasort);

        ck_assert_int_ge(n, 0);
        for (int i = 0; i < n; i++) {
                char p[PATH_MAX];
                struct stat st;

                if (streq(names[i]->d_name, ".") || streq(names[i]->d_name, "..")) {
                        free(names[i]);
                        continue;
                }
                snprintf(p, sizeof(p), "%s/%s", path, names[i]->d_name);
                free(names[i]);
                ck_assert_int_eq(lstat(p, &st), 0);
                fprintf(out, "%s %o %lld %lld.%09ld %lld.%09ld\n", p, (unsigned) st.st_mode,
                        (long long) st.st_size, (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                        (long long) st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
                if (S_ISDIR(st.st_mode))
                        dump_tree(p, out);
                else if (S_ISREG(st.st_mode)) {
                        char *t = df_test_read_file(p);
                        fprintf(out, "%s\n", t);
                        free(t);
                } else if (S_ISLNK(st.st_mode)) {
                        char t[PATH_MAX];
                        ssize_t k = readlink(p, t, sizeof(t) - 1);
                        ck_assert_int_ge(k, 0);
                        t[k] = '\0';
                        fprintf(out, "-> %s\n", t);
                }
        }
        free(names);
}

static char *snapshot(const char *root) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        ck_assert_ptr_nonnull(f);
        dump_tree(root, f);
        fclose(f);
        return text;
}

/* --- fixtures -------------------------------------------------------------------------------- */

static void make_devfreq(const char *root, const char *name, bool userspace) {
        char base[256], p[512], target[512];

        snprintf(base, sizeof(base), "sys/devices/platform/%s/devfreq/%s", name, name);
#define F(attr, value)                                                                                       \
        do {                                                                                                 \
                snprintf(p, sizeof(p), "%s/%s", base, attr);                                                 \
                df_test_put(root, p, value);                                                                 \
        } while (0)
        F("available_frequencies", "200000000 400000000 600000000 800000000\n");
        F("governor", "simple_ondemand\n");
        F("available_governors",
          userspace ? "userspace powersave performance simple_ondemand\n" :
                      "powersave performance simple_ondemand\n");
        F("min_freq", "200000000\n");
        F("max_freq", "800000000\n");
        F("cur_freq", "400000000\n");
        F("target_freq", "400000000\n");
        F("trans_stat", "Not Supported.\n");
        if (userspace)
                F("userspace/set_freq", "undefined\n");
#undef F
        snprintf(p, sizeof(p), "sys/class/devfreq/%s", name);
        snprintf(target, sizeof(target), "../../devices/platform/%s/devfreq/%s", name, name);
        df_test_put_link(root, p, target);
}

/* table: acpi-cpufreq-like, 800 MHz - 2.4 GHz listed in descending order, with stats/.
 * Without: intel_pstate-like, 400 MHz - 4.65 GHz, no list, no userspace, no stats. */
static void make_policy(const char *root, unsigned n, bool table) {
        char base[256], p[512];

        snprintf(base, sizeof(base), POLICY "%u", n);
#define F(attr, value)                                                                                       \
        do {                                                                                                 \
                snprintf(p, sizeof(p), "%s/%s", base, attr);                                                 \
                df_test_put(root, p, value);                                                                 \
        } while (0)
        F("related_cpus", "0 1 2 3\n");
        F("affected_cpus", "0 1 2 3\n");
        F("cpuinfo_min_freq", table ? "800000\n" : "400000\n");
        F("cpuinfo_max_freq", table ? "2400000\n" : "4650000\n");
        F("scaling_min_freq", table ? "800000\n" : "400000\n");
        F("scaling_max_freq", table ? "2400000\n" : "4650000\n");
        F("scaling_cur_freq", "1600000\n");
        F("scaling_driver", table ? "acpi-cpufreq\n" : "intel_pstate\n");
        F("scaling_governor", table ? "schedutil\n" : "powersave\n");
        F("scaling_available_governors",
          table ? "conservative ondemand userspace powersave performance schedutil \n" :
                  "performance powersave \n");
        if (table) {
                F("scaling_setspeed", "<unsupported>\n");
                F("scaling_available_frequencies", "2400000 2000000 1600000 1200000 800000 \n");
        }
#undef F
}

struct fixture {
        char *root;
        struct df_root r;
        struct df_node *n;
        unsigned first_writes;
        int first_write_result;
        char log[8192];
        int last_level;
};

static int count_first_write(struct df_node *n, void *userdata) {
        struct fixture *f = userdata;

        f->first_writes++;
        return f->first_write_result;
}

static void collect_log(void *userdata, int level, const char *message) {
        struct fixture *f = userdata;
        size_t len = strlen(f->log);

        snprintf(f->log + len, sizeof(f->log) - len, "%s\n", message);
        f->last_level = level;
}

static void fixture_open(struct fixture *f, const char *path) {
        ck_assert_int_eq(df_root_open(f->root, &f->r), 0);
        ck_assert_int_eq(df_node_open(&f->r, path, &f->n), 0);
        f->n->first_write = count_first_write;
        f->n->first_write_userdata = f;
        f->n->log = (struct df_log){ .fn = collect_log, .userdata = f };
}

static struct fixture *fixture_devfreq(bool userspace) {
        struct fixture *f = calloc(1, sizeof(*f));

        ck_assert_ptr_nonnull(f);
        f->root = df_test_root_new("node");
        make_devfreq(f->root, "ff9a0000.gpu", userspace);
        fixture_open(f, "/sys/class/devfreq/ff9a0000.gpu");
        return f;
}

static struct fixture *fixture_policy(bool table) {
        struct fixture *f = calloc(1, sizeof(*f));

        ck_assert_ptr_nonnull(f);
        f->root = df_test_root_new("node");
        make_policy(f->root, 0, table);
        fixture_open(f, "/" POLICY "0");
        return f;
}

static void fixture_free(struct fixture *f) {
        df_node_free(f->n);
        df_root_close(&f->r);
        df_test_root_free(f->root);
        free(f);
}

static int set_frequency(struct fixture *f, uint64_t freq, uint64_t previous) {
        return df_node_backend_ops.set_frequency(f->n, freq, previous);
}

static int set_range(struct fixture *f, uint64_t min, uint64_t max) {
        return df_node_backend_ops.set_range(f->n, min, max);
}

/* --- opening --------------------------------------------------------------------------------- */

START_TEST(test_open_devfreq) {
        struct fixture *f = fixture_devfreq(true);

        ck_assert_int_eq(f->n->kind, DF_KIND_DEVFREQ);
        ck_assert_str_eq(f->n->path, GPU_PATH);
        ck_assert_str_eq(f->n->name, "ff9a0000.gpu");
        ck_assert(f->n->has_userspace);
        ck_assert(f->n->has_table);
        ck_assert_uint_eq(f->n->hw_min, 200 * MHZ);
        ck_assert_uint_eq(f->n->hw_max, 800 * MHZ);
        /* devfreq_cooling names its device after the devfreq device's parent. */
        ck_assert_str_eq(f->n->cooling_type, "devfreq-ff9a0000.gpu");
        ck_assert_int_ge(f->n->root_fd, 0);
        ck_assert_int_eq(f->n->drive, DF_DRIVE_NONE);
        ck_assert_int_lt(f->n->applied_fd, 0);
        ck_assert(df_node_exists(f->n));
        fixture_free(f);

        f = fixture_devfreq(false);
        ck_assert(!f->n->has_userspace);
        ck_assert_str_eq(df_kind_to_string(f->n->kind), "devfreq");
        ck_assert_int_eq(df_kind_from_string("cpufreq"), DF_KIND_CPUFREQ);
        ck_assert_int_eq(df_kind_from_string("gpu"), _DF_KIND_INVALID);
        fixture_free(f);
}
END_TEST

START_TEST(test_open_cpufreq) {
        struct fixture *f = fixture_policy(true);

        ck_assert_int_eq(f->n->kind, DF_KIND_CPUFREQ);
        ck_assert_str_eq(f->n->name, "policy0");
        ck_assert_str_eq(f->n->path, "/" POLICY "0");
        ck_assert(f->n->has_userspace);
        ck_assert(f->n->has_table);
        ck_assert_uint_eq(f->n->hw_min, 800 * MHZ);
        ck_assert_uint_eq(f->n->hw_max, 2400 * MHZ);
        ck_assert_uint_eq(f->n->n_cpus, 4);
        for (unsigned i = 0; i < 4; i++)
                ck_assert_uint_eq(f->n->cpus[i], i);
        /* cpufreq_cooling names its device after the policy's CPU. */
        ck_assert_str_eq(f->n->cooling_type, "cpufreq-cpu0");
        ck_assert_int_ge(f->n->root_fd, 0);
        fixture_free(f);

        f = fixture_policy(false);
        ck_assert(!f->n->has_userspace);
        ck_assert(!f->n->has_table);
        /* No table, no cpufreq_cooling: nothing to look up. */
        ck_assert_int_lt(f->n->root_fd, 0);
        ck_assert_uint_eq(f->n->hw_min, 400 * MHZ);
        ck_assert_uint_eq(f->n->hw_max, 4650 * MHZ);
        fixture_free(f);
}
END_TEST

START_TEST(test_open_errors) {
        char *root = df_test_root_new("node");
        struct df_root r;
        struct df_node *n = NULL;

        make_devfreq(root, "gpu", true);
        df_test_put(root, "sys/devices/platform/gpu/modalias", "of:gpu\n");
        df_test_put(root, "etc/devfreq/governor", "x\n");
        df_test_put(root, "etc/devfreq/available_frequencies", "100\n");
        df_test_put_link(root, "sys/class/devfreq/evil", "/etc/devfreq");
        ck_assert_int_eq(df_root_open(root, &r), 0);

        ck_assert_int_eq(df_node_open(&r, "/sys/class/devfreq/missing", &n), -ENOENT);
        ck_assert_int_eq(df_node_open(&r, "/sys/devices/platform/gpu", &n), -ENODEV);
        ck_assert_int_eq(df_node_open(&r, "/sys/devices/platform/gpu/modalias", &n), -ENODEV);
        ck_assert_int_eq(df_node_open(&r, "/sys/class/devfreq/evil", &n), -EXDEV);
        ck_assert_int_eq(df_node_open(&r, "/sys/class/devfreq/../../etc", &n), -EINVAL);
        ck_assert_ptr_null(n);
        /* A cpu's cpufreq link leads to its policy. */
        make_policy(root, 0, true);
        df_test_put_link(root, "sys/devices/system/cpu/cpu0/cpufreq", "../cpufreq/policy0");
        ck_assert_int_eq(df_node_open(&r, "/sys/devices/system/cpu/cpu0/cpufreq", &n), 0);
        ck_assert_str_eq(n->path, "/" POLICY "0");
        df_node_free(n);

        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

START_TEST(test_exists) {
        struct fixture *f = fixture_devfreq(true);
        char path[PATH_MAX];

        ck_assert(df_node_exists(f->n));
        snprintf(path, sizeof(path), "%s/sys/devices/platform/ff9a0000.gpu", f->root);
        df_test_rm_rf(path);
        ck_assert(!df_node_exists(f->n));
        fixture_free(f);
}
END_TEST

START_TEST(test_discover) {
        static const char *const expected[] = {
                "/sys/class/devfreq/dmc", "/sys/class/devfreq/ff9a0000.gpu",
                "/" POLICY "0",           "/" POLICY "1",
                "/" POLICY "2",           "/" POLICY "10",
        };
        char *root = df_test_root_new("node");
        struct df_root r;
        char **v = NULL;
        size_t n = 99;

        ck_assert_int_eq(df_root_open(root, &r), 0);
        ck_assert_int_eq(df_node_discover(&r, &v, &n), 0);
        ck_assert_uint_eq(n, 0);
        free(v);

        make_devfreq(root, "ff9a0000.gpu", true);
        make_devfreq(root, "dmc", false);
        make_policy(root, 10, true);
        make_policy(root, 2, true);
        make_policy(root, 0, false);
        make_policy(root, 1, true);
        df_test_put(root, "sys/devices/system/cpu/cpufreq/boost", "1\n");
        df_test_put(root, "sys/devices/system/cpu/cpufreq/policyx/scaling_governor", "x\n");
        df_test_put(root, "sys/devices/system/cpu/cpufreq/ondemand/up_threshold", "95\n");

        ck_assert_int_eq(df_node_discover(&r, &v, &n), 0);
        ck_assert_uint_eq(n, ELEMENTSOF(expected));
        for (size_t i = 0; i < n; i++) {
                ck_assert_str_eq(v[i], expected[i]);
                free(v[i]);
        }
        free(v);
        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

/* --- tables ---------------------------------------------------------------------------------- */

START_TEST(test_frequencies_listed) {
        static const uint64_t gpu[] = { 200 * MHZ, 400 * MHZ, 600 * MHZ, 800 * MHZ };
        static const uint64_t cpu[] = { 800 * MHZ, 1200 * MHZ, 1600 * MHZ, 2000 * MHZ, 2400 * MHZ };
        struct fixture *f = fixture_devfreq(true);
        uint64_t *v, cur;
        size_t n;

        ck_assert_int_eq(df_node_read_frequencies(f->n, 100 * MHZ, &v, &n), 0);
        ck_assert_uint_eq(n, ELEMENTSOF(gpu));
        ck_assert_mem_eq(v, gpu, sizeof(gpu));
        free(v);
        ck_assert_int_eq(df_node_read_current(f->n, &cur), 0);
        ck_assert_uint_eq(cur, 400 * MHZ);
        fixture_free(f);

        f = fixture_policy(true);
        ck_assert_int_eq(df_node_read_frequencies(f->n, 100 * MHZ, &v, &n), 0);
        ck_assert_uint_eq(n, ELEMENTSOF(cpu));
        ck_assert_mem_eq(v, cpu, sizeof(cpu));
        free(v);
        ck_assert_int_eq(df_node_read_current(f->n, &cur), 0);
        ck_assert_uint_eq(cur, 1600 * MHZ);
        fixture_free(f);
}
END_TEST

START_TEST(test_frequencies_synthetic) {
        struct fixture *f = fixture_policy(false);
        uint64_t *v = NULL;
        size_t n;

        /* 400 MHz .. 4.65 GHz in 100 MHz steps: 43 points, then the maximum itself. */
        ck_assert_int_eq(df_node_read_frequencies(f->n, 100 * MHZ, &v, &n), 0);
        ck_assert_uint_eq(n, 44);
        ck_assert_uint_eq(v[0], 400 * MHZ);
        ck_assert_uint_eq(v[1], 500 * MHZ);
        ck_assert_uint_eq(v[42], 4600 * MHZ);
        ck_assert_uint_eq(v[43], 4650 * MHZ);
        free(v);
        /* A step dividing the range: the maximum is a step point, not repeated. */
        ck_assert_int_eq(df_node_read_frequencies(f->n, 425 * MHZ, &v, &n), 0);
        ck_assert_uint_eq(n, 11);
        ck_assert_uint_eq(v[10], 4650 * MHZ);
        ck_assert_uint_eq(v[9], 4225 * MHZ);
        free(v);
        /* Exactly DF_STATS_MAX_STATES points, then one too many. */
        ck_assert_int_eq(df_node_read_frequencies(f->n, 4154448, &v, &n), 0);
        ck_assert_uint_eq(n, DF_STATS_MAX_STATES);
        ck_assert_uint_eq(v[n - 1], 4650 * MHZ);
        free(v);
        v = NULL;
        ck_assert_int_eq(df_node_read_frequencies(f->n, 4150000, &v, &n), -E2BIG);
        ck_assert_int_eq(df_node_read_frequencies(f->n, 1, &v, &n), -E2BIG);
        ck_assert_int_eq(df_node_read_frequencies(f->n, 0, &v, &n), -EINVAL);
        ck_assert_ptr_null(v);
        fixture_free(f);
}
END_TEST

/* --- originals and restore ------------------------------------------------------------------- */

START_TEST(test_originals) {
        struct fixture *f = fixture_devfreq(true);
        struct df_originals o;

        df_test_put(f->root, GPU "/max_freq", "600000000\n"); /* a thermal cap at start-up */
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.governor, "simple_ondemand");
        ck_assert_str_eq(o.min, "200000000");
        ck_assert_str_eq(o.max, "600000000");
        ck_assert_str_eq(o.hw_min, "200000000");
        ck_assert_str_eq(o.hw_max, "800000000");
        fixture_free(f);

        f = fixture_policy(true);
        df_test_put(f->root, POLICY "0/scaling_max_freq", "2000000\n");
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.governor, "schedutil");
        ck_assert_str_eq(o.min, "800000");
        ck_assert_str_eq(o.max, "2000000");
        ck_assert_str_eq(o.hw_min, "800000");
        ck_assert_str_eq(o.hw_max, "2400000");
        fixture_free(f);
}
END_TEST

/* Under the kernel's userspace governor the frequency set is kept; devfreq's "undefined" (nothing
 * set yet, the device held where it was) is kept as the frequency it runs at. */
START_TEST(test_originals_userspace) {
        struct fixture *f = fixture_devfreq(true);
        struct df_originals o;

        df_test_put(f->root, GPU "/governor", "userspace\n");
        df_test_put(f->root, GPU "/userspace/set_freq", "600000000\n");
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.freq, "600000000");

        df_test_put(f->root, GPU "/userspace/set_freq", "undefined\n");
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.freq, "400000000");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 800 * MHZ, 0), 0);
        assert_file(f->root, GPU "/userspace/set_freq", "800000000");
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        assert_file(f->root, GPU "/governor", "userspace");
        assert_file(f->root, GPU "/userspace/set_freq", "400000000");

        /* Neither readable as a frequency: there is none to keep. */
        df_test_put(f->root, GPU "/userspace/set_freq", "undefined\n");
        df_test_put(f->root, GPU "/cur_freq", "garbage\n");
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.freq, "");

        /* Under another governor no frequency is kept. */
        df_test_put(f->root, GPU "/governor", "simple_ondemand\n");
        df_test_put(f->root, GPU "/cur_freq", "400000000\n");
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.freq, "");
        fixture_free(f);
}
END_TEST

START_TEST(test_restore_no_limit) {
        struct fixture *f = fixture_devfreq(true);
        struct df_originals o;

        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), 0);
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        assert_file(f->root, GPU "/governor", "simple_ondemand");
        /* At the hardware bounds: devfreq's "no limit". */
        assert_file(f->root, GPU "/min_freq", "0");
        assert_file(f->root, GPU "/max_freq", "0");
        ck_assert_int_eq(f->n->drive, DF_DRIVE_NONE);
        ck_assert_int_lt(f->n->applied_fd, 0);
        ck_assert_uint_eq(f->first_writes, 1);

        /* A cap present at start-up is restored as it was, not made "no limit". */
        snprintf(o.max, sizeof(o.max), "600000000");
        snprintf(o.min, sizeof(o.min), "400000000");
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        assert_file(f->root, GPU "/min_freq", "400000000");
        assert_file(f->root, GPU "/max_freq", "600000000");
        fixture_free(f);

        f = fixture_policy(true);
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        ck_assert_int_eq(set_range(f, 1200 * MHZ, 1600 * MHZ), 0);
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        assert_file(f->root, POLICY "0/scaling_governor", "schedutil");
        /* cpufreq's "no limit" is the cpuinfo bound. */
        assert_file(f->root, POLICY "0/scaling_min_freq", "800000");
        assert_file(f->root, POLICY "0/scaling_max_freq", "2400000");
        fixture_free(f);

        /* The bound as the policy gives it when the limit is written back: turbo switched on since
         * the record raised cpuinfo_max_freq, and "no limit" is the new top, not a cap at the old. */
        f = fixture_policy(false);
        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.hw_max, "4650000");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        ck_assert_int_eq(set_range(f, 1200 * MHZ, 2000 * MHZ), 0);
        df_test_put(f->root, POLICY "0/cpuinfo_max_freq", "5200000\n");
        df_test_put(f->root, POLICY "0/cpuinfo_min_freq", "300000\n");
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        assert_file(f->root, POLICY "0/scaling_min_freq", "300000");
        assert_file(f->root, POLICY "0/scaling_max_freq", "5200000");
        /* A bound that cannot be read: the recorded one. */
        df_test_put(f->root, POLICY "0/cpuinfo_max_freq", "garbage\n");
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        assert_file(f->root, POLICY "0/scaling_max_freq", "4650000");
        fixture_free(f);
}
END_TEST

START_TEST(test_restore_order) {
        struct fixture *f = fixture_devfreq(true);
        struct df_originals o;

        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        f->n->dry_run = true;

        /* The range in force lies below the original min: max goes first. */
        df_test_put(f->root, GPU "/min_freq", "200000000\n");
        df_test_put(f->root, GPU "/max_freq", "400000000\n");
        snprintf(o.min, sizeof(o.min), "600000000");
        snprintf(o.max, sizeof(o.max), "700000000");
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        ck_assert_str_eq(
                f->log,
                "would write simple_ondemand to " GPU_PATH "/governor\n"
                "would write 700000000 to " GPU_PATH "/max_freq\n"
                "would write 600000000 to " GPU_PATH "/min_freq\n");

        /* The range in force lies above the original max: min goes first. */
        f->log[0] = '\0';
        df_test_put(f->root, GPU "/min_freq", "600000000\n");
        df_test_put(f->root, GPU "/max_freq", "800000000\n");
        snprintf(o.min, sizeof(o.min), "200000000");
        snprintf(o.max, sizeof(o.max), "400000000");
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        ck_assert_str_eq(
                f->log,
                "would write simple_ondemand to " GPU_PATH "/governor\n"
                "would write 0 to " GPU_PATH "/min_freq\n"
                "would write 400000000 to " GPU_PATH "/max_freq\n");
        ck_assert_int_eq(f->last_level, LOG_INFO);
        fixture_free(f);
}
END_TEST

START_TEST(test_restore_tries_everything) {
        struct fixture *f = fixture_devfreq(true);
        struct df_originals o;
        int reader;

        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        snprintf(o.max, sizeof(o.max), "600000000");
        df_test_put(f->root, GPU "/min_freq", "400000000\n");
        reader = put_failing(f->root, GPU "/governor");
        ck_assert_int_eq(df_node_restore(f->n, &o), -ESPIPE);
        ck_assert_str_eq(f->n->error, "write " GPU_PATH "/governor: Illegal seek");
        assert_file(f->root, GPU "/min_freq", "0");
        assert_file(f->root, GPU "/max_freq", "600000000");
        /* Writing the originals back does not record them first. */
        ck_assert_uint_eq(f->first_writes, 0);
        close(reader);
        fixture_free(f);
}
END_TEST

/* --- driving --------------------------------------------------------------------------------- */

START_TEST(test_drive_userspace_devfreq) {
        struct fixture *f = fixture_devfreq(true);

        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(f->n->drive, DF_DRIVE_USERSPACE);
        ck_assert_int_ge(f->n->applied_fd, 0);
        assert_file(f->root, GPU "/governor", "userspace");
        ck_assert_uint_eq(f->first_writes, 1);

        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), 0);
        assert_file(f->root, GPU "/userspace/set_freq", "400000000");
        ck_assert(f->n->has_written);
        ck_assert_uint_eq(f->n->written, 400 * MHZ);
        ck_assert_int_eq(set_frequency(f, 800 * MHZ, 400 * MHZ), 0);
        assert_file(f->root, GPU "/userspace/set_freq", "800000000");
        ck_assert_int_eq(set_frequency(f, 200 * MHZ, 800 * MHZ), 0);
        assert_file(f->root, GPU "/userspace/set_freq", "200000000");
        /* min and max are not touched when the kernel's userspace governor is used. */
        assert_file(f->root, GPU "/min_freq", "200000000\n");
        assert_file(f->root, GPU "/max_freq", "800000000\n");
        ck_assert_uint_eq(f->first_writes, 1);
        ck_assert_int_eq(set_range(f, 200 * MHZ, 400 * MHZ), -EOPNOTSUPP);
        fixture_free(f);
}
END_TEST

START_TEST(test_drive_userspace_already) {
        struct fixture *f = fixture_devfreq(true);
        char *before, *after;

        df_test_put(f->root, GPU "/governor", "userspace\n");
        before = snapshot(f->root);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        after = snapshot(f->root);
        ck_assert_str_eq(before, after);
        ck_assert_uint_eq(f->first_writes, 0);
        ck_assert_int_eq(set_frequency(f, 600 * MHZ, 0), 0);
        ck_assert_uint_eq(f->first_writes, 1);
        free(before);
        free(after);
        fixture_free(f);
}
END_TEST

START_TEST(test_drive_userspace_cpufreq) {
        struct fixture *f = fixture_policy(true);

        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(f->n->drive, DF_DRIVE_USERSPACE);
        assert_file(f->root, POLICY "0/scaling_governor", "userspace");
        ck_assert_int_eq(set_frequency(f, 1600 * MHZ, 0), 0);
        assert_file(f->root, POLICY "0/scaling_setspeed", "1600000");
        ck_assert_uint_eq(f->n->written, 1600 * MHZ);
        /* kHz rounded to nearest, and remembered as the Hz the kernel will show. */
        ck_assert_int_eq(set_frequency(f, 1600000499, 0), 0);
        assert_file(f->root, POLICY "0/scaling_setspeed", "1600000");
        ck_assert_int_eq(set_frequency(f, 1600000500, 0), 0);
        assert_file(f->root, POLICY "0/scaling_setspeed", "1600001");
        ck_assert_uint_eq(f->n->written, 1600001000);
        ck_assert_uint_eq(f->first_writes, 1);
        fixture_free(f);
}
END_TEST

START_TEST(test_drive_pinned) {
        struct fixture *f = fixture_devfreq(false);
        char *before, *after;

        before = snapshot(f->root);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        after = snapshot(f->root);
        ck_assert_str_eq(before, after); /* pinning writes nothing until a frequency is set */
        ck_assert_int_eq(f->n->drive, DF_DRIVE_PINNED);
        ck_assert_int_eq(set_frequency(f, 600 * MHZ, 400 * MHZ), 0);
        assert_file(f->root, GPU "/min_freq", "600000000");
        assert_file(f->root, GPU "/max_freq", "600000000");
        ck_assert_int_eq(set_frequency(f, 200 * MHZ, 600 * MHZ), 0);
        assert_file(f->root, GPU "/min_freq", "200000000");
        assert_file(f->root, GPU "/max_freq", "200000000");
        assert_file(f->root, GPU "/governor", "simple_ondemand\n");
        ck_assert_uint_eq(f->first_writes, 1);
        free(before);
        free(after);
        fixture_free(f);

        /* cpufreq in kHz: min rounds down, max up, so the target stays inside. */
        f = fixture_policy(false);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(f->n->drive, DF_DRIVE_PINNED);
        ck_assert_int_eq(set_frequency(f, 1600000500, 0), 0);
        assert_file(f->root, POLICY "0/scaling_min_freq", "1600000");
        assert_file(f->root, POLICY "0/scaling_max_freq", "1600001");
        ck_assert_uint_eq(f->n->written_min, 1600 * MHZ);
        ck_assert_uint_eq(f->n->written_max, 1600001000);
        fixture_free(f);
}
END_TEST

/* Which of the two writes comes first shows in which one lands when the other fails. */
START_TEST(test_drive_pinned_order) {
        struct fixture *f = fixture_devfreq(false);
        int reader;

        /* Going up: max first, so with min failing the new max is in place. */
        reader = put_failing(f->root, GPU "/min_freq");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 600 * MHZ, 400 * MHZ), -ESPIPE);
        assert_file(f->root, GPU "/max_freq", "600000000");
        ck_assert_str_eq(f->n->error, "write " GPU_PATH "/min_freq: Illegal seek");
        close(reader);
        fixture_free(f);

        /* Going down: min first, so with max failing the new min is in place. */
        f = fixture_devfreq(false);
        reader = put_failing(f->root, GPU "/max_freq");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 600 * MHZ), -ESPIPE);
        assert_file(f->root, GPU "/min_freq", "400000000");
        ck_assert_str_eq(f->n->error, "write " GPU_PATH "/max_freq: Illegal seek");
        close(reader);
        fixture_free(f);

        /* The same through the dry-run log. */
        f = fixture_devfreq(false);
        f->n->dry_run = true;
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 600 * MHZ, 400 * MHZ), 0);
        ck_assert_int_eq(set_frequency(f, 200 * MHZ, 600 * MHZ), 0);
        ck_assert_str_eq(
                f->log,
                "would write 600000000 to " GPU_PATH "/max_freq\n"
                "would write 600000000 to " GPU_PATH "/min_freq\n"
                "would write 200000000 to " GPU_PATH "/min_freq\n"
                "would write 200000000 to " GPU_PATH "/max_freq\n");
        fixture_free(f);
}
END_TEST

START_TEST(test_drive_clamp) {
        struct fixture *f = fixture_devfreq(true);

        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        ck_assert_int_eq(f->n->drive, DF_DRIVE_CLAMP);
        assert_file(f->root, GPU "/governor", "simple_ondemand\n"); /* the kernel keeps governing */
        ck_assert_int_eq(set_range(f, 400 * MHZ, 600 * MHZ), 0);
        assert_file(f->root, GPU "/min_freq", "400000000");
        assert_file(f->root, GPU "/max_freq", "600000000");
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), -EOPNOTSUPP);
        fixture_free(f);

        f = fixture_policy(true);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        ck_assert_int_eq(set_range(f, 1200000999, 1600000001), 0);
        assert_file(f->root, POLICY "0/scaling_min_freq", "1200000");
        assert_file(f->root, POLICY "0/scaling_max_freq", "1600001");
        assert_file(f->root, POLICY "0/scaling_governor", "schedutil\n");
        fixture_free(f);
}
END_TEST

START_TEST(test_drive_clamp_order) {
        struct fixture *f = fixture_devfreq(true);
        int reader;

        /* The new min is above the max in force (sysfs says 400 MHz): max first. */
        df_test_put(f->root, GPU "/max_freq", "400000000\n");
        f->n->dry_run = true;
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        ck_assert_int_eq(set_range(f, 600 * MHZ, 800 * MHZ), 0);
        /* Then below what was written: min first. */
        ck_assert_int_eq(set_range(f, 200 * MHZ, 400 * MHZ), 0);
        /* Overlapping, going up but not past the old max: min first. */
        ck_assert_int_eq(set_range(f, 300 * MHZ, 600 * MHZ), 0);
        ck_assert_str_eq(
                f->log,
                "would write 800000000 to " GPU_PATH "/max_freq\n"
                "would write 600000000 to " GPU_PATH "/min_freq\n"
                "would write 200000000 to " GPU_PATH "/min_freq\n"
                "would write 400000000 to " GPU_PATH "/max_freq\n"
                "would write 300000000 to " GPU_PATH "/min_freq\n"
                "would write 600000000 to " GPU_PATH "/max_freq\n");
        fixture_free(f);

        /* With real files: the min failing after the max landed. */
        f = fixture_devfreq(true);
        df_test_put(f->root, GPU "/max_freq", "400000000\n");
        reader = put_failing(f->root, GPU "/min_freq");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        ck_assert_int_eq(set_range(f, 600 * MHZ, 800 * MHZ), -ESPIPE);
        assert_file(f->root, GPU "/max_freq", "800000000");
        close(reader);
        fixture_free(f);
}
END_TEST

/* A pair written half-way: the limit that landed is devfreqd's, held, so it is neither taken for
 * another writer's nor kept when the range is given back. */
START_TEST(test_drive_clamp_half_written) {
        struct fixture *f = fixture_devfreq(true);
        int reader;

        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0); /* found: 200 and 800 MHz */
        reader = put_failing(f->root, GPU "/max_freq");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0); /* keeps the FIFO open for writing */
        ck_assert_int_eq(set_range(f, 400 * MHZ, 800 * MHZ), -ESPIPE);
        assert_file(f->root, GPU "/min_freq", "400000000");
        ck_assert(f->n->limits_held);
        ck_assert_uint_eq(f->n->written_min, 400 * MHZ);
        ck_assert_uint_eq(f->n->written_max, 800 * MHZ); /* not written: what was found there */
        close(reader);
        df_test_del(f->root, GPU "/max_freq");
        df_test_put(f->root, GPU "/max_freq", "800000000\n");

        ck_assert_int_eq(df_node_check_limits(f->n, NULL, 0), 0);
        ck_assert_str_eq(f->n->found_min, "200000000");
        ck_assert_str_eq(f->n->found_max, "800000000");
        /* Given back: the limits found, written as "no limit" at the hardware bounds. */
        ck_assert_int_eq(df_node_backend_ops.release_range(f->n), 1);
        assert_file(f->root, GPU "/min_freq", "0");
        assert_file(f->root, GPU "/max_freq", "0");
        ck_assert(!f->n->limits_held);
        fixture_free(f);
}
END_TEST

/* A devfreq cooling device caps the GPU through a request in whole kHz, rounded up: with points
 * that are not whole kHz, state 1 shows max_freq 266667000 for the 266666666 Hz point. Found
 * while devfreqd holds nothing, that is no limit; held, it is not another writer's; recorded as
 * an original, it is no limit either. */
START_TEST(test_cooling_cap_rounded) {
        struct fixture *f = fixture_devfreq(true);
        struct df_originals o;
        uint64_t min, max;

        df_test_put(f->root, GPU "/available_frequencies", "133333333 266666666 400000000\n");
        df_test_put(f->root, GPU "/min_freq", "133333333\n");
        df_test_put(f->root, GPU "/max_freq", "266667000\n");
        df_test_put(f->root, "sys/class/thermal/cooling_device0/type", "devfreq-ff9a0000.gpu\n");
        df_test_put(f->root, "sys/class/thermal/cooling_device0/cur_state", "1\n");
        df_node_free(f->n);
        f->n = NULL;
        ck_assert_int_eq(df_node_open(&f->r, "/sys/class/devfreq/ff9a0000.gpu", &f->n), 0);

        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        ck_assert_str_eq(o.max, "400000000");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        df_node_found_range(f->n, &min, &max);
        ck_assert_uint_eq(max, UINT64_MAX); /* no outer bound */
        ck_assert_int_eq(set_range(f, 133333333, 400000000), 0);
        df_test_put(f->root, GPU "/max_freq", "266667000\n"); /* the kernel shows its cap */
        ck_assert_int_eq(df_node_check_limits(f->n, NULL, 0), 0);
        ck_assert(f->n->limits_held);
        /* Another writer's 300 MHz is one all the same. */
        df_test_put(f->root, GPU "/max_freq", "300000000\n");
        ck_assert_int_eq(df_node_check_limits(f->n, NULL, 0), 2);
        fixture_free(f);
}
END_TEST

START_TEST(test_dry_run) {
        struct fixture *f = fixture_devfreq(true);
        struct df_originals o;
        char *before, *after;

        ck_assert_int_eq(df_node_read_originals(f->n, &o), 0);
        f->n->dry_run = true;
        before = snapshot(f->root);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), 0);
        ck_assert(f->n->has_written);
        ck_assert_uint_eq(f->n->written, 400 * MHZ);
        ck_assert_int_eq(df_node_check_foreign(f->n, NULL), 0);
        ck_assert_int_eq(df_node_check_kernel_governor(f->n, NULL, 0), 0);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), 0);
        ck_assert_int_eq(set_range(f, 200 * MHZ, 600 * MHZ), 0);
        ck_assert_int_eq(df_node_set_kernel_governor(f->n, "performance"), 0);
        ck_assert_int_eq(df_node_reset_kernel_stats(f->n), 0);
        ck_assert_int_eq(df_node_restore(f->n, &o), 0);
        after = snapshot(f->root);
        ck_assert_str_eq(before, after);
        ck_assert_uint_eq(f->first_writes, 0);
        ck_assert_int_eq(f->last_level, LOG_INFO);
        ck_assert_str_eq(
                f->log,
                "would write userspace to " GPU_PATH "/governor\n"
                "would write 400000000 to " GPU_PATH "/userspace/set_freq\n"
                "would write 200000000 to " GPU_PATH "/min_freq\n"
                "would write 600000000 to " GPU_PATH "/max_freq\n"
                "would write performance to " GPU_PATH "/governor\n"
                "would write 0 to " GPU_PATH "/trans_stat\n"
                "would write simple_ondemand to " GPU_PATH "/governor\n"
                "would write 0 to " GPU_PATH "/min_freq\n"
                "would write 0 to " GPU_PATH "/max_freq\n");
        free(before);
        free(after);
        fixture_free(f);
}
END_TEST

START_TEST(test_foreign_writer) {
        struct fixture *f = fixture_devfreq(true);
        uint64_t seen = 7;

        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), 0); /* nothing written yet */
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), 0);
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), 0);
        df_test_put(f->root, GPU "/userspace/set_freq", "600000000\n");
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), 1);
        ck_assert_uint_eq(seen, 600 * MHZ);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 600 * MHZ), 0);
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), 0);
        df_test_put(f->root, GPU "/userspace/set_freq", "garbage\n");
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), -EINVAL);
        fixture_free(f);

        f = fixture_policy(true);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 1600 * MHZ, 0), 0);
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), 0);
        df_test_put(f->root, POLICY "0/scaling_setspeed", "1200000\n");
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), 1);
        ck_assert_uint_eq(seen, 1200 * MHZ);
        /* min/max read back effective values and are never compared. */
        fixture_free(f);

        f = fixture_devfreq(false);
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), 0);
        df_test_put(f->root, GPU "/min_freq", "200000000\n");
        ck_assert_int_eq(df_node_check_foreign(f->n, &seen), 0);
        fixture_free(f);
}
END_TEST

START_TEST(test_kernel_governor_check) {
        struct fixture *f = fixture_devfreq(true);
        char gov[DF_ATTR_VALUE_MAX];

        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), 0);
        ck_assert_int_eq(df_node_check_kernel_governor(f->n, NULL, 0), 0);
        df_test_put(f->root, GPU "/governor", "performance\n");
        ck_assert_int_eq(df_node_check_kernel_governor(f->n, gov, sizeof(gov)), 1);
        ck_assert_str_eq(gov, "performance"); /* the governor found, for the log */
        assert_file(f->root, GPU "/governor", "userspace");
        ck_assert(!f->n->has_written);
        ck_assert_int_ge(f->n->applied_fd, 0);
        ck_assert_int_eq(df_node_check_kernel_governor(f->n, NULL, 0), 0);
        ck_assert_int_eq(df_node_kernel_governor(f->n, gov, sizeof(gov)), 0);
        ck_assert_str_eq(gov, "userspace");
        fixture_free(f);
}
END_TEST

START_TEST(test_kernel_governors) {
        static const char *const expected[] = { "conservative", "ondemand",    "userspace",
                                                "powersave",    "performance", "schedutil" };
        struct fixture *f = fixture_policy(true);
        char gov[DF_ATTR_VALUE_MAX], tiny[4];
        char **v;
        size_t n;

        ck_assert_int_eq(df_node_kernel_governor(f->n, gov, sizeof(gov)), 0);
        ck_assert_str_eq(gov, "schedutil");
        memcpy(tiny, "old", 4);
        ck_assert_int_eq(df_node_kernel_governor(f->n, tiny, sizeof(tiny)), -EFBIG);
        ck_assert_str_eq(tiny, "old");
        ck_assert_int_eq(df_node_kernel_governors(f->n, &v, &n), 0);
        ck_assert_uint_eq(n, ELEMENTSOF(expected));
        for (size_t i = 0; i < n; i++) {
                ck_assert_str_eq(v[i], expected[i]);
                free(v[i]);
        }
        ck_assert_ptr_null(v[n]);
        free(v);

        ck_assert_int_eq(df_node_set_kernel_governor(f->n, "bogus"), -EINVAL);
        ck_assert_int_eq(df_node_set_kernel_governor(f->n, "sched"), -EINVAL);
        ck_assert_uint_eq(f->first_writes, 0);
        ck_assert_int_eq(df_node_set_kernel_governor(f->n, "performance"), 0);
        assert_file(f->root, POLICY "0/scaling_governor", "performance");
        ck_assert_uint_eq(f->first_writes, 1);
        fixture_free(f);
}
END_TEST

/* A list that cannot be read is an error that n->error names, not a governor the kernel lacks. */
START_TEST(test_offers_governor) {
        struct fixture *f = fixture_policy(true);
        char path[PATH_MAX];

        ck_assert_int_eq(df_node_offers_governor(f->n, "performance"), 1);
        ck_assert_int_eq(df_node_offers_governor(f->n, "turbo"), 0);
        ck_assert_int_eq(df_node_offers_governor(f->n, "perf"), 0);
        ck_assert_str_eq(f->n->error, "");
        snprintf(path, sizeof(path), "%s/" POLICY "0/scaling_available_governors", f->root);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(df_node_offers_governor(f->n, "performance"), -EISDIR);
        ck_assert_str_eq(f->n->error, "read /" POLICY "0/scaling_available_governors: Is a directory");
        ck_assert_int_eq(rmdir(path), 0);
        fixture_free(f);
}
END_TEST

/* --- errors ---------------------------------------------------------------------------------- */

START_TEST(test_first_write_once) {
        struct fixture *f = fixture_devfreq(true);
        int reader;

        /* Recording the originals fails: nothing is written, and the next write tries again. */
        f->first_write_result = -EIO;
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), -EIO);
        assert_file(f->root, GPU "/governor", "simple_ondemand\n");
        ck_assert_uint_eq(f->first_writes, 1);
        ck_assert_ptr_nonnull(strstr(f->n->error, GPU_PATH "/governor"));
        f->first_write_result = 0;
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_uint_eq(f->first_writes, 2);

        /* Once recorded, never again, also when a write then fails. */
        reader = put_failing(f->root, GPU "/userspace/set_freq");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_GOVERN), 0);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), -ESPIPE);
        ck_assert_str_eq(f->n->error, "write " GPU_PATH "/userspace/set_freq: Illegal seek");
        ck_assert(!f->n->has_written);
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), -ESPIPE);
        ck_assert_uint_eq(f->first_writes, 2);
        close(reader);
        fixture_free(f);
}
END_TEST

START_TEST(test_prepare_errors) {
        struct fixture *f = fixture_devfreq(false);

        df_test_del(f->root, GPU "/max_freq");
        ck_assert_int_eq(df_node_prepare(f->n, DF_MODE_CLAMP), -ENOENT);
        ck_assert_int_eq(f->n->drive, DF_DRIVE_NONE);
        ck_assert_int_lt(f->n->min_fd, 0);
        ck_assert_str_eq(f->n->error, "open " GPU_PATH "/max_freq: No such file or directory");
        /* A later failure that has no text of its own does not show the earlier one's. */
        ck_assert_int_eq(df_node_prepare(f->n, (enum df_mode) 7), -EINVAL);
        ck_assert_str_eq(f->n->error, "");
        ck_assert_int_eq(set_frequency(f, 400 * MHZ, 0), -EOPNOTSUPP);
        fixture_free(f);
}
END_TEST

/* --- kernel statistics ------------------------------------------------------------------------ */

START_TEST(test_kernel_stats_devfreq) {
        /* Table order as the driver registered it (descending), one row marked. */
        static const char text[] = "     From  :   To\n"
                                   "           : 800000000 400000000 200000000   time(ms)\n"
                                   "  800000000:         0         3         1      1200\n"
                                   "* 400000000:         2         0         4       340\n"
                                   "  200000000:         1         5         0     50000\n"
                                   "Total transition : 16\n";
        struct fixture *f = fixture_devfreq(true);
        uint64_t *freqs, *ms, *trans, total;
        size_t n;

        df_test_put(f->root, GPU "/trans_stat", text);
        ck_assert_int_eq(df_node_read_kernel_stats(f->n, &freqs, &ms, &trans, &n, &total), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_uint_eq(total, 16);
        ck_assert_uint_eq(freqs[0], 200 * MHZ);
        ck_assert_uint_eq(freqs[1], 400 * MHZ);
        ck_assert_uint_eq(freqs[2], 800 * MHZ);
        ck_assert_uint_eq(ms[0], 50000);
        ck_assert_uint_eq(ms[1], 340);
        ck_assert_uint_eq(ms[2], 1200);
        /* row = from, ascending: 200->400 5, 200->800 1, 400->200 4, 400->800 2, 800->200 1, 800->400 3 */
        static const uint64_t expected[9] = { 0, 5, 1, 4, 0, 2, 1, 3, 0 };
        ck_assert_mem_eq(trans, expected, sizeof(expected));
        free(freqs);
        free(ms);
        free(trans);

        df_test_put(f->root, GPU "/trans_stat", "Not Supported.\n");
        ck_assert_int_eq(df_node_read_kernel_stats(f->n, &freqs, &ms, &trans, &n, &total), -ENODATA);
        df_test_put(f->root, GPU "/trans_stat", "     From  :   To\ngarbage\n");
        ck_assert_int_eq(df_node_read_kernel_stats(f->n, &freqs, &ms, &trans, &n, &total), -EINVAL);
        df_test_del(f->root, GPU "/trans_stat");
        ck_assert_int_eq(df_node_read_kernel_stats(f->n, &freqs, &ms, &trans, &n, &total), -ENODATA);
        fixture_free(f);
}
END_TEST

/* Ten-digit frequencies fill "%10lu" completely: the columns touch. */
START_TEST(test_kernel_stats_ten_digits) {
        static const uint64_t table[3] = { 533000000, 1066000000, 2132000000 };
        static const uint64_t time_ms[3] = { 10, 20, 4000000000 };
        static const uint64_t trans[9] = { 0, 4294967295, 1, 2, 0, 3, 4, 5, 0 };
        struct fixture *f = fixture_devfreq(true);
        _cleanup_free_ char *text = NULL;
        uint64_t *fr, *ms, *tr, total;
        size_t n;

        ck_assert_int_eq(df_stats_format_table(table, time_ms, trans, 3, 4294967310, 1066000000, &text), 0);
        ck_assert_ptr_nonnull(strstr(text, "5330000001066000000"));
        df_test_put(f->root, GPU "/trans_stat", text);
        ck_assert_int_eq(df_node_read_kernel_stats(f->n, &fr, &ms, &tr, &n, &total), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_mem_eq(fr, table, sizeof(table));
        ck_assert_mem_eq(ms, time_ms, sizeof(time_ms));
        ck_assert_mem_eq(tr, trans, sizeof(trans));
        ck_assert_uint_eq(total, 4294967310);
        free(fr);
        free(ms);
        free(tr);
        fixture_free(f);
}
END_TEST

START_TEST(test_kernel_stats_cpufreq) {
        static const unsigned khz[3] = { 2400000, 1600000, 800000 }; /* the driver's order */
        static const unsigned counts[3][3] = { { 0, 7, 1 }, { 2, 0, 9 }, { 3, 4, 0 } };
        static const uint64_t ticks[3] = { 150, 20, 123456 };
        struct fixture *f = fixture_policy(true);
        uint64_t *fr, *ms, *tr, total;
        char buf[1024];
        size_t n, len;
        long hz = sysconf(_SC_CLK_TCK);

        len = (size_t) snprintf(
                buf, sizeof(buf), "%u %" PRIu64 "\n%u %" PRIu64 "\n%u %" PRIu64 "\n", khz[0], ticks[0],
                khz[1], ticks[1], khz[2], ticks[2]);
        ck_assert_uint_lt(len, sizeof(buf));
        df_test_put(f->root, POLICY "0/stats/time_in_state", buf);
        /* kernel: show_trans_table() */
        len = (size_t) snprintf(buf, sizeof(buf), "   From  :    To\n         : ");
        for (int j = 0; j < 3; j++)
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%9u ", khz[j]);
        len += (size_t) snprintf(buf + len, sizeof(buf) - len, "\n");
        for (int i = 0; i < 3; i++) {
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%9u: ", khz[i]);
                for (int j = 0; j < 3; j++)
                        len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%9u ", counts[i][j]);
                len += (size_t) snprintf(buf + len, sizeof(buf) - len, "\n");
        }
        df_test_put(f->root, POLICY "0/stats/trans_table", buf);
        df_test_put(f->root, POLICY "0/stats/total_trans", "26\n");
        df_test_put(f->root, POLICY "0/stats/reset", "");

        ck_assert_int_eq(df_node_read_kernel_stats(f->n, &fr, &ms, &tr, &n, &total), 0);
        ck_assert_uint_eq(n, 3);
        ck_assert_uint_eq(total, 26);
        ck_assert_uint_eq(fr[0], 800 * MHZ);
        ck_assert_uint_eq(fr[1], 1600 * MHZ);
        ck_assert_uint_eq(fr[2], 2400 * MHZ);
        ck_assert_uint_eq(ms[0], ticks[2] * 1000 / (uint64_t) hz);
        ck_assert_uint_eq(ms[1], ticks[1] * 1000 / (uint64_t) hz);
        ck_assert_uint_eq(ms[2], ticks[0] * 1000 / (uint64_t) hz);
        /* ascending rows/columns: 800, 1600, 2400 */
        uint64_t expected[9] = {
                counts[2][2], counts[2][1], counts[2][0], counts[1][2], counts[1][1],
                counts[1][0], counts[0][2], counts[0][1], counts[0][0],
        };
        ck_assert_mem_eq(tr, expected, sizeof(expected));
        free(fr);
        free(ms);
        free(tr);

        ck_assert_int_eq(df_node_reset_kernel_stats(f->n), 0);
        assert_file(f->root, POLICY "0/stats/reset", "1");
        ck_assert_uint_eq(f->first_writes, 1);
        fixture_free(f);

        f = fixture_policy(false); /* intel_pstate keeps none */
        ck_assert_int_eq(df_node_read_kernel_stats(f->n, &fr, &ms, &tr, &n, &total), -ENODATA);
        fixture_free(f);

        f = fixture_devfreq(true);
        ck_assert_int_eq(df_node_reset_kernel_stats(f->n), 0);
        assert_file(f->root, GPU "/trans_stat", "0");
        fixture_free(f);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("node");
        TCase *tc;

        tc = tcase_create("open");
        tcase_add_test(tc, test_open_devfreq);
        tcase_add_test(tc, test_open_cpufreq);
        tcase_add_test(tc, test_open_errors);
        tcase_add_test(tc, test_exists);
        suite_add_tcase(s, tc);

        tc = tcase_create("discover");
        tcase_add_test(tc, test_discover);
        suite_add_tcase(s, tc);

        tc = tcase_create("frequencies");
        tcase_add_test(tc, test_frequencies_listed);
        tcase_add_test(tc, test_frequencies_synthetic);
        suite_add_tcase(s, tc);

        tc = tcase_create("originals-restore");
        tcase_add_test(tc, test_originals);
        tcase_add_test(tc, test_originals_userspace);
        tcase_add_test(tc, test_restore_no_limit);
        tcase_add_test(tc, test_restore_order);
        tcase_add_test(tc, test_restore_tries_everything);
        suite_add_tcase(s, tc);

        tc = tcase_create("drive-userspace");
        tcase_add_test(tc, test_drive_userspace_devfreq);
        tcase_add_test(tc, test_drive_userspace_already);
        tcase_add_test(tc, test_drive_userspace_cpufreq);
        suite_add_tcase(s, tc);

        tc = tcase_create("drive-pinned");
        tcase_add_test(tc, test_drive_pinned);
        tcase_add_test(tc, test_drive_pinned_order);
        suite_add_tcase(s, tc);

        tc = tcase_create("drive-clamp");
        tcase_add_test(tc, test_drive_clamp);
        tcase_add_test(tc, test_drive_clamp_order);
        tcase_add_test(tc, test_drive_clamp_half_written);
        suite_add_tcase(s, tc);

        tc = tcase_create("dry-run");
        tcase_add_test(tc, test_cooling_cap_rounded);
        tcase_add_test(tc, test_dry_run);
        suite_add_tcase(s, tc);

        tc = tcase_create("foreign-writers");
        tcase_add_test(tc, test_foreign_writer);
        tcase_add_test(tc, test_kernel_governor_check);
        suite_add_tcase(s, tc);

        tc = tcase_create("kernel-governors");
        tcase_add_test(tc, test_kernel_governors);
        tcase_add_test(tc, test_offers_governor);
        suite_add_tcase(s, tc);

        tc = tcase_create("write-errors");
        tcase_add_test(tc, test_first_write_once);
        tcase_add_test(tc, test_prepare_errors);
        suite_add_tcase(s, tc);

        tc = tcase_create("kernel-stats");
        tcase_add_test(tc, test_kernel_stats_devfreq);
        tcase_add_test(tc, test_kernel_stats_ten_digits);
        tcase_add_test(tc, test_kernel_stats_cpufreq);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
