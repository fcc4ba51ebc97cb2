/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of things, checked without touching them: device names, the paths written in the
 * configuration, the kinds of node. */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "macro.h"
#include "names.h"

static const char *const kind_table[_DF_KIND_MAX] = {
        [DF_KIND_DEVFREQ] = "devfreq",
        [DF_KIND_CPUFREQ] = "cpufreq",
};

DEFINE_STRING_TABLE(df_kind, enum df_kind, kind_table, _DF_KIND_MAX, _DF_KIND_INVALID)

uint64_t df_kind_unit_hz(enum df_kind k) {
        return k == DF_KIND_CPUFREQ ? 1000 : 1;
}

int df_path_check(const char *path) {
        const char *p;

        if (!path || path[0] != '/' || strlen(path) >= PATH_MAX)
                return -EINVAL;
        if (!strneq(path, "/sys/", 5) && !strneq(path, "/proc/", 6))
                return -EINVAL;
        for (p = path; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7f)
                        return -EINVAL;
        for (p = path + 1;;) {
                size_t len = strcspn(p, "/");

                if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
                        return -EINVAL;
                if (p[len] == '\0')
                        return 0;
                p += len + 1;
        }
}

bool df_name_valid(const char *name) {
        size_t len;

        if (!name)
                return false;
        len = strlen(name);
        if (len == 0 || len > NAME_MAX || streq(name, ".") || streq(name, ".."))
                return false;
        /* Graphic ASCII only: names are bus path labels, configuration section names and keys of
         * whitespace-separated state records. */
        for (const char *p = name; *p; p++)
                if (*p <= ' ' || *p >= 0x7f || *p == '/')
                        return false;
        return true;
}
