/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration's files: the main file, the drop-in directory, each opened safely and fed to
 * the parser as a stream of bytes. */

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config-internal.h"
#include "macro.h"

static int file_getc(void *stream) {
        FILE *f = stream;
        int c = getc_unlocked(f);

        return c == EOF && ferror(f) ? CONFIG_READ_ERROR : c;
}

static const char *file_type_name(mode_t mode) {
        return S_ISDIR(mode)   ? "a directory" :
                S_ISFIFO(mode) ? "a FIFO" :
                S_ISCHR(mode)  ? "a character device" :
                S_ISBLK(mode)  ? "a block device" :
                S_ISSOCK(mode) ? "a socket" :
                                 "not a file";
}

/* `missing_ok`: the main file may be absent (all defaults). */
void config_parse_file(struct parser *p, const char *path, bool missing_ok) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        FILE *f;

        assert(p);
        assert(path);

        p->file = path;
        /* O_NONBLOCK: opening a FIFO must not wait for a writer; the type is checked on what was
         * opened, so nothing can swap the file in between. */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno != ENOENT || !missing_ok)
                        config_report_line(p, 0, "cannot open: %s", strerror(errno));
                return;
        }
        if (fstat(fd, &st) < 0) {
                config_report_line(p, 0, "cannot stat: %s", strerror(errno));
                return;
        }
        if (!S_ISREG(st.st_mode)) {
                config_report_line(p, 0, "not a regular file (%s)", file_type_name(st.st_mode));
                return;
        }
        if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
                config_report_line(p, 0, "cannot read: %s", strerror(errno));
                return;
        }
        f = fdopen(fd, "re");
        if (!f) {
                (void) config_oom(p);
                return;
        }
        TAKE_FD(fd);
        config_parse_source(p, path, file_getc, f, NULL, 0);
        fclose(f);
}

static int strcmp_ptr(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Regular files, not hidden, named "*.conf", in strcmp order (not the locale's). */
void config_parse_dropins(struct parser *p, const char *dir) {
        char **names = NULL;
        struct dirent *de;
        size_t n = 0;
        DIR *d;

        assert(p);
        assert(dir);

        d = opendir(dir);
        if (!d) {
                p->file = dir;
                if (errno != ENOENT)
                        config_report_line(p, 0, "cannot read directory: %s", strerror(errno));
                return;
        }
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                struct stat st;
                char **slot;

                if (de->d_name[0] == '.' || len <= 5 || !streq(de->d_name + len - 5, ".conf"))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
                        continue; /* directories, dangling links */
                slot = GROW(names, n);
                if (!slot || asprintf(slot, "%s/%s", dir, de->d_name) < 0) {
                        (void) config_oom(p);
                        break;
                }
                n++;
        }
        closedir(d);
        if (n > 0)
                qsort(names, n, sizeof(char *), strcmp_ptr);
        for (size_t i = 0; i < n && !p->oom; i++)
                config_parse_file(p, names[i], false);
        config_free_strv(names, n);
}

struct source {
        const char *path;
        bool missing_ok;
};

static int
load(const struct source *sources, size_t n, const char *dropin_dir, struct df_config **ret,
     struct df_config_errors *errors) {
        struct parser p;
        int r;

        r = config_begin(&p, errors);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && !p.oom; i++)
                config_parse_file(&p, sources[i].path, sources[i].missing_ok);
        if (dropin_dir && !p.oom)
                config_parse_dropins(&p, dropin_dir);
        return config_finish(&p, ret);
}

int df_config_load(
        const char *file, const char *dropin_dir, struct df_config **ret, struct df_config_errors *errors) {
        struct source s = { .path = file, .missing_ok = true };

        assert(ret);

        return load(&s, file ? 1 : 0, dropin_dir, ret, errors);
}

int df_config_load_files(
        const char *const *files, size_t n_files, struct df_config **ret, struct df_config_errors *errors) {
        _cleanup_free_ struct source *s = NULL;

        assert(ret);
        assert(files || n_files == 0);

        s = calloc(n_files ?: 1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        for (size_t i = 0; i < n_files; i++) {
                if (!files[i])
                        return -EINVAL;
                s[i] = (struct source){ .path = files[i] };
        }
        return load(s, n_files, NULL, ret, errors);
}
