/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the check unit suites. */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "test-helpers.h"

static int run(Suite *s, bool forked) {
        SRunner *sr = srunner_create(s);
        int failed;

        if (forked)
                srunner_set_fork_status(sr, CK_FORK);
        srunner_set_tap(sr, "-");
        srunner_run_all(sr, CK_SILENT);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int df_test_run(Suite *s) {
        return run(s, false);
}

int df_test_run_forked(Suite *s) {
        return run(s, true);
}

char *df_test_vector_path(const char *name) {
        const char *top = getenv("top_srcdir");
        char *p;

        if (!top || !*top)
                top = TOP_SRCDIR;
        if (asprintf(&p, "%s/tests/vectors/%s", top, name) < 0)
                abort();
        return p;
}

char *df_test_read_file(const char *path) {
        FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t size = 0;

        /* Also used before the suite runs, where ck_assert may not be called. */
        if (!f) {
                fprintf(stderr, "cannot open %s\n", path);
                abort();
        }
        for (;;) {
                char chunk[4096];
                size_t k = fread(chunk, 1, sizeof(chunk), f);
                if (k == 0)
                        break;
                buf = realloc(buf, size + k + 1);
                if (!buf)
                        abort();
                memcpy(buf + size, chunk, k);
                size += k;
        }
        fclose(f);
        if (!buf)
                buf = calloc(1, 1);
        if (!buf)
                abort();
        buf[size] = '\0';
        return buf;
}

uint64_t df_test_random(uint64_t *state) {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        return *state * UINT64_C(2685821657736338717);
}

void df_test_shuffle(size_t *v, size_t n, uint64_t *state) {
        for (size_t i = n > 0 ? n - 1 : 0; i > 0; i--) {
                size_t j = df_test_random(state) % (i + 1), t = v[i];
                v[i] = v[j];
                v[j] = t;
        }
}

size_t df_test_lines(char *text, char ***ret) {
        char **lines = NULL;
        size_t n = 0;
        char *save = NULL;

        for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                if (l[0] == '#' || l[strspn(l, " \t\r")] == '\0')
                        continue;
                lines = realloc(lines, (n + 1) * sizeof(char *));
                if (!lines)
                        abort();
                lines[n++] = l;
        }
        *ret = lines;
        return n;
}

/* --- a fake root in a temporary directory --------------------------------------------------------- */

/*
 * ck_assert_msg() without its checkpoint on success: a passing test is reported at its own last
 * assertion (check names that file in the TAP line), not at one in these helpers.
 */
#define require(expr, ...)                                                                                   \
        do {                                                                                                 \
                if (!(expr))                                                                                 \
                        ck_abort_msg(__VA_ARGS__);                                                           \
        } while (0)

char *df_test_root_new(const char *tag) {
        const char *tmp = getenv("TMPDIR");
        char *p, *r;

        require(asprintf(&p, "%s/devfreqd-test-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag) >= 0, "asprintf");
        r = mkdtemp(p);
        require(r, "mkdtemp %s: %m", p);
        return p;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
        return remove(path);
}

void df_test_rm_rf(const char *path) {
        require(nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0, "removing %s: %m", path);
}

void df_test_root_free(char *root) {
        df_test_rm_rf(root);
        free(root);
}

char *df_test_path(const char *root, const char *rel) {
        char *p;

        require(asprintf(&p, "%s/%s", root, rel) >= 0, "asprintf");
        return p;
}

/* root/rel into `path`, which has PATH_MAX bytes. */
static void path_in(char *path, const char *root, const char *rel) {
        int n = snprintf(path, PATH_MAX, "%s/%s", root, rel);

        require(n > 0 && n < PATH_MAX, "path too long: %s/%s", root, rel);
}

/* Make the directories leading to root/rel (not rel itself); those already there are fine. */
static void mkdir_parents(const char *root, const char *rel) {
        char path[PATH_MAX];

        path_in(path, root, rel);
        for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
                *s = '\0';
                require(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", path);
                *s = '/';
        }
}

void df_test_put(const char *root, const char *rel, const char *content) {
        df_test_put_bytes(root, rel, content, strlen(content));
}

void df_test_put_bytes(const char *root, const char *rel, const void *content, size_t len) {
        char path[PATH_MAX];
        int fd;

        mkdir_parents(root, rel);
        path_in(path, root, rel);
        /* O_TRUNC on the file that is there, not a new one renamed over it: the same inode. */
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        require(fd >= 0, "open %s: %m", path);
        require(write(fd, content, len) == (ssize_t) len, "write %s: %m", path);
        require(close(fd) == 0, "close %s: %m", path);
}

void df_test_put_link(const char *root, const char *rel, const char *target) {
        char path[PATH_MAX];

        mkdir_parents(root, rel);
        path_in(path, root, rel);
        require(symlink(target, path) == 0, "symlink %s: %m", path);
}

void df_test_del(const char *root, const char *rel) {
        char path[PATH_MAX];

        path_in(path, root, rel);
        require(unlink(path) == 0, "unlink %s: %m", path);
}

char *df_test_get(const char *root, const char *rel) {
        char path[PATH_MAX];

        path_in(path, root, rel);
        return df_test_read_file(path);
}
