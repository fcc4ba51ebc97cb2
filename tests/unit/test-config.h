/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the configuration suites (test-config*.c): a fresh directory for each test,
 * loading text that must parse, and checking the exact errors of text that must not. */
#pragma once

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define MHZ(x) (UINT64_C(x) * 1000000)

/* The start of a device section, and one in govern mode with a load source. */
#define DEV "[device gpu]\npath = /sys/class/devfreq/gpu\n"
#define GOV DEV "mode = govern\nload = percent:/sys/class/devfreq/gpu/load\n"

/* An example configuration using every key of a device: two devices, operating points, a passive
 * child. */
extern const char design_example[];

/* A fresh temporary directory for each test of a case made by config_tcase(). */
extern char *dir;

/* A pointer no load returns: a failed load must leave its result alone. */
extern void *const sentinel;

/* A test case in suite s whose tests run with a fresh dir. */
TCase *config_tcase(Suite *s, const char *name);
#define ADD(name) tcase_add_test(config_tcase(s, #name), test_##name)

/* Write `len` bytes (strlen when 0) to dir/name; returns the path (caller frees). */
char *write_file(const char *name, const char *text, size_t len);

void errors_print(const struct df_config_errors *e);

/* Parse text that must be valid. */
struct df_config *load_ok(const char *text);
/* Load a main file (or none) and a drop-in directory that must be valid. */
struct df_config *load_dir_ok(const char *main_path, const char *conf_d);

/* The errors must be exactly these, in order, each starting with its prefix. */
void check_errors(const struct df_config_errors *e, const char *const *expected, size_t n, const char *what);

/* An expected message for the file in the test directory: every "bad.conf:" gets the directory. */
char *in_dir(const char *expected);

void free_strings(char **v, size_t n);

/* Text that must fail from memory with exactly these errors, leaving nothing half-applied. */
void load_string_bad(const char *text, size_t len, const char *const *expected, size_t n);

/* Bytes through both paths (memory, and a file read in bounded memory). */
void load_both_bad(const char *text, size_t len, const char *const *errors, size_t n, const char *what);

/* The entries of v before the first NULL, at most max. */
size_t count(const char *const *v, size_t max);

/* Every setting at its default, no device. */
void check_defaults(const struct df_config *c);

struct bad_case {
        const char *text;
        const char *errors[4]; /* each error's prefix, in order; exactly these */
};

/* A test case "bad_input" in suite s with one test per entry of table: each text must fail,
 * from memory and from a file, with exactly its errors. */
void config_add_bad_input(Suite *s, const struct bad_case *table, size_t n);
