/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared pieces of the configuration suites (see test-config.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "macro.h"
#include "test-config.h"
#include "test-helpers.h"

const char design_example[] =
        "[daemon]\n"
        "autodiscover = yes             ; manage every devfreq node and cpufreq policy found\n"
        "default-mode = clamp           ; clamp | govern, for devices without mode =\n"
        "default-governor = simple_ondemand   ; for govern-mode devices without governor =\n"
        "polling-interval = 100ms\n"
        "allow-groups =                 ; groups allowed everything when polkit is absent\n"
        "request-groups =               ; groups allowed to add QoS requests when polkit is absent\n"
        "max-requests-per-client = 64\n"
        "max-requests = 4096\n"
        "max-clients = 256              ; distinct bus connections holding requests\n"
        "\n"
        "[device gpu]                   ; one section per device; the name is what clients use\n"
        "path = /sys/class/devfreq/ff9a0000.gpu\n"
        "mode = govern                  ; govern | clamp\n"
        "governor = simple_ondemand\n"
        "polling-interval = 50ms\n"
        "initial-frequency = 400MHz\n"
        "min-frequency = 200MHz\n"
        "max-frequency = 800MHz\n"
        "load = counters:/sys/devices/platform/ff9a0000.gpu/busy\n"
        "upthreshold = 90               ; any tunable of the governor, by its name\n"
        "downdifferential = 5\n"
        "opp = 200MHz 825mV latency=2ms\n"
        "opp = 400MHz 900mV latency=1ms\n"
        "opp = 800MHz 1050mV latency=200us\n"
        "opp-disabled = 800MHz          ; starts disabled\n"
        "; opp-step = 100MHz            ; spacing of the synthetic table for drivers without a frequency "
        "list\n"
        "\n"
        "[device dmc]\n"
        "path = /sys/class/devfreq/dmc\n"
        "mode = govern\n"
        "governor = passive\n"
        "parent = gpu\n"
        "passive-map = 200MHz:200MHz 400MHz:400MHz 800MHz:800MHz   ; parent:child pairs\n";

char *dir;

static void dir_setup(void) {
        dir = df_test_root_new("config");
}

static void dir_teardown(void) {
        df_test_root_free(dir);
        dir = NULL;
}

char *write_file(const char *name, const char *text, size_t len) {
        df_test_put_bytes(dir, name, text, len ? len : strlen(text));
        return df_test_path(dir, name);
}

void errors_print(const struct df_config_errors *e) {
        for (size_t i = 0; i < e->n; i++)
                fprintf(stderr, "# %s\n", e->messages[i]);
}

struct df_config *load_dir_ok(const char *main_path, const char *conf_d) {
        struct df_config_errors e = {};
        struct df_config *c = NULL;
        int r;

        r = df_config_load(main_path, conf_d, &c, &e);
        if (r < 0)
                errors_print(&e);
        ck_assert_int_eq(r, 0);
        df_config_errors_done(&e);
        return c;
}

struct df_config *load_ok(const char *text) {
        struct df_config_errors e = {};
        struct df_config *c = NULL;
        int r;

        r = df_config_load_string("test.conf", text, strlen(text), &c, &e);
        if (r < 0)
                errors_print(&e);
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(e.n, 0);
        ck_assert_ptr_nonnull(c);
        df_config_errors_done(&e);
        return c;
}

void check_errors(const struct df_config_errors *e, const char *const *expected, size_t n, const char *what) {
        if (e->n != n)
                errors_print(e);
        ck_assert_msg(e->n == n, "%.80s: %zu errors, expected %zu", what, e->n, n);
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(
                        strneq(e->messages[i], expected[i], strlen(expected[i])),
                        "%.80s: got \"%.200s\", expected \"%s…\"", what, e->messages[i], expected[i]);
}

void *const sentinel = (void *) &sentinel;

char *in_dir(const char *expected) {
        char *out = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&out, &size);

        ck_assert_ptr_nonnull(f);
        for (const char *s = expected; *s;) {
                if (strneq(s, "bad.conf:", 9)) {
                        fprintf(f, "%s/bad.conf:", dir);
                        s += 9;
                } else
                        fputc(*s++, f);
        }
        ck_assert_int_eq(fclose(f), 0);
        return out;
}

void free_strings(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
}

void load_string_bad(const char *text, size_t len, const char *const *expected, size_t n) {
        struct df_config_errors e = {};
        struct df_config *c = sentinel;

        ck_assert_int_eq(df_config_load_string("bad.conf", text, len, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel); /* nothing half-applied */
        check_errors(&e, expected, n, text ?: "(null)");
        df_config_errors_done(&e);
}

size_t count(const char *const *v, size_t max) {
        size_t n = 0;

        while (n < max && v[n])
                n++;
        return n;
}

void check_defaults(const struct df_config *c) {
        ck_assert(c->autodiscover);
        ck_assert_int_eq(c->default_mode, DF_MODE_CLAMP);
        ck_assert_str_eq(c->default_governor, "simple_ondemand");
        ck_assert_uint_eq(c->polling_usec, DF_CONFIG_DEFAULT_POLLING_USEC);
        ck_assert_uint_eq(c->n_allow_groups, 0);
        ck_assert_uint_eq(c->n_request_groups, 0);
        ck_assert_uint_eq(c->max_requests_per_client, 64);
        ck_assert_uint_eq(c->max_requests, 4096);
        ck_assert_uint_eq(c->max_clients, 256);
        ck_assert_uint_eq(c->n_devices, 0);
}

TCase *config_tcase(Suite *s, const char *name) {
        TCase *tc = tcase_create(name);

        tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
        suite_add_tcase(s, tc);
        return tc;
}

void load_both_bad(const char *text, size_t len, const char *const *errors, size_t n, const char *what) {
        _cleanup_free_ char *path = write_file("bad.conf", text, len);
        struct df_config_errors e = {};
        struct df_config *c = sentinel;
        char *expected[4];

        ck_assert_uint_le(n, ELEMENTSOF(expected));
        load_string_bad(text, len, errors, n);
        for (size_t i = 0; i < n; i++)
                expected[i] = in_dir(errors[i]);
        ck_assert_int_eq(df_config_load(path, NULL, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel);
        check_errors(&e, (const char *const *) expected, n, what);
        df_config_errors_done(&e);
        free_strings(expected, n);
}

static const struct bad_case *bad_table;

/* An entry of the table: from memory, and from a file through df_config_load with the file's
 * path in front. */
START_TEST(test_bad_input) {
        const struct bad_case *t = &bad_table[_i];

        load_both_bad(t->text, strlen(t->text), t->errors, count(t->errors, ELEMENTSOF(t->errors)), t->text);
}
END_TEST

void config_add_bad_input(Suite *s, const struct bad_case *table, size_t n) {
        bad_table = table;
        tcase_add_loop_test(config_tcase(s, "bad_input"), test_bad_input, 0, (int) n);
}
