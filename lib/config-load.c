/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One load of the configuration: an empty model, the files parsed into it, then validated and
 * handed over (or freed). Files are opened by config-files.c; text comes from memory here. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include "config-internal.h"
#include "strmap.h"

/* One load: the model starts empty; config_finish() validates it and hands it over, or frees it. */
int config_begin(struct parser *p, struct df_config_errors *errors) {
        assert(p);

        *p = (struct parser){};
        p->errors = errors ?: &p->scratch;
        p->config = config_new();
        return p->config ? 0 : -ENOMEM;
}

int config_finish(struct parser *p, struct df_config **ret) {
        int r = 0;

        assert(p);
        assert(ret);

        if (!p->oom)
                config_validate(p);
        free(p->key);
        free(p->value);
        free(p->device_bad);
        free(p->thermal_bad);
        df_strmap_done(&p->device_index);
        df_config_errors_done(&p->scratch);
        if (p->oom)
                r = -ENOMEM;
        else if (p->n_errors > 0)
                r = -EINVAL;
        if (r < 0) {
                df_config_free(p->config);
                return r;
        }
        *ret = p->config;
        return 0;
}

int df_config_load_string(
        const char *name, const char *text, size_t size, struct df_config **ret,
        struct df_config_errors *errors) {
        struct parser p;
        int r;

        assert(ret);

        r = config_begin(&p, errors);
        if (r < 0)
                return r;
        config_parse_source(&p, name ?: "<string>", NULL, NULL, text ?: "", text ? size : 0);
        return config_finish(&p, ret);
}
