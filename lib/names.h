/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of things, checked without touching them: device names, the paths written in the
 * configuration, the kinds of node. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum df_kind {
        DF_KIND_DEVFREQ,
        DF_KIND_CPUFREQ,
        _DF_KIND_MAX,
        _DF_KIND_INVALID = -22,
};

const char *df_kind_to_string(enum df_kind k);
enum df_kind df_kind_from_string(const char *s);
/* Hz per unit a node of this kind counts frequencies in, in sysfs and in the kernel's own
 * arithmetic: 1 on devfreq, 1000 on cpufreq (kHz). */
uint64_t df_kind_unit_hz(enum df_kind k);

/*
 * Check a path as written in configuration: absolute, under /sys/ or /proc/, no "." or ".."
 * component, no empty component, no control characters. 0 or -EINVAL.
 */
int df_path_check(const char *path);

/* Device names used on the bus and in files: non-empty, printable, no '/', not "." or "..". */
bool df_name_valid(const char *name);
