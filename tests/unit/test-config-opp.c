/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The operating-point lines (lib/config-opp.c): opp, opp-disabled and passive-map. */

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
        { DEV "opp-disabled = 800MHz x\n", { "bad.conf:3: 'x' is not a frequency" } },
        /* passive */
        { DEV "passive-map = 200MHz\n", { "bad.conf:3: '200MHz' is not a PARENT:CHILD frequency pair" } },
        { DEV "passive-map = 200MHz:100MHz:50MHz\n",
          { "bad.conf:3: '200MHz:100MHz:50MHz' is not a PARENT:CHILD" } },
        { DEV "passive-map = 200MHz:fast\n", { "bad.conf:3: 'fast' is not a frequency" } },
        { DEV "passive-map = 200MHz:100MHz 200MHz:200MHz\n",
          { "bad.conf:3: passive-map names the parent frequency 200 MHz twice" } },
};

static Suite *suite(void) {
        Suite *s = suite_create("config-opp");

        config_add_bad_input(s, bad_cases, ELEMENTSOF(bad_cases));
        return s;
}

int main(void) {
        return df_test_run(suite());
}
