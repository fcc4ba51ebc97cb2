/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* userspace: the frequency a client set with SetFrequency (df_governor_userspace_set()). */

#include "governor.h"

/*
 * kernel: devfreq_userspace_func(). Before any SetFrequency, and again after a restart (which
 * zeroes the state, as the kernel's GOV_START allocates it with valid = false), the frequency
 * in force stays.
 */
static uint64_t userspace_get_target(struct df_governor *g, const struct df_governor_input *in) {
        return g->state.userspace.valid ? g->state.userspace.freq : in->current;
}

const struct df_governor_ops df_governor_userspace = {
        .name = "userspace",
        .get_target = userspace_get_target,
};
