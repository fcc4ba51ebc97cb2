/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Load specifications as the configuration writes them: "proc-stat", "counters:PATH"... */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load-spec.h"
#include "macro.h"
#include "names.h"

static const char *const kind_table[_DF_LOAD_KIND_MAX] = {
        [DF_LOAD_NONE] = "none",
        [DF_LOAD_PROC_STAT] = "proc-stat",
        [DF_LOAD_COUNTERS] = "counters",
        [DF_LOAD_PERCENT] = "percent",
};

DEFINE_STRING_TABLE(df_load_kind, enum df_load_kind, kind_table, _DF_LOAD_KIND_MAX, _DF_LOAD_KIND_INVALID)

int df_load_spec_parse(const char *spec, enum df_load_kind *ret_kind, char **ret_path) {
        enum df_load_kind k;
        _cleanup_free_ char *name = NULL;
        const char *path;
        char *p = NULL;

        assert(ret_kind);

        if (!spec)
                return -EINVAL;
        /* KIND or KIND:PATH, the path for the kinds that read a file and for them alone. */
        path = strchr(spec, ':');
        name = path ? strndup(spec, (size_t) (path - spec)) : strdup(spec);
        if (!name)
                return -ENOMEM;
        k = df_load_kind_from_string(name);
        if (k < 0 || (k == DF_LOAD_COUNTERS || k == DF_LOAD_PERCENT) != !!path)
                return -EINVAL;
        if (path)
                path++;
        if (path && df_path_check(path) < 0)
                return -EINVAL;
        if (path && !(p = strdup(path)))
                return -ENOMEM;
        *ret_kind = k;
        if (ret_path)
                *ret_path = p;
        else
                free(p);
        return 0;
}
