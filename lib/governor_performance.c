/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* performance: always the highest frequency the range allows. */

#include "governor.h"

/* kernel: devfreq_performance_func() */
static uint64_t performance_get_target(struct df_governor *g, const struct df_governor_input *in) {
        return DF_FREQ_MAX;
}

const struct df_governor_ops df_governor_performance = {
        .name = "performance",
        .get_target = performance_get_target,
};
