/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The originals file: one tab-separated record per node, replaced atomically on every change. */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "fileio.h"
#include "logging.h"
#include "originals.h"

/* v2 added the last field; v1 files (six fields a record) still load, with no frequency. */
#define ORIGINALS_HEADER                                                                                     \
        "# devfreqd originals v2: path governor min max hw_min hw_max userspace_freq (node units)\n"

static int copy_value(char *dst, const char *src) {
        size_t n = strlen(src);

        if (n >= DF_ATTR_VALUE_MAX || !record_value_valid(src))
                return -EINVAL;
        memcpy(dst, src, n + 1);
        return 0;
}

static int append_entry(struct originals *o, const char *path, const struct df_originals *values) {
        struct originals_entry *e;
        char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        e = GROW(o->entries, o->n);
        if (!e) {
                free(p);
                return -ENOMEM;
        }
        if (!o->index_stale && df_strmap_insert(&o->index, p, strlen(p), o->n) < 0)
                o->index_stale = true; /* rebuilt (or scanned) at the next lookup */
        *e = (struct originals_entry){ .path = p, .values = *values };
        o->n++;
        return 0;
}

static int parse_line(struct originals *o, char *line) {
        struct originals_entry e = {};
        char *f[7];
        int n, r;

        n = split_tabs(line, f, 7);
        if (n != 6 && n != 7)
                return -EINVAL;
        /* Only device attributes of sysfs: a record never sends a restore anywhere else. */
        if (df_path_check(f[0]) < 0 || !strneq(f[0], "/sys/", 5))
                return -EINVAL;
        r = copy_value(e.values.governor, f[1]);
        if (r >= 0)
                r = copy_value(e.values.min, f[2]);
        if (r >= 0)
                r = copy_value(e.values.max, f[3]);
        if (r >= 0)
                r = copy_value(e.values.hw_min, f[4]);
        if (r >= 0)
                r = copy_value(e.values.hw_max, f[5]);
        if (r >= 0 && n == 7)
                r = copy_value(e.values.freq, f[6]);
        if (r < 0)
                return r;
        if (originals_get(o, f[0]))
                return 0;
        r = append_entry(o, f[0], &e.values);
        if (r < 0)
                return r;
        o->entries[o->n - 1].owed = true;
        return 0;
}

int originals_lock(const char *runtime_dir, int *ret_fd, pid_t *ret_pid) {
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char text[32];
        ssize_t k;

        assert(runtime_dir);
        assert(ret_fd);
        assert(ret_pid);

        *ret_pid = 0;
        if (mkdir(runtime_dir, 0755) < 0 && errno != EEXIST)
                return -errno;
        if (asprintf(&path, "%s/lock", runtime_dir) < 0)
                return -ENOMEM;
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        /* A read-only directory: a lock file there is still locked through a read-only descriptor
         * (nothing can save originals there, nor the pid). */
        if (fd < 0 && errno == EROFS)
                fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                int r = errno == EWOULDBLOCK ? -EBUSY : -errno;
                k = pread(fd, text, sizeof(text) - 1, 0);
                if (r == -EBUSY && k > 0) {
                        text[k] = '\0';
                        *ret_pid = (pid_t) strtol(text, NULL, 10);
                }
                return r;
        }
        k = snprintf(text, sizeof(text), "%ld\n", (long) getpid());
        if (ftruncate(fd, 0) < 0 && errno != EINVAL && errno != EBADF)
                return -errno;
        (void) pwrite(fd, text, (size_t) k, 0); /* the pid is for the message of another one */
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int originals_load(const char *runtime_dir, struct originals **ret) {
        assert(ret);

        _cleanup_free_ char *text = NULL;
        struct originals *o;
        unsigned lineno = 0;
        size_t size = 0, pos = 0;
        bool nul = false;
        int r;

        o = calloc(1, sizeof(*o));
        if (!o)
                return -ENOMEM;
        if (asprintf(&o->file, "%s/originals", runtime_dir) < 0) {
                free(o);
                return -ENOMEM;
        }

        r = read_file(o->file, &text, &size);
        if (r == -ENOENT) {
                *ret = o;
                return 0;
        }
        if (r < 0) {
                log_error_errno(r, "Failed to read %s: %m", o->file);
                originals_free(o);
                return r;
        }
        for (char *line; (line = next_line(text, size, &pos, &nul));) {
                lineno++;
                if (line[0] == '#' || (line[0] == '\0' && !nul))
                        continue;
                r = nul ? -EINVAL : parse_line(o, line);
                if (r == -ENOMEM) {
                        originals_free(o);
                        return r;
                }
                if (r < 0)
                        log_warning("%s:%u: ignoring a malformed record", o->file, lineno);
        }
        *ret = o;
        return 0;
}

struct originals *originals_free(struct originals *o) {
        if (!o)
                return NULL;
        for (size_t i = 0; i < o->n; i++)
                free(o->entries[i].path);
        free(o->entries);
        free(o->file);
        df_strmap_done(&o->index);
        free(o);
        return NULL;
}

static int index_rebuild(struct originals *o) {
        df_strmap_done(&o->index);
        for (size_t i = 0; i < o->n; i++)
                if (df_strmap_insert(&o->index, o->entries[i].path, strlen(o->entries[i].path), i) == -ENOMEM) {
                        df_strmap_done(&o->index);
                        return -ENOMEM;
                }
        o->index_stale = false;
        return 0;
}

static ssize_t find(struct originals *o, const char *path) {
        size_t i;

        if (o->index_stale && index_rebuild(o) < 0) {
                for (i = 0; i < o->n; i++) /* no memory for the index: a scan still answers */
                        if (streq(o->entries[i].path, path))
                                return (ssize_t) i;
                return -1;
        }
        return df_strmap_find(&o->index, path, strlen(path), &i) ? (ssize_t) i : -1;
}

struct originals_entry *originals_entry(struct originals *o, const char *path) {
        ssize_t i = find(o, path);

        assert(o);

        return i < 0 ? NULL : &o->entries[i];
}

const struct df_originals *originals_get(struct originals *o, const char *path) {
        struct originals_entry *e = originals_entry(o, path);

        return e ? &e->values : NULL;
}

int originals_save(const struct originals *o) {
        assert(o);

        _cleanup_free_ char *text = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        if (o->n == 0) {
                if (unlink(o->file) < 0 && errno != ENOENT)
                        return log_error_errno(errno, "Failed to remove %s: %m", o->file);
                return 0;
        }
        f = open_memstream(&text, &size);
        if (!f)
                return log_oom();
        fputs(ORIGINALS_HEADER, f);
        for (size_t i = 0; i < o->n; i++) {
                const struct df_originals *v = &o->entries[i].values;
                fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", o->entries[i].path, v->governor, v->min, v->max,
                        v->hw_min, v->hw_max, v->freq);
        }
        if (fclose(f) != 0)
                return log_oom();
        r = write_file_atomic(o->file, text, size);
        if (r < 0)
                return log_error_errno(r, "Failed to write %s: %m", o->file);
        return 0;
}

int originals_add(struct originals *o, const char *path, const struct df_originals *values) {
        size_t before = o->n;
        int r = originals_record(o, path, values);

        assert(o);
        assert(values);

        if (r <= 0)
                return r;
        r = originals_save(o);
        if (r < 0)
                originals_truncate(o, before); /* not saved: the write it guards must not happen */
        return r;
}

/* 1 when recorded, 0 when an entry exists already. */
int originals_record(struct originals *o, const char *path, const struct df_originals *values) {
        assert(o);
        assert(values);

        if (originals_get(o, path))
                return 0;
        if (!record_value_valid(path) || !record_value_valid(values->governor) ||
            !record_value_valid(values->min) || !record_value_valid(values->max) ||
            !record_value_valid(values->hw_min) || !record_value_valid(values->hw_max) ||
            !record_value_valid(values->freq))
                return log_error_errno(EINVAL, "%s: original values cannot be recorded", path);
        if (append_entry(o, path, values) < 0)
                return log_oom();
        return 1;
}

void originals_truncate(struct originals *o, size_t n) {
        assert(o);

        while (o->n > n)
                free(o->entries[--o->n].path);
        o->index_stale = true;
}

/* The last entry takes the place of the one forgotten: no shift of the others, no index rebuilt. */
int originals_forget(struct originals *o, const char *path) {
        ssize_t i = find(o, path);
        struct originals_entry *last;

        assert(o);

        if (i < 0)
                return 0;
        if (!o->index_stale)
                (void) df_strmap_remove(&o->index, path, strlen(path));
        free(o->entries[i].path);
        last = &o->entries[--o->n];
        if ((size_t) i == o->n)
                return 1;
        o->entries[i] = *last;
        if (!o->index_stale &&
            (df_strmap_remove(&o->index, last->path, strlen(last->path)) < 0 ||
             df_strmap_insert(&o->index, last->path, strlen(last->path), (size_t) i) < 0))
                o->index_stale = true;
        return 1;
}

int originals_remove(struct originals *o, const char *path) {
        assert(o);

        return originals_forget(o, path) > 0 ? originals_save(o) : 0;
}
