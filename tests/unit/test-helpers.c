/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the check unit suites. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "test-helpers.h"

int df_test_run(Suite *s) {
        SRunner *sr = srunner_create(s);
        int failed;

        srunner_set_tap(sr, "-");
        srunner_run_all(sr, CK_SILENT);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

char *df_test_vector_path(const char *name) {
        const char *top = getenv("top_srcdir");
        char *p;

        if (!top || !*top)
                top = TOP_SRCDIR;
        if (asprintf(&p, "%s/tests/vectors/%s", top, name) < 0)
                abort();
        return p;
}

char *df_test_read_file(const char *path) {
        FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t size = 0;

        /* Also used before the suite runs, where ck_assert may not be called. */
        if (!f) {
                fprintf(stderr, "cannot open %s\n", path);
                abort();
        }
        for (;;) {
                char chunk[4096];
                size_t k = fread(chunk, 1, sizeof(chunk), f);
                if (k == 0)
                        break;
                buf = realloc(buf, size + k + 1);
                if (!buf)
                        abort();
                memcpy(buf + size, chunk, k);
                size += k;
        }
        fclose(f);
        if (!buf)
                buf = calloc(1, 1);
        if (!buf)
                abort();
        buf[size] = '\0';
        return buf;
}

size_t df_test_lines(char *text, char ***ret) {
        char **lines = NULL;
        size_t n = 0;
        char *save = NULL;

        for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                if (l[0] == '#' || l[strspn(l, " \t\r")] == '\0')
                        continue;
                lines = realloc(lines, (n + 1) * sizeof(char *));
                if (!lines)
                        abort();
                lines[n++] = l;
        }
        *ret = lines;
        return n;
}
