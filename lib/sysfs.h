/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* All sysfs and procfs I/O: paths confined to a root directory, kept-open attributes read with
 * pread at 0, writes that replace the whole value. */
#pragma once

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "names.h"

/* The root every path is resolved under (--root, "/" in production). */
struct df_root {
        int fd;     /* O_PATH|O_DIRECTORY of the root */
        char *path; /* as given, for messages */
};

int df_root_open(const char *path, struct df_root *ret);
void df_root_close(struct df_root *r);

/*
 * Open `path` (absolute, as seen inside the root) with openat2(RESOLVE_IN_ROOT), so no symlink
 * can leave the root, then check that the object really is under <root>/sys or <root>/proc.
 * O_CLOEXEC is always added. Errors: the open's errno, -EXDEV when the resolved object lies
 * outside /sys and /proc of the root, -EINVAL for a path df_path_check() refuses.
 */
int df_root_open_path(const struct df_root *r, const char *path, int flags);

/* df_root_open_path() of a directory, as a DIR stream for readdir(): 0 and *ret, or a negative
 * errno (-ENOENT when the directory does not exist). */
int df_root_opendir(const struct df_root *r, const char *path, DIR **ret);

/* The canonical path of `path` inside the root (symlinks resolved, e.g. a class link into
 * /sys/devices), as an absolute path starting with "/sys/" or "/proc/". Caller frees. */
int df_root_resolve(const struct df_root *r, const char *path, char **ret);

/* Open an attribute relative to an open directory, not leaving it (RESOLVE_BENEATH). */
int df_attr_open(int dirfd, const char *name, int flags);

/*
 * Read a whole (small) attribute with one pread at offset 0 into buf (NUL-terminated, trailing
 * newline removed). Returns the length or a negative errno; -EFBIG when it does not fit.
 */
ssize_t df_attr_pread(int fd, char *buf, size_t size);

/* Open, read, close: for attributes read rarely. */
ssize_t df_attr_read(int dirfd, const char *name, char *buf, size_t size);

/* One base-10 integer (surrounding whitespace allowed, nothing else). */
int df_attr_pread_u64(int fd, uint64_t *ret);
int df_attr_read_u64(int dirfd, const char *name, uint64_t *ret);

/*
 * Replace the whole value: one pwrite of the complete string at offset 0, then ftruncate (sysfs
 * ignores the size change; a plain file of a test root needs it). A short write is -EIO.
 */
int df_attr_pwrite(int fd, const char *value);
/* The same, without the ftruncate when `sysfs` says fd is a sysfs attribute (df_fd_on_sysfs()):
 * two system calls fewer on each changed tick of a real kernel. */
int df_attr_pwrite_on(int fd, const char *value, bool sysfs);
/* Whether fd (an O_PATH directory too) lies on a sysfs mount. */
bool df_fd_on_sysfs(int fd);
int df_attr_pwrite_u64(int fd, uint64_t value);
int df_attr_write(int dirfd, const char *name, const char *value);

/*
 * Parse a whitespace-separated list of frequencies (devfreq style without, cpufreq style with a
 * trailing space), multiplied by `scale` (1 for Hz, 1000 for kHz), sorted ascending, duplicates
 * removed. -EINVAL on garbage, -ERANGE on overflow, -ENODATA when empty. Caller frees *ret.
 */
int df_parse_frequency_list(const char *text, uint64_t scale, uint64_t **ret, size_t *ret_n);

/* Whether the space-separated list `list` contains the word `word`. */
bool df_word_in_list(const char *list, const char *word);
