/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The daemon's own small files (originals, state): atomic replacement and tab-separated records. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Replace `path` with `content`: written to a temporary file in the same directory, fsync'd,
 * renamed over, and the directory fsync'd, so a crash leaves either the old or the new file.
 * The directory is created (0755) when missing.
 */
int write_file_atomic(const char *path, const char *content, size_t size);

/* Read a whole file (at most 16 MiB). -ENOENT when it does not exist. Caller frees. */
int read_file(const char *path, char **ret, size_t *ret_size);

/*
 * The next line of text[0..size) (from read_file(), NUL-terminated) from *pos, advanced past it:
 * cut in place at its newline, empty lines included; NULL at the end. *ret_nul: the line holds a
 * NUL byte (a crash can leave a block of zeros), so it reads short and is no record.
 */
char *next_line(char *text, size_t size, size_t *pos, bool *ret_nul);

/*
 * Split one line into tab-separated fields, in place. Returns the number of fields, or -E2BIG
 * when there are more than `max`.
 */
int split_tabs(char *line, char **fields, int max);

/* A value may go into a record: no tab, no newline, no other control character. */
int record_value_valid(const char *s);
