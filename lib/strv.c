/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A NULL-terminated array of strings with its length beside it. */

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

char **strv_free(char **v, size_t n) {
        for (size_t i = 0; v && i < n; i++)
                free(v[i]);
        free(v);
        return NULL;
}

int strv_consume(char ***v, size_t *n, char *s) {
        char **nv;

        assert(v);
        assert(n);

        if (!s)
                return -ENOMEM;
        nv = reallocarray(*v, *n + 2, sizeof(char *));
        if (!nv) {
                free(s);
                return -ENOMEM;
        }
        nv[(*n)++] = s;
        nv[*n] = NULL;
        *v = nv;
        return 0;
}

int strv_push(char ***v, size_t *n, const char *s) {
        assert(s);

        return strv_consume(v, n, strdup(s));
}
