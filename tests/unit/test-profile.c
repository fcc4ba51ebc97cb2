/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Profiles: [profile NAME] sections with their file:line errors, the merge of drop-ins, and the
 * decision of what a profile sets on one device (named lines, '*' lines, and the skips). */

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "macro.h"
#include "profile.h"
#include "spec.h"
#include "test-helpers.h"

#define MHZ(x) (UINT64_C(x) * 1000000)

/* gpu alone, its section open for more keys. */
#define GPU_ONLY                                                                                             \
        "[daemon]\nautodiscover = no\n"                                                                      \
        "[device gpu]\npath = /sys/class/devfreq/gpu\nmode = govern\nload = percent:/sys/x/load\n"

#define DEVICES GPU_ONLY "[device dmc]\npath = /sys/class/devfreq/dmc\nmode = clamp\n"

static struct df_config *load(const char *text, struct df_config_errors *e) {
        struct df_config *c = NULL;

        (void) df_config_load_string("p.conf", text, strlen(text), &c, e);
        return c;
}

static struct df_config *load_ok(const char *text) {
        struct df_config_errors e = {};
        struct df_config *c = load(text, &e);

        for (size_t i = 0; i < e.n; i++)
                fprintf(stderr, "# %s\n", e.messages[i]);
        ck_assert_ptr_nonnull(c);
        df_config_errors_done(&e);
        return c;
}

START_TEST(test_model) {
        struct df_config *c = load_ok(
                DEVICES "[profile power-saver]\ngpu.governor = powersave\ngpu.max-frequency = 400MHz\n"
                        "*.max-frequency = 1.2GHz\n"
                        "[profile performance]\ngpu.min-frequency = 600MHz\n"
                        "[daemon]\ndefault-profile = performance\nfollow-power-profiles = no\n"
                        "profile-groups = video users\n"
                        "[profile power-saver]\ngpu.max-frequency = 300MHz\n");
        const struct df_config_profile *p = df_config_find_profile(c, "power-saver");

        ck_assert_uint_eq(c->n_profiles, 2);
        ck_assert_str_eq(c->profiles[0].name, "power-saver");
        ck_assert_str_eq(c->profiles[1].name, "performance");
        ck_assert_str_eq(c->default_profile, "performance");
        ck_assert(!c->follow_power_profiles);
        ck_assert_uint_eq(c->n_profile_groups, 2);
        ck_assert_str_eq(c->profile_groups[1], "users");
        ck_assert_uint_eq(p->n_lines, 3);
        /* A later value of the same DEVICE.KEY replaces the earlier one in its place. */
        ck_assert_str_eq(p->lines[1].device, "gpu");
        ck_assert_str_eq(p->lines[1].key, "max-frequency");
        ck_assert_str_eq(p->lines[1].value, "300MHz");
        ck_assert_uint_eq(p->lines[1].freq, MHZ(300));
        ck_assert_uint_eq(p->lines[1].loc.line, 21);
        ck_assert_ptr_null(p->lines[2].device);
        ck_assert_uint_eq(p->lines[2].freq, MHZ(1200));
        ck_assert_ptr_null(df_config_find_profile(c, "balanced"));
        df_config_free(c);

        /* Defaults: following, no default profile, no groups. */
        c = load_ok("[daemon]\nautodiscover = yes\n");
        ck_assert(c->follow_power_profiles);
        ck_assert_ptr_null(c->default_profile);
        ck_assert_uint_eq(c->n_profiles, 0);
        df_config_free(c);
}
END_TEST

static const struct {
        const char *text;
        const char *error;
} bad[] = {
        { "[profile]\n", "p.conf:1: [profile] needs a name: [profile NAME]" },
        { "[profile a/b]\n", "p.conf:1: 'a/b' is not a profile name" },
        { DEVICES "[profile x]\ngpu = 400MHz\n", "p.conf:11: 'gpu' is not DEVICE.KEY or *.KEY" },
        { DEVICES "[profile x]\ngpu.speed = 400MHz\n", "p.conf:11: unknown profile key 'speed'" },
        { DEVICES "[profile x]\ngpu.max-frequency = fast\n", "p.conf:11: 'fast' is not a frequency" },
        { DEVICES "[profile x]\n*.max-frequency = 0\n", "p.conf:11: a frequency of 0 is not allowed here" },
        { DEVICES "[profile x]\ngpu.upthreshold = -1\n", "p.conf:11: tunable upthreshold: '-1' is not a whole" },
        { DEVICES "[profile x]\ngpu.governor = Fast!\n", "p.conf:11: 'Fast!' is not a governor name" },
        { DEVICES "[profile x]\nnpu.governor = powersave\n",
          "p.conf:11: profile x: 'npu' is not a configured device" },
        { DEVICES "[profile x]\ngpu.governor = schedutil\n",
          "p.conf:11: unknown governor 'schedutil' for device 'gpu' in govern mode" },
        { DEVICES "[profile x]\ngpu.governor = passive\n", "p.conf:11: device 'gpu' cannot run passive" },
        { DEVICES "[profile x]\ndmc.upthreshold = 50\n",
          "p.conf:11: tunable 'upthreshold' applies only in govern mode; device 'dmc' is in clamp mode" },
        { DEVICES "[profile x]\ngpu.governor = powersave\ngpu.upthreshold = 50\n",
          "p.conf:12: 'upthreshold' is not a tunable of governor powersave, which device 'gpu' runs" },
        { DEVICES "[profile x]\ngpu.upthreshold = 101\n", "p.conf:11: upthreshold = 101 is out of range" },
        { DEVICES "[profile x]\ngpu.max-frequency = 200MHz\ngpu.min-frequency = 300MHz\n",
          "p.conf:12: profile x: min-frequency 300 MHz is above max-frequency 200 MHz" },
        { DEVICES "[profile x]\n*.max-frequency = 200MHz\n*.min-frequency = 300MHz\n",
          "p.conf:12: profile x: min-frequency 300 MHz is above" },
        /* The range each device gets: its own line of a bound, else the '*' one. */
        { DEVICES "[profile x]\ngpu.min-frequency = 300MHz\n*.max-frequency = 200MHz\n",
          "p.conf:12: profile x: min-frequency 300 MHz is above max-frequency 200 MHz" },
        { DEVICES "[profile x]\n*.min-frequency = 300MHz\ngpu.max-frequency = 200MHz\n",
          "p.conf:12: profile x: min-frequency 300 MHz is above max-frequency 200 MHz" },
        /* A device found by its node (autodiscovery) is no exception. */
        { "[daemon]\nautodiscover = yes\n[profile x]\nff9a0000.gpu.min-frequency = 800MHz\n"
          "ff9a0000.gpu.max-frequency = 200MHz\n",
          "p.conf:5: profile x: min-frequency 800 MHz is above max-frequency 200 MHz" },
        { DEVICES "default-profile = x\n", "p.conf:10: key 'default-profile' belongs in the [daemon] section" },
        { "[daemon]\ndefault-profile = balanced\n",
          "p.conf:2: default-profile 'balanced' is not a [profile NAME] section" },
        { "[daemon]\nfollow-power-profiles = maybe\n", "p.conf:2: 'maybe' is not a boolean" },
        { "[daemon]\nprofile-groups = 1video\n", "p.conf:2: '1video' is not a group name" },
        { DEVICES "[profile x]\ngpu.governor = powersave # low\n", "p.conf:11: '#' starts a comment only" },
        /* The governor's cross rule, over the set the daemon would apply: the profile's lines over the
         * configured values, or the defaults of the governor the profile switches to. */
        { DEVICES "[profile x]\ngpu.upthreshold = 5\ngpu.downdifferential = 50\n",
          "p.conf:12: profile x, device 'gpu': the tunables of governor simple_ondemand do not fit together: "
          "upthreshold = 5, downdifferential = 50" },
        { DEVICES
          "[profile quiet]\ngpu.governor = conservative\ngpu.up_threshold = 15\ngpu.max-frequency = 400MHz\n",
          "p.conf:12: profile quiet, device 'gpu': the tunables of governor conservative do not fit together: "
          "up_threshold = 15, down_threshold = 20, freq_step = 5, sampling_down_factor = 1" },
        { GPU_ONLY "downdifferential = 30\n[profile x]\ngpu.upthreshold = 20\n",
          "p.conf:9: profile x, device 'gpu': the tunables of governor simple_ondemand do not fit together: "
          "upthreshold = 20, downdifferential = 30" },
        { DEVICES "[profile x]\n*.up_threshold = 15\n*.governor = conservative\n",
          "p.conf:11: profile x, device 'gpu': the tunables of governor conservative do not fit together: "
          "up_threshold = 15, down_threshold = 20" },
        { DEVICES "[profile x]\n*.governor = conservative\ngpu.upthreshold = 50\n",
          "p.conf:12: 'upthreshold' is not a tunable of governor conservative, which device 'gpu' runs" },
};

START_TEST(test_bad) {
        struct df_config_errors e = {};
        struct df_config *c = load(bad[_i].text, &e);

        for (size_t i = 0; i < e.n; i++)
                fprintf(stderr, "# %s\n", e.messages[i]);
        ck_assert_ptr_null(c);
        ck_assert_uint_eq(e.n, 1);
        ck_assert_msg(
                strncmp(e.messages[0], bad[_i].error, strlen(bad[_i].error)) == 0, "got %s", e.messages[0]);
        df_config_errors_done(&e);
}
END_TEST

/* Sets that fit only together, or only over the defaults of the profile's own governor. */
START_TEST(test_tunable_sets) {
        struct df_config *c = load_ok(
                GPU_ONLY
                "downdifferential = 30\nupthreshold = 95\n"
                "[profile a]\ngpu.downdifferential = 95\ngpu.upthreshold = 100\n"
                "[profile b]\ngpu.governor = conservative\ngpu.up_threshold = 15\ngpu.down_threshold = 10\n"
                "[profile c]\n*.upthreshold = 40\ngpu.governor = conservative\n*.up_threshold = 60\n"
                "[profile d]\ngpu.governor = simple_ondemand\ngpu.upthreshold = 40\n");

        ck_assert_uint_eq(c->n_profiles, 4);
        df_config_free(c);
}
END_TEST

/* An unconfigured name is fine while devices are autodiscovered: it may appear later. */
START_TEST(test_autodiscovered_name) {
        struct df_config *c = load_ok("[profile x]\nnpu.governor = powersave\nnpu.max-frequency = 1GHz\n");

        ck_assert_uint_eq(c->profiles[0].n_lines, 2);
        df_config_free(c);
}
END_TEST

static struct df_device_spec spec(const char *name, enum df_mode mode) {
        return (struct df_device_spec){
                .name = (char *) name,
                .mode = mode,
                .governor = mode == DF_MODE_GOVERN ? &df_governor_simple_ondemand : NULL,
                .load = DF_LOAD_PERCENT,
                .min_freq = 0,
                .max_freq = UINT64_MAX,
        };
}

static bool offers_powersave(const char *name, void *userdata) {
        return streq(name, "powersave");
}

START_TEST(test_decide) {
        struct df_config *c = load_ok(
                "[profile p]\ngpu.governor = ondemand\ngpu.max-frequency = 400MHz\n*.max-frequency = 1.2GHz\n"
                "*.min-frequency = 100MHz\ngpu.min-frequency = 0\n*.upthreshold = 70\n*.governor = powersave\n"
                "cpu.up_threshold = 95\ncpu.governor = simple_ondemand\ngpu.up_threshold = 80\n");
        const struct df_config_profile *p = &c->profiles[0];
        struct df_device_spec gpu = spec("gpu", DF_MODE_GOVERN), npu = spec("npu", DF_MODE_GOVERN),
                              dmc = spec("dmc", DF_MODE_CLAMP), cpu = spec("cpu", DF_MODE_GOVERN);
        struct df_profile_decision d;
        struct df_profile_skips skips;
        int k;

        /* Named lines win over '*' for their key; '*' fills the others. */
        df_profile_decide(p, &gpu, &df_governor_simple_ondemand, NULL, NULL, &d, &skips);
        ck_assert(d.governor_set);
        ck_assert_ptr_eq(d.governor, &df_governor_ondemand);
        ck_assert_uint_eq(d.max_freq, MHZ(400));
        ck_assert_uint_eq(d.min_freq, 0);
        k = df_governor_tunable_index(&df_governor_ondemand, "up_threshold");
        ck_assert_int_ge(k, 0);
        ck_assert(df_profile_sets_tunable(&d, &df_governor_ondemand, "up_threshold"));
        ck_assert_uint_eq(d.tunable_mask, 1u << k);
        ck_assert_uint_eq(d.tunables[k], 80);
        ck_assert_uint_eq(skips.n_skipped, 1); /* *.upthreshold: ondemand has no such tunable */
        ck_assert_str_eq(skips.skipped, "profile p: upthreshold is not a tunable of governor ondemand");
        ck_assert_str_eq(skips.error, "");

        /* '*' alone: powersave has no upthreshold, so that line is skipped, quietly. */
        df_profile_decide(p, &npu, &df_governor_simple_ondemand, NULL, NULL, &d, &skips);
        ck_assert_ptr_eq(d.governor, &df_governor_powersave);
        ck_assert_uint_eq(d.tunable_mask, 0);
        ck_assert_uint_eq(skips.n_skipped, 1);
        ck_assert_str_eq(skips.error, "");
        ck_assert_uint_eq(d.max_freq, MHZ(1200));
        ck_assert_uint_eq(d.min_freq, MHZ(100));

        /* Clamp mode: a kernel governor the node offers; tunables do not apply. */
        df_profile_decide(p, &dmc, NULL, offers_powersave, NULL, &d, &skips);
        ck_assert(d.governor_set);
        ck_assert_str_eq(d.kernel_governor, "powersave");
        ck_assert_uint_eq(d.tunable_mask, 0);
        df_profile_decide(p, &dmc, NULL, NULL, NULL, &d, &skips);
        ck_assert_str_eq(d.kernel_governor, "powersave");

        /* A named line that does not apply is recorded (LastError); the rest still applies. */
        df_profile_decide(p, &cpu, &df_governor_powersave, NULL, NULL, &d, &skips);
        ck_assert_ptr_eq(d.governor, &df_governor_simple_ondemand);
        ck_assert_str_eq(skips.error, "profile p: up_threshold is not a tunable of governor simple_ondemand");
        ck_assert(df_profile_sets_tunable(&d, &df_governor_simple_ondemand, "upthreshold"));
        ck_assert_uint_eq(
                d.tunables[df_governor_tunable_index(&df_governor_simple_ondemand, "upthreshold")], 70);

        /* A governor the device cannot run: without a load source, nothing that polls. */
        gpu.load = DF_LOAD_NONE;
        df_profile_decide(p, &gpu, &df_governor_powersave, NULL, NULL, &d, &skips);
        ck_assert(!d.governor_set);
        ck_assert_str_eq(skips.error, "profile p: governor ondemand cannot run on this device");

        /* None: nothing set. */
        df_profile_decide(NULL, &npu, &df_governor_simple_ondemand, NULL, NULL, &d, &skips);
        ck_assert(!d.governor_set);
        ck_assert_uint_eq(d.min_freq, 0);
        ck_assert_uint_eq(d.max_freq, UINT64_MAX);
        df_config_free(c);
}
END_TEST

/* The set a decision gives: the profile's values over the saved ones, over the configured ones where
 * those do not fit, or nothing. */
START_TEST(test_tunables) {
        const struct df_governor_ops *ops = &df_governor_simple_ondemand;
        struct df_profile_decision d = { .tunable_mask = 1u << 0, .tunables = { 50 } }; /* upthreshold 50 */
        const uint32_t saved[] = { 90, 30 }, conflict[] = { 90, 60 }, configured[] = { 90, 5 };
        uint32_t ret[DF_GOVERNOR_TUNABLES_MAX] = { 7, 7, 7 }, keep[DF_GOVERNOR_TUNABLES_MAX];

        df_profile_overlay_tunables(&d, ops, conflict, ret);
        ck_assert_uint_eq(ret[0], 50);
        ck_assert_uint_eq(ret[1], 60);

        ck_assert_int_eq(df_profile_tunables(&d, ops, saved, configured, ret), 0);
        ck_assert_uint_eq(ret[0], 50);
        ck_assert_uint_eq(ret[1], 30);
        ck_assert_uint_eq(ret[2], 7); /* only the governor's tunables are written */

        /* A saved downdifferential 60 does not fit under the profile's upthreshold 50: the configured 5. */
        ck_assert_int_eq(df_profile_tunables(&d, ops, conflict, configured, ret), 1);
        ck_assert_uint_eq(ret[0], 50);
        ck_assert_uint_eq(ret[1], 5);

        /* Not even over the configured values: -ERANGE, and nothing written. */
        d.tunables[0] = 4;
        memcpy(keep, ret, sizeof(keep));
        ck_assert_int_eq(df_profile_tunables(&d, ops, conflict, configured, ret), -ERANGE);
        ck_assert_mem_eq(ret, keep, sizeof(keep));

        /* No tunable in the decision: the saved ones as they are. */
        d.tunable_mask = 0;
        ck_assert_int_eq(df_profile_tunables(&d, ops, saved, configured, ret), 0);
        ck_assert_uint_eq(ret[1], 30);
        ck_assert_int_eq(df_profile_tunables(&d, &df_governor_performance, NULL, NULL, NULL), 0);
}
END_TEST

static Suite *suite(void) {
        Suite *s = suite_create("profile");
        TCase *tc = tcase_create("profile");

        tcase_add_test(tc, test_model);
        tcase_add_loop_test(tc, test_bad, 0, (int) ELEMENTSOF(bad));
        tcase_add_test(tc, test_tunable_sets);
        tcase_add_test(tc, test_autodiscovered_name);
        tcase_add_test(tc, test_decide);
        tcase_add_test(tc, test_tunables);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return df_test_run(suite());
}
