/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Validation of the whole configuration (lib/config-validate.c): paths, operating points,
 * ranges, governors and their load sources, tunables, passive parents. */

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

/* --- errors: table-driven --------------------------------------------------------------------- */

static const struct bad_case bad_cases[] = {
        /* paths */
        { "[device gpu]\nmode = clamp\n", { "bad.conf:1: device 'gpu' has no path" } },
        { DEV "[device gpu2]\npath = /sys/class/devfreq/gpu/\n",
          { "bad.conf:4: device 'gpu2' has the same path as device 'gpu' (bad.conf:2)" } },
        /* opp lines */
        { DEV "opp = 200MHz\nopp = 300MHz\nopp = 200MHz 900mV\n",
          { "bad.conf:5: operating point 200 MHz is listed twice (first at bad.conf:3)" } },
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
        { DEV "opp = 200MHz\nopp = 400MHz\n"
              "[device dmc]\npath = /sys/class/devfreq/dmc\nmode = govern\ngovernor = passive\nparent = gpu\n"
              "passive-map = 200MHz:100MHz 300MHz:200MHz\n",
          { "bad.conf:10: passive-map: 300 MHz is not an operating point of parent 'gpu'" } },
        { DEV "[device dmc]\npath = /sys/class/devfreq/dmc\nmode = govern\ngovernor = passive\nparent = gpu\n"
              "opp = 100MHz\npassive-map = 200MHz:150MHz\n",
          { "bad.conf:9: passive-map: 150 MHz is not an operating point of device 'dmc'" } },
};

static Suite *suite(void) {
        Suite *s = suite_create("config-validate");

        config_add_bad_input(s, bad_cases, ELEMENTSOF(bad_cases));
        return s;
}

int main(void) {
        return df_test_run(suite());
}
