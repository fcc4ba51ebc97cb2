/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Atomic file replacement and record splitting for the daemon's runtime and state files. */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

static int mkdir_parent(const char *path, char **ret_dir) {
        _cleanup_free_ char *copy = strdup(path);
        char *dir;

        if (!copy)
                return -ENOMEM;
        dir = strdup(dirname(copy));
        if (!dir)
                return -ENOMEM;
        if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
                int r = -errno;
                free(dir);
                return r;
        }
        *ret_dir = dir;
        return 0;
}

int write_file_atomic(const char *path, const char *content, size_t size) {
        _cleanup_free_ char *dir = NULL, *tmp = NULL;
        _cleanup_close_ int fd = -EBADF, dfd = -EBADF;
        size_t done = 0;
        int r;

        r = mkdir_parent(path, &dir);
        if (r < 0)
                return r;
        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        (void) fchmod(fd, 0600); /* originals and choices are root's business alone */

        while (done < size) {
                ssize_t k = write(fd, content + done, size - done);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        goto fail;
                }
                done += (size_t) k;
        }
        if (fsync(fd) < 0) {
                r = -errno;
                goto fail;
        }
        if (rename(tmp, path) < 0) {
                r = -errno;
                goto fail;
        }
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0)
                (void) fsync(dfd);
        return 0;

fail:
        (void) unlink(tmp);
        return r;
}

int read_file(const char *path, char **ret, size_t *ret_size) {
        assert(ret);

        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, allocated = 0;

        if (fd < 0)
                return -errno;
        for (;;) {
                ssize_t k;

                if (allocated - size < 4096) {
                        char *nb;
                        if (allocated >= 16 * 1024 * 1024)
                                return -EFBIG;
                        allocated = allocated ? allocated * 2 : 8192;
                        nb = realloc(buf, allocated + 1);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                }
                k = read(fd, buf + size, allocated - size);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        break;
                size += (size_t) k;
        }
        if (!buf && !(buf = malloc(1)))
                return -ENOMEM;
        buf[size] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_size)
                *ret_size = size;
        return 0;
}

char *next_line(char *text, size_t size, size_t *pos, bool *ret_nul) {
        char *line, *nl;
        size_t n;

        assert(text);
        assert(pos);
        assert(ret_nul);

        if (*pos >= size)
                return NULL;
        line = text + *pos;
        nl = memchr(line, '\n', size - *pos);
        n = nl ? (size_t) (nl - line) : size - *pos;
        line[n] = '\0'; /* text[size] is one already */
        *pos += n + 1;
        *ret_nul = strlen(line) != n;
        return line;
}

int split_tabs(char *line, char **fields, int max) {
        int n = 0;

        for (char *p = line;; p++) {
                if (n == max)
                        return -E2BIG;
                fields[n++] = p;
                p = strchr(p, '\t');
                if (!p)
                        return n;
                *p = '\0';
        }
}

int record_value_valid(const char *s) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if (*p < ' ' || *p == 0x7f)
                        return false;
        return true;
}
