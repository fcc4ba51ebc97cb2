/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The configuration parser: the DESIGN.md example, defaults, drop-in merging, every bad input with
 * its file:line, the reader's limits, the shipped file, and random bytes. */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "macro.h"
#include "test-helpers.h"

#define MHZ(x) (UINT64_C(x) * 1000000)

/* The example of DESIGN.md "Configuration", verbatim. */
static const char design_example[] =
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

static char *dir; /* a fresh temporary directory for each test */

static void dir_setup(void) {
        dir = df_test_root_new("config");
}

static void dir_teardown(void) {
        df_test_root_free(dir);
        dir = NULL;
}

/* Write `len` bytes (strlen when 0) to dir/name; returns the path (caller frees). */
static char *write_file(const char *name, const char *text, size_t len) {
        df_test_put_bytes(dir, name, text, len ? len : strlen(text));
        return df_test_path(dir, name);
}

static void errors_print(const struct df_config_errors *e) {
        for (size_t i = 0; i < e->n; i++)
                fprintf(stderr, "# %s\n", e->messages[i]);
}

/* Parse text that must be valid. */
static struct df_config *load_ok(const char *text) {
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

/* The errors must be exactly these, in order, each starting with its prefix. */
static void
check_errors(const struct df_config_errors *e, const char *const *expected, size_t n, const char *what) {
        if (e->n != n)
                errors_print(e);
        ck_assert_msg(e->n == n, "%.80s: %zu errors, expected %zu", what, e->n, n);
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(
                        strneq(e->messages[i], expected[i], strlen(expected[i])),
                        "%.80s: got \"%.200s\", expected \"%s…\"", what, e->messages[i], expected[i]);
}

static void *const sentinel = (void *) &sentinel;

/* An expected message for the file in the test directory: every "bad.conf:" gets the directory. */
static char *in_dir(const char *expected) {
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

static void free_strings(char **v, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(v[i]);
}

static void load_string_bad(const char *text, size_t len, const char *const *expected, size_t n) {
        struct df_config_errors e = {};
        struct df_config *c = sentinel;

        ck_assert_int_eq(df_config_load_string("bad.conf", text, len, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel); /* nothing half-applied */
        check_errors(&e, expected, n, text ?: "(null)");
        df_config_errors_done(&e);
}

static size_t count(const char *const *v, size_t max) {
        size_t n = 0;

        while (n < max && v[n])
                n++;
        return n;
}

/* --- the DESIGN.md example -------------------------------------------------------------------- */

START_TEST(test_design_example) {
        struct df_config *c = load_ok(design_example);
        const struct df_config_device *gpu, *dmc;

        ck_assert_uint_eq(c->n_files, 1);
        ck_assert_str_eq(c->files[0], "test.conf");
        ck_assert(c->autodiscover);
        ck_assert_int_eq(c->default_mode, DF_MODE_CLAMP);
        ck_assert_str_eq(c->default_governor, "simple_ondemand");
        ck_assert_uint_eq(c->polling_usec, 100000);
        ck_assert_uint_eq(c->n_allow_groups, 0);
        ck_assert_uint_eq(c->n_request_groups, 0);
        ck_assert_uint_eq(c->max_requests_per_client, 64);
        ck_assert_uint_eq(c->max_requests, 4096);
        ck_assert_uint_eq(c->max_clients, 256);
        ck_assert_uint_eq(c->n_devices, 2);

        gpu = df_config_find_device(c, "gpu");
        ck_assert_ptr_eq(gpu, &c->devices[0]);
        ck_assert_str_eq(gpu->name, "gpu");
        ck_assert_str_eq(gpu->loc.file, "test.conf");
        ck_assert_uint_eq(gpu->loc.line, 12);
        ck_assert_str_eq(gpu->path, "/sys/class/devfreq/ff9a0000.gpu");
        ck_assert_uint_eq(gpu->path_loc.line, 13);
        ck_assert(gpu->mode_set);
        ck_assert_int_eq(gpu->mode, DF_MODE_GOVERN);
        ck_assert_uint_eq(gpu->mode_loc.line, 14);
        ck_assert_str_eq(gpu->governor, "simple_ondemand");
        ck_assert_uint_eq(gpu->governor_loc.line, 15);
        ck_assert(gpu->polling_set);
        ck_assert_uint_eq(gpu->polling_usec, 50000);
        ck_assert_uint_eq(gpu->polling_loc.line, 16);
        ck_assert(gpu->initial_set);
        ck_assert_uint_eq(gpu->initial_freq, MHZ(400));
        ck_assert_uint_eq(gpu->initial_loc.line, 17);
        ck_assert_uint_eq(gpu->min_freq, MHZ(200));
        ck_assert_uint_eq(gpu->min_loc.line, 18);
        ck_assert_uint_eq(gpu->max_freq, MHZ(800));
        ck_assert_uint_eq(gpu->max_loc.line, 19);
        ck_assert(gpu->load_set);
        ck_assert_int_eq(gpu->load, DF_LOAD_COUNTERS);
        ck_assert_str_eq(gpu->load_path, "/sys/devices/platform/ff9a0000.gpu/busy");
        ck_assert_uint_eq(gpu->load_loc.line, 20);
        ck_assert_uint_eq(gpu->n_tunables, 2);
        ck_assert_str_eq(gpu->tunables[0].name, "upthreshold");
        ck_assert_uint_eq(gpu->tunables[0].value, 90);
        ck_assert_uint_eq(gpu->tunables[0].loc.line, 21);
        ck_assert_str_eq(gpu->tunables[1].name, "downdifferential");
        ck_assert_uint_eq(gpu->tunables[1].value, 5);
        ck_assert_uint_eq(gpu->tunables[1].loc.line, 22);
        ck_assert_uint_eq(gpu->n_opps, 3);
        ck_assert_uint_eq(gpu->opps[0].freq, MHZ(200));
        ck_assert_uint_eq(gpu->opps[0].microvolt, 825000);
        ck_assert_uint_eq(gpu->opps[0].latency_us, 2000);
        ck_assert_uint_eq(gpu->opps[0].loc.line, 23);
        ck_assert_uint_eq(gpu->opps[1].freq, MHZ(400));
        ck_assert_uint_eq(gpu->opps[1].microvolt, 900000);
        ck_assert_uint_eq(gpu->opps[1].latency_us, 1000);
        ck_assert_uint_eq(gpu->opps[2].freq, MHZ(800));
        ck_assert_uint_eq(gpu->opps[2].microvolt, 1050000);
        ck_assert_uint_eq(gpu->opps[2].latency_us, 200);
        ck_assert_uint_eq(gpu->opps[2].loc.line, 25);
        ck_assert_uint_eq(gpu->n_opp_disabled, 1);
        ck_assert_uint_eq(gpu->opp_disabled[0].freq, MHZ(800));
        ck_assert_uint_eq(gpu->opp_disabled[0].loc.line, 26);
        ck_assert(!gpu->opp_step_set);
        ck_assert_uint_eq(df_config_device_opp_step(gpu), MHZ(100));
        ck_assert_ptr_null(gpu->parent);
        ck_assert_uint_eq(gpu->n_passive_map, 0);
        ck_assert_int_eq(df_config_device_mode(c, gpu), DF_MODE_GOVERN);
        ck_assert_str_eq(df_config_device_governor(c, gpu), "simple_ondemand");
        ck_assert_uint_eq(df_config_device_polling(c, gpu), 50000);

        dmc = df_config_find_device(c, "dmc");
        ck_assert_ptr_eq(dmc, &c->devices[1]);
        ck_assert_uint_eq(dmc->loc.line, 29);
        ck_assert_str_eq(dmc->path, "/sys/class/devfreq/dmc");
        ck_assert_int_eq(df_config_device_mode(c, dmc), DF_MODE_GOVERN);
        ck_assert_str_eq(df_config_device_governor(c, dmc), "passive");
        ck_assert_uint_eq(df_config_device_polling(c, dmc), 100000);
        ck_assert(!dmc->load_set);
        ck_assert(!dmc->initial_set);
        ck_assert_uint_eq(dmc->min_freq, 0);
        ck_assert_uint_eq(dmc->max_freq, UINT64_MAX);
        ck_assert_str_eq(dmc->parent, "gpu");
        ck_assert_uint_eq(dmc->parent_loc.line, 33);
        ck_assert_uint_eq(dmc->n_passive_map, 3);
        ck_assert_uint_eq(dmc->passive_map_loc.line, 34);
        for (size_t i = 0; i < 3; i++) {
                ck_assert_uint_eq(dmc->passive_map[i].parent, MHZ(200) << i);
                ck_assert_uint_eq(dmc->passive_map[i].child, MHZ(200) << i);
        }
        ck_assert_uint_eq(dmc->n_opps, 0);
        ck_assert_uint_eq(dmc->n_tunables, 0);

        ck_assert_ptr_null(df_config_find_device(c, "npu"));
        df_config_free(c);
}
END_TEST

/* --- defaults and accessors ------------------------------------------------------------------- */

static void check_defaults(const struct df_config *c) {
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

START_TEST(test_defaults) {
        struct df_config_errors e = {};
        _cleanup_free_ char *missing = NULL, *conf_d = NULL;
        struct df_config *c = NULL;

        /* A missing main file and a missing drop-in directory are all defaults. */
        ck_assert_int_ge(asprintf(&missing, "%s/devfreqd.conf", dir), 0);
        ck_assert_int_ge(asprintf(&conf_d, "%s/devfreqd.conf.d", dir), 0);
        ck_assert_int_eq(df_config_load(missing, conf_d, &c, &e), 0);
        ck_assert_uint_eq(e.n, 0);
        ck_assert_uint_eq(c->n_files, 0);
        check_defaults(c);
        df_config_free(c);

        ck_assert_int_eq(df_config_load(NULL, NULL, &c, &e), 0);
        check_defaults(c);
        df_config_free(c);

        /* An empty [daemon] section changes nothing. */
        c = load_ok("[daemon]\n");
        check_defaults(c);
        df_config_free(c);
}
END_TEST

START_TEST(test_accessors) {
        struct df_config *c = load_ok("[daemon]\n"
                                      "polling-interval = 250ms\n"
                                      "[device a]\n"
                                      "path = /sys/class/devfreq/a\n"
                                      "[device b]\n"
                                      "path = /sys/class/devfreq/b\n"
                                      "mode = govern\n"
                                      "governor = performance\n"
                                      "polling-interval = 1s\n"
                                      "opp-step = 50MHz\n"
                                      "[device c]\n"
                                      "path = /sys/class/devfreq/c\n"
                                      "governor = schedutil\n"
                                      "[device cpu]\n"
                                      "path = /sys/devices/system/cpu/cpufreq/policy0\n"
                                      "mode = govern\n");
        const struct df_config_device *a = df_config_find_device(c, "a"), *b = df_config_find_device(c, "b"),
                                      *cl = df_config_find_device(c, "c"),
                                      *cpu = df_config_find_device(c, "cpu");

        ck_assert(!a->mode_set);
        ck_assert_int_eq(df_config_device_mode(c, a), DF_MODE_CLAMP);
        ck_assert_ptr_null(df_config_device_governor(c, a)); /* the kernel's own */
        ck_assert_uint_eq(df_config_device_polling(c, a), 250000);
        ck_assert_uint_eq(df_config_device_opp_step(a), DF_CONFIG_DEFAULT_OPP_STEP);

        ck_assert_int_eq(df_config_device_mode(c, b), DF_MODE_GOVERN);
        ck_assert_str_eq(df_config_device_governor(c, b), "performance");
        ck_assert_uint_eq(df_config_device_polling(c, b), 1000000);
        ck_assert_uint_eq(df_config_device_opp_step(b), MHZ(50));

        /* Clamp mode: the kernel's governor, checked only for its spelling here. */
        ck_assert_int_eq(df_config_device_mode(c, cl), DF_MODE_CLAMP);
        ck_assert_str_eq(df_config_device_governor(c, cl), "schedutil");

        /* A cpufreq path defaults to proc-stat, so the default simple_ondemand has its load. */
        ck_assert_int_eq(df_config_device_mode(c, cpu), DF_MODE_GOVERN);
        ck_assert_str_eq(df_config_device_governor(c, cpu), "simple_ondemand");
        ck_assert(!cpu->load_set);

        ck_assert(df_config_path_is_cpufreq("/sys/devices/system/cpu/cpufreq/policy0"));
        ck_assert(!df_config_path_is_cpufreq("/sys/class/devfreq/gpu"));
        ck_assert(!df_config_path_is_cpufreq("/sys/devices/system/cpufreq"));
        ck_assert(!df_config_path_is_cpufreq(NULL));
        df_config_free(c);
}
END_TEST

/* --- drop-ins --------------------------------------------------------------------------------- */

static struct df_config *load_dir_ok(const char *main_path, const char *conf_d) {
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

START_TEST(test_dropin_override) {
        _cleanup_free_ char *main_path = NULL, *conf_d = NULL, *p1 = NULL, *p2 = NULL;
        const struct df_config_device *gpu;
        struct df_config *c;

        main_path = write_file(
                "devfreqd.conf",
                "[daemon]\n"
                "max-clients = 10\n"
                "max-clients = 20\n" /* later replaces earlier within one file too */
                "[device gpu]\n"
                "path = /sys/class/devfreq/gpu\n"
                "min-frequency = 100MHz\n"
                "max-frequency = 900MHz\n",
                0);
        ck_assert_int_ge(asprintf(&conf_d, "%s/conf.d", dir), 0);
        ck_assert_int_eq(mkdir(conf_d, 0755), 0);
        p1 = write_file(
                "conf.d/50-limits.conf",
                "[device gpu]\nmax-frequency = 600MHz\n[daemon]\nmax-requests = 99\n", 0);
        p2 = write_file("conf.d/60-more.conf", "[daemon]\nmax-clients = 30\n", 0);

        c = load_dir_ok(main_path, conf_d);
        ck_assert_uint_eq(c->n_files, 3);
        ck_assert_str_eq(c->files[0], main_path);
        ck_assert_str_eq(c->files[1], p1);
        ck_assert_str_eq(c->files[2], p2);
        ck_assert_uint_eq(c->max_clients, 30);
        ck_assert_uint_eq(c->max_requests, 99);
        gpu = df_config_find_device(c, "gpu");
        ck_assert_uint_eq(gpu->min_freq, MHZ(100));
        ck_assert_uint_eq(gpu->max_freq, MHZ(600));
        ck_assert_ptr_eq(gpu->max_loc.file, c->files[1]);
        ck_assert_uint_eq(gpu->max_loc.line, 2);
        ck_assert_ptr_eq(gpu->loc.file, c->files[0]); /* the first header naming it */
        ck_assert_uint_eq(gpu->loc.line, 4);
        df_config_free(c);
}
END_TEST

START_TEST(test_dropin_lists) {
        _cleanup_free_ char *main_path = NULL, *conf_d = NULL, *p1 = NULL, *p2 = NULL;
        const struct df_config_device *gpu;
        struct df_config *c;

        main_path = write_file(
                "devfreqd.conf",
                "[daemon]\n"
                "allow-groups = wheel\n"
                "allow-groups = adm  sudo\n"
                "request-groups = video\n"
                "[device gpu]\n"
                "path = /sys/class/devfreq/gpu\n"
                "opp = 100MHz\n"
                "opp = 200MHz\n"
                "opp-disabled = 100MHz\n",
                0);
        ck_assert_int_ge(asprintf(&conf_d, "%s/conf.d", dir), 0);
        ck_assert_int_eq(mkdir(conf_d, 0755), 0);
        p1 = write_file(
                "conf.d/10-a.conf",
                "[device gpu]\n"
                "opp =\n" /* clears the two points above */
                "opp = 300MHz 900mV\n"
                "opp = 400MHz\n"
                "opp-disabled =\n"
                "[daemon]\n"
                "allow-groups = staff wheel\n",
                0);
        p2 = write_file("conf.d/20-b.conf", "[daemon]\nrequest-groups =\nrequest-groups = users\n", 0);

        c = load_dir_ok(main_path, conf_d);
        ck_assert_uint_eq(c->n_allow_groups, 4); /* appended, "wheel" once */
        ck_assert_str_eq(c->allow_groups[0], "wheel");
        ck_assert_str_eq(c->allow_groups[1], "adm");
        ck_assert_str_eq(c->allow_groups[2], "sudo");
        ck_assert_str_eq(c->allow_groups[3], "staff");
        ck_assert_uint_eq(c->n_request_groups, 1);
        ck_assert_str_eq(c->request_groups[0], "users");
        gpu = df_config_find_device(c, "gpu");
        ck_assert_uint_eq(gpu->n_opps, 2);
        ck_assert_uint_eq(gpu->opps[0].freq, MHZ(300));
        ck_assert_uint_eq(gpu->opps[0].microvolt, 900000);
        ck_assert_uint_eq(gpu->opps[0].latency_us, 0);
        ck_assert_uint_eq(gpu->opps[1].freq, MHZ(400));
        ck_assert_ptr_eq(gpu->opps[1].loc.file, c->files[1]);
        ck_assert_uint_eq(gpu->opps[1].loc.line, 4);
        ck_assert_uint_eq(gpu->n_opp_disabled, 0);
        df_config_free(c);
}
END_TEST

START_TEST(test_dropin_sections_merge) {
        _cleanup_free_ char *main_path = NULL, *conf_d = NULL, *p1 = NULL;
        const struct df_config_device *gpu, *npu;
        struct df_config *c;

        main_path = write_file("devfreqd.conf", "[device gpu]\npath = /sys/class/devfreq/gpu\n", 0);
        ck_assert_int_ge(asprintf(&conf_d, "%s/conf.d", dir), 0);
        ck_assert_int_eq(mkdir(conf_d, 0755), 0);
        p1 = write_file(
                "conf.d/gpu.conf",
                "[device npu]\npath = /sys/class/devfreq/npu\n"
                "[device gpu]\nmode = govern\ngovernor = performance\n",
                0);
        c = load_dir_ok(main_path, conf_d);
        ck_assert_uint_eq(c->n_devices, 2);
        gpu = &c->devices[0];
        npu = &c->devices[1];
        ck_assert_str_eq(gpu->name, "gpu");
        ck_assert_str_eq(gpu->path, "/sys/class/devfreq/gpu");
        ck_assert_int_eq(df_config_device_mode(c, gpu), DF_MODE_GOVERN);
        ck_assert_str_eq(df_config_device_governor(c, gpu), "performance");
        ck_assert_str_eq(npu->name, "npu");
        df_config_free(c);

        /* The path may come from a drop-in, and validation waits for it. */
        free(p1);
        p1 = write_file("conf.d/gpu.conf", "[device npu]\npath = /sys/class/devfreq/npu\n", 0);
        free(main_path);
        main_path = write_file("devfreqd.conf", "[device npu]\nmode = clamp\n", 0);
        c = load_dir_ok(main_path, conf_d);
        ck_assert_str_eq(c->devices[0].path, "/sys/class/devfreq/npu");
        df_config_free(c);
}
END_TEST

START_TEST(test_dropin_order_and_filter) {
        _cleanup_free_ char *conf_d = NULL, *sub = NULL, *link_path = NULL;
        const char *ignored[] = { "README", "x.conf.bak", ".hidden.conf", "conf", ".conf", "x.CONF" };
        struct df_config *c;

        ck_assert_int_ge(asprintf(&conf_d, "%s/conf.d", dir), 0);
        ck_assert_int_eq(mkdir(conf_d, 0755), 0);
        /* strcmp order: "10-" < "9-" < "a" < "b" */
        free(write_file("conf.d/9-b.conf", "[daemon]\nmax-clients = 9\nmax-requests = 9\n", 0));
        free(write_file(
                "conf.d/10-a.conf",
                "[daemon]\nmax-clients = 10\nmax-requests = 10\nmax-requests-per-client = 10\n", 0));
        free(write_file("conf.d/b.conf", "[daemon]\nmax-clients = 2\n", 0));
        free(write_file("conf.d/a.conf", "[daemon]\nmax-clients = 1\n", 0));
        /* Not read: each would be an error if it were. */
        for (size_t i = 0; i < ELEMENTSOF(ignored); i++) {
                char name[64];
                snprintf(name, sizeof(name), "conf.d/%s", ignored[i]);
                free(write_file(name, "garbage\n", 0));
        }
        ck_assert_int_ge(asprintf(&sub, "%s/d.conf", conf_d), 0);
        ck_assert_int_eq(mkdir(sub, 0755), 0); /* a directory */
        ck_assert_int_ge(asprintf(&link_path, "%s/dangling.conf", conf_d), 0);
        ck_assert_int_eq(symlink("/nonexistent/x.conf", link_path), 0);

        c = load_dir_ok(NULL, conf_d);
        ck_assert_uint_eq(c->n_files, 4);
        ck_assert(strstr(c->files[0], "/10-a.conf"));
        ck_assert(strstr(c->files[1], "/9-b.conf"));
        ck_assert(strstr(c->files[2], "/a.conf"));
        ck_assert(strstr(c->files[3], "/b.conf"));
        ck_assert_uint_eq(c->max_clients, 2);
        ck_assert_uint_eq(c->max_requests, 9);
        ck_assert_uint_eq(c->max_requests_per_client, 10);
        df_config_free(c);
}
END_TEST

START_TEST(test_load_files) {
        _cleanup_free_ char *a = write_file("a.conf", "[daemon]\nmax-clients = 5\n", 0),
                            *b = write_file("b.conf", "[daemon]\nmax-clients = 6\n", 0), *missing = NULL;
        struct df_config_errors e = {};
        struct df_config *c = NULL;
        const char *files[] = { a, b, NULL };

        ck_assert_int_eq(df_config_load_files(files, 2, &c, &e), 0);
        ck_assert_uint_eq(c->max_clients, 6);
        df_config_free(c);

        /* Here a missing file is an error, and so is a directory. */
        ck_assert_int_ge(asprintf(&missing, "%s/missing.conf", dir), 0);
        files[1] = missing;
        files[2] = dir;
        c = sentinel;
        ck_assert_int_eq(df_config_load_files(files, 3, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel);
        ck_assert_uint_eq(e.n, 2);
        ck_assert(strneq(e.messages[0], missing, strlen(missing)));
        ck_assert(strstr(e.messages[0], ": cannot open: No such file or directory"));
        ck_assert(strstr(e.messages[1], ": not a regular file"));
        df_config_errors_done(&e);
}
END_TEST

/* --- errors: table-driven ---------------------------------------------------------------------- */

#define DEV "[device gpu]\npath = /sys/class/devfreq/gpu\n"
#define GOV DEV "mode = govern\nload = percent:/sys/class/devfreq/gpu/load\n"

struct bad_case {
        const char *text;
        const char *errors[4]; /* each error's prefix, in order; exactly these */
};

static const struct bad_case bad_cases[] = {
        /* syntax, as inih sees it */
        { "[daemon]\njust some words\n", { "bad.conf:2: expected 'key = value' or '[section]'" } },
        { "[daemon\nautodiscover = yes\n", { "bad.conf:1: expected 'key = value' or '[section]'" } },
        { "[daemon]\n= 5\n", { "bad.conf:2: expected 'key = value' or '[section]'" } },
        { "[daemon]\nmax-clients ; = 5\n", { "bad.conf:2: expected 'key = value' or '[section]'" } },
        { "[daemon] x\n", { "bad.conf:1: unexpected text after ']'" } },
        { "[daemon]\x01\n", { "bad.conf:1: contains the control character 0x01" } },
        { "[daemon]\nautodiscover = yes\r\nmax-clients = 1\rx\n",
          { "bad.conf:3: contains the control character 0x0d" } },
        /* '#' as an inline comment */
        { "[daemon]\nmax-clients = 256 # limit\n",
          { "bad.conf:2: '#' starts a comment only at the start of a line; use ';' after a value" } },
        { "[daemon]\nmax-clients = 256\t#limit\n", { "bad.conf:2: '#' starts a comment only at the start" } },
        { "[daemon] # main\n", { "bad.conf:1: '#' starts a comment only at the start of a line" } },
        { DEV "governor = # none\n", { "bad.conf:3: '#' starts a comment only at the start of a line" } },
        { DEV "opp = 200MHz\n  825mV # volts\n", { "bad.conf:3: '#' starts a comment only at the start" } },
        /* sections */
        { "[deamon]\nautodiscover = yes\n",
          { "bad.conf:1: unknown section [deamon]; the sections are [daemon], [device NAME] and [profile NAME]" } },
        { "[devices gpu]\n", { "bad.conf:1: unknown section [devices gpu]" } },
        { "[device]\n", { "bad.conf:1: [device] needs a name: [device NAME]" } },
        { "[device a/b]\npath = /sys/class/devfreq/x\n", { "bad.conf:1: 'a/b' is not a device name" } },
        { "[device ..]\n", { "bad.conf:1: '..' is not a device name" } },
        { "[device my gpu]\n", { "bad.conf:1: 'my gpu' is not a device name" } },
        { "[device a123456789b123456789c123456789d123456789e12]\n",
          { "bad.conf:1: section name longer than 49 bytes" } },
        /* keys */
        { "[daemon]\nfoo = 1\n", { "bad.conf:2: unknown key 'foo' in [daemon]" } },
        { DEV "foo = 1\n", { "bad.conf:3: unknown key 'foo' in [device NAME]" } },
        { "foo = 1\n[daemon]\n", { "bad.conf:1: unknown key 'foo' before any section header" } },
        { "autodiscover = no\n",
          { "bad.conf:1: key 'autodiscover' comes before any section header; put it in [daemon]" } },
        { "[daemon]\npolling_interval = 1s\n",
          { "bad.conf:2: unknown key 'polling_interval' (did you mean 'polling-interval'?)" } },
        { "[daemon]\npath = /sys/class/devfreq/gpu\n",
          { "bad.conf:2: key 'path' belongs in a [device NAME] section" } },
        { "[daemon]\nupthreshold = 80\n",
          { "bad.conf:2: key 'upthreshold' belongs in a [device NAME] section" } },
        { DEV "autodiscover = no\n", { "bad.conf:3: key 'autodiscover' belongs in the [daemon] section" } },
        { "[daemon]\na123456789b123456789c123456789d123456789e123456789 = 1\n",
          { "bad.conf:2: key name longer than 49 bytes" } },
        { "[daemon]\na123456789b123456789c123456789d123456789e12345678 = 1\n",
          { "bad.conf:2: unknown key 'a123456789b123456789c123456789d123456789e12345678'" } },
        { DEV "mode =\n", { "bad.conf:3: mode needs a value" } },
        /* [daemon] values */
        { "[daemon]\nautodiscover = maybe\n", { "bad.conf:2: 'maybe' is not a boolean (yes or no)" } },
        { "[daemon]\ndefault-mode = fast\n", { "bad.conf:2: 'fast' is not a mode (govern or clamp)" } },
        { "[daemon]\ndefault-governor = schedutil\n",
          { "bad.conf:2: unknown governor 'schedutil' (one of conservative, ondemand, passive, performance, "
            "powersave, simple_ondemand, userspace)" } },
        { "[daemon]\ndefault-governor = passive\n", { "bad.conf:2: default-governor cannot be passive" } },
        { "[daemon]\npolling-interval = 10 ms\n", { "bad.conf:2: '10 ms' is not a duration (e.g. 100ms, 1s)" } },
        { "[daemon]\npolling-interval = 100\n", { "bad.conf:2: '100' is not a duration" } },
        { "[daemon]\npolling-interval = 999us\n", { "bad.conf:2: polling-interval '999us' is out of range" } },
        { "[daemon]\npolling-interval = 3601s\n", { "bad.conf:2: polling-interval '3601s' is out of range" } },
        { "[daemon]\nmax-clients = 0\n", { "bad.conf:2: max-clients '0' is not a number from 1 to 1000000" } },
        { "[daemon]\nmax-requests = 1000001\n", { "bad.conf:2: max-requests '1000001' is not a number" } },
        { "[daemon]\nmax-requests-per-client = -1\n", { "bad.conf:2: max-requests-per-client '-1' is not" } },
        { "[daemon]\nallow-groups = wheel,adm\n", { "bad.conf:2: 'wheel,adm' is not a group name" } },
        { "[daemon]\nrequest-groups = video 1users\n", { "bad.conf:2: '1users' is not a group name" } },
        /* paths */
        { "[device gpu]\nmode = clamp\n", { "bad.conf:1: device 'gpu' has no path" } },
        { DEV "[device gpu2]\npath = /sys/class/devfreq/gpu/\n",
          { "bad.conf:4: device 'gpu2' has the same path as device 'gpu' (bad.conf:2)" } },
        { "[device gpu]\npath = /etc/passwd\n",
          { "bad.conf:2: device path '/etc/passwd' is outside /sys: it must start with /sys/" } },
        { "[device gpu]\npath = /proc/cpuinfo\n",
          { "bad.conf:2: device path '/proc/cpuinfo' is outside /sys" } },
        { "[device gpu]\npath = sys/class/devfreq/gpu\n",
          { "bad.conf:2: device path 'sys/class/devfreq/gpu' is outside" } },
        { "[device gpu]\npath = /sys/../etc/passwd\n",
          { "bad.conf:2: '/sys/../etc/passwd' is not a usable device path" } },
        { "[device gpu]\npath = /sys/class//gpu\n",
          { "bad.conf:2: '/sys/class//gpu' is not a usable device path" } },
        /* device values */
        { DEV "min-frequency = 800Mhzz\n",
          { "bad.conf:3: '800Mhzz' is not a frequency (e.g. 800MHz, 1.2GHz)" } },
        { DEV "max-frequency = 1.5Hz\n", { "bad.conf:3: '1.5Hz' is not a frequency" } },
        { DEV "max-frequency = 99999999999GHz\n",
          { "bad.conf:3: '99999999999GHz' is too large for a frequency" } },
        { DEV "max-frequency = 0\n", { "bad.conf:3: a frequency of 0 is not allowed here" } },
        { DEV "initial-frequency = 0Hz\n", { "bad.conf:3: a frequency of 0 is not allowed here" } },
        { DEV "opp-step = 0\n", { "bad.conf:3: a frequency of 0 is not allowed here" } },
        { DEV "mode = fast\n", { "bad.conf:3: 'fast' is not a mode (govern or clamp)" } },
        { DEV "polling-interval = 0ms\n",
          { "bad.conf:3: polling-interval '0ms' is out of range (1ms to 3600s)" } },
        { DEV "load = busy\n", { "bad.conf:3: 'busy' is not a load source" } },
        { DEV "load = counters:/etc/busy\n", { "bad.conf:3: 'counters:/etc/busy' is not a load source" } },
        { DEV "parent = a/b\n", { "bad.conf:3: 'a/b' is not a device name" } },
        /* opp lines */
        { DEV "opp = 200MHz 825mV garbage\n",
          { "bad.conf:3: 'garbage' is neither a voltage (e.g. 825mV, 1.05V) nor latency=DURATION" } },
        { DEV "opp = fast\n", { "bad.conf:3: 'fast' is not a frequency" } },
        { DEV "opp = 200MHz, 400MHz\n", { "bad.conf:3: '200MHz,' is not a frequency" } },
        { DEV "opp = 0Hz 825mV\n", { "bad.conf:3: a frequency of 0 is not allowed here" } },
        { DEV "opp = 200MHz 825mV 900mV\n",
          { "bad.conf:3: '900mV': the operating point already has a voltage" } },
        { DEV "opp = 200MHz 0mV\n", { "bad.conf:3: '0mV' is neither a voltage" } },
        { DEV "opp = 200MHz latency=2ms latency=1ms\n",
          { "bad.conf:3: the operating point has two latencies" } },
        { DEV "opp = 200MHz latency=soon\n", { "bad.conf:3: 'latency=soon' is not a latency" } },
        { DEV "opp = 200MHz latency=0us\n", { "bad.conf:3: 'latency=0us' is not a latency" } },
        { DEV "opp = 200MHz\nopp = 300MHz\nopp = 200MHz 900mV\n",
          { "bad.conf:5: operating point 200 MHz is listed twice (first at bad.conf:3)" } },
        { DEV "opp-disabled = 800MHz x\n", { "bad.conf:3: 'x' is not a frequency" } },
        { DEV "opp = 200MHz\nopp = 400MHz\nopp-disabled = 300MHz\n",
          { "bad.conf:5: opp-disabled: 300 MHz is not one of the opp = points" } },
        { DEV "opp = 200MHz\nopp = 400MHz\nopp-disabled = 400MHz\nopp-disabled = 200MHz\n",
          { "bad.conf:6: opp-disabled disables every operating point of device 'gpu'" } },
        /* range */
        { DEV "min-frequency = 800MHz\nmax-frequency = 200MHz\n",
          { "bad.conf:4: min-frequency 800 MHz is above max-frequency 200 MHz" } },
        { DEV "max-frequency = 200MHz\nmin-frequency = 800MHz\n",
          { "bad.conf:4: min-frequency 800 MHz is above" } },
        { DEV "min-frequency = 200MHz\ninitial-frequency = 100MHz\n",
          { "bad.conf:4: initial-frequency 100 MHz is outside min-frequency 200 MHz to max-frequency (none)" } },
        /* governors and load */
        { DEV "mode = govern\n",
          { "bad.conf:1: device 'gpu': governor simple_ondemand needs a load source; set load = "
            "counters:PATH, percent:PATH or proc-stat" } },
        { DEV "mode = govern\ngovernor = ondemand\n",
          { "bad.conf:4: device 'gpu': governor ondemand needs a load" } },
        { DEV "mode = govern\ngovernor = conservative\nload = none\n",
          { "bad.conf:5: device 'gpu': governor conservative needs a load source" } },
        { "[daemon]\ndefault-mode = govern\n" DEV,
          { "bad.conf:3: device 'gpu': governor simple_ondemand needs" } },
        { DEV "mode = govern\ngovernor = fastest\n", { "bad.conf:4: unknown governor 'fastest' (one of " } },
        { DEV "governor = Sched-Util\n", { "bad.conf:3: 'Sched-Util' is not a kernel governor name" } },
        { DEV "governor = a_very_long_governor\n",
          { "bad.conf:3: 'a_very_long_governor' is not a kernel governor" } },
        /* tunables */
        { DEV "upthreshold = 80\n",
          { "bad.conf:3: tunable 'upthreshold' applies only in govern mode; device 'gpu' is in clamp mode" } },
        { GOV "up_threshold = 80\n",
          { "bad.conf:5: 'up_threshold' is not a tunable of governor simple_ondemand (its tunables: upthreshold, "
            "downdifferential)" } },
        { GOV "governor = performance\nupthreshold = 80\n",
          { "bad.conf:6: 'upthreshold' is not a tunable of governor performance (it has none)" } },
        { GOV "upthreshold = 101\n", { "bad.conf:5: upthreshold = 101 is out of range (1 to 100)" } },
        { GOV "upthreshold = high\n", { "bad.conf:5: tunable upthreshold: 'high' is not a whole number" } },
        { GOV "upthreshold = 4294967296\n", { "bad.conf:5: tunable upthreshold: '4294967296' is not a whole" } },
        { GOV "downdifferential = 95\n",
          { "bad.conf:5: the tunables of governor simple_ondemand do not fit together: upthreshold = 90, "
            "downdifferential = 95" } },
        { GOV "governor = conservative\nup_threshold = 30\ndown_threshold = 30\n",
          { "bad.conf:7: the tunables of governor conservative do not fit together" } },
        /* passive */
        { DEV "mode = govern\ngovernor = passive\n",
          { "bad.conf:4: device 'gpu': governor passive needs parent = NAME" } },
        { DEV "mode = govern\ngovernor = passive\nparent = cpu\n",
          { "bad.conf:5: parent 'cpu' is not a configured device" } },
        { DEV "mode = govern\ngovernor = passive\nparent = gpu\n",
          { "bad.conf:5: device 'gpu' cannot follow itself" } },
        { "[device a]\npath = /sys/class/devfreq/a\nmode = govern\ngovernor = passive\nparent = b\n"
          "[device b]\npath = /sys/class/devfreq/b\nmode = govern\ngovernor = passive\nparent = a\n",
          { "bad.conf:5: the parents of device 'a' form a cycle" } },
        { "[device a]\npath = /sys/class/devfreq/a\n" DEV "mode = govern\ngovernor = performance\nparent = a\n",
          { "bad.conf:7: parent applies only to the passive governor; device 'gpu' uses performance" } },
        { DEV "parent = gpu\n", { "bad.conf:3: parent applies only to the passive governor in govern mode" } },
        { DEV "passive-map = 200MHz\n", { "bad.conf:3: '200MHz' is not a PARENT:CHILD frequency pair" } },
        { DEV "passive-map = 200MHz:100MHz:50MHz\n",
          { "bad.conf:3: '200MHz:100MHz:50MHz' is not a PARENT:CHILD" } },
        { DEV "passive-map = 200MHz:fast\n", { "bad.conf:3: 'fast' is not a frequency" } },
        { DEV "passive-map = 200MHz:100MHz 200MHz:200MHz\n",
          { "bad.conf:3: passive-map names the parent frequency 200 MHz twice" } },
        { DEV "opp = 200MHz\nopp = 400MHz\n"
              "[device dmc]\npath = /sys/class/devfreq/dmc\nmode = govern\ngovernor = passive\nparent = gpu\n"
              "passive-map = 200MHz:100MHz 300MHz:200MHz\n",
          { "bad.conf:10: passive-map: 300 MHz is not an operating point of parent 'gpu'" } },
        { DEV "[device dmc]\npath = /sys/class/devfreq/dmc\nmode = govern\ngovernor = passive\nparent = gpu\n"
              "opp = 100MHz\npassive-map = 200MHz:150MHz\n",
          { "bad.conf:9: passive-map: 150 MHz is not an operating point of device 'dmc'" } },
        /* several errors, each once, no cascade from a refused key */
        { "[daemon]\nfoo = 1\nmax-clients = x\n[device gpu]\nmin-frequency = fast\n[nope]\nbar = 2\n",
          { "bad.conf:2: unknown key 'foo'", "bad.conf:3: max-clients 'x'",
            "bad.conf:5: 'fast' is not a frequency", "bad.conf:6: unknown section [nope]" } },
        { "[device a]\n[device b]\npath = /sys/class/devfreq/b\n[device c]\n",
          { "bad.conf:1: device 'a' has no path", "bad.conf:4: device 'c' has no path" } },
};

START_TEST(test_bad_input) {
        const struct bad_case *t = &bad_cases[_i];
        size_t n = count(t->errors, ELEMENTSOF(t->errors));
        _cleanup_free_ char *path = NULL;
        struct df_config_errors e = {};
        char *expected[ELEMENTSOF(t->errors)];
        struct df_config *c = sentinel;

        /* From memory… */
        load_string_bad(t->text, strlen(t->text), t->errors, n);

        /* …and from a file, through df_config_load, with the file's path in front. */
        path = write_file("bad.conf", t->text, 0);
        for (size_t i = 0; i < n; i++)
                expected[i] = in_dir(t->errors[i]);
        ck_assert_int_eq(df_config_load(path, NULL, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel);
        check_errors(&e, (const char *const *) expected, n, t->text);
        df_config_errors_done(&e);
        free_strings(expected, n);
}
END_TEST

START_TEST(test_errors_two_files) {
        _cleanup_free_ char *main_path = NULL, *conf_d = NULL, *p1 = NULL, *e1 = NULL, *e2 = NULL, *e3 = NULL;
        struct df_config_errors e = {};
        struct df_config *c = sentinel;

        main_path = write_file("devfreqd.conf", "[daemon]\nmax-clients = many\n" DEV, 0);
        ck_assert_int_ge(asprintf(&conf_d, "%s/conf.d", dir), 0);
        ck_assert_int_eq(mkdir(conf_d, 0755), 0);
        p1 = write_file(
                "conf.d/50-x.conf", "; a drop-in\n[device gpu]\nmode = govern\ngovernor = nope\n[oops]\n", 0);

        ck_assert_int_eq(df_config_load(main_path, conf_d, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel);
        ck_assert_int_ge(asprintf(&e1, "%s:2: max-clients 'many'", main_path), 0);
        ck_assert_int_ge(asprintf(&e2, "%s:5: unknown section [oops]", p1), 0);
        ck_assert_int_ge(asprintf(&e3, "%s:4: unknown governor 'nope'", p1), 0);
        check_errors(&e, (const char *const[]){ e1, e2, e3 }, 3, "two files");
        df_config_errors_done(&e);
}
END_TEST

START_TEST(test_errors_cap) {
        struct df_config_errors e = {};
        struct df_config *c = sentinel;
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        fputs("[daemon]\n", f);
        for (int i = 0; i < 100; i++)
                fprintf(f, "unknown%d = 1\n", i);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(df_config_load_string("cap.conf", text, size, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel);
        ck_assert_uint_eq(e.n, DF_CONFIG_ERRORS_MAX);
        ck_assert_uint_eq(e.dropped, 100 - DF_CONFIG_ERRORS_MAX);
        ck_assert_str_eq(e.messages[0], "cap.conf:2: unknown key 'unknown0' in [daemon]");
        ck_assert_str_eq(
                e.messages[DF_CONFIG_ERRORS_MAX - 1], "cap.conf:33: unknown key 'unknown31' in [daemon]");
        df_config_errors_done(&e);
        free(text);
}
END_TEST

/* --- the reader ------------------------------------------------------------------------------- */

/* Bytes through both paths (memory, and a file read in bounded memory). */
static void reader_bad(const char *text, size_t len, const char *const *errors, size_t n) {
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
        check_errors(&e, (const char *const *) expected, n, "file");
        df_config_errors_done(&e);
        free_strings(expected, n);
}

START_TEST(test_empty_file) {
        _cleanup_free_ char *path = NULL;
        struct df_config_errors e = {};
        struct df_config *c = sentinel;

        /* 0 bytes: write_file cannot write nothing with len 0, so create it directly. */
        ck_assert_int_ge(asprintf(&path, "%s/empty.conf", dir), 0);
        fclose(fopen(path, "we"));
        ck_assert_int_eq(df_config_load(path, NULL, &c, &e), -EINVAL);
        ck_assert_ptr_eq(c, sentinel);
        ck_assert_uint_eq(e.n, 1);
        ck_assert_str_eq(e.messages[0] + strlen(path), ":1: the file is empty");
        df_config_errors_done(&e);

        load_string_bad("", 0, (const char *const[]){ "bad.conf:1: the file is empty" }, 1);
        load_string_bad(NULL, 0, (const char *const[]){ "bad.conf:1: the file is empty" }, 1);
        reader_bad(" \n\n\t\r\n  ", 8, (const char *const[]){ "bad.conf:1: the file is empty" }, 1);
}
END_TEST

START_TEST(test_comments_only) {
        struct df_config *c;

        c = load_ok("; nothing\n# else\n\n   ; indented comment\n");
        check_defaults(c);
        df_config_free(c);
        /* No final newline. */
        c = load_ok("[daemon]\nmax-clients = 7");
        ck_assert_uint_eq(c->max_clients, 7);
        df_config_free(c);
        /* A BOM at the start. */
        c = load_ok("\xEF\xBB\xBF[daemon]\nmax-clients = 8\n");
        ck_assert_uint_eq(c->max_clients, 8);
        df_config_free(c);
}
END_TEST

START_TEST(test_inline_comments) {
        struct df_config *c = load_ok(
                "[daemon] ; the daemon\n"
                "max-clients = 12 ; twelve\n"
                "allow-groups = wheel\t; tab before\n"
                "request-groups = ;nothing\n" /* ";" right after "=" follows whitespace: a comment */
                "[device gpu]\n"
                "path = /sys/class/devfreq/gpu#1 ; '#' inside a value is a character\n");

        ck_assert_uint_eq(c->max_clients, 12);
        ck_assert_uint_eq(c->n_allow_groups, 1);
        ck_assert_str_eq(c->allow_groups[0], "wheel");
        ck_assert_uint_eq(c->n_request_groups, 0);
        ck_assert_str_eq(c->devices[0].path, "/sys/class/devfreq/gpu#1");
        df_config_free(c);

        /* ';' not after whitespace is part of the value: "schedutil;x" is no kernel governor name. */
        load_string_bad(
                DEV "governor = schedutil;x\n", strlen(DEV "governor = schedutil;x\n"),
                (const char *const[]){ "bad.conf:3: 'schedutil;x' is not a kernel governor name" }, 1);
}
END_TEST

START_TEST(test_continuation) {
        struct df_config *c = load_ok("[daemon]\n"
                                      "allow-groups = wheel\n"
                                      "  adm ; a comment on a continuation line\n"
                                      "\n"
                                      "\tsudo\n"
                                      "[device gpu]\n"
                                      "path = /sys/class/devfreq/gpu\n"
                                      "opp = 200MHz\n"
                                      "    825mV\n"
                                      "    latency=2ms\n"
                                      "opp = 400MHz\n");
        const struct df_config_device *gpu = &c->devices[0];

        ck_assert_uint_eq(c->n_allow_groups, 3);
        ck_assert_str_eq(c->allow_groups[1], "adm");
        ck_assert_str_eq(c->allow_groups[2], "sudo");
        ck_assert_uint_eq(gpu->n_opps, 2);
        ck_assert_uint_eq(gpu->opps[0].freq, MHZ(200));
        ck_assert_uint_eq(gpu->opps[0].microvolt, 825000);
        ck_assert_uint_eq(gpu->opps[0].latency_us, 2000);
        ck_assert_uint_eq(gpu->opps[0].loc.line, 8);
        df_config_free(c);
}
END_TEST

START_TEST(test_continuation_errors) {
        /* A continued value is judged whole, at its key's line. */
        load_string_bad(
                "[daemon]\nmax-clients = 5\n  6\n", strlen("[daemon]\nmax-clients = 5\n  6\n"),
                (const char *const[]){ "bad.conf:2: max-clients '5 6' is not a number" }, 1);
        /* Indented after a key, even a header is a continuation. */
        load_string_bad(
                "[daemon]\nmax-clients = 5\n  [device gpu]\n",
                strlen("[daemon]\nmax-clients = 5\n  [device gpu]\n"),
                (const char *const[]){ "bad.conf:2: max-clients '5 [device gpu]' is not a number" }, 1);
        /* An indented line with no key before it in its section is not a continuation. */
        load_string_bad(
                "[daemon]\n  max-clients\n", strlen("[daemon]\n  max-clients\n"),
                (const char *const[]){ "bad.conf:2: expected 'key = value' or '[section]'" }, 1);
}
END_TEST

START_TEST(test_long_lines) {
        char line[300];
        char *text;

        /* 198 bytes and the newline: fine. */
        memset(line, 'x', sizeof(line));
        memcpy(line, "; ", 2);
        line[198] = '\n';
        line[199] = '\0';
        ck_assert_int_ge(asprintf(&text, "[daemon]\n%smax-clients = 3\n", line), 0);
        {
                struct df_config *c = load_ok(text);
                ck_assert_uint_eq(c->max_clients, 3);
                df_config_free(c);
        }
        free(text);

        /* 199 bytes and the newline: an error, never split; the lines after it keep their numbers. */
        line[198] = 'x';
        line[199] = '\n';
        line[200] = '\0';
        ck_assert_int_ge(asprintf(&text, "[daemon]\n%sfoo = 1\n", line), 0);
        reader_bad(
                text, strlen(text),
                (const char *const[]){ "bad.conf:2: line longer than 199 bytes",
                                       "bad.conf:3: unknown key 'foo'" },
                2);
        free(text);

        /* A long value line: no half of it is applied. */
        ck_assert_int_ge(asprintf(&text, "[daemon]\nmax-clients = 5%0190d\n", 0), 0);
        reader_bad(text, strlen(text), (const char *const[]){ "bad.conf:2: line longer than 199 bytes" }, 1);
        free(text);

        /* Also on the last line without a newline. */
        line[199] = '\0';
        reader_bad(line, 199, (const char *const[]){ "bad.conf:1: line longer than 199 bytes" }, 1);
}
END_TEST

START_TEST(test_mib_line) {
        size_t big = 1024 * 1024, len;
        char *text = malloc(big + 64);

        ck_assert_ptr_nonnull(text);
        len = (size_t) sprintf(text, "[daemon]\nallow-groups = ");
        memset(text + len, 'a', big);
        len += big;
        len += (size_t) sprintf(text + len, "\nmax-clients = 0\n[device gpu]\n");
        reader_bad(
                text, len,
                (const char *const[]){ "bad.conf:2: line longer than 199 bytes",
                                       "bad.conf:3: max-clients '0'", "bad.conf:4: device 'gpu' has no path" },
                3);
        free(text);
}
END_TEST

START_TEST(test_bad_bytes) {
        /* Not UTF-8: a lone Latin-1 byte, an overlong '/', a surrogate, a truncated sequence, beyond U+10FFFF. */
        static const char *const bad[] = {
                "[daemon]\nautodiscover = yes\n; caf\xe9\n",
                "[daemon]\nautodiscover = yes\n; \xc0\xaf\n",
                "[daemon]\nautodiscover = yes\n; \xed\xa0\x80\n",
                "[daemon]\nautodiscover = yes\n; \xe2\x82\n",
                "[daemon]\nautodiscover = yes\n; \xf4\x90\x80\x80\n",
        };
        static const char nul[] = "[daemon]\nauto\0discover = yes\nmax-clients = 2\n";
        static const char bad_header[] = "[daemon]\n[device g\xff]\npath = /sys/class/devfreq/x\n";
        struct df_config *c;

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                reader_bad(bad[i], strlen(bad[i]), (const char *const[]){ "bad.conf:3: not valid UTF-8" }, 1);
        reader_bad(nul, sizeof(nul) - 1, (const char *const[]){ "bad.conf:2: contains a NUL byte" }, 1);
        /* A header with a bad byte leaves its section: its keys do not land in [daemon]. */
        reader_bad(bad_header, strlen(bad_header), (const char *const[]){ "bad.conf:2: not valid UTF-8" }, 1);

        /* Valid UTF-8 is fine anywhere. */
        c = load_ok("; Grafikprozessor – «gpu» 🚀\n[daemon]\nmax-clients = 4 ; vier\n");
        ck_assert_uint_eq(c->max_clients, 4);
        df_config_free(c);
}
END_TEST

/* --- names, merging, order independence ------------------------------------------------------- */

START_TEST(test_name_lengths) {
        /* "device " and a 42-byte name: a 49-byte section name. */
        static const char name42[] = "n123456789a123456789b123456789c123456789d1";
        char *text;
        struct df_config *c;

        ck_assert_uint_eq(strlen("device ") + strlen(name42), 49);
        ck_assert_int_ge(asprintf(&text, "[device %s]\npath = /sys/class/devfreq/x\n", name42), 0);
        c = load_ok(text);
        ck_assert_str_eq(c->devices[0].name, name42);
        df_config_free(c);
        free(text);

        ck_assert_int_ge(asprintf(&text, "[device %sX]\npath = /sys/class/devfreq/x\n", name42), 0);
        load_string_bad(
                text, strlen(text), (const char *const[]){ "bad.conf:1: section name longer than 49 bytes" },
                1);
        free(text);
}
END_TEST

START_TEST(test_duplicate_sections) {
        struct df_config *c = load_ok("[device gpu]\n"
                                      "path = /sys/class/devfreq/gpu\n"
                                      "opp = 100MHz\n"
                                      "[daemon]\n"
                                      "max-clients = 3\n"
                                      "[device gpu]\n"
                                      "opp = 50MHz\n"
                                      "mode = govern\n"
                                      "governor = userspace\n"
                                      "[daemon]\n"
                                      "max-requests = 5\n");
        const struct df_config_device *gpu = &c->devices[0];

        ck_assert_uint_eq(c->n_devices, 1);
        ck_assert_uint_eq(gpu->loc.line, 1);
        ck_assert_uint_eq(gpu->n_opps, 2);
        ck_assert_uint_eq(gpu->opps[0].freq, MHZ(50)); /* ascending after validation */
        ck_assert_uint_eq(gpu->opps[0].loc.line, 7);
        ck_assert_uint_eq(gpu->opps[1].freq, MHZ(100));
        ck_assert_str_eq(df_config_device_governor(c, gpu), "userspace");
        ck_assert_uint_eq(c->max_clients, 3);
        ck_assert_uint_eq(c->max_requests, 5);
        df_config_free(c);
}
END_TEST

START_TEST(test_valid_variants) {
        struct df_config *c = load_ok(
                "[daemon]\n"
                "autodiscover = OFF\n"
                "default-mode = govern\n"
                "default-governor = performance\n"
                "polling-interval = 3600s\n"
                "max-requests = 1000000\n"
                "[device cpu]\n"
                "path = /sys/devices/system/cpu/cpufreq/policy0/\n" /* trailing '/' */
                "governor = ondemand\n"                             /* load: proc-stat by default */
                "sampling_down_factor = 100000\n"
                "up_threshold = 11\n"
                "[device gpu]\n"
                "path = /sys/class/devfreq/gpu\n"
                "load = percent:/sys/class/devfreq/gpu/device/gpu_busy_percent\n"
                "downdifferential = 95\n" /* fits once upthreshold is 100: order does not matter */
                "upthreshold = 100\n"
                "upthreshold = 99\n" /* a later value of a name replaces it */
                "governor = simple_ondemand\n"
                "min-frequency = 0\n"
                "initial-frequency = 1.2GHz\n"
                "opp = 1.2GHz latency=5us 1.05V\n"
                "opp = 300MHz\n"
                "opp-disabled = 300MHz\n"
                "[device npu]\n"
                "path = /sys/class/devfreq/npu\n"
                "mode = govern\n"
                "governor = passive\n"
                "parent = gpu\n"
                "passive-map = 1.2GHz:1GHz\n"
                "passive-map =\n");
        const struct df_config_device *cpu = &c->devices[0], *gpu = &c->devices[1], *npu = &c->devices[2];

        ck_assert(!c->autodiscover);
        ck_assert_int_eq(c->default_mode, DF_MODE_GOVERN);
        ck_assert_str_eq(c->default_governor, "performance");
        ck_assert_uint_eq(c->polling_usec, UINT64_C(3600000000));
        ck_assert_uint_eq(c->max_requests, 1000000);
        ck_assert_str_eq(cpu->path, "/sys/devices/system/cpu/cpufreq/policy0/");
        ck_assert_uint_eq(cpu->n_tunables, 2);
        ck_assert_int_eq(gpu->load, DF_LOAD_PERCENT);
        ck_assert_uint_eq(gpu->n_tunables, 2);
        ck_assert_str_eq(gpu->tunables[1].name, "upthreshold");
        ck_assert_uint_eq(gpu->tunables[1].value, 99);
        ck_assert_uint_eq(gpu->tunables[1].loc.line, 17);
        ck_assert_uint_eq(gpu->initial_freq, UINT64_C(1200000000));
        ck_assert_uint_eq(gpu->opps[0].freq, MHZ(300));
        ck_assert_uint_eq(gpu->opps[1].freq, UINT64_C(1200000000));
        ck_assert_uint_eq(gpu->opps[1].microvolt, 1050000);
        ck_assert_uint_eq(gpu->opps[1].latency_us, 5);
        ck_assert_uint_eq(npu->n_passive_map, 0);
        df_config_free(c);
}
END_TEST

/* --- the shipped file ------------------------------------------------------------------------- */

START_TEST(test_shipped_file) {
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *path = NULL;
        struct df_config_errors e = {};
        struct df_config *c = NULL;
        int r;

        ck_assert_int_ge(asprintf(&path, "%s/conf/devfreqd.conf", top && *top ? top : TOP_SRCDIR), 0);
        ck_assert_int_eq(access(path, R_OK), 0);
        r = df_config_load(path, NULL, &c, &e);
        if (r < 0)
                errors_print(&e);
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(c->n_files, 1);
        check_defaults(c); /* every key is commented out at its default */
        df_config_free(c);
        df_config_errors_done(&e);
}
END_TEST

/* With every "#key" and "#[section]" line uncommented, the example is a valid configuration too. */
START_TEST(test_shipped_file_uncommented) {
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *path = NULL, *text = NULL, *out = NULL;
        size_t size = 0;
        struct df_config *c;
        FILE *f;

        ck_assert_int_ge(asprintf(&path, "%s/conf/devfreqd.conf", top && *top ? top : TOP_SRCDIR), 0);
        text = df_test_read_file(path);
        f = open_memstream(&out, &size);
        ck_assert_ptr_nonnull(f);
        for (const char *l = text; *l;) {
                size_t n = strcspn(l, "\n");

                if (l[0] == '#' && ((l[1] >= 'a' && l[1] <= 'z') || l[1] == '['))
                        l++, n--;
                fwrite(l, 1, n, f);
                fputc('\n', f);
                l += n + (l[n] == '\n');
        }
        ck_assert_int_eq(fclose(f), 0);

        c = load_ok(out);
        ck_assert_uint_eq(c->n_devices, 2);
        ck_assert_uint_eq(df_config_find_device(c, "gpu")->n_opps, 3);
        ck_assert_str_eq(df_config_find_device(c, "dmc")->parent, "gpu");
        df_config_free(c);
}
END_TEST

/* --- random bytes ----------------------------------------------------------------------------- */

static uint64_t rng_state = UINT64_C(0x9E3779B97F4A7C15);

static uint64_t rng(void) {
        /* xorshift64*: deterministic, so a failure reproduces. */
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        return rng_state * UINT64_C(2685821657736338717);
}

static const char *const vocabulary[] = {
        "[daemon]",
        "[device gpu]",
        "[device dmc]",
        "[device",
        "]",
        "[",
        "path",
        "=",
        ":",
        ";",
        "#",
        " ",
        "\t",
        "\n",
        "\n",
        "\n",
        "  ",
        "/sys/class/devfreq/gpu",
        "/sys/devices/system/cpu/cpufreq/policy0",
        "mode",
        "govern",
        "clamp",
        "governor",
        "passive",
        "simple_ondemand",
        "conservative",
        "parent",
        "gpu",
        "dmc",
        "opp",
        "opp-disabled",
        "passive-map",
        "200MHz",
        "400MHz",
        "825mV",
        "latency=1ms",
        "200MHz:200MHz",
        "upthreshold",
        "downdifferential",
        "90",
        "0",
        "load",
        "counters:/sys/x",
        "none",
        "min-frequency",
        "max-frequency",
        "initial-frequency",
        "opp-step",
        "polling-interval",
        "100ms",
        "allow-groups",
        "wheel",
        "max-clients",
        "\xff",
        "\xc3\xa9",
        "\r",
        "\0",
};

static void fuzz_one(const char *text, size_t len) {
        struct df_config_errors e = {};
        struct df_config *c = NULL;
        int r;

        r = df_config_load_string("fuzz.conf", text, len, &c, &e);
        ck_assert(r == 0 || r == -EINVAL);
        if (r == 0) {
                ck_assert_ptr_nonnull(c);
                ck_assert_uint_eq(e.n, 0);
                df_config_free(c);
        } else {
                ck_assert_uint_ge(e.n, 1);
                ck_assert_uint_le(e.n, DF_CONFIG_ERRORS_MAX);
                for (size_t i = 0; i < e.n; i++)
                        ck_assert_msg(strneq(e.messages[i], "fuzz.conf:", 10), "%s", e.messages[i]);
        }
        df_config_errors_done(&e);
}

START_TEST(test_random_bytes) {
        char buf[1024];

        for (int iter = 0; iter < 3000; iter++) {
                size_t len = 0, want = (size_t) (rng() % sizeof(buf));

                switch (iter % 3) {
                case 0: /* any bytes */
                        for (; len < want; len++)
                                buf[len] = (char) rng();
                        break;
                case 1: /* words of the format in random order */
                        while (len < want) {
                                const char *w = vocabulary[rng() % ELEMENTSOF(vocabulary)];
                                size_t n = MAX(strlen(w), (size_t) 1); /* "\0" is one byte */

                                if (len + n > sizeof(buf))
                                        break;
                                memcpy(buf + len, w, n);
                                len += n;
                        }
                        break;
                default: /* the DESIGN.md example with a few bytes changed */
                        len = MIN(strlen(design_example), sizeof(buf));
                        memcpy(buf, design_example, len);
                        for (int k = (int) (rng() % 4); k >= 0; k--)
                                buf[rng() % len] = (char) rng();
                        break;
                }
                fuzz_one(buf, len);
        }
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("config");
        TCase *tc;

#define ADD(name)                                                                                            \
        do {                                                                                                 \
                tc = tcase_create(#name);                                                                    \
                tcase_add_checked_fixture(tc, dir_setup, dir_teardown);                                      \
                tcase_add_test(tc, test_##name);                                                             \
                suite_add_tcase(s, tc);                                                                      \
        } while (0)

        ADD(design_example);
        ADD(defaults);
        ADD(accessors);
        ADD(dropin_override);
        ADD(dropin_lists);
        ADD(dropin_sections_merge);
        ADD(dropin_order_and_filter);
        ADD(load_files);
        ADD(errors_two_files);
        ADD(errors_cap);
        ADD(empty_file);
        ADD(comments_only);
        ADD(inline_comments);
        ADD(continuation);
        ADD(continuation_errors);
        ADD(long_lines);
        ADD(mib_line);
        ADD(bad_bytes);
        ADD(name_lengths);
        ADD(duplicate_sections);
        ADD(valid_variants);
        ADD(shipped_file);
        ADD(shipped_file_uncommented);

        tc = tcase_create("bad_input");
        tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
        tcase_add_loop_test(tc, test_bad_input, 0, (int) ELEMENTSOF(bad_cases));
        suite_add_tcase(s, tc);

        tc = tcase_create("random_bytes");
        tcase_set_timeout(tc, 120);
        tcase_add_test(tc, test_random_bytes);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
