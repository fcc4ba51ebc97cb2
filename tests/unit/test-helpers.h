/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the check unit suites: a TAP-reporting main, the vector directory and a fake root
 * in a temporary directory. */
#pragma once

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Run one suite with TAP on stdout (automake's tap-driver counts each test); exit status. */
int df_test_run(Suite *s);

/* df_test_run() with every test in a child process whatever CK_FORK says: for tests that expect a
 * signal (tcase_add_test_raise_signal), which would end the whole suite without fork mode. */
int df_test_run_forked(Suite *s);

/*
 * Path of a file under tests/vectors/ in the source tree (top_srcdir from the environment,
 * as make check sets it, else the directory the test was built from). Caller frees.
 */
char *df_test_vector_path(const char *name);

/* Read a whole file; aborts the test on failure. Caller frees. */
char *df_test_read_file(const char *path);

/* Split `text` into lines in place, skipping blank lines and lines starting with '#'. */
size_t df_test_lines(char *text, char ***ret);

/* xorshift64* (the state must not be 0): random tests start from a fixed seed, so a failure reproduces. */
uint64_t df_test_random(uint64_t *state);
/* Put the `n` entries of `v` in a random order (Fisher-Yates) drawn from df_test_random(state). */
void df_test_shuffle(size_t *v, size_t n, uint64_t *state);

/* --- a fake root in a temporary directory --------------------------------------------------------- */
/* Paths below a root are relative to it ("sys/class/devfreq/gpu"). Each helper fails the test
 * (ck_abort_msg) when it cannot do its job, so they run inside a test or a checked fixture. */

/* A new, empty directory $TMPDIR/devfreqd-test-TAG-XXXXXX (/tmp without TMPDIR). Caller frees, or
 * removes it with df_test_root_free(). */
char *df_test_root_new(const char *tag);

/* Remove `path` and everything below it; links are removed, not followed. */
void df_test_rm_rf(const char *path);

/* df_test_rm_rf(root), then free(root). */
void df_test_root_free(char *root);

/* "root/rel". Caller frees. */
char *df_test_path(const char *root, const char *rel);

/*
 * Write `content` to root/rel, making the directories on the way. An existing file is rewritten in
 * place (truncated, same inode), not replaced: a descriptor kept open on it reads the new value, as
 * one on a kernel attribute does.
 */
void df_test_put(const char *root, const char *rel, const char *content);

/* df_test_put() of `len` bytes, which may include NULs. */
void df_test_put_bytes(const char *root, const char *rel, const void *content, size_t len);

/* A symbolic link root/rel to `target` (taken as it is), making the directories on the way. */
void df_test_put_link(const char *root, const char *rel, const char *target);

/* Unlink root/rel. */
void df_test_del(const char *root, const char *rel);

/* The contents of root/rel (df_test_read_file). Caller frees. */
char *df_test_get(const char *root, const char *rel);
