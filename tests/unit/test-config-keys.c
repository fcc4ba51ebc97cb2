/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The keys and their values (lib/config-keys.c): where each key belongs, and every value
 * spelling, good and bad. */

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

/* --- values ----------------------------------------------------------------------------------- */

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
        ck_assert_str_eq(cpu->path, "/sys/devices/system/cpu/cpufreq/policy0"); /* the node opened */
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

/* An empty value in a [device NAME] section removes what was set before (a drop-in's way back to
 * the default); the governor's tunables go with the governor. */
START_TEST(test_empty_value_resets) {
        struct df_config *c = load_ok("[device gpu]\n"
                                      "path = /sys/class/devfreq/gpu\n"
                                      "mode = govern\n"
                                      "governor = simple_ondemand\n"
                                      "upthreshold = 90\n"
                                      "downdifferential = 5\n"
                                      "polling-interval = 20ms\n"
                                      "initial-frequency = 400MHz\n"
                                      "min-frequency = 200MHz\n"
                                      "max-frequency = 600MHz\n"
                                      "load = counters:/sys/class/devfreq/gpu/busy\n"
                                      "[device npu]\n"
                                      "path = /sys/class/devfreq/npu\n"
                                      "mode = govern\n"
                                      "governor = passive\n"
                                      "parent = gpu\n"
                                      "[device gpu]\n" /* what a drop-in would say */
                                      "governor = performance\n"
                                      "upthreshold =\n"
                                      "downdifferential =\n"
                                      "polling-interval =\n"
                                      "initial-frequency =\n"
                                      "min-frequency =\n"
                                      "max-frequency =\n"
                                      "load =\n"
                                      "mode =\n"
                                      "[device npu]\n"
                                      "governor = performance\n"
                                      "parent =\n");
        const struct df_config_device *gpu = &c->devices[0], *npu = &c->devices[1];

        ck_assert_str_eq(gpu->governor, "performance");
        ck_assert_uint_eq(gpu->n_tunables, 0);
        ck_assert(!gpu->mode_set && !gpu->polling_set && !gpu->initial_set && !gpu->load_set);
        ck_assert_uint_eq(gpu->min_freq, 0);
        ck_assert_uint_eq(gpu->max_freq, UINT64_MAX);
        ck_assert_ptr_null(npu->parent);
        df_config_free(c);
}
END_TEST

/* The main file and one drop-in (conf.d/50-local.conf), which must load. */
static struct df_config *load_with_dropin(const char *main_text, const char *dropin_text) {
        _cleanup_free_ char *main_path = write_file("devfreqd.conf", main_text, 0), *conf_d = NULL;

        ck_assert_int_ge(asprintf(&conf_d, "%s/conf.d", dir), 0);
        ck_assert_int_eq(mkdir(conf_d, 0755), 0);
        free(write_file("conf.d/50-local.conf", dropin_text, 0));
        return load_dir_ok(main_path, conf_d);
}

/* An empty value in [daemon] restores the built-in default: a drop-in undoes each key the main
 * file set. The values are devfreqd.conf(5)'s "Default:". The keys whose empty value has a
 * meaning of its own keep it (allow-groups: none; default-profile: none). */
START_TEST(test_dropin_resets_daemon) {
        const struct df_config_device *gpu;
        struct df_config *c = load_with_dropin(
                "[daemon]\n"
                "autodiscover = no\n"
                "default-mode = govern\n"
                "default-governor = performance\n"
                "polling-interval = 1s\n"
                "follow-power-profiles = no\n"
                "max-requests-per-client = 1\n"
                "max-requests-per-user = 2\n"
                "max-requests = 3\n"
                "max-clients = 4\n"
                "max-pending-checks-per-user = 5\n"
                "allow-groups = wheel\n"
                "default-profile = quiet\n" DEV "[profile quiet]\n"
                "gpu.max-frequency = 400MHz\n",
                "[daemon]\n"
                "autodiscover =\n"
                "default-mode =\n"
                "default-governor =\n"
                "polling-interval =\n"
                "follow-power-profiles =\n"
                "max-requests-per-client =\n"
                "max-requests-per-user =\n"
                "max-requests =\n"
                "max-clients =\n"
                "max-pending-checks-per-user =\n"
                "allow-groups =\n"
                "default-profile =\n");

        ck_assert(c->autodiscover);
        ck_assert_int_eq(c->default_mode, DF_MODE_CLAMP);
        ck_assert_str_eq(c->default_governor, "simple_ondemand");
        ck_assert_uint_eq(c->polling_usec, 100000); /* 100ms */
        ck_assert(c->follow_power_profiles);
        ck_assert_uint_eq(c->max_requests_per_client, 64);
        ck_assert_uint_eq(c->max_requests_per_user, 256);
        ck_assert_uint_eq(c->max_requests, 4096);
        ck_assert_uint_eq(c->max_clients, 256);
        ck_assert_uint_eq(c->max_pending_checks_per_user, 8);
        ck_assert_uint_eq(c->n_allow_groups, 0);
        ck_assert_ptr_null(c->default_profile);
        gpu = df_config_find_device(c, "gpu");
        ck_assert_int_eq(df_config_device_mode(c, gpu), DF_MODE_CLAMP);
        ck_assert_uint_eq(df_config_device_polling(c, gpu), 100000);
        df_config_free(c);
}
END_TEST

/* What devices get from a reset default, and a value set again after the reset. */
START_TEST(test_dropin_resets_daemon_devices) {
        const struct df_config_device *gpu;
        struct df_config *c = load_with_dropin(
                "[daemon]\n"
                "default-mode = govern\n"
                "default-governor = performance\n"
                "polling-interval = 1s\n"
                "max-clients = 4\n" GOV,
                "[daemon]\n"
                "default-governor =\n"
                "polling-interval =\n"
                "max-clients =\n"
                "max-clients = 7\n");

        gpu = df_config_find_device(c, "gpu");
        ck_assert_int_eq(df_config_device_mode(c, gpu), DF_MODE_GOVERN);
        ck_assert_str_eq(df_config_device_governor(c, gpu), "simple_ondemand");
        ck_assert_uint_eq(df_config_device_polling(c, gpu), 100000);
        ck_assert_uint_eq(c->max_clients, 7);
        df_config_free(c);
}
END_TEST

/* --- errors: table-driven --------------------------------------------------------------------- */

static const struct bad_case bad_cases[] = {
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
        { DEV "path =\n", { "bad.conf:3: path needs a value" } },
        { DEV "upthreshhold =\n", { "bad.conf:3: unknown key 'upthreshhold' in [device NAME]" } },
        /* [daemon] values */
        { "[daemon]\nautodiscover = maybe\n", { "bad.conf:2: 'maybe' is not a boolean (yes or no)" } },
        { "[daemon]\ndefault-mode = fast\n", { "bad.conf:2: 'fast' is not a mode (govern or clamp)" } },
        { "[daemon]\ndefault-governor = schedutil\n",
          { "bad.conf:2: unknown governor 'schedutil' (one of conservative, energy_aware, ondemand, passive, "
            "performance, powersave, simple_ondemand, userspace)" } },
        { "[daemon]\ndefault-governor = passive\n", { "bad.conf:2: default-governor cannot be passive" } },
        /* A refused default-mode or default-governor leaves devices unjudged, until a later valid
         * value of the same key: the other key's does not settle it. */
        { "[daemon]\ndefault-mode = gvern\ndefault-governor = performance\n" DEV "upthreshold = 80\n",
          { "bad.conf:2: 'gvern' is not a mode" } },
        { "[daemon]\ndefault-mode = gvern\ndefault-mode = clamp\n" DEV "upthreshold = 80\n",
          { "bad.conf:2: 'gvern' is not a mode",
            "bad.conf:6: tunable 'upthreshold' applies only in govern mode; device 'gpu' is in clamp mode" } },
        /* An empty value settles them as a valid one does, for its own key only. */
        { "[daemon]\ndefault-mode = gvern\ndefault-mode =\n" DEV "upthreshold = 80\n",
          { "bad.conf:2: 'gvern' is not a mode",
            "bad.conf:6: tunable 'upthreshold' applies only in govern mode; device 'gpu' is in clamp mode" } },
        { "[daemon]\ndefault-mode = gvern\ndefault-governor =\n" DEV "upthreshold = 80\n",
          { "bad.conf:2: 'gvern' is not a mode" } },
        { "[daemon]\ndefault-mode = govern\ndefault-governor = turbo\ndefault-governor =\n" DEV,
          { "bad.conf:3: unknown governor 'turbo'",
            "bad.conf:5: device 'gpu': governor simple_ondemand needs a load source" } },
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
};

static Suite *suite(void) {
        Suite *s = suite_create("config-keys");

        ADD(valid_variants);
        ADD(empty_value_resets);
        ADD(dropin_resets_daemon);
        ADD(dropin_resets_daemon_devices);
        config_add_bad_input(s, bad_cases, ELEMENTSOF(bad_cases));
        return s;
}

int main(void) {
        return df_test_run(suite());
}
