/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sysfs I/O: root confinement, path and name checks, whole-value reads and writes, frequency lists. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "sysfs.h"
#include "test-helpers.h"

/* Roots are temporary directories (test-helpers.h); df_test_put() rewrites a file in place (same
 * inode), as a kernel attribute changes under a kept descriptor. */

/* --- path and name checks ------------------------------------------------------------------ */

START_TEST(test_path_check) {
        static const struct {
                const char *path;
                int r;
        } cases[] = {
                { "/sys/class/devfreq/gpu", 0 },
                { "/sys/devices/system/cpu/cpufreq/policy0", 0 },
                { "/proc/stat", 0 },
                { "/sys/a..b/.hidden/...", 0 },
                { "/sys/x", 0 },
                { "/sys", -EINVAL },
                { "/sys/", -EINVAL },
                { "/proc", -EINVAL },
                { "/sysfoo/x", -EINVAL },
                { "/etc/passwd", -EINVAL },
                { "sys/class", -EINVAL },
                { "", -EINVAL },
                { "/sys/../etc/passwd", -EINVAL },
                { "/sys/class/..", -EINVAL },
                { "/sys/./class", -EINVAL },
                { "/sys/class/.", -EINVAL },
                { "/sys//class", -EINVAL },
                { "/sys/class/", -EINVAL },
                { "/sys/a\nb", -EINVAL },
                { "/sys/a\tb", -EINVAL },
                { "/sys/a\x7f", -EINVAL },
        };
        char longpath[PATH_MAX + 8];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_msg(
                        df_path_check(cases[i].path) == cases[i].r, "df_path_check(\"%s\") != %d",
                        cases[i].path, cases[i].r);
        ck_assert_int_eq(df_path_check(NULL), -EINVAL);
        memcpy(longpath, "/sys/", 5);
        memset(longpath + 5, 'a', sizeof(longpath) - 6);
        longpath[sizeof(longpath) - 1] = '\0';
        ck_assert_int_eq(df_path_check(longpath), -EINVAL);
}
END_TEST

START_TEST(test_name_valid) {
        static const struct {
                const char *name;
                bool valid;
        } cases[] = {
                { "gpu", true },   { "ff9a0000.gpu", true }, { "policy0", true },
                { "...", true },   { "a-b_c:d@e", true },    { "", false },
                { ".", false },    { "..", false },          { "a/b", false },
                { "/", false },    { "a b", false },         { "a\tb", false },
                { "a\nb", false }, { "\x7f", false },        { "caf\xc3\xa9", false },
        };
        char name[NAME_MAX + 2];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_msg(
                        df_name_valid(cases[i].name) == cases[i].valid, "df_name_valid(\"%s\") != %s",
                        cases[i].name, yes_no(cases[i].valid));
        ck_assert(!df_name_valid(NULL));
        memset(name, 'n', NAME_MAX);
        name[NAME_MAX] = '\0';
        ck_assert(df_name_valid(name));
        name[NAME_MAX] = 'n';
        name[NAME_MAX + 1] = '\0';
        ck_assert(!df_name_valid(name));
}
END_TEST

/* --- confinement --------------------------------------------------------------------------- */

static char *confinement_root(void) {
        char *root = df_test_root_new("sysfs");

        df_test_put(root, "sys/devices/platform/gpu/devfreq/gpu/governor", "simple_ondemand\n");
        df_test_put_link(root, "sys/class/devfreq/gpu", "../../devices/platform/gpu/devfreq/gpu");
        df_test_put_link(root, "sys/abs-escape", "/etc/passwd");
        df_test_put_link(root, "sys/rel-escape", "../../../../../../../../../../etc/passwd");
        df_test_put_link(root, "sys/etc-link", "/etc");
        df_test_put_link(root, "sys/devices/platform/gpu/devfreq/gpu/outside", "/etc");
        df_test_put_link(root, "sys/devices/platform/gpu/devfreq/gpu/sibling", "../gpu/governor");
        df_test_put_link(root, "sys/devices/platform/gpu/devfreq/gpu/inside", "governor");
        df_test_put(root, "etc/passwd", "in-root passwd\n");
        df_test_put(root, "proc/stat", "cpu  1 2 3 4\n");
        return root;
}

START_TEST(test_root_open_path) {
        char *root = confinement_root();
        struct df_root r;
        char buf[64];
        int fd;

        ck_assert_int_eq(df_root_open(root, &r), 0);
        ck_assert_str_eq(r.path, root);

        fd = df_root_open_path(&r, "/sys/class/devfreq/gpu/governor", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
        ck_assert_int_eq(df_attr_pread(fd, buf, sizeof(buf)), 15);
        ck_assert_str_eq(buf, "simple_ondemand");
        close(fd);
        fd = df_root_open_path(&r, "/proc/stat", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        close(fd);

        /* Absolute and relative links resolve inside the root, where /etc is not /sys. */
        ck_assert_int_eq(df_root_open_path(&r, "/sys/abs-escape", O_RDONLY), -EXDEV);
        ck_assert_int_eq(df_root_open_path(&r, "/sys/rel-escape", O_RDONLY), -EXDEV);
        ck_assert_int_eq(df_root_open_path(&r, "/sys/etc-link/passwd", O_RDONLY), -EXDEV);
        ck_assert_int_eq(df_root_open_path(&r, "/sys/etc-link", O_PATH), -EXDEV);
        /* Without the root's own /etc/passwd, nothing is found: the host's was never reached. */
        df_test_del(root, "etc/passwd");
        ck_assert_int_eq(df_root_open_path(&r, "/sys/abs-escape", O_RDONLY), -ENOENT);
        ck_assert_int_eq(df_root_open_path(&r, "/sys/rel-escape", O_RDONLY), -ENOENT);
        ck_assert_int_eq(df_root_open_path(&r, "/sys/etc-link/passwd", O_RDONLY), -ENOENT);

        /* Paths that df_path_check() refuses never reach the file system. */
        ck_assert_int_eq(df_root_open_path(&r, "/sys/../etc/passwd", O_RDONLY), -EINVAL);
        ck_assert_int_eq(df_root_open_path(&r, "/etc/passwd", O_RDONLY), -EINVAL);
        ck_assert_int_eq(df_root_open_path(&r, "sys/class", O_RDONLY), -EINVAL);
        ck_assert_int_eq(df_root_open_path(&r, "/sys/missing", O_RDONLY), -ENOENT);

        df_root_close(&r);
        ck_assert_int_lt(r.fd, 0);
        ck_assert_ptr_null(r.path);
        ck_assert_int_eq(df_root_open("/nonexistent-devfreqd-root", &r), -ENOENT);
        df_test_root_free(root);
}
END_TEST

START_TEST(test_root_resolve) {
        char *root = confinement_root();
        _cleanup_free_ char *canonical = NULL, *proc = NULL, *host = NULL;
        struct df_root r, slash;

        ck_assert_int_eq(df_root_open(root, &r), 0);
        ck_assert_int_eq(df_root_resolve(&r, "/sys/class/devfreq/gpu", &canonical), 0);
        ck_assert_str_eq(canonical, "/sys/devices/platform/gpu/devfreq/gpu");
        ck_assert_int_eq(df_root_resolve(&r, "/proc/stat", &proc), 0);
        ck_assert_str_eq(proc, "/proc/stat");
        ck_assert_int_eq(df_root_resolve(&r, "/sys/etc-link", &host), -EXDEV);
        ck_assert_ptr_null(host);
        df_root_close(&r);

        /* The production root: paths come back unchanged. */
        ck_assert_int_eq(df_root_open("/", &slash), 0);
        ck_assert_int_eq(df_root_resolve(&slash, "/proc/stat", &host), 0);
        ck_assert_str_eq(host, "/proc/stat");
        df_root_close(&slash);
        df_test_root_free(root);
}
END_TEST

START_TEST(test_root_opendir) {
        char *root = confinement_root();
        _cleanup_(closedirp) DIR *d = NULL;
        DIR *none = NULL;
        struct df_root r;
        bool gpu = false;

        ck_assert_int_eq(df_root_open(root, &r), 0);
        ck_assert_int_eq(df_root_opendir(&r, "/sys/class/devfreq", &d), 0);
        for (struct dirent *de; (de = readdir(d));)
                gpu = gpu || streq(de->d_name, "gpu");
        ck_assert_msg(gpu, "readdir() of /sys/class/devfreq did not list gpu");
        ck_assert_int_eq(fcntl(dirfd(d), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);

        /* Every refusal of df_root_open_path() comes through, and leaves no stream behind. */
        ck_assert_int_eq(df_root_opendir(&r, "/sys/missing", &none), -ENOENT);
        ck_assert_int_eq(df_root_opendir(&r, "/sys/class/devfreq/gpu/governor", &none), -ENOTDIR);
        ck_assert_int_eq(df_root_opendir(&r, "/sys/etc-link", &none), -EXDEV);
        ck_assert_int_eq(df_root_opendir(&r, "/etc", &none), -EINVAL);
        ck_assert_ptr_null(none);

        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

START_TEST(test_attr_open_beneath) {
        char *root = confinement_root();
        struct df_root r;
        char buf[64];
        int dirfd, fd;

        ck_assert_int_eq(df_root_open(root, &r), 0);
        dirfd = df_root_open_path(&r, "/sys/class/devfreq/gpu", O_PATH | O_DIRECTORY);
        ck_assert_int_ge(dirfd, 0);

        fd = df_attr_open(dirfd, "governor", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        close(fd);
        fd = df_attr_open(dirfd, "inside", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(df_attr_read(dirfd, "governor", buf, sizeof(buf)), 15);

        ck_assert_int_eq(df_attr_open(dirfd, "../gpu/governor", O_RDONLY), -EXDEV);
        ck_assert_int_eq(df_attr_open(dirfd, "/etc/passwd", O_RDONLY), -EXDEV);
        ck_assert_int_eq(df_attr_open(dirfd, "outside", O_RDONLY), -EXDEV);
        ck_assert_int_eq(df_attr_open(dirfd, "sibling", O_RDONLY), -EXDEV);
        ck_assert_int_eq(df_attr_open(dirfd, "missing", O_RDONLY), -ENOENT);
        ck_assert_int_eq(df_attr_open(dirfd, "", O_RDONLY), -EINVAL);

        close(dirfd);
        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

/* --- reading and writing ------------------------------------------------------------------- */

START_TEST(test_pwrite_shorter_value) {
        char *root = df_test_root_new("sysfs");
        _cleanup_free_ char *after = NULL, *after2 = NULL;
        struct df_root r;
        char buf[32];
        int fd;

        df_test_put(root, "sys/x/set_freq", "1000000000\n");
        ck_assert_int_eq(df_root_open(root, &r), 0);
        fd = df_root_open_path(&r, "/sys/x/set_freq", O_RDWR);
        ck_assert_int_ge(fd, 0);

        ck_assert_int_eq(df_attr_pread(fd, buf, sizeof(buf)), 10);
        ck_assert_str_eq(buf, "1000000000");
        ck_assert_int_eq(df_attr_pwrite(fd, "5"), 0);
        after = df_test_get(root, "sys/x/set_freq");
        ck_assert_str_eq(after, "5");
        ck_assert_int_eq(df_attr_pread(fd, buf, sizeof(buf)), 1);
        ck_assert_str_eq(buf, "5");
        ck_assert_int_eq(df_attr_pwrite_u64(fd, 400000000), 0);
        after2 = df_test_get(root, "sys/x/set_freq");
        ck_assert_str_eq(after2, "400000000");

        close(fd);
        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

/* A test root is plain files, never sysfs; only a sysfs attribute skips the ftruncate, so a plain
 * file told it is one keeps the tail of the longer value it had (what the truncation is for). */
START_TEST(test_pwrite_on_sysfs) {
        char *root = df_test_root_new("sysfs");
        _cleanup_free_ char *kept = NULL, *cut = NULL;
        struct df_root r;
        int dirfd, fd;

        df_test_put(root, "sys/x/set_freq", "1000000000\n");
        ck_assert_int_eq(df_root_open(root, &r), 0);
        dirfd = df_root_open_path(&r, "/sys/x", O_PATH | O_DIRECTORY);
        ck_assert_int_ge(dirfd, 0);
        fd = df_root_open_path(&r, "/sys/x/set_freq", O_RDWR);
        ck_assert_int_ge(fd, 0);
        ck_assert(!df_fd_on_sysfs(dirfd));
        ck_assert(!df_fd_on_sysfs(fd));
        ck_assert(!df_fd_on_sysfs(-EBADF));

        ck_assert_int_eq(df_attr_pwrite_on(fd, "5", true), 0);
        kept = df_test_get(root, "sys/x/set_freq");
        ck_assert_str_eq(kept, "5000000000\n");
        ck_assert_int_eq(df_attr_pwrite_on(fd, "7", false), 0);
        cut = df_test_get(root, "sys/x/set_freq");
        ck_assert_str_eq(cut, "7");

        close(fd);
        close(dirfd);
        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

/* df_attr_pread() takes a value whose bytes and NUL fit the buffer (its newline dropped), and
 * refuses with -EFBIG one that does not fit, and any read into no room at all. */
START_TEST(test_pread_sizes) {
        char *root = df_test_root_new("sysfs");
        struct df_root r;
        char buf[8];
        int fd;

        df_test_put(root, "sys/x/a", "12345\n");
        ck_assert_int_eq(df_root_open(root, &r), 0);
        fd = df_root_open_path(&r, "/sys/x/a", O_RDONLY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(df_attr_pread(fd, buf, 7), 5); /* six bytes and the NUL: fits */
        ck_assert_str_eq(buf, "12345");
        ck_assert_int_eq(df_attr_pread(fd, buf, 6), -EFBIG);
        ck_assert_int_eq(df_attr_pread(fd, buf, 0), -EFBIG);
        close(fd);
        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

START_TEST(test_read_u64) {
        static const struct {
                const char *text;
                int r;
                uint64_t v;
        } cases[] = {
                { "42\n", 0, 42 },
                { "  42 \n", 0, 42 },
                { "0", 0, 0 },
                { "18446744073709551615\n", 0, UINT64_MAX },
                { "18446744073709551616\n", -ERANGE, 0 },
                { "42x\n", -EINVAL, 0 },
                { "4 2\n", -EINVAL, 0 },
                { "-1\n", -EINVAL, 0 },
                { "+1\n", -EINVAL, 0 },
                { "\n", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "undefined\n", -EINVAL, 0 },
        };
        char *root = df_test_root_new("sysfs");
        struct df_root r;
        int dirfd;

        df_test_put(root, "sys/x/v", "");
        ck_assert_int_eq(df_root_open(root, &r), 0);
        dirfd = df_root_open_path(&r, "/sys/x", O_PATH | O_DIRECTORY);
        ck_assert_int_ge(dirfd, 0);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = 7;

                df_test_put(root, "sys/x/v", cases[i].text);
                ck_assert_msg(df_attr_read_u64(dirfd, "v", &v) == cases[i].r, "case %zu", i);
                ck_assert_uint_eq(v, cases[i].r == 0 ? cases[i].v : 7);
        }
        ck_assert_int_eq(df_attr_write(dirfd, "v", "userspace"), 0);
        {
                _cleanup_free_ char *t = df_test_get(root, "sys/x/v");
                ck_assert_str_eq(t, "userspace");
        }
        ck_assert_int_eq(df_attr_write(dirfd, "missing", "1"), -ENOENT);
        close(dirfd);
        df_root_close(&r);
        df_test_root_free(root);
}
END_TEST

/* --- lists ----------------------------------------------------------------------------------- */

START_TEST(test_frequency_list) {
        static const struct {
                const char *text;
                uint64_t scale;
                int r;
                size_t n;
                uint64_t v[4];
        } cases[] = {
                { "200000000 400000000\n", 1, 0, 2, { 200000000, 400000000 } },
                { "2400000 2000000 800000 \n", 1000, 0, 3, { 800000000, 2000000000, 2400000000 } },
                { "\t300 100  200\n", 1, 0, 3, { 100, 200, 300 } },
                { "100 100 50", 1, 0, 2, { 50, 100 } },
                { "18446744073709551", 1000, 0, 1, { UINT64_C(18446744073709551000) } },
                { "", 1, -ENODATA, 0, {} },
                { "\n", 1, -ENODATA, 0, {} },
                { "   \n", 1000, -ENODATA, 0, {} },
                { "100 abc", 1, -EINVAL, 0, {} },
                { "100,200", 1, -EINVAL, 0, {} },
                { "-100", 1, -EINVAL, 0, {} },
                { "100MHz", 1, -EINVAL, 0, {} },
                { "0 100", 1, -EINVAL, 0, {} },
                { "18446744073709551616", 1, -ERANGE, 0, {} },
                { "18446744073709552", 1000, -ERANGE, 0, {} },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t *v = (uint64_t *) 0x1;
                size_t n = 99;
                int r = df_parse_frequency_list(cases[i].text, cases[i].scale, &v, &n);

                ck_assert_msg(r == cases[i].r, "case %zu: %d", i, r);
                if (r < 0) {
                        ck_assert_ptr_eq(v, (uint64_t *) 0x1);
                        ck_assert_uint_eq(n, 99);
                        continue;
                }
                ck_assert_uint_eq(n, cases[i].n);
                for (size_t j = 0; j < n; j++)
                        ck_assert_uint_eq(v[j], cases[i].v[j]);
                free(v);
        }
}
END_TEST

START_TEST(test_word_in_list) {
        ck_assert(df_word_in_list("userspace powersave performance simple_ondemand", "userspace"));
        ck_assert(df_word_in_list("userspace powersave performance simple_ondemand", "simple_ondemand"));
        ck_assert(df_word_in_list("conservative ondemand userspace schedutil \n", "schedutil"));
        ck_assert(!df_word_in_list("userspace powersave", "user"));
        ck_assert(!df_word_in_list("userspace powersave", "powersave2"));
        ck_assert(!df_word_in_list("", "userspace"));
        ck_assert(!df_word_in_list("userspace", ""));
        ck_assert(!df_word_in_list(NULL, "userspace"));
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("sysfs");
        TCase *tc;

        tc = tcase_create("path-check");
        tcase_add_test(tc, test_path_check);
        suite_add_tcase(s, tc);

        tc = tcase_create("name-valid");
        tcase_add_test(tc, test_name_valid);
        suite_add_tcase(s, tc);

        tc = tcase_create("confinement");
        tcase_add_test(tc, test_root_open_path);
        tcase_add_test(tc, test_root_resolve);
        tcase_add_test(tc, test_root_opendir);
        tcase_add_test(tc, test_attr_open_beneath);
        suite_add_tcase(s, tc);

        tc = tcase_create("read-write");
        tcase_add_test(tc, test_pwrite_shorter_value);
        tcase_add_test(tc, test_pwrite_on_sysfs);
        tcase_add_test(tc, test_pread_sizes);
        tcase_add_test(tc, test_read_u64);
        suite_add_tcase(s, tc);

        tc = tcase_create("frequency-list");
        tcase_add_test(tc, test_frequency_list);
        suite_add_tcase(s, tc);

        tc = tcase_create("word-list");
        tcase_add_test(tc, test_word_in_list);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
