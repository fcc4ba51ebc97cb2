/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the check unit suites: a TAP-reporting main and the vector directory. */
#pragma once

#include <check.h>

/* Run one suite with TAP on stdout (automake's tap-driver counts each test); exit status. */
int df_test_run(Suite *s);

/*
 * Path of a file under tests/vectors/ in the source tree (top_srcdir from the environment,
 * as make check sets it, else the directory the test was built from). Caller frees.
 */
char *df_test_vector_path(const char *name);

/* Read a whole file; aborts the test on failure. Caller frees. */
char *df_test_read_file(const char *path);

/* Split `text` into lines in place, skipping blank lines and lines starting with '#'. */
size_t df_test_lines(char *text, char ***ret);
