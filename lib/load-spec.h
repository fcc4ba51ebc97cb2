/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Load specifications as the configuration writes them: "proc-stat", "counters:PATH"... */
#pragma once

enum df_load_kind {
        DF_LOAD_NONE,
        DF_LOAD_PROC_STAT, /* the busiest of the given CPUs; iowait counts as idle */
        DF_LOAD_COUNTERS,  /* a file with two cumulative integers "busy total" */
        DF_LOAD_PERCENT,   /* a file with a busy percentage 0-100 */
        _DF_LOAD_KIND_MAX,
        _DF_LOAD_KIND_INVALID = -22,
};

/* "none", "proc-stat", "counters", "percent". */
const char *df_load_kind_to_string(enum df_load_kind k);
enum df_load_kind df_load_kind_from_string(const char *s);

/*
 * Parse a load specification: "none", "proc-stat", "counters:PATH", "percent:PATH" (PATH must
 * pass df_path_check()). *ret_path is NULL for the first two. 0 or -EINVAL.
 */
int df_load_spec_parse(const char *spec, enum df_load_kind *ret_kind, char **ret_path);
