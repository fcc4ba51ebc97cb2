/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sysfs and procfs I/O under a root directory: confined opens, pread of kept-open attributes,
 * whole-value writes, and the parsers for the lists the kernel prints. */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#if !HAVE_LINUX_OPENAT2_H || !HAVE_DECL_SYS_OPENAT2
#error "openat2(2) is required (linux/openat2.h and SYS_openat2)"
#endif
#include <linux/magic.h>
#include <linux/openat2.h>

#include "macro.h"
#include "sysfs.h"
#include "units.h"

/* kernel: include/linux/namei.h MAXSYMLINKS */
#define MAX_SYMLINKS 40
/* openat2(RESOLVE_IN_ROOT) answers -EAGAIN when a rename raced with a ".." step. */
#define OPEN_RETRIES 8

static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool path_under(const char *p, const char *dir) {
        size_t l = strlen(dir);

        return strneq(p, dir, l) && (p[l] == '\0' || p[l] == '/');
}

int df_root_open(const char *path, struct df_root *ret) {
        _cleanup_close_ int fd = -EBADF;
        char *p;

        assert(ret);

        if (!path || !*path)
                return -EINVAL;
        fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        p = strdup(path);
        if (!p)
                return -ENOMEM;
        *ret = (struct df_root){ .fd = TAKE_FD(fd), .path = p };
        return 0;
}

void df_root_close(struct df_root *r) {
        if (!r)
                return;
        r->fd = safe_close(r->fd);
        free(r->path);
        r->path = NULL;
}

static int readlinkat_alloc(int dirfd, const char *path, char **ret) {
        size_t size = 256;

        for (;;) {
                _cleanup_free_ char *buf = malloc(size);
                ssize_t n;

                if (!buf)
                        return -ENOMEM;
                n = readlinkat(dirfd, path, buf, size);
                if (n < 0)
                        return -errno;
                if ((size_t) n < size) {
                        buf[n] = '\0';
                        *ret = TAKE_PTR(buf);
                        return 0;
                }
                if (size >= PATH_MAX * 4)
                        return -ENAMETOOLONG;
                size *= 2;
        }
}

/* Where an open file really is, in this process's mount namespace. */
static int fd_real_path(int fd, char **ret) {
        char link[64];

        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        return readlinkat_alloc(AT_FDCWD, link, ret);
}

/* The state of one walk: where it started, the directory it is in, what is left to resolve. */
struct walk {
        int start;
        int cur;
        int owned; /* cur, when the walk opened it */
        unsigned depth;
        unsigned links;
        bool in_root;
        char *todo; /* owned; p points into it */
        const char *p;
};

static void move_to(struct walk *w, int fd) {
        safe_close(w->owned);
        w->owned = fd;
        w->cur = fd >= 0 ? fd : w->start;
}

/* "..": one directory up, never above the start (in_root: stays there; otherwise -EXDEV). */
static int walk_up(struct walk *w) {
        int fd;

        if (w->depth == 0)
                return w->in_root ? 0 : -EXDEV;
        fd = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        move_to(w, fd);
        w->depth--;
        return 0;
}

/* A symlink: its target takes the place of the component; an absolute one starts at the start. */
static int walk_link(struct walk *w, const char *comp, const char *rest) {
        _cleanup_free_ char *target = NULL;
        char *next;
        int r;

        if (++w->links > MAX_SYMLINKS)
                return -ELOOP;
        r = readlinkat_alloc(w->cur, comp, &target);
        if (r < 0)
                return r;
        if (target[0] == '/') {
                if (!w->in_root)
                        return -EXDEV;
                move_to(w, -EBADF);
                w->depth = 0;
        }
        if (asprintf(&next, "%s/%s", target, rest) < 0)
                return -ENOMEM;
        free(w->todo);
        w->todo = next;
        w->p = next;
        return 0;
}

/* The next component of w->p into comp; *ret_rest after it and its slashes. 0 at the end. */
static int next_component(struct walk *w, char comp[static NAME_MAX + 1], const char **ret_rest) {
        size_t len;

        while (*w->p == '/')
                w->p++;
        if (*w->p == '\0')
                return 0;
        len = strcspn(w->p, "/");
        if (len > NAME_MAX)
                return -ENAMETOOLONG;
        memcpy(comp, w->p, len);
        comp[len] = '\0';
        for (*ret_rest = w->p + len; **ret_rest == '/'; (*ret_rest)++)
                ;
        return 1;
}

/*
 * openat2()'s resolution done in userspace, for kernels before 5.6 and for valgrind, which does
 * not know the system call: one component at a time with O_NOFOLLOW, symlinks followed by hand,
 * ".." never above the start (in_root: stays there, like RESOLVE_IN_ROOT; otherwise -EXDEV, like
 * RESOLVE_BENEATH), an absolute symlink restarting at the start or refused the same way.
 */
static int open_walk(int dirfd, const char *path, int flags, mode_t mode, bool in_root) {
        struct walk w = {
                .start = dirfd, .cur = dirfd, .owned = -EBADF, .in_root = in_root, .todo = strdup(path)
        };
        int r = 0, fd;

        if (!w.todo)
                return -ENOMEM;
        w.p = w.todo;
        if (w.todo[0] == '/' && !in_root)
                r = -EXDEV;
        while (r >= 0) {
                char comp[NAME_MAX + 1];
                const char *rest = NULL;
                struct stat st;
                bool last;

                r = next_component(&w, comp, &rest);
                if (r < 0)
                        break;
                if (r == 0) {
                        fd = openat(w.cur, ".", flags | O_CLOEXEC, mode);
                        r = fd < 0 ? -errno : fd;
                        break;
                }
                last = *rest == '\0';
                if (streq(comp, ".") || streq(comp, "..")) {
                        r = streq(comp, "..") ? walk_up(&w) : 0;
                        w.p = rest;
                        continue;
                }
                if (fstatat(w.cur, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (!(errno == ENOENT && last && (flags & O_CREAT))) {
                                r = -errno;
                                break;
                        }
                } else if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
                        r = walk_link(&w, comp, rest);
                        continue;
                }
                if (last) {
                        fd = openat(w.cur, comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
                        r = fd < 0 ? -errno : fd;
                        break;
                }
                fd = openat(w.cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                        r = -errno;
                        break;
                }
                move_to(&w, fd);
                w.depth++;
                w.p = rest;
        }
        safe_close(w.owned);
        free(w.todo);
        return r;
}

static int open_confined(int dirfd, const char *path, int flags, bool in_root) {
        mode_t mode = (flags & O_CREAT) ? 0644 : 0;
        struct open_how how = {
                .flags = (uint64_t) (unsigned) (flags | O_CLOEXEC),
                .mode = mode,
                .resolve = (in_root ? RESOLVE_IN_ROOT : RESOLVE_BENEATH) | RESOLVE_NO_MAGICLINKS,
        };

        for (int i = 0; i < OPEN_RETRIES; i++) {
                long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

                if (fd >= 0)
                        return (int) fd;
                if (errno == ENOSYS)
                        return open_walk(dirfd, path, flags, mode, in_root);
                if (errno != EAGAIN && errno != EINTR)
                        return -errno;
        }
        return -EAGAIN;
}

/* The object behind fd as a path inside the root, refused unless under <root>/sys or /proc. */
static int path_inside(const struct df_root *r, int fd, char **ret) {
        _cleanup_free_ char *root_real = NULL, *real = NULL;
        const char *rel = NULL;
        int k;

        k = fd_real_path(r->fd, &root_real);
        if (k < 0)
                return k;
        k = fd_real_path(fd, &real);
        if (k < 0)
                return k;
        if (streq(root_real, "/"))
                rel = real;
        else if (path_under(real, root_real))
                rel = real[strlen(root_real)] ? real + strlen(root_real) : "/";
        if (!rel || rel[0] != '/' || !(path_under(rel, "/sys") || path_under(rel, "/proc")))
                return -EXDEV;
        if (ret) {
                char *c = strdup(rel);
                if (!c)
                        return -ENOMEM;
                *ret = c;
        }
        return 0;
}

int df_root_open_path(const struct df_root *r, const char *path, int flags) {
        _cleanup_close_ int fd = -EBADF;
        int k;

        assert(r);

        if (r->fd < 0 || df_path_check(path) < 0)
                return -EINVAL;
        fd = open_confined(r->fd, path, flags, true);
        if (fd < 0)
                return fd;
        k = path_inside(r, fd, NULL);
        if (k < 0)
                return k;
        return TAKE_FD(fd);
}

int df_root_opendir(const struct df_root *r, const char *path, DIR **ret) {
        int fd;

        assert(ret);

        fd = df_root_open_path(r, path, O_RDONLY | O_DIRECTORY);
        if (fd < 0)
                return fd;
        *ret = fdopendir(fd);
        if (!*ret) {
                int k = -errno;

                safe_close(fd);
                return k;
        }
        return 0;
}

int df_root_resolve(const struct df_root *r, const char *path, char **ret) {
        _cleanup_close_ int fd = -EBADF;

        assert(ret);

        fd = df_root_open_path(r, path, O_PATH);
        if (fd < 0)
                return fd;
        return path_inside(r, fd, ret);
}

int df_attr_open(int dirfd, const char *name, int flags) {
        assert(name);

        if (!*name)
                return -EINVAL;
        return open_confined(dirfd, name, flags, false);
}

ssize_t df_attr_pread(int fd, char *buf, size_t size) {
        ssize_t n;

        assert(buf);

        if (size == 0)
                return -EFBIG;
        do
                n = pread(fd, buf, size, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        /* A full buffer leaves no room for the NUL, and the value may go on. */
        if ((size_t) n >= size)
                return -EFBIG;
        if (n > 0 && buf[n - 1] == '\n')
                n--;
        buf[n] = '\0';
        return n;
}

ssize_t df_attr_read(int dirfd, const char *name, char *buf, size_t size) {
        _cleanup_close_ int fd = df_attr_open(dirfd, name, O_RDONLY);

        if (fd < 0)
                return fd;
        return df_attr_pread(fd, buf, size);
}

/* A base-10 number with optional surrounding whitespace; no sign, nothing else. */
/* One integer between optional whitespace. */
static int parse_u64(const char *s, size_t len, uint64_t *ret) {
        size_t i = 0, end = len;

        while (i < end && is_space(s[i]))
                i++;
        while (end > i && is_space(s[end - 1]))
                end--;
        return df_digits_to_u64(s + i, end - i, ret);
}

int df_attr_pread_u64(int fd, uint64_t *ret) {
        char buf[64];
        ssize_t n;

        assert(ret);

        n = df_attr_pread(fd, buf, sizeof(buf));
        if (n < 0)
                return (int) n;
        return parse_u64(buf, (size_t) n, ret);
}

int df_attr_read_u64(int dirfd, const char *name, uint64_t *ret) {
        _cleanup_close_ int fd = df_attr_open(dirfd, name, O_RDONLY);

        if (fd < 0)
                return fd;
        return df_attr_pread_u64(fd, ret);
}

bool df_fd_on_sysfs(int fd) {
        struct statfs sfs;

        return fstatfs(fd, &sfs) == 0 && (unsigned long) sfs.f_type == SYSFS_MAGIC;
}

int df_attr_pwrite(int fd, const char *value) {
        return df_attr_pwrite_on(fd, value, false);
}

int df_attr_pwrite_on(int fd, const char *value, bool sysfs) {
        assert(value);

        size_t len = strlen(value);
        ssize_t n;

        do
                n = pwrite(fd, value, len, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        /* A sysfs attribute takes the whole value with the write and ignores the size; a plain
         * file of a test root must lose the tail of a longer value. Objects that cannot be
         * truncated at all (EINVAL) took the value with the write. */
        if (!sysfs && ftruncate(fd, (off_t) len) < 0 && errno != EINVAL)
                return -errno;
        return 0;
}

int df_attr_pwrite_u64(int fd, uint64_t value) {
        char buf[32];

        snprintf(buf, sizeof(buf), "%" PRIu64, value);
        return df_attr_pwrite(fd, buf);
}

int df_attr_write(int dirfd, const char *name, const char *value) {
        _cleanup_close_ int fd = df_attr_open(dirfd, name, O_WRONLY);

        if (fd < 0)
                return fd;
        return df_attr_pwrite(fd, value);
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return (x > y) - (x < y);
}

int df_parse_frequency_list(const char *text, uint64_t scale, uint64_t **ret, size_t *ret_n) {
        _cleanup_free_ uint64_t *v = NULL;
        size_t n = 0, allocated = 0, kept;
        const char *p = text;

        assert(text);
        assert(scale > 0);
        assert(ret);
        assert(ret_n);

        for (;;) {
                size_t len;
                uint64_t f;
                int r;

                while (is_space(*p))
                        p++;
                if (*p == '\0')
                        break;
                for (len = 0; p[len] && !is_space(p[len]); len++)
                        ;
                r = parse_u64(p, len, &f);
                if (r < 0)
                        return r;
                if (f > UINT64_MAX / scale)
                        return -ERANGE;
                /* No operating point has 0 Hz; the OPP table refuses it too. */
                if (f == 0)
                        return -EINVAL;
                r = GREEDY_GROW(v, allocated, n + 1);
                if (r < 0)
                        return r;
                v[n++] = f * scale;
                p += len;
        }
        if (n == 0)
                return -ENODATA;
        qsort(v, n, sizeof(uint64_t), cmp_u64);
        kept = 1;
        for (size_t i = 1; i < n; i++)
                if (v[i] != v[kept - 1])
                        v[kept++] = v[i];
        *ret = TAKE_PTR(v);
        *ret_n = kept;
        return 0;
}

bool df_word_in_list(const char *list, const char *word) {
        size_t wlen;

        if (!list || !word || !*word)
                return false;
        wlen = strlen(word);
        for (const char *p = list;;) {
                size_t len;

                while (is_space(*p))
                        p++;
                if (*p == '\0')
                        return false;
                for (len = 0; p[len] && !is_space(p[len]); len++)
                        ;
                if (len == wlen && memcmp(p, word, len) == 0)
                        return true;
                p += len;
        }
}
