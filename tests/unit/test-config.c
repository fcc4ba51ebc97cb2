/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading and merging (lib/config.c): the example configuration, defaults and accessors, drop-in
 * merging, the files given, errors across files and their cap, the shipped file. */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "macro.h"
#include "test-config.h"
#include "test-helpers.h"

/* --- the example configuration ---------------------------------------------------------------- */

/* The gpu section of the example: every key of a govern-mode device. */
static void check_example_gpu(const struct df_config *c) {
        const struct df_config_device *gpu = df_config_find_device(c, "gpu");

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
}

START_TEST(test_design_example) {
        struct df_config *c = load_ok(design_example);
        const struct df_config_device *dmc;

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

        check_example_gpu(c);

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

/* --- errors across files ---------------------------------------------------------------------- */

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

/* --- errors: table-driven --------------------------------------------------------------------- */

static const struct bad_case bad_cases[] = {
        /* several errors, each once, no cascade from a refused key */
        { "[daemon]\nfoo = 1\nmax-clients = x\n[device gpu]\nmin-frequency = fast\n[nope]\nbar = 2\n",
          { "bad.conf:2: unknown key 'foo'", "bad.conf:3: max-clients 'x'",
            "bad.conf:5: 'fast' is not a frequency", "bad.conf:6: unknown section [nope]" } },
        { "[device a]\n[device b]\npath = /sys/class/devfreq/b\n[device c]\n",
          { "bad.conf:1: device 'a' has no path", "bad.conf:4: device 'c' has no path" } },
};

static Suite *suite(void) {
        Suite *s = suite_create("config");

        ADD(design_example);
        ADD(defaults);
        ADD(accessors);
        ADD(dropin_override);
        ADD(dropin_lists);
        ADD(dropin_sections_merge);
        ADD(dropin_order_and_filter);
        ADD(load_files);
        ADD(duplicate_sections);
        ADD(errors_two_files);
        ADD(errors_cap);
        ADD(shipped_file);
        ADD(shipped_file_uncommented);
        config_add_bad_input(s, bad_cases, ELEMENTSOF(bad_cases));
        return s;
}

int main(void) {
        return df_test_run(suite());
}
