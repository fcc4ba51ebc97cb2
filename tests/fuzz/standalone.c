/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replays fuzzing inputs without libFuzzer: every file named (or found in the directories named)
 * goes once through LLVMFuzzerTestOneInput(). make check runs it over the saved corpus, so an
 * input that once crashed a harness stays a test. Prints TAP. */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* A harness without its own initializer still links against this weak default. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv) {
        return 0;
}

static int n_tests;

static void run_file(const char *path) {
        FILE *f = fopen(path, "re");
        unsigned char *buf = NULL;
        size_t size = 0;

        if (!f) {
                printf("not ok %d - cannot open %s\n", ++n_tests, path);
                return;
        }
        for (;;) {
                unsigned char chunk[65536];
                size_t k = fread(chunk, 1, sizeof(chunk), f);
                if (k == 0)
                        break;
                buf = realloc(buf, size + k);
                if (!buf)
                        abort();
                memcpy(buf + size, chunk, k);
                size += k;
        }
        fclose(f);
        (void) LLVMFuzzerTestOneInput(buf ? buf : (const unsigned char *) "", size);
        free(buf);
        /* A crash aborts the process; reaching this line is the pass. */
        printf("ok %d - %s\n", ++n_tests, path);
        fflush(stdout);
}

static int cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void run_path(const char *path) {
        struct stat st;
        DIR *d;

        if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)) {
                run_file(path);
                return;
        }
        d = opendir(path);
        if (!d)
                return;
        char **names = NULL;
        size_t n = 0;
        for (struct dirent *e; (e = readdir(d));) {
                if (e->d_name[0] == '.')
                        continue;
                names = realloc(names, (n + 1) * sizeof(char *));
                if (!names || asprintf(&names[n], "%s/%s", path, e->d_name) < 0)
                        abort();
                n++;
        }
        closedir(d);
        qsort(names, n, sizeof(char *), cmp);
        for (size_t i = 0; i < n; i++) {
                run_file(names[i]);
                free(names[i]);
        }
        free(names);
}

int main(int argc, char **argv) {
        LLVMFuzzerInitialize(&argc, &argv);
        if (argc > 1)
                for (int i = 1; i < argc; i++)
                        run_path(argv[i]);
        else {
                /* make check: this harness's saved corpus in the source tree */
                const char *top = getenv("top_srcdir");
                char *dir;

                if (asprintf(&dir, "%s/tests/fuzz/corpus/%s", top && *top ? top : TOP_SRCDIR, FUZZ_CORPUS) < 0)
                        abort();
                run_path(dir);
                free(dir);
        }
        printf("1..%d\n", n_tests);
        return 0;
}
