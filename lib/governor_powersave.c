/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* powersave: always the lowest frequency the range allows. */

#include "governor.h"

/* kernel: devfreq_powersave_func(), DEVFREQ_MIN_FREQ */
static uint64_t powersave_get_target(struct df_governor *g, const struct df_governor_input *in) {
        return 0;
}

const struct df_governor_ops df_governor_powersave = {
        .name = "powersave",
        .get_target = powersave_get_target,
};
